"""Guards: the check the agent harness runs before every tool call a model asks for.

A guard looks at one :class:`~toolscore_core.kernel.model.ToolCall` and the run so far
(:class:`GuardContext`) and allows it or denies it with a reason. A denied call never reaches
the server: the model is told ``denied by the harness guard: <reason>`` and the run row lists
the call under its denials. Three shapes are accepted wherever a guard is (see
:func:`as_guard`): a :class:`Guard`, a registered guard kind made by its registry with the
study's settings, or a plain function, as in the spec's example::

    from toolscore_core import deny

    def guard(call):
        return deny("read-only study") if call.tool.startswith("delete") else None

A guard that raises, or returns something that is not a decision, denies the call (fails
closed) with a reason naming what went wrong: a guard exists to stop calls, so a broken one
must not silently let every call through, and the run row then shows the bug instead of
hiding it. :func:`decide` is the one place that rule lives; callers never call ``check``
directly. The one exception it lets through is :class:`GuardRuleError`: a rule of the
study's own that cannot be checked (a regex too slow) ends the run as an error instead.

A guard kind registered by a plugin, complete::

    # my_guards.py, named by an entry point in the "toolscore.guards" group
    from toolscore_core import Guard, deny, hookimpl

    class MaxCalls(Guard):
        name = "max-calls-per-tool"
        description = "Deny a tool once it has been called `limit` times in a run"

        def __init__(self, limit: int = 3):
            self.limit = limit

        def check(self, call, context):
            made = sum(1 for c in context.calls if c.tool == call.tool and not c.denied)
            return deny(f"{call.tool} already called {made} times") if made >= self.limit else None

    @hookimpl
    def toolscore_register_guards():
        return [MaxCalls]

``collect(pm, "guards").create("max-calls-per-tool", limit=2)`` makes one; settings its
constructor does not name are not passed.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, ClassVar

import attrs

from toolscore_core.kernel.errors import InputError, ToolscoreError
from toolscore_core.kernel.model import ToolCall


class GuardRuleError(ToolscoreError):
    """A guard's own rule could not decide a call (a deny rule's ``$regex`` ran past its
    time budget on a long argument): the study's mistake, not the model's.

    Why it is not a deny like any other failure: a deny would grade the model as if it had
    asked for a forbidden call, and allowing would let a possibly forbidden call through.
    :func:`decide` lets it pass, the call is not run, and the harness ends the run as an
    ``error`` whose message names the rule; the study goes on with its other runs.
    """


@attrs.frozen(slots=True)
class TaskInfo:
    """The task a run works on: its id in the study and the prompt the model was given."""

    id: str
    prompt: str | None = None


@attrs.frozen(slots=True)
class ServerInfo:
    """The MCP server the run talks to, as it described itself (``None`` = not reported)."""

    name: str | None = None
    version: str | None = None
    protocol_version: str | None = None
    transport: str | None = None  # "stdio" or "http"


def _calls(value: Any) -> tuple[ToolCall, ...]:
    return tuple(value)


@attrs.frozen(slots=True)
class GuardContext:
    """The run so far, as a guard sees it.

    ``calls`` are the tool calls already requested in this run, in order, denied ones
    included (``denied=True``), so a guard can limit repeats. ``turn`` is the number of the
    model turn that asked for the call (1 for the first). ``cell_id`` is
    ``task::arm::repetition`` in a study, ``None`` for a single run.
    """

    calls: tuple[ToolCall, ...] = attrs.field(factory=tuple, converter=_calls)
    task: TaskInfo | None = None
    server: ServerInfo | None = None
    cell_id: str | None = None
    turn: int = 0


@attrs.frozen(slots=True)
class GuardDecision:
    """A guard's answer about one call: allowed, or denied with a reason the model is shown."""

    allowed: bool
    reason: str | None = None

    @classmethod
    def allow(cls) -> GuardDecision:
        return _ALLOW

    @classmethod
    def deny(cls, reason: str) -> GuardDecision:
        if not isinstance(reason, str) or not reason.strip():
            raise InputError("a guard's deny needs a reason", expected="a non-empty string",
                             hint="the reason is what the model and the run row are shown")
        return cls(allowed=False, reason=reason)


_ALLOW = GuardDecision(allowed=True)


def allow() -> GuardDecision:
    """Let the call run (returning ``None`` from a guard says the same)."""
    return _ALLOW


def deny(reason: str) -> GuardDecision:
    """Refuse the call; ``reason`` is shown to the model and kept in the run row."""
    return GuardDecision.deny(reason)


class Guard:
    """Consulted before a tool call runs. Subclass it, set ``name``, implement :meth:`check`.

    ``check`` returns ``None`` or :func:`allow` to let the call run, :func:`deny` to refuse
    it. It must not run the call or change anything. Registered as a class, a guard is a
    factory: its registry passes the constructor only the settings it names.
    """

    name: ClassVar[str]
    description: ClassVar[str] = ""

    def check(self, call: ToolCall, context: GuardContext) -> GuardDecision | None:
        raise NotImplementedError

    @property
    def label(self) -> str:
        """How denials and errors name this guard."""
        return getattr(self, "name", None) or type(self).__name__


