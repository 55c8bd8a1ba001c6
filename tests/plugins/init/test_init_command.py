"""``toolscore init`` as a user runs it: what it detects and prints, the files it writes,
never overwriting without --force, --dry-run, the 1.10.0 option spellings, and bad input
as one line and exit 2."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from toolscore_pytest.init.frameworks import FRAMEWORKS, lookup

TEST_FILE = "tests/test_toolscore_snapshots.py"
WORKFLOW = ".github/workflows/toolscore.yml"
README = ".toolscore/README.md"
NEXT = "Next: run `pytest` (in "
ALL_FILES = [TEST_FILE, WORKFLOW, README]


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


@pytest.mark.parametrize("key", ["openai", "anthropic", "langgraph", "pydantic_ai", "openai_agents",
                                 "claude_agent_sdk", "crewai", "mcp"])
def test_detects_and_scaffolds_each_framework(tmp_path: Path, key: str, init_cli: Callable[..., Any],
                                              projects: dict[str, tuple[str, str]]) -> None:
    (tmp_path / "agent.py").write_text(projects[key][0])
    result = init_cli(str(tmp_path))
    assert result.exit_code == 0, result.output
    label = lookup(key).label  # type: ignore[union-attr]
    assert f"Detected framework: {label} (import in agent.py)" in result.output
    assert _files(tmp_path) == sorted(["agent.py", *ALL_FILES])
    for name in ALL_FILES:
        assert f"  wrote      {name}\n" in result.output
    assert NEXT in result.output and "then `toolscore approve --all`." in result.output
    source = (tmp_path / TEST_FILE).read_text()
    ast.parse(source)
    assert f"Framework: {label}\n" in source and "YOUR AGENT GOES HERE" in source
    assert "def test_books_a_flight(toolscore_snapshot" in source


def test_the_sample_run_is_read_as_its_framework(tmp_path: Path) -> None:
    """Each scaffold's SAMPLE_RUN is the framework's sample, written as readable source
    that fits 88 columns, and auto-detected as that framework's own format (so the
    snapshot shows the framework's real shape, not a generic list)."""
    from toolscore_pytest.init.templates import render_test

    from toolscore_core.kernel.traces import load_trace

    for framework in FRAMEWORKS:
        source = render_test(framework)
        assert max(len(line) for line in source.splitlines()) <= 88, framework.key  # ruff/black default
        namespace: dict[str, Any] = {}
        exec(compile(source, f"{framework.key}.py", "exec"), namespace)
        assert namespace["SAMPLE_RUN"] == framework.sample
        trace = load_trace(namespace["run_agent"]("book a flight to NYC"))
        assert trace.source_format == framework.trace_format, framework.key
        assert [(c.tool, c.args) for c in trace.calls] == [("search_flights", {"origin": "SFO", "destination": "NYC"})]


def test_several_frameworks_says_which_and_why(tmp_path: Path, init_cli: Callable[..., Any]) -> None:
    (tmp_path / "agent.py").write_text("import openai\nfrom crewai import Crew\n")
    (tmp_path / "requirements.txt").write_text("anthropic\n")
    out = init_cli(str(tmp_path), "--dry-run").output
    assert "Detected framework: CrewAI (import in agent.py)" in out
    assert "Also seen: OpenAI (raw SDK) (import in agent.py), Anthropic (raw SDK) (dependency in requirements.txt)" in out
    assert "CrewAI was chosen: agent frameworks come before provider SDKs, then plain MCP" in out


def test_nothing_detected_scaffolds_the_generic_call_list(tmp_path: Path, init_cli: Callable[..., Any]) -> None:
    result = init_cli(str(tmp_path))
    assert result.exit_code == 0
    assert "No agent framework detected: scaffolding the generic (a plain call list)" in result.output
    source = (tmp_path / TEST_FILE).read_text()
    assert '    {"tool": "search_flights", "args": {"origin": "SFO", "destination": "NYC"}},\n' in source


def test_framework_option_forces_one(tmp_path: Path, init_cli: Callable[..., Any]) -> None:
    (tmp_path / "agent.py").write_text("import openai\n")
    result = init_cli(str(tmp_path), "--framework", "Pydantic-AI")
    assert result.exit_code == 0
    assert "Framework: Pydantic AI (given with --framework)" in result.output
    assert "part_kind" in (tmp_path / TEST_FILE).read_text()


