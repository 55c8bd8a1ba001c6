"""``toolscore mcp lint`` through the real CLI (a subprocess, as a user runs it) against real
servers: our poisoned server, the npm reference servers over stdio and Streamable HTTP,
and saved tool lists."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

SERVERS = Path(__file__).resolve().parent / "servers"
POISONED = [sys.executable, str(SERVERS / "lint_poisoned_server.py")]
CAPABILITY_GATED = {"get-roots-list", "trigger-sampling-request", "trigger-elicitation-request"}


def toolscore(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolscore_core.cli", *args], capture_output=True, text=True,
                          timeout=90, cwd=cwd, encoding="utf-8")


def command(argv: list[str]) -> str:
    import shlex

    return shlex.join(argv)


def no_traceback(proc: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout


def test_poisoned_server_reproduces_the_seed_example(tmp_path: Path) -> None:
    proc = toolscore("mcp", "lint", command(POISONED), cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 1, proc.stderr  # poisoning findings are errors
    assert re.search(r"│ warning\s+│ label_write\s+│ refers to tool 'update_issue', which this server does not "
                     r"expose\s+│ reference-unknown-tool\s+│", proc.stdout), proc.stdout
    for code in ("poison-hidden-unicode", "poison-instruction-override", "poison-hide-from-user",
                 "poison-sensitive-file", "poison-important-block", "description-unknown-parameter",
                 "schema-missing-type", "description-too-short", "schema-untyped-array"):
        assert code in proc.stdout, code
    assert "'ignore previous instructions'" in proc.stdout  # decoded tag characters
    assert "search_code" not in proc.stdout and "issue_read" not in proc.stdout  # clean tools stay clean
    assert "poisoned-github 1.12.2: 8 tools" in proc.stdout


def test_clean_server_passes(tmp_path: Path) -> None:
    proc = toolscore("mcp", "lint", command([*POISONED, "--clean"]), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "No findings." in proc.stdout and "lint score 100%" in proc.stdout


@pytest.mark.e2e
@pytest.mark.slow
def test_filesystem_reference_server(tmp_path: Path, filesystem_command) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "root"
    root.mkdir()
    proc = toolscore("mcp", "lint", command(filesystem_command(root)), "--report", "json", cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["server"]["name"] == "secure-filesystem-server" and data["counts"]["error"] == 0
    bare = {f["tool"]: f["details"]["parameters"] for f in data["findings"]
            if f["code"] == "parameter-description-missing"}
    assert "path" in bare["read_text_file"] and "path" in bare["write_file"]
    assert "head" not in bare["read_text_file"]  # head and tail are described
    assert not [f for f in data["findings"] if f["code"].startswith(("reference-", "poison-", "description-unknown"))]
    assert {f["code"] for f in data["findings"]} <= {"parameter-description-missing", "compat-claude-code-output-schema"}
    assert 0.7 < data["score"] < 0.95


@pytest.mark.e2e
@pytest.mark.slow
def test_everything_reference_server_and_the_third_party_rule(tmp_path: Path, everything_command) -> None:  # type: ignore[no-untyped-def]
    proc = toolscore("mcp", "lint", command(everything_command), cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    # examples/third_party_plugin's rule runs next to the built-in ones (the tool names are kebab-case)
    assert re.search(r"│ info\s+│ get-env\s+│ tool name 'get-env' is not snake_case\s+│ example-snake-case-names", proc.stdout)
    # What it finds: the instructions name three tools the server lists only to clients that
    # offer roots/sampling/elicitation, and an "Easter Egg" that scripts the model's reply.
    stale = set(re.findall(r"refers to tool '([\w-]+)', which this server does not expose \(in the server instructions\)",
                           proc.stdout))
    assert stale and stale <= CAPABILITY_GATED
    assert "poison-scripted-reply" in proc.stdout
    assert "poison-hidden-unicode" not in proc.stdout and "poison-instruction-override" not in proc.stdout


@pytest.mark.e2e
@pytest.mark.slow
def test_memory_reference_server(tmp_path: Path, memory_command) -> None:  # type: ignore[no-untyped-def]
    argv, env = memory_command
    proc = toolscore("mcp", "lint", command(["env", *(f"{k}={v}" for k, v in env.items()), *argv]),
                     "--report", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["server"]["tools"] == 9 and data["counts"]["error"] == 0
    assert not [f for f in data["findings"] if f["code"].startswith(("reference-", "poison-"))]


@pytest.mark.e2e
@pytest.mark.slow
def test_everything_over_streamable_http(tmp_path: Path, everything_http: str) -> None:
    proc = toolscore("mcp", "lint", everything_http, "--report", "json", "--disable", "example-snake-case-names",
                     cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["server"]["name"] == "mcp-servers/everything" and data["counts"]["error"] == 0
    assert "example-snake-case-names" in data["disabled"]


def saved_github(tmp_path: Path) -> Path:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"serverInfo": {"name": "github-mcp-server", "version": "1.12.2"}, "tools": [
        {"name": "label_write", "description": "To set labels on issues, use the 'update_issue' tool.",
         "inputSchema": {"type": "object", "properties": {}}},
        {"name": "issue_write", "description": "Create or update an issue.",
         "inputSchema": {"type": "object", "properties": {"title": {"type": "string", "description": "Title"}},
                         "required": ["title"]}},
    ]}), encoding="utf-8")
    return path


def test_from_json_severity_override_and_sarif_file(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    saved_github(tmp_path)
    ok = run_cli("mcp", "lint", "--from-json", "tools.json")
    assert ok.exit_code == 0 and "update_issue" in ok.stdout, ok.output
    strict = run_cli("mcp", "lint", "--from-json", "tools.json", "--severity", "reference-unknown-tool=error")
    assert strict.exit_code == 1 and "│ error " in strict.stdout
    off = run_cli("mcp", "lint", "--from-json", "tools.json", "--severity", "reference-unknown-tool=off")
    assert off.exit_code == 0 and "update_issue" not in off.stdout
    sarif = run_cli("mcp", "lint", "--from-json", "tools.json", "--report", "sarif", "-o", "out/lint.sarif")
    assert sarif.exit_code == 0 and "report written to out/lint.sarif" in sarif.stderr
    data = json.loads((tmp_path / "out" / "lint.sarif").read_text(encoding="utf-8"))
    result = data["runs"][0]["results"][0]
    assert result["ruleId"] == "reference-unknown-tool"
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "tools.json"


@pytest.mark.slow
def test_baseline_round_trip_through_the_cli(tmp_path: Path) -> None:
    target = command(POISONED)
    wrote = toolscore("mcp", "lint", target, "--baseline", "known.json", "--update-baseline", cwd=tmp_path)
    assert wrote.returncode == 0 and "wrote 11 finding(s) to the baseline known.json" in wrote.stderr, wrote.stderr
    again = toolscore("mcp", "lint", target, "--baseline", "known.json", cwd=tmp_path)
    assert again.returncode == 0, again.stdout
    assert "No new findings." in again.stdout and "11 known finding(s) accepted by the baseline" in again.stdout
    # forget one accepted error: it is new again, and fails the run
    baseline = json.loads((tmp_path / "known.json").read_text(encoding="utf-8"))
    baseline["findings"] = [e for e in baseline["findings"] if e["rule"] != "poison-hide-from-user"]
    (tmp_path / "known.json").write_text(json.dumps(baseline), encoding="utf-8")
    later = toolscore("mcp", "lint", target, "--baseline", "known.json", "--report", "json", cwd=tmp_path)
    assert later.returncode == 1
    assert [f["code"] for f in json.loads(later.stdout)["findings"]] == ["poison-hide-from-user"]


def test_config_file_in_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / "toolscore-lint.yaml").write_text(
        "lint:\n  disable: [poison-hidden-unicode, poison-instruction-override, poison-hide-from-user,"
        " poison-sensitive-file]\n  severity:\n    schema-missing-type: warning\n", encoding="utf-8")
    proc = toolscore("mcp", "lint", command(POISONED), "--report", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(proc.stdout)
    assert data["counts"]["error"] == 0
    assert {"poison-hidden-unicode", "poison-hide-from-user"} <= set(data["disabled"])


def test_baseline_named_in_the_config_file(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    saved_github(tmp_path)
    (tmp_path / "toolscore-lint.yaml").write_text("baseline: ci/lint-baseline.json\n", encoding="utf-8")
    wrote = run_cli("mcp", "lint", "--from-json", "tools.json", "--update-baseline")
    assert wrote.exit_code == 0 and (tmp_path / "ci" / "lint-baseline.json").is_file(), wrote.output
    again = run_cli("mcp", "lint", "--from-json", "tools.json", "--severity", "reference-unknown-tool=error")
    assert again.exit_code == 0 and "1 known finding(s) accepted by the baseline" in again.stdout


def test_list_rules_names_each_rule_and_its_distribution(tmp_path: Path) -> None:
    proc = toolscore("mcp", "lint", "--list-rules", cwd=tmp_path)
    assert proc.returncode == 0
    assert re.search(r"example-snake-case-names\s+info\s+toolscore-example-plugin", proc.stdout)
    assert re.search(r"poison-hidden-unicode\s+error\s+toolscore-mcp", proc.stdout)


@pytest.fixture
def run_cli(installed_plugin_manager, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """The CLI in-process (same code path as the subprocess, minus interpreter start-up)."""
    from click.testing import CliRunner

    from toolscore_core.cli import App, cli

    monkeypatch.chdir(tmp_path)

    def run(*args: str):  # type: ignore[no-untyped-def]
        return CliRunner().invoke(cli, list(args), obj=App(pm=installed_plugin_manager))

    return run


@pytest.mark.parametrize(("args", "message"), [
    (["definitely-not-a-command-xyz"], "definitely-not-a-command-xyz"),
    (["--from-json", "missing.json"], "missing.json: file not found"),
    (["--from-json", "tools.json", "--severity", "reference-unknown-tool"], "is not RULE=LEVEL"),
    (["--from-json", "tools.json", "--disable", "reference-unknwn-tool"], "did you mean 'reference-unknown-tool'"),
    (["--from-json", "tools.json", "--report", "pdf"], "--report 'pdf' is not an installed lint report format"),
    (["--from-json", "tools.json", "--update-baseline"], "--update-baseline needs --baseline FILE"),
    (["--from-json", "tools.json", "--baseline", "nope.json"], "baseline file not found"),
    (["--from-json", "tools.json", "python x.py"], "either --from-json FILE or a server"),
    ([], "no server given"),
])
def test_input_errors_exit_2_with_one_line(run_cli, tmp_path: Path, args: list[str], message: str) -> None:  # type: ignore[no-untyped-def]
    saved_github(tmp_path)
    result = run_cli("mcp", "lint", *args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("toolscore: error:") and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_server_that_exits_early_is_exit_2(tmp_path: Path) -> None:
    proc = toolscore("mcp", "lint", command([sys.executable, "-c", "import sys; sys.exit(3)"]), "--timeout", "10",
                     cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 2 and proc.stderr.startswith("toolscore: error:"), proc.stderr


def test_bundled_sample_server_lints_like_the_seed_scorecard(tmp_path: Path) -> None:
    proc = toolscore("mcp", "lint", "--", sys.executable, "-m", "toolscore_mcp.sample_server", cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 1, proc.stderr
    assert "notes-server 1.0.0: 5 tools, lint score 93% (1 errors, 1 warnings, 0 info)" in proc.stdout
    assert re.search(r"│ error\s+│ delete_note\s+│ property 'note_id' is missing a 'type'", proc.stdout)
    assert re.search(r"│ warning\s+│ search_notes\s+│ description is very short \(< 10 chars\)", proc.stdout)


def test_help_lists_the_options(run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("mcp", "lint", "--help")
    assert result.exit_code == 0
    for option in ("--from-json", "--report", "--baseline", "--update-baseline", "--severity", "--disable",
                   "--lint-config", "--sarif-artifact", "--config", "--server"):
        assert option in result.output


def test_claude_desktop_config_entry_and_sarif_artifact(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(json.dumps({"mcpServers": {"gh": {"command": POISONED[0], "args": POISONED[1:]}}}),
                      encoding="utf-8")
    result = run_cli("mcp", "lint", "--config", "claude_desktop_config.json", "--server", "gh", "--report", "sarif")
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in data["runs"][0]["results"]}
    assert uris == {"claude_desktop_config.json"}
    assert {r["ruleId"] for r in data["runs"][0]["results"]} >= {"reference-unknown-tool", "poison-hidden-unicode"}
