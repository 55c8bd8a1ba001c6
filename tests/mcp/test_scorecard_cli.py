"""``toolscore mcp test`` through the real CLI (a subprocess, as a user or a CI job runs it)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

SERVERS = Path(__file__).resolve().parent / "servers"
SAMPLE = shlex.join([sys.executable, "-m", "toolscore_mcp.sample_server"])
CLEAN = shlex.join([sys.executable, str(SERVERS / "scorecard_faulty_server.py"), "--tools", "ok_echo"])
POISONED = shlex.join([sys.executable, str(SERVERS / "lint_poisoned_server.py")])


def toolscore(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    full_env.update(env or {})
    proc = subprocess.run([sys.executable, "-m", "toolscore_core.cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env=full_env, encoding="utf-8")
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout, proc.stderr
    return proc


def test_sample_server_figures_with_allow_destructive(tmp_path: Path) -> None:
    proc = toolscore("mcp", "test", SAMPLE, "--allow-destructive", "--concurrency", "4", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Grade B   Score 87%" in proc.stdout and "happy 80%  |  edge 100%  |  lint 93%" in proc.stdout
    assert "│ export_notes │       3/6 │" in proc.stdout


def test_destructive_tool_is_skipped_by_default(tmp_path: Path) -> None:
    proc = toolscore("mcp", "test", SAMPLE, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "│ delete_note  │   skipped │           - │          52 │" in proc.stdout
    assert "delete_note: destructive: not called without --allow-destructive." in proc.stdout
    # create_note writes: skipped as well (issue 8 item 22); 6 of 9 happy-path calls, export_notes fails 3
    assert "create_note: writes (creates or changes data): not called without --allow-destructive." in proc.stdout
    assert "happy 67%" in proc.stdout


def test_markdown_report_has_the_seed_shape(tmp_path: Path) -> None:
    target = tmp_path / "out" / "SCORECARD.md"
    proc = toolscore("mcp", "test", SAMPLE, "--allow-destructive", "--report", "md", "--output", str(target))
    assert proc.returncode == 0, proc.stderr
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# MCP Scorecard\n\nServer: `notes-server 1.0.0`\n\n**Grade: B** &middot; Score 87%\n")
    for line in ("- Happy-path pass rate: 80%", "- Edge-case resilience: 100%",
                 "- Lint score: 93% (1 errors, 1 warnings)",
                 "- Tool-definition tokens (estimated): ~303 across 5 tool(s)",
                 "## Tools", "| Tool | Scenarios | Avg latency | Def. tokens |", "## Top issues to fix"):
        assert line in text
    assert "| `export_notes` | 3/6 |" in text and "| `create_note` | 6/6 |" in text
    bullets = [line for line in text.splitlines() if line.startswith("- **`")]
    assert bullets[0].startswith("- **`export_notes`** — fails on valid input (export failed: storage backend "
                                 "not configured). _Fix:_ The tool errors on well-formed arguments")
    assert bullets[1].startswith("- **`delete_note`** — property 'note_id' is missing a 'type'. _Fix:_ ")
    # "<" is written as an entity (no raw HTML in a report); it renders as "<"
    assert bullets[2].startswith("- **`search_notes`** — description is very short (&lt; 10 chars). _Fix:_ ")
    assert "Grade B" in proc.stdout  # the console scorecard is printed as well
    assert f"report written to {target}" in proc.stderr


def test_json_report_is_a_complete_record(tmp_path: Path) -> None:
    proc = toolscore("mcp", "test", SAMPLE, "--allow-destructive", "--report", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["schema_version"] == "1" and data["kind"] == "toolscore.mcp.scorecard"
    assert (data["grade"], round(data["score"], 3), data["happy"], data["edge"]) == ("B", 0.866, 0.8, 1.0)
    assert len(data["results"]) == 30 and data["definition_tokens"] == 303
    failed = {(r["scenario"]["tool"], r["scenario"]["kind"]) for r in data["results"] if not r["passed"]}
    assert failed == {("export_notes", "required_only"), ("export_notes", "enum_value")}
    assert [f["code"] for f in data["top_issues"]] == ["fails-on-valid-input", "schema-missing-type",
                                                       "description-too-short"]


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.external: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("src", "href") and value and "://" in value:
                self.external.append(value)
        if tag == "script":
            self.external.append("script")

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_html_report_is_self_contained(tmp_path: Path) -> None:
    target = tmp_path / "scorecard.html"
    proc = toolscore("mcp", "test", SAMPLE, "--allow-destructive", "-o", str(target))
    assert proc.returncode == 0, proc.stderr
    page = target.read_text(encoding="utf-8")
    parser = _Collector()
    parser.feed(page)
    text = " ".join(parser.text)
    assert parser.external == []
    assert "MCP Scorecard: notes-server 1.0.0" in text and "Score 87%" in text
    assert "export failed: storage backend not configured" in text
    assert "<span class='grade g-B'>B</span>" in page
    assert "Failed calls (3 of 30)" in text and text.count("isError on valid input") == 3


@pytest.mark.slow
def test_html_report_renders_in_a_real_browser(tmp_path: Path) -> None:
    import shutil

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.fail("chromium is not installed: run `make browser`", pytrace=False)
    target = tmp_path / "scorecard.html"
    assert toolscore("mcp", "test", SAMPLE, "--allow-destructive", "-o", str(target)).returncode == 0
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", target.as_uri()],
                         capture_output=True, text=True, timeout=60)
    assert "MCP Scorecard: notes-server 1.0.0" in dom.stdout
    assert "export_notes" in dom.stdout and "Top issues to fix" in dom.stdout


@pytest.mark.parametrize(("bar", "code"), [("A", 1), ("b", 0), ("F", 0)])
def test_fail_under(bar: str, code: int, tmp_path: Path) -> None:
    proc = toolscore("mcp", "test", SAMPLE, "--allow-destructive", "--fail-under", bar, cwd=tmp_path)
    assert proc.returncode == code, proc.stderr
    if code:
        assert "toolscore: FAIL: grade B is below --fail-under A" in proc.stderr


def test_ci_writes_the_verdict_to_the_job_summary_and_fails_on_blocking_issues(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    proc = toolscore("mcp", "test", SAMPLE, "--allow-destructive", "--ci", cwd=tmp_path,
                     env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert proc.returncode == 1
    assert "2 blocking issue(s)" in proc.stderr
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n## ❌ MCP server check failed\n")  # appended, not replaced
    assert "### MCP Scorecard\n\nServer: `notes-server 1.0.0`" in text and "**Grade: B**" in text


@pytest.mark.slow
def test_ci_passes_a_clean_server_and_works_without_a_summary_file(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    passed = toolscore("mcp", "test", CLEAN, "--ci", "--fail-under", "A", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert passed.returncode == 0, passed.stderr
    assert summary.read_text(encoding="utf-8").startswith("## ✅ MCP server check passed")
    assert "Grade A   Score 100%" in passed.stdout
    quiet = tmp_path / "no-summary"
    quiet.mkdir()
    no_file = toolscore("mcp", "test", SAMPLE, "--ci", cwd=quiet)
    assert no_file.returncode == 1 and not list(quiet.iterdir())


def test_poisoned_server_is_never_an_a(tmp_path: Path) -> None:
    proc = toolscore("mcp", "test", POISONED, "--report", "json", cwd=tmp_path)
    data = json.loads(proc.stdout)
    assert data["grade"] in ("C", "D", "F")
    poison = [f for f in data["findings"] if f["code"].startswith("poison-") and f["severity"] == "error"]
    assert poison and data["top_issues"][0]["code"].startswith("poison-")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nonexistent-command-xyz"], "command not found: nonexistent-command-xyz"),
        ([SAMPLE, "--fail-under", "E"], "--fail-under 'E' is not a grade"),
        ([SAMPLE, "--scenarios", "1"], "--scenarios 1 is too small"),
        ([SAMPLE, "--scenarios", "lots"], "is not a number"),
        ([SAMPLE, "--report", "pdf"], "--report 'pdf' is not an installed scorecard report format"),
        ([SAMPLE, "-o", "report.docx"], "cannot tell the report format"),
        ([], "no server given"),
        (["--server", "x"], "--server needs --config FILE"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str, installed_plugin_manager: Any) -> None:
    # in-process (click's runner) to keep this table fast; the subprocess tests above cover the real entry point
    from click.testing import CliRunner

    from toolscore_core.cli import App, cli

    result = CliRunner().invoke(cli, ["mcp", "test", *args], obj=App(pm=installed_plugin_manager))
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stderr.startswith("toolscore: error: ") and message in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_config_file_entry_and_all_scenarios(tmp_path: Path) -> None:
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(json.dumps({"mcpServers": {"notes": {
        "command": sys.executable, "args": ["-m", "toolscore_mcp.sample_server"]}}}), encoding="utf-8")
    proc = toolscore("mcp", "test", "--config", str(config), "--server", "notes", "--scenarios", "all",
                     "--report", "json", "--allow-destructive", cwd=tmp_path)  # create_note writes
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["server_name"] == "notes-server"
    assert len(data["results"]) > 30  # every generated scenario, not six per tool
    kinds = {r["scenario"]["kind"] for r in data["results"]}
    assert {"huge_string", "unicode", "empty_string", "unknown_property"} <= kinds
    huge = next(r for r in data["results"] if r["scenario"]["kind"] == "huge_string")
    assert "100,000 characters" in json.dumps(huge["scenario"]["args"])  # clipped in the record


def test_unwritable_output_is_an_input_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    proc = toolscore("mcp", "test", SAMPLE, "-o", str(blocker / "report.md"), cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith("toolscore: error: ") and "cannot write the report" in proc.stderr


def test_target_words_after_a_double_dash_are_a_command(tmp_path) -> None:
    """`toolscore mcp test -- CMD ARGS...` works like `mcp list` and `mcp lint` do."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "toolscore_core.cli", "mcp", "test", "--report", "json", "--allow-destructive",
         "--", sys.executable, "-m", "toolscore_mcp.sample_server"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert '"notes-server"' in done.stdout