def test_unknown_framework_is_exit_2_listing_them(tmp_path: Path, init_cli: Callable[..., Any]) -> None:
    result = init_cli(str(tmp_path), "--framework", "langchain")
    assert result.exit_code == 2
    assert "unknown framework 'langchain' (--framework)" in result.output
    assert ("one of claude_agent_sdk, openai_agents, langgraph, pydantic_ai, crewai, openai, anthropic, "
            "mcp, generic") in result.output
    assert "Traceback" not in result.output and _files(tmp_path) == []


def test_never_overwrites_without_force(tmp_path: Path, init_cli: Callable[..., Any]) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / TEST_FILE).write_text("# mine\n")
    result = init_cli(str(tmp_path))
    assert result.exit_code == 0
    assert f"  skipped    {TEST_FILE} (exists; --force overwrites it)" in result.output
    assert f"  wrote      {WORKFLOW}" in result.output
    assert (tmp_path / TEST_FILE).read_text() == "# mine\n"
    again = init_cli(str(tmp_path))
    assert again.exit_code == 1
    assert "Nothing written: every file already exists (--force overwrites them)." in again.output
    assert NEXT not in again.output
    assert (tmp_path / TEST_FILE).read_text() == "# mine\n"


def test_force_overwrites(tmp_path: Path, init_cli: Callable[..., Any]) -> None:
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / WORKFLOW).write_text("name: old\n")
    result = init_cli(str(tmp_path), "--force")
    assert result.exit_code == 0
    assert f"  overwrote  {WORKFLOW} (replaced (--force))" in result.output
    assert (tmp_path / WORKFLOW).read_text().startswith("# Written by `toolscore init`")


def test_force_replaces_a_symlink_without_writing_through_it(tmp_path: Path, init_cli: Callable[..., Any]) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("keep\n")
    project = tmp_path / "p"
    (project / ".toolscore").mkdir(parents=True)
    (project / README).symlink_to(outside)
    assert init_cli(str(project)).exit_code == 0
    assert (project / README).is_symlink()  # skipped without --force
    assert init_cli(str(project), "--force").exit_code == 0
    assert not (project / README).is_symlink() and outside.read_text() == "keep\n"


def test_dry_run_writes_nothing(tmp_path: Path, init_cli: Callable[..., Any]) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / TEST_FILE).write_text("# mine\n")
    result = init_cli(str(tmp_path), "--dry-run", "--framework", "openai")
    assert result.exit_code == 0
    out = " ".join(result.output.split())
    assert f" would skip {TEST_FILE} (exists; --force overwrites it)" in out
    assert f" would write {WORKFLOW} would write {README} Dry run: nothing was written." in out
    assert _files(tmp_path) == [TEST_FILE]
    forced = init_cli(str(tmp_path), "--dry-run", "--force")
    assert f"would overwrite {TEST_FILE}" in " ".join(forced.output.split())
    assert _files(tmp_path) == [TEST_FILE] and (tmp_path / TEST_FILE).read_text() == "# mine\n"


@pytest.mark.parametrize("flag", ["--no-workflow", "--no-ci"])
def test_no_workflow(tmp_path: Path, init_cli: Callable[..., Any], flag: str) -> None:
    assert init_cli(str(tmp_path), flag).exit_code == 0
    assert _files(tmp_path) == sorted([TEST_FILE, README])


def test_tool_scorer_1_10_spellings(tmp_path: Path, init_cli: Callable[..., Any]) -> None:
    result = init_cli("--dir", str(tmp_path), "-y", "--framework", "openai_agents", "--no-ci")
    assert result.exit_code == 0
    assert _files(tmp_path) == sorted([TEST_FILE, README])
    clash = init_cli(str(tmp_path / "a"), "--dir", str(tmp_path))
    assert clash.exit_code == 2 and "name different folders" in clash.output


def test_path_must_be_a_folder(tmp_path: Path, init_cli: Callable[..., Any]) -> None:
    missing = init_cli(str(tmp_path / "nope"))
    assert missing.exit_code == 2 and "nope: folder not found" in missing.output
    (tmp_path / "f.txt").write_text("")
    not_dir = init_cli(str(tmp_path / "f.txt"))
    assert not_dir.exit_code == 2 and "f.txt: is not a folder" in not_dir.output


