"""``mcp test`` is fair on real servers (issue 8, item 22), and ``mcp list --json`` is a
tools.json that ``mcp lint --from-json`` reads (item 23).

Fair means: grading a server changes nothing on it (tools that write are not called by
default), happy-path values come from the server where it offers them (its allowed
directories, its files, its schema's enum/default/examples), and a refusal of a value we
made up is inconclusive, never "fails on valid input".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolscore_core.kernel.model import ServerDefinition, ToolDefinition
from toolscore_mcp.client import MCPStdioClient, open_client
from toolscore_mcp.scorecard.api import grade_client
from toolscore_mcp.scorecard.discovery import ServerValues, discover_values
from toolscore_mcp.scorecard.fairness import INVENTED_REFUSED, complains_about_input, side_effect
from toolscore_mcp.scorecard.generator import generate_for_tool
from toolscore_mcp.scorecard.grading import build_scorecard
from toolscore_mcp.scorecard.judge import judge
from toolscore_mcp.scorecard.model import Scenario, ScenarioResult
from toolscore_mcp.scorecard.runner import RunOptions, RunOutcome
from toolscore_mcp.session import CallOutcome

SAMPLE = [sys.executable, "-m", "toolscore_mcp.sample_server"]
OFFLINE = {"GZIP_ALLOWED_DOMAINS": "127.0.0.1"}


def toolscore(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    full_env.update(env or {})
    proc = subprocess.run([sys.executable, "-m", "toolscore_core.cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env=full_env, encoding="utf-8")
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    return proc


def snapshot(root: Path) -> dict[str, Any]:
    """Every path under root with its content (files) or None (directories)."""
    found: dict[str, Any] = {}
    for path in sorted(root.rglob("*")):
        found[str(path.relative_to(root))] = path.read_bytes() if path.is_file() else None
    return found


# -- item 22: the real filesystem server -----------------------------------------------
@pytest.mark.e2e
@pytest.mark.parametrize("content", ["with files", "empty"])
def test_filesystem_server_is_graded_without_writing_and_without_blaming_readers(
        content: str, filesystem_command: Callable[[Path], list[str]], tmp_path: Path) -> None:
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    if content == "with files":
        (allowed / "notes.txt").write_text("first line\nsecond line\n", encoding="utf-8")
        (allowed / "sub").mkdir()
        (allowed / "sub" / "deep.md").write_text("# deep\n", encoding="utf-8")
    before = snapshot(allowed)
    work = tmp_path / "cwd"
    work.mkdir()
    proc = toolscore("mcp", "test", "--report", "json", "--", *filesystem_command(allowed), cwd=work)
    assert proc.returncode == 0, proc.stderr
    card = json.loads(proc.stdout)
    assert snapshot(allowed) == before, "mcp test changed the allowed directory"
    assert not list(work.iterdir()), "mcp test wrote into its working directory"
    blamed = [(f["code"], f["tool"]) for f in card["findings"] if f["code"] == "fails-on-valid-input"]
    assert blamed == []  # the reference server's readers work; before the fix read_file was blamed
    skipped = {t["name"]: t["skipped"] for t in card["tools"] if t["skipped"]}
    assert "create_directory" in skipped and "writes" in skipped["create_directory"]
    assert {"write_file", "edit_file", "move_file"} <= set(skipped)
    assert card["grade"] in "AB", card["grade"]  # was C; A here (96%) with files present
    read_file = [r for r in card["results"] if r["scenario"]["tool"] == "read_file"]
    if content == "with files":
        # a real file found through list_allowed_directories + list_directory was read
        assert any(r["passed"] and r["scenario"]["args"].get("path") == str(allowed / "notes.txt")
                   for r in read_file)
    else:
        # no file to read: the made-up path inside the allowed directory is inconclusive
        assert any(r["inconclusive"] and r["problem"] == INVENTED_REFUSED for r in read_file)


@pytest.mark.e2e
def test_discovery_finds_the_allowed_directory_and_its_files(
        filesystem_command: Callable[[Path], list[str]], tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a", encoding="utf-8")
    (tmp_path / "d").mkdir()
    with MCPStdioClient(filesystem_command(tmp_path), timeout=30) as client:
        tools = client.server_definition().tools
        values = discover_values(client, tools, timeout=5, remaining=lambda: 60.0)
    real = str(tmp_path.resolve())
    assert values.directories[0] == real and os.path.join(real, "d") in values.directories
    assert values.files == (os.path.join(real, "a.txt"),)
    by_name = {tool.name: tool for tool in tools}
    read = generate_for_tool(by_name["read_file"], values).happy[0]
    listing = generate_for_tool(by_name["list_directory"], values).happy[0]
    assert read.args == {"path": os.path.join(real, "a.txt")} and read.invented == ()
    assert listing.args == {"path": real} and listing.invented == ()


def test_writing_tools_are_not_called_by_default_and_never_an_issue() -> None:
    with open_client(SAMPLE, timeout=10) as client:
        card = grade_client(client, RunOptions(), lint_rules=[])
    create = next(t for t in card.tools if t.name == "create_note")
    assert create.run == 0 and create.skipped is not None and "writes" in create.skipped
    assert not [r for r in card.results if r.scenario.tool == "create_note"]
    note = next(f for f in card.findings if f.code == "writes-not-called")
    assert note.tool == "create_note" and note.severity == "info"
    assert "create_note" not in [f.tool for f in card.top_issues]
    with open_client(SAMPLE, timeout=10) as client:  # the demo's mode: the sample's figures unchanged
        allowed = grade_client(client, RunOptions(allow_destructive=True), lint_rules=[])
    assert next(t for t in allowed.tools if t.name == "create_note").passed == 6
    assert [f.tool for f in allowed.findings if f.code == "fails-on-valid-input"] == ["export_notes"]


def tool(name: str, description: str = "", **annotations: Any) -> ToolDefinition:
    return ToolDefinition(name=name, description=description, annotations=annotations)


@pytest.mark.parametrize(("definition", "effect"), [
    (tool("create_directory", readOnlyHint=False, idempotentHint=True, destructiveHint=False), "writes"),
    (tool("write_file", readOnlyHint=False, destructiveHint=True), "destructive"),
    (tool("add_observations"), "writes"), (tool("setVolume"), "writes"), (tool("upload-photo"), "writes"),
    (tool("notes", "Creates a note and returns its id."), "writes"),
    (tool("cleanup", "Deletes every expired session."), "destructive"),
    (tool("set_mode", readOnlyHint=True), None),  # the server vouches for it; the runner checks the claim
    (tool("toggle", readOnlyHint=False), "writes"),  # "may change its environment" per the spec
    (tool("delete_row", destructiveHint=False), "writes"),
    (tool("list_notes"), None), (tool("settings_report"), None), (tool("read_graph", "Read the graph"), None),
    (tool("get-sum", "Returns the sum of two numbers", readOnlyHint=True), None),
])
def test_side_effect_classification(definition: ToolDefinition, effect: str | None) -> None:
    assert side_effect(definition) == effect


def test_values_the_schema_gives_are_real_and_the_rest_are_marked_invented() -> None:
    schema = {"type": "object", "required": ["path", "mode", "count", "label"], "properties": {
        "path": {"type": "string"}, "mode": {"type": "string", "enum": ["fast", "slow"]},
        "count": {"type": "integer", "default": 3}, "label": {"type": "string", "examples": ["inbox"]},
        "limit": {"type": "integer"}}}
    generated = generate_for_tool({"name": "read_thing", "inputSchema": schema})
    first = generated.happy[0]
    assert first.args == {"path": "example", "mode": "fast", "count": 3, "label": "inbox"}
    assert first.invented == ("path",)
    other_mode = next(s for s in generated.happy if s.kind == "enum_value")
    assert other_mode.args["mode"] == "slow" and "mode" not in other_mode.invented
    every = next(s for s in generated.happy if s.kind == "all_properties")
    assert set(every.invented) == {"path", "limit"}
    with_server = generate_for_tool({"name": "read_thing", "inputSchema": schema},
                                    ServerValues(directories=("/srv",), files=("/srv/a.txt",)))
    assert with_server.happy[0].args["path"] == "/srv/a.txt" and with_server.happy[0].invented == ()
    no_file = generate_for_tool({"name": "read_thing", "inputSchema": schema}, ServerValues(directories=("/srv",)))
    assert no_file.happy[0].args["path"] == os.path.join("/srv", "example.txt")
    assert no_file.happy[0].invented == ("path",)  # a guess inside a real directory is still a guess


def outcome(text: str) -> CallOutcome:
    return CallOutcome(result={"content": [{"type": "text", "text": text}], "isError": True}, is_error=True,
                       error=text, duration=0.001)


def test_a_refused_made_up_value_is_inconclusive_and_a_real_one_is_blamed() -> None:
    made_up = Scenario("read_file", "required_only", "happy", "success", {"path": "example"}, "", ("path",))
    real = Scenario("read_file", "required_only", "happy", "success", {"path": "/srv/a.txt"}, "", ())
    missing = outcome("ENOENT: no such file or directory, open '/srv/example'")
    guessed = judge(made_up, missing, max_result_bytes=10_000)
    assert guessed.inconclusive and guessed.problem == INVENTED_REFUSED and not guessed.passed
    assert judge(real, missing, max_result_bytes=10_000).problem == "fails-on-valid-input"
    broken = judge(made_up, outcome("export failed: storage backend not configured"), max_result_bytes=10_000)
    assert broken.problem == "fails-on-valid-input" and not broken.inconclusive
    rpc = CallOutcome(is_error=True, error="Invalid arguments: path must be absolute", error_code=-32602,
                      duration=0.001)
    assert judge(made_up, rpc, max_result_bytes=10_000).inconclusive


@pytest.mark.parametrize(("message", "about_input"), [
    ("ENOENT: no such file or directory", True), ("Entity 'example' not found", True),
    ("Cannot specify both head and tail parameters simultaneously", True), ("Invalid date", True),
    ("Access denied - path outside allowed directories", True), ("EISDIR: illegal operation on a directory", True),
    ("export failed: storage backend not configured", False), ("database is locked", False), ("", False),
])
def test_what_counts_as_a_complaint_about_the_input(message: str, about_input: bool) -> None:
    assert complains_about_input(message) is about_input


def test_inconclusive_calls_count_in_no_rate_and_no_row() -> None:
    made_up = Scenario("t", "required_only", "happy", "success", {"path": "x"}, "", ("path",))
    real = Scenario("t", "all_properties", "happy", "success", {"path": "/a"}, "", ())
    results = (ScenarioResult(made_up, passed=False, reason="", problem=INVENTED_REFUSED, inconclusive=True),
               ScenarioResult(real, passed=True, reason=""))
    run = RunOutcome(results=results, generated={}, planned={"t": 2}, findings=(), skipped={}, not_run=0,
                     duration=0.1, restarts=0)
    card = build_scorecard(ServerDefinition(name="s", tools=[ToolDefinition(name="t")]), run, None,
                           tool_tokens={"t": 1}, instructions_tokens=0)
    assert card.happy == 1.0 and card.grade == "A"
    assert (card.tools[0].passed, card.tools[0].run, card.tools[0].skipped) == (1, 1, None)


# -- item 23: mcp list --json <-> mcp lint --from-json ---------------------------------------
def lint_findings(proc: subprocess.CompletedProcess[str]) -> tuple[Any, list[tuple[str, str, str]]]:
    assert proc.returncode in (0, 1), proc.stderr
    data = json.loads(proc.stdout)
    return data["score"], sorted((f["code"], f.get("tool") or "", f["message"]) for f in data["findings"])


def round_trip(argv: list[str], tmp_path: Path, env: dict[str, str] | None = None) -> None:
    listed = toolscore("mcp", "list", "--json", "--", *argv, cwd=tmp_path, env=env)
    assert listed.returncode == 0, listed.stderr
    (tmp_path / "tools.json").write_text(listed.stdout, encoding="utf-8")
    saved = lint_findings(toolscore("mcp", "lint", "--from-json", "tools.json", "--report", "json", cwd=tmp_path))
    live = lint_findings(toolscore("mcp", "lint", "--report", "json", "--", *argv, cwd=tmp_path, env=env))
    assert not [f for f in saved[1] if f[0] == "schema-root-not-object"]
    assert saved == live


def test_list_json_round_trips_through_lint_on_the_sample_server(tmp_path: Path) -> None:
    round_trip(SAMPLE, tmp_path)


@pytest.mark.e2e
def test_list_json_round_trips_through_lint_on_the_everything_server(
        everything_command: list[str], tmp_path: Path) -> None:
    round_trip(everything_command, tmp_path, env=OFFLINE)  # its instructions are linted too


@pytest.mark.e2e
def test_plain_tools_list_result_and_bare_list_lint_like_the_live_server(
        memory_command: tuple[list[str], dict[str, str]], tmp_path: Path) -> None:
    argv, env = memory_command
    with MCPStdioClient(argv, env=env, timeout=30) as client:
        tools = client.list_tools()
    live = lint_findings(toolscore("mcp", "lint", "--report", "json", "--", *argv, cwd=tmp_path, env=env))
    for shape in ({"tools": tools}, tools):
        (tmp_path / "tools.json").write_text(json.dumps(shape), encoding="utf-8")
        saved = lint_findings(toolscore("mcp", "lint", "--from-json", "tools.json", "--report", "json",
                                        cwd=tmp_path))
        assert saved[1] == live[1]  # server-memory has no instructions: nothing lost without them
        assert not [f for f in saved[1] if f[0] == "schema-root-not-object"]


def test_a_summary_only_listing_is_refused_with_how_to_get_a_full_one(tmp_path: Path) -> None:
    old = {"server": {"name": "s"}, "tools": [{"name": "t", "description": "d", "parameters": [], "tokens": 9}]}
    (tmp_path / "tools.json").write_text(json.dumps(old), encoding="utf-8")
    proc = toolscore("mcp", "lint", "--from-json", "tools.json", cwd=tmp_path)
    assert proc.returncode == 2
    assert "tools.json" in proc.stderr and "no 'inputSchema'" in proc.stderr
    assert "toolscore mcp list --json" in proc.stderr
