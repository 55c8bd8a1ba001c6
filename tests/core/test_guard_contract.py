"""The guard contract: decisions, every shape as_guard accepts, combining, failing closed."""

from __future__ import annotations

from typing import Any

import pytest

from toolscore_core import (
    Guard,
    GuardContext,
    GuardDecision,
    InputError,
    ModelToolCall,
    ServerInfo,
    TaskInfo,
    ToolCall,
    allow,
    as_guard,
    collect,
    combine_guards,
    decide,
    deny,
    hookimpl,
)
from toolscore_core.kernel import guards, interfaces

DELETE = ToolCall(tool="delete_entities", args={"names": ["old"]})
READ = ToolCall(tool="read_graph", args={})


def spec_guard(call):
    """The spec's own example, word for word."""
    return deny("read-only study") if call.tool.startswith("delete") else None


class NoDeletes(Guard):
    name = "no-deletes-test"

    def check(self, call, context):
        return deny("deletes are off") if call.tool.startswith("delete") else allow()


class DuckGuard:
    """Has check(call, context) but does not subclass Guard."""

    name = "duck"

    def check(self, call, context):
        return GuardDecision(allowed=call.tool != "delete_entities", reason="duck says no")


class CallableGuard:
    def __call__(self, call, context):
        return call.tool != "delete_entities"


def test_decisions_and_their_constructors():
    assert allow() == GuardDecision.allow() == GuardDecision(allowed=True, reason=None)
    assert deny("read-only study") == GuardDecision.deny("read-only study")
    assert deny("read-only study") == GuardDecision(allowed=False, reason="read-only study")
    for empty in ("", "   "):
        with pytest.raises(InputError, match="needs a reason"):
            deny(empty)


def test_interfaces_still_exports_the_same_guard_classes():
    assert interfaces.Guard is guards.Guard is Guard
    assert interfaces.GuardDecision is guards.GuardDecision is GuardDecision


@pytest.mark.parametrize("shape", [
    spec_guard,
    lambda call, context: deny("no deletes") if call.tool.startswith("delete") else None,
    lambda call, context=None: not call.tool.startswith("delete"),
    lambda *args: None if not args[0].tool.startswith("delete") else deny("varargs"),
    NoDeletes(),
    NoDeletes,
    DuckGuard(),
    CallableGuard(),
], ids=["spec-function", "call-and-context", "bool-with-default", "varargs", "guard-instance",
        "guard-class", "duck-object", "callable-object"])
def test_as_guard_accepts_every_shape(shape):
    guard = as_guard(shape)
    assert isinstance(guard, Guard)
    assert decide(guard, READ, GuardContext()).allowed is True
    denied = decide(guard, DELETE, GuardContext())
    assert denied.allowed is False and denied.reason


def test_a_guard_instance_is_returned_as_it_is():
    guard = NoDeletes()
    assert as_guard(guard) is guard


def test_reasons_are_kept_and_a_false_names_the_function():
    assert decide(spec_guard, DELETE).reason == "read-only study"

    def no_writes(call):
        return not call.tool.startswith("write")

    reason = decide(no_writes, ToolCall(tool="write_note")).reason
    assert reason is not None and "no_writes" in reason and reason.startswith("denied by")


@pytest.mark.parametrize(("shape", "says"), [
    (42, "int is neither a guard nor a function"),
    ("module:function", "str is neither"),
    (lambda: None, "takes no positional argument"),
    (lambda a, b, c: None, "needs 3 arguments"),
    (dict, "class without a check"),
])
def test_other_shapes_are_input_errors(shape, says):
    with pytest.raises(InputError) as info:
        as_guard(shape)
    assert says in str(info.value) and "(call, context)" in str(info.value)
    assert info.value.exit_code == 2


def test_a_guard_class_that_needs_settings_is_an_input_error():
    class NeedsLimit(Guard):
        name = "needs-limit"

        def __init__(self, limit: int) -> None:
            self.limit = limit

        def check(self, call, context):
            return None

    with pytest.raises(InputError, match="cannot be made without settings"):
        as_guard(NeedsLimit)