def test_a_file_in_the_way_is_exit_2_and_the_rest_is_written(tmp_path: Path, init_cli: Callable[..., Any]) -> None:
    (tmp_path / "tests").write_text("not a folder")
    result = init_cli(str(tmp_path))
    assert result.exit_code == 2
    assert f"  FAILED     {TEST_FILE} (tests exists and is not a folder)" in result.output
    assert _files(tmp_path) == sorted(["tests", WORKFLOW, README])
    assert "Traceback" not in result.output


def test_project_text_is_made_visible(tmp_path: Path, init_cli: Callable[..., Any]) -> None:
    (tmp_path / "ev\x1b[2Jil.py").write_text("import openai\n")
    (tmp_path / "pyproject.toml").write_text("[oops\x1b]52;c;AAAA\x07\n")
    out = init_cli(str(tmp_path), "--dry-run").output
    assert "\x1b" not in out and "\x07" not in out
    assert "Detected framework: OpenAI (raw SDK) (import in ev\\x1b[2Jil.py)" in out
    assert "warning: pyproject.toml: not readable as TOML (" in out
    bad = init_cli(str(tmp_path), "--framework", "x\x1b[31m")
    assert bad.exit_code == 2 and "\x1b" not in bad.output and "unknown framework 'x\\x1b[31m'" in bad.output


def test_the_workflow_parses_and_replays_in_ci(tmp_path: Path, init_cli: Callable[..., Any]) -> None:
    assert init_cli(str(tmp_path)).exit_code == 0
    workflow = yaml.safe_load((tmp_path / WORKFLOW).read_text())
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as True
    assert set(triggers) == {"push", "pull_request"}
    job = workflow["jobs"]["snapshots"]
    assert job["env"]["CI"] == "true"
    steps = job["steps"]
    assert steps[0]["uses"].startswith("actions/checkout@")
    assert steps[1]["uses"].startswith("actions/setup-python@")
    install = steps[2]["run"]
    assert "pip install toolscore pytest" in install
    assert ".toolscore/snapshots" in steps[3]["run"]
    assert steps[4]["run"] == "python -m pytest -q"
    assert steps[5]["if"] == "failure()" and steps[5]["with"]["path"] == ".toolscore/"


@pytest.mark.parametrize(("files", "installs"), [
    ({}, []),
    ({"requirements.txt": "openai\n"}, ["-r requirements.txt"]),
    ({"pyproject.toml": '[project]\nname = "a"\n'}, ["-e ."]),
    ({"pyproject.toml": '[tool.poetry]\nname = "a"\n', "requirements.txt": ""}, ["-r requirements.txt", "-e ."]),
    ({"pyproject.toml": "[tool.ruff]\nline-length = 99\n"}, []),  # tool settings only: not a package
    ({"setup.py": "\n"}, ["-e ."]),
])
def test_the_workflow_install_step_fits_the_project(tmp_path: Path, init_cli: Callable[..., Any],
                                                    files: dict[str, str], installs: list[str]) -> None:
    """The install step run by a real bash, with pip stubbed to print what it would install."""
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert init_cli(str(tmp_path), "--framework", "generic").exit_code == 0
    [install] = [s["run"] for s in yaml.safe_load((tmp_path / WORKFLOW).read_text())["jobs"]["snapshots"]["steps"]
                 if s.get("name") == "Install the project and Toolscore"]
    stubs = 'pip() { echo "pip $*"; }\npython() { :; }\n'
    done = subprocess.run(["bash", "-euc", stubs + install], cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"pip install {i}" for i in installs] + ["pip install toolscore pytest"]


def test_the_console_script_end_to_end(tmp_path: Path) -> None:
    """The installed ``toolscore`` command finds init through the plugin's entry point."""
    (tmp_path / "agent.py").write_text("from anthropic import Anthropic\n")
    script = Path(sys.executable).with_name("toolscore")
    done = subprocess.run([str(script), "init"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Detected framework: Anthropic (raw SDK) (import in agent.py)" in done.stdout
    assert "Next: run `pytest` to record the snapshots, then `toolscore approve --all`." in done.stdout
    assert (tmp_path / TEST_FILE).is_file()


@pytest.mark.parametrize("name", ["langgraph", "pydantic_ai", "openai_agents", "crewai", "claude_agent_sdk",
                                  "openai", "anthropic", "generic"])
def test_accepts_every_tool_scorer_1_10_framework_name(tmp_path: Path, init_cli: Callable[..., Any],
                                                      name: str) -> None:
    result = init_cli(str(tmp_path), "--framework", name, "--dry-run")
    assert result.exit_code == 0 and "(given with --framework)" in result.output