class FunctionGuard(Guard):
    """A plain function used as a guard: ``fn(call)`` or ``fn(call, context)``.

    Its result may be ``None``/``True`` (allow), ``False`` (deny, the reason naming the
    function) or a :class:`GuardDecision`.
    """

    name = "python"
    description = "A Python function used as a guard"

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self.wants_context = _arity(function) == 2

    @property
    def label(self) -> str:
        module = getattr(self.function, "__module__", None)
        qualname = getattr(self.function, "__qualname__", None) or repr(self.function)
        return f"{module}:{qualname}" if module else qualname

    def check(self, call: ToolCall, context: GuardContext) -> Any:
        result = self.function(call, context) if self.wants_context else self.function(call)
        if result is False:
            return GuardDecision(allowed=False, reason=f"denied by {self.label}")
        if result is True:
            return _ALLOW
        return result


class _CheckingObject(Guard):
    """Any object with a ``check(call, context)`` method that does not subclass :class:`Guard`."""

    name = "object"

    def __init__(self, target: Any) -> None:
        self.target = target

    @property
    def label(self) -> str:
        return getattr(self.target, "name", None) or type(self.target).__name__

    def check(self, call: ToolCall, context: GuardContext) -> Any:
        return self.target.check(call, context)


class CombinedGuard(Guard):
    """Several guards asked in order; the first deny wins and its reason is kept as written."""

    name = "combined"
    description = "Every guard must allow the call"

    def __init__(self, guards: tuple[Guard, ...]) -> None:
        self.guards = guards

    def check(self, call: ToolCall, context: GuardContext) -> GuardDecision:
        for guard in self.guards:
            decision = decide(guard, call, context)
            if not decision.allowed:
                return decision
        return _ALLOW


def _arity(function: Callable[..., Any]) -> int:
    """How many positional arguments to pass: 1 (the call) or 2 (call and context)."""
    try:
        params = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        raise _not_a_guard(function, "its signature cannot be read") from None
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    if any(p.kind is p.VAR_POSITIONAL for p in params) or len(positional) >= 2:
        if len(required) > 2:
            raise _not_a_guard(function, f"it needs {len(required)} arguments")
        return 2
    if len(positional) == 1:
        return 1
    raise _not_a_guard(function, "it takes no positional argument")


def _not_a_guard(obj: Any, why: str) -> InputError:
    return InputError(
        f"{obj!r} cannot be used as a guard: {why}",
        expected="a Guard, an object with check(call, context), or a function taking (call) or "
                 "(call, context) that returns None, True/False, allow() or deny(reason)",
    )


def as_guard(obj: Any) -> Guard:
    """Turn any accepted guard shape into a :class:`Guard`.

    Accepted: a :class:`Guard` (returned as it is), a guard class (made with no settings; use
    the registry's ``create`` to pass some), an object with a ``check`` method, or a function
    of ``(call)`` or ``(call, context)``. Anything else is an :class:`InputError`, so a wrong
    ``guard.python`` entry in a study reads as a user mistake, not a traceback.
    """
    if isinstance(obj, Guard):
        return obj
    if isinstance(obj, type):
        if callable(getattr(obj, "check", None)):
            try:
                made = obj()
            except TypeError as exc:
                raise _not_a_guard(obj, f"it cannot be made without settings ({exc})") from None
            return as_guard(made)
        raise _not_a_guard(obj, "it is a class without a check(call, context) method")
    if callable(getattr(obj, "check", None)):
        return _CheckingObject(obj)
    if callable(obj):
        return FunctionGuard(obj)
    raise _not_a_guard(obj, f"a {type(obj).__name__} is neither a guard nor a function")


def combine_guards(*guards: Any) -> Guard:
    """One guard that asks each of ``guards`` in order (``None`` entries are skipped): the
    first deny wins, with its own reason. No guards at all allows every call."""
    return CombinedGuard(tuple(as_guard(g) for g in guards if g is not None))


def decide(guard: Any, call: ToolCall, context: GuardContext | None = None) -> GuardDecision:
    """Ask ``guard`` (any shape :func:`as_guard` accepts) about ``call``; always a decision.

    Fails closed: an exception in the guard, or a result that is not ``None``, a bool or a
    :class:`GuardDecision`, denies the call with a reason naming the guard and the problem.
    The exception text is redacted, since the reason is shown to the model and stored.
    """
    from toolscore_core.scoring.secrets import redact_text

    target = as_guard(guard)
    try:
        result = target.check(call, context if context is not None else GuardContext())
    except GuardRuleError:
        raise  # not a decision: the harness ends the run (see GuardRuleError)
    except Exception as exc:  # fail closed: see the module docstring
        detail = redact_text(str(exc))
        return GuardDecision(
            allowed=False,
            reason=f"guard {target.label} failed ({type(exc).__name__}{': ' + detail if detail else ''})",
        )
    if result is None or result is True:
        return _ALLOW
    if result is False:
        return GuardDecision(allowed=False, reason=f"denied by {target.label}")
    if isinstance(result, GuardDecision):
        if not result.allowed and not result.reason:
            return GuardDecision(allowed=False, reason=f"denied by {target.label}")
        return result
    return GuardDecision(
        allowed=False,
        reason=f"guard {target.label} returned a {type(result).__name__}, not a decision",
    )


__all__ = [
    "CombinedGuard",
    "FunctionGuard",
    "Guard",
    "GuardContext",
    "GuardDecision",
    "GuardRuleError",
    "ServerInfo",
    "TaskInfo",
    "allow",
    "as_guard",
    "combine_guards",
    "decide",
    "deny",
]