def test_a_guard_that_raises_fails_closed_with_a_reason_naming_the_exception():
    def broken(call):
        raise KeyError("tool_name")

    decision = decide(broken, READ)
    assert decision.allowed is False
    assert decision.reason is not None
    assert "KeyError" in decision.reason and "broken" in decision.reason and "failed" in decision.reason


def test_a_failing_guard_does_not_leak_a_key_into_the_reason():
    key = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"

    def leaky(call):
        raise RuntimeError(f"could not reach policy service with {key}")

    reason = decide(leaky, READ).reason
    assert reason is not None and key not in reason and "RuntimeError" in reason


@pytest.mark.parametrize("result", ["yes", 1, {"allowed": True}, GuardDecision(allowed=False)])
def test_a_result_that_is_not_a_decision_denies(result):
    decision = decide(lambda call: result, READ)
    assert decision.allowed is False and decision.reason


def test_combine_guards_first_deny_wins_and_later_guards_are_not_asked():
    asked: list[str] = []

    def first(call):
        asked.append("first")
        return None

    def second(call):
        asked.append("second")
        return deny("second says no") if call.tool.startswith("delete") else None

    def third(call):
        asked.append("third")
        return deny("third says no")

    combined = combine_guards(first, None, second, third)
    assert decide(combined, DELETE) == deny("second says no")
    assert asked == ["first", "second"]
    asked.clear()
    assert decide(combined, READ) == deny("third says no")
    assert asked == ["first", "second", "third"]


def test_combined_guards_still_fail_closed_and_none_at_all_allows():
    def broken(call):
        raise ValueError("bad rule")

    decision = decide(combine_guards(spec_guard, broken), READ)
    assert decision.allowed is False and decision.reason is not None and "ValueError" in decision.reason
    assert decide(combine_guards(), DELETE).allowed is True
    assert decide(combine_guards(None), DELETE).allowed is True


def test_the_context_carries_the_run_so_far():
    seen: dict[str, Any] = {}

    def at_most_two(call, context):
        seen.update(task=context.task.id, server=context.server.name, cell=context.cell_id,
                    turn=context.turn)
        made = sum(1 for c in context.calls if c.tool == call.tool)
        return deny(f"{call.tool} already requested {made} times") if made >= 2 else None

    context = GuardContext(
        calls=[READ, ToolCall(tool="read_graph", denied=True, denied_reason="x")],
        task=TaskInfo(id="create-twice", prompt="Create Ada twice."),
        server=ServerInfo(name="memory-server", version="2.0.1", protocol_version="2026-07-28",
                          transport="stdio"),
        cell_id="create-twice::haiku::1",
        turn=3,
    )
    assert decide(at_most_two, READ, context) == deny("read_graph already requested 2 times")
    assert seen == {"task": "create-twice", "server": "memory-server", "cell": "create-twice::haiku::1",
                    "turn": 3}
    assert decide(at_most_two, DELETE, context).allowed is True
    assert isinstance(GuardContext(calls=[READ]).calls, tuple)
    assert GuardContext().task is None and GuardContext().server is None


def test_a_model_call_with_malformed_arguments_reaches_the_guard_as_unknown_arguments():
    call = ModelToolCall.parse("call_9", "delete_entities", '{"names": ["ol').to_tool_call()
    seen: list[Any] = []

    def recording(c):
        seen.append(c.args)
        return spec_guard(c)

    decision = decide(recording, call)
    assert seen == [None] and decision == deny("read-only study")


def test_hook_toolscore_register_guards_factory_gets_its_settings(plugin_manager, register_plugin):
    class MaxCalls(Guard):
        name = "max-calls-test"

        def __init__(self, limit: int = 3) -> None:
            self.limit = limit

        def check(self, call, context):
            made = sum(1 for c in context.calls if c.tool == call.tool and not c.denied)
            return deny(f"{call.tool} already called {made} times") if made >= self.limit else None

    class Plugin:
        @hookimpl
        def toolscore_register_guards(self):
            return [MaxCalls]

    register_plugin(Plugin())
    guard = collect(plugin_manager, "guards").create("max-calls-test", limit=1, model="ignored")
    assert guard.limit == 1
    assert decide(guard, READ, GuardContext()).allowed is True
    assert decide(guard, READ, GuardContext(calls=[READ])) == deny("read_graph already called 1 times")
