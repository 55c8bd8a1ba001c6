"""Guard kinds: deny rules (the kernel's matcher), allow_tools globs, python module:function
guards from the spec's folder, registered kinds, and the combined guard of a spec, down to a
denied call that never reaches the real sample server."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from toolscore_agent.guards import (
    AllowToolsGuard,
    PythonGuard,
    RulesGuard,
    build_guard,
    rules_guard,
)
from toolscore_agent.model import GuardSpec
from toolscore_agent.spec import load_agent_spec
from toolscore_core import (
    ForbiddenRule,
    GuardContext,
    InputError,
    ToolCall,
    collect,
    decide,
    deny,
    hookimpl,
)

SAMPLE = [sys.executable, "-m", "toolscore_mcp.sample_server"]


def ask(guard: Any, tool: str, **args: Any) -> tuple[bool, str | None]:
    decision = decide(guard, ToolCall(tool=tool, args=args), GuardContext())
    return decision.allowed, decision.reason


# --- rules ---------------------------------------------------------------------------------------


def test_a_deny_rule_denies_with_its_reason_and_lets_other_calls_through() -> None:
    guard = RulesGuard([{"tool": "delete_note", "reason": "this study never deletes notes"}])
    assert ask(guard, "delete_note", note_id="n1") == (False, "this study never deletes notes")
    assert ask(guard, "create_note", title="x") == (True, None)


def test_deny_rules_use_matchers_like_scoring_and_have_a_default_reason() -> None:
    guard = RulesGuard([
        {"tool": "run", "args": {"cmd": {"$regex": "rm -rf"}}},  # searched, as forbidden rules are
        {"tool": "delete_note", "args": {"note_id": {"$one_of": ["n1", "n2"]}}, "reason": "keep n1 and n2"},
        {"args": {"body": {"$contains": "password"}}},
    ])
    assert ask(guard, "run", cmd="sudo rm -rf /srv") == (False, "this call of run matches a deny rule of this study")
    assert ask(guard, "run", cmd="ls")[0]
    assert ask(guard, "delete_note", note_id="n2") == (False, "keep n1 and n2")
    assert ask(guard, "delete_note", note_id="n3")[0]
    assert ask(guard, "create_note", body="my password is x") == (
        False, "the call matches a deny rule of this study")
    assert RulesGuard([ForbiddenRule(tool="x")]).check(ToolCall(tool="x"), GuardContext()) is not None


def test_a_bad_deny_rule_is_an_input_error() -> None:
    with pytest.raises(InputError, match="unknown key 'why'"):
        RulesGuard([{"tool": "x", "why": "no"}])


# --- allow_tools ---------------------------------------------------------------------------------


def test_allow_tools_globs_deny_a_tool_matching_none_and_name_the_patterns() -> None:
    guard = AllowToolsGuard(["*_note", "list_*"])
    assert ask(guard, "create_note")[0] and ask(guard, "list_notes")[0]
    allowed, reason = ask(guard, "export_notes")
    assert not allowed
    assert reason == "the tool 'export_notes' is not allowed: it matches none of allow_tools (*_note, list_*)"
    assert not ask(guard, "Create_Note")[0]  # tool names are case-sensitive, so the globs are too


def test_allow_tools_none_allows_all_and_an_empty_list_allows_nothing() -> None:
    assert ask(AllowToolsGuard(None), "anything")[0]
    allowed, reason = ask(AllowToolsGuard([]), "anything")
    assert not allowed and "allows no tools" in (reason or "")


def test_a_model_chosen_tool_name_is_cut_in_the_reason() -> None:
    _, reason = ask(AllowToolsGuard(["a"]), "x" * 5000)
    assert reason is not None and len(reason) < 300


# --- rules_guard and build_guard -------------------------------------------------------------------


def test_rules_guard_asks_deny_rules_first() -> None:
    guard = rules_guard(deny=[{"tool": "delete_note", "reason": "read-only"}], allow_tools=["list_*"])
    assert ask(guard, "delete_note") == (False, "read-only")  # both deny it; the rule's reason wins
    assert not ask(guard, "create_note")[0]
    assert ask(guard, "list_notes")[0]
    assert ask(rules_guard(), "anything")[0]


def test_rules_guard_is_importable_as_the_docs_write_it() -> None:
    from toolscore.mcp.agent import rules_guard as documented
    from toolscore_agent import rules_guard as packaged

    assert documented is packaged is rules_guard


def _guard_module(folder: Path, name: str, body: str) -> None:
    (folder / f"{name}.py").write_text(body, encoding="utf-8")


def test_a_python_guard_is_imported_from_the_spec_folder(tmp_path: Path) -> None:
    name = "a2_guards_one"
    _guard_module(tmp_path, name, (
        "from toolscore_core import deny\n"
        "def no_purge(call):\n"
        "    return deny('no purging') if (call.args or {}).get('purge') else None\n"
        "def third_call(call, context):\n"
        "    return len(context.calls) < 2\n"))
    before = list(sys.path)
    guard = PythonGuard(f"{name}:no_purge", tmp_path)
    assert sys.path == before  # the folder was on the path for the import only
    assert ask(guard, "delete_note", purge=True) == (False, "no purging")
    assert ask(guard, "delete_note", purge=False)[0]
    counting = PythonGuard(f"{name}:third_call", tmp_path)
    two = (ToolCall(tool="a"), ToolCall(tool="b"))
    assert decide(counting, ToolCall(tool="c"), GuardContext(calls=two[:1])).allowed
    denied = decide(counting, ToolCall(tool="c"), GuardContext(calls=two))
    assert not denied.allowed and denied.reason == f"denied by {name}:third_call"


@pytest.mark.parametrize(("reference", "body", "words"), [
    ("a2_nowhere:check", None, "no module named 'a2_nowhere'"),
    ("a2_guards_two:chek", "def check(call):\n    return None\n", "Did you mean a2_guards_two:check?"),
    ("a2_guards_three:LIMIT", "LIMIT = 3\n", "is a int, not a function or a guard"),
    ("a2_guards_four:check", "raise RuntimeError('broken on import')\n", "RuntimeError: broken on import"),
    ("a2_guards_five:check", "def check():\n    return None\n", "takes no positional argument"),
    ("no-colon", None, "is not written module:function"),
])
def test_a_bad_python_reference_is_an_input_error_naming_it(tmp_path: Path, reference: str, body: str | None,
                                                            words: str) -> None:
    if body is not None:
        _guard_module(tmp_path, reference.split(":")[0], body)
    with pytest.raises(InputError) as caught:
        PythonGuard(reference, tmp_path, file="study.yaml", location="$.guard.python")
    text = str(caught.value)
    assert text.startswith("study.yaml, at $.guard.python: guard ") and reference in text, text
    assert words in text, text


def test_build_guard_combines_the_spec_in_order_first_deny_wins(tmp_path: Path) -> None:
    _guard_module(tmp_path, "a2_guards_six", "def everything(call):\n    return False\n")
    spec = GuardSpec(deny=(ForbiddenRule(tool="delete_note", reason="never delete"),),
                     allow_tools=("*_note",), python=("a2_guards_six:everything",))
    guard = build_guard(spec, tmp_path)
    assert ask(guard, "delete_note") == (False, "never delete")
    assert ask(guard, "list_notes")[1] == "the tool 'list_notes' is not allowed: it matches none of allow_tools (*_note)"
    assert ask(guard, "create_note") == (False, "denied by a2_guards_six:everything")
    assert ask(build_guard(GuardSpec()), "anything")[0]


# --- registration --------------------------------------------------------------------------------


def test_the_three_kinds_are_registered_through_the_guards_hook(installed_plugin_manager: Any) -> None:
    registry = collect(installed_plugin_manager, "guards")
    assert {"rules", "allow_tools", "python"} <= set(registry.names())
    assert registry.entry("rules").distribution == "toolscore-agent"
    made = registry.create("allow_tools", patterns=["list_*"], unrelated="ignored")
    assert not ask(made, "delete_note")[0] and ask(made, "list_notes")[0]


class _MaxCalls:
    """A third party's guard kind: a tool may be called ``limit`` times a run."""

    name = "a2-max-calls"

    def __init__(self, limit: int = 3) -> None:
        self.limit = limit

    def check(self, call: ToolCall, context: GuardContext) -> Any:
        made = sum(1 for c in context.calls if c.tool == call.tool)
        return deny(f"{call.tool} already called {made} times") if made >= self.limit else None


