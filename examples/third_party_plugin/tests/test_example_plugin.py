"""The example plugin is discovered through its entry points, listed, and used, exactly as
an outside distribution would be. Uses only public fixtures (toolscore_core.testing)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from toolscore_core import (
    GuardContext,
    ModelRequest,
    ServerDefinition,
    ToolCall,
    ToolDefinition,
    ToolResultMessage,
    UserMessage,
    collect,
    cost_usd,
    decide,
    get_executor,
    load_trace,
    price_for,
)

STEPLOG = {
    "steplog": 1,
    "steps": [
        {"call": "search", "input": {"q": "flights to NYC"}, "output": "FL-12", "ok": True},
        {"call": "book", "input": {"flight_id": "FL-12"}, "output": "sold out", "ok": False},
    ],
    "answer": "Sorry, that flight is sold out.",
}


def toolscore(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolscore_core.cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env={**os.environ, "TOOLSCORE_STRICT_PLUGINS": "1"})


def test_discovered_through_entry_points(installed_plugin_manager):
    adapters = collect(installed_plugin_manager, "adapters")
    rules = collect(installed_plugin_manager, "lint_rules")
    assert adapters.entry("steplog").distribution == "toolscore-example-plugin"
    assert rules.entry("example-snake-case-names").distribution == "toolscore-example-plugin"


def test_listed_by_toolscore_plugins():
    result = toolscore("plugins", "--json")
    assert result.returncode == 0, result.stderr
    dists = {d["name"]: d for d in json.loads(result.stdout)["distributions"]}
    example = dists["toolscore-example-plugin"]
    assert example["groups"]["toolscore.adapters"]["items"] == ["steplog"]
    assert example["groups"]["toolscore.lint_rules"]["items"] == ["example-snake-case-names"]
    assert example["groups"]["toolscore.providers"]["items"] == ["example-canned"]
    assert example["groups"]["toolscore.guards"]["items"] == ["example-no-shell"]
    assert example["groups"]["toolscore.executors"]["items"] == ["example-in-order"]


def test_its_adapter_is_auto_detected(installed_plugin_manager):
    trace = load_trace(STEPLOG, pm=installed_plugin_manager)
    assert trace.source_format == "steplog"
    assert [c.tool for c in trace.calls] == ["search", "book"]
    assert trace.calls[1].is_error is True and trace.calls[1].error == "sold out"
    assert trace.final_answer == "Sorry, that flight is sold out."


def test_its_rule_checks_a_server(installed_plugin_manager):
    rule = collect(installed_plugin_manager, "lint_rules").get("example-snake-case-names")()
    server = ServerDefinition(tools=[ToolDefinition(name="searchNotes"), ToolDefinition(name="list_notes")])
    [finding] = rule.check(server)
    assert finding.tool == "searchNotes" and "search_notes" in (finding.fix or "")


def test_its_adapter_is_used_by_toolscore_eval(tmp_path):
    trace = tmp_path / "run.json"
    trace.write_text(json.dumps(STEPLOG))
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([{"tool": "search"}, {"tool": "book", "args": {"flight_id": "FL-12"}}]))
    result = toolscore("eval", str(gold), str(trace), "--report", "json")
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["trace"]["source_format"] == "steplog"
    assert [c["tool"] for c in record["actual"]] == ["search", "book"]
    assert record["required_call_recall"] == 0.5  # the booking failed


def test_its_rule_runs_in_toolscore_mcp_lint(tmp_path):
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps({"tools": [{
        "name": "searchNotes", "description": "Search the notes by keyword.",
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": "keyword"}},
                        "required": ["q"]},
    }]}))
    result = toolscore("mcp", "lint", "--from-json", str(tools), "--report", "json")
    assert result.returncode == 0, result.stderr
    codes = [f["code"] for f in json.loads(result.stdout)["findings"]]
    assert codes == ["example-snake-case-names"]


def test_its_adapter_rejects_other_data_with_a_clear_error(tmp_path):
    other = tmp_path / "other.json"
    other.write_text(json.dumps([{"tool": "a", "args": {}}]))
    result = toolscore("validate", str(other), "--format", "steplog")
    assert result.returncode == 2
    assert "is not a step log" in result.stderr and "Traceback" not in result.stderr


def test_its_provider_is_made_with_its_settings_and_replays_turns(installed_plugin_manager):
    providers = collect(installed_plugin_manager, "providers")
    assert providers.entry("example-canned").distribution == "toolscore-example-plugin"
    # The same settings a harness offers every provider; this one takes model and turns
    # (and the base class keeps base_url), and nothing breaks on what it does not use.
    provider = providers.create("example-canned", model="canned-1", base_url="http://127.0.0.1:9/v1",
                                turns=[{"call": "search", "args": {"q": "NYC"}}, {"say": "FL-12 is free"}],
                                workers=8)
    assert provider.model == "canned-1" and provider.base_url == "http://127.0.0.1:9/v1"
    tools = (ToolDefinition(name="search", input_schema={"type": "object"}),)
    first = provider.complete(ModelRequest(messages=(UserMessage("find a flight"),), tools=tools))
    assert first.stop_reason == "tool_use"
    [call] = first.tool_calls
    assert (call.name, call.arguments) == ("search", {"q": "NYC"})
    second = provider.complete(ModelRequest(messages=(
        UserMessage("find a flight"), first.as_message(),
        ToolResultMessage(call_id=call.id, tool="search", content="FL-12"))))
    assert second.text == "FL-12 is free" and not second.tool_calls
    free = price_for("scripted")
    assert free is not None and cost_usd(second.usage, free) == 0.0


def test_its_guard_denies_shells_and_allows_the_rest(installed_plugin_manager):
    guard = collect(installed_plugin_manager, "guards").create("example-no-shell")
    context = GuardContext(calls=())
    denied = decide(guard, ToolCall(tool="run_shell", args={"cmd": "ls"}), context)
    allowed = decide(guard, ToolCall(tool="read_file", args={"path": "a.txt"}), context)
    assert not denied.allowed and "looks like a shell" in (denied.reason or "")
    assert allowed.allowed


def test_its_executor_is_chosen_by_name(installed_plugin_manager):
    with get_executor("example-in-order", pm=installed_plugin_manager, workers=3) as executor:
        results = list(executor.run(int, [("a", "1"), ("b", "x"), ("c", "3")]))
    assert [r.key for r in results] == ["a", "b", "c"]
    assert [r.value for r in results if r.ok] == [1, 3]
    [bad] = [r for r in results if not r.ok]
    assert bad.key == "b" and bad.error is not None and bad.error.type == "ValueError"