class _ThirdParty:
    @hookimpl
    def toolscore_register_guards(self) -> list[Any]:
        return [_MaxCalls]


def test_a_registered_guard_kind_is_named_in_the_spec_with_its_settings(
        tmp_path: Path, plugin_manager: Any, register_plugin: Any) -> None:
    register_plugin(_ThirdParty(), kinds=["guards"])
    data = {"name": "s", "server": {"command": "x"}, "provider": "openai", "model": "gpt-4o",
            "guard": {"use": {"a2-max-calls": {"limit": 1}}}, "tasks": [{"id": "t", "prompt": "p"}]}
    path = tmp_path / "study.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    spec = load_agent_spec(path, pm=plugin_manager)
    assert spec.guard.use == (("a2-max-calls", {"limit": 1}),)
    guard = build_guard(spec.guard, tmp_path, pm=plugin_manager)
    assert decide(guard, ToolCall(tool="a"), GuardContext()).allowed
    second = decide(guard, ToolCall(tool="a"), GuardContext(calls=(ToolCall(tool="a"),)))
    assert (second.allowed, second.reason) == (False, "a already called 1 times")


# --- end to end: the server never sees a denied call ---------------------------------------------


def test_a_denied_call_never_reaches_the_sample_server(tmp_path: Path) -> None:
    """create, delete (denied by the spec's guard), list: the note is still on the server."""
    from toolscore_agent.loop import run_agent
    from toolscore_mcp.client import MCPStdioClient
    from toolscore_providers import ScriptedProvider

    data = {"name": "s", "server": {"command": SAMPLE}, "provider": "scripted", "arms": [{"id": "a"}],
            "guard": {"deny": [{"tool": "delete_note", "reason": "this study never deletes notes"}]},
            "allow_tools": ["*"],
            "tasks": [{"id": "t", "prompt": "p", "script": [
                {"calls": [{"tool": "create_note", "args": {"title": "keep me"}}]},
                {"calls": [{"tool": "delete_note", "args": {"note_id": "n1"}}]},
                {"calls": [{"tool": "list_notes", "args": {}}]},
                {"text": "done"}]}]}
    spec = load_agent_spec(data)
    task = spec.tasks[0]
    guard = build_guard(spec.guard, tmp_path)
    with MCPStdioClient(list(spec.server.command or ())) as client:
        client.initialize()
        run = run_agent(client, ScriptedProvider(script=task.script_for("a")), task.prompt, guard=guard, task=task)
        server_view = client.call_tool("list_notes", {})
    assert [c.tool for c in run.calls] == ["create_note", "delete_note", "list_notes"]
    assert run.calls[1].denied and run.calls[1].denied_reason == "this study never deletes notes"
    assert [d.reason for d in run.guard_denials] == ["this study never deletes notes"]
    listed = json.dumps(run.calls[2].structured_result or run.calls[2].result)
    assert "keep me" in listed and "n1" in listed
    # asked after the run, on the same server process: the note the denied call named is there
    assert server_view.is_error is False and server_view.result is not None
    assert '"total": 1' in json.dumps(server_view.result) and "keep me" in json.dumps(server_view.result)
