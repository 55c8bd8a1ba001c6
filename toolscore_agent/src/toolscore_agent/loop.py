"""``run_agent``: one task, one model, one MCP server, behind a guard, a budget and limits.

The loop, in the order the spec gives it:

1. The server's tools are listed once and become kernel ``ToolDefinition`` objects.
2. Before every model call the budget is asked for the worst case of that call (what was
   spent is the budget's own business; the worst case is the whole estimated request plus
   every output token the cap allows, at full price). A refusal ends the run as
   ``budget_stopped`` before anything is sent. After the call the reservation is settled
   with the real cost (reported usage times the price), or with "unknown" when either is
   missing, which the budget counts at the worst case.
3. Each tool call the model asks for is checked, in this order: ``max_calls``, readable
   arguments, a tool the server has, the guard. Only a call that passes all four reaches the
   server; every other one is answered with a tool error so the model can react, and is
   recorded (a denied call in ``guard_denials`` too). Calls of a turn the output cap cut off
   (stop reason ``max_tokens``) are never run: they may be truncated.
4. The run ends ``completed`` when the model answers without tool calls, ``limit_reached``
   when ``max_turns`` or ``max_calls`` is used up, ``budget_stopped`` as above, ``error``
   when the provider fails (after its own retries), the server dies or a guard rule of the
   study cannot be checked (``GuardRuleError``: a deny rule's regex too slow on a long
   argument; the call is not run and the message names the rule).

What leaves this function: always an :class:`AgentRun`, never an exception for anything the
model, the provider or the server did. A budget stop is returned too (status
``budget_stopped``, the reason in ``error``), not raised, so the caller has the run to record
first; a study stops on that status with exit code 3. The only exceptions are
``InputError`` for the caller's own configuration, raised before the model could spend
anything: a guard that is not a guard, a budget that refuses a model with no price, a
provider whose API key variable is unset.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import attrs

from toolscore_agent.model import Limits, Task
from toolscore_agent.tools import error_text, record_result, result_text, tool_definitions
from toolscore_core import (
    BudgetStopped,
    GuardContext,
    GuardDenial,
    InputError,
    ModelRequest,
    ModelToolCall,
    ModelTurn,
    Price,
    ProviderError,
    ProviderTransportError,
    ServerInfo,
    TaskInfo,
    ToolCall,
    ToolDefinition,
    ToolResultMessage,
    Trace,
    Usage,
    UserMessage,
    as_guard,
    cost_usd,
    decide,
    estimate_request_tokens,
    redact_text,
    worst_case_usd,
)
from toolscore_core.kernel.guards import GuardRuleError

#: How a run ended (the run row's ``status``).
Status = Literal["completed", "limit_reached", "budget_stopped", "error"]

#: The output cap sent with every request when a budget is given and ``max_output_tokens``
#: is not: without a cap no call has a worst case, and the budget could not be checked.
DEFAULT_MAX_OUTPUT_TOKENS = 4096
#: How a trace made by the harness names its source.
SOURCE_FORMAT = "toolscore-agent"
#: Tool names listed to the model when it calls one the server does not have.
_MAX_LISTED_TOOLS = 30

DENIED_PREFIX = "denied by the harness guard: "
MALFORMED_MESSAGE = ("error: the arguments of this call are not a valid JSON object, so it was not "
                     "run. Send the call again with its arguments as one JSON object.")
TRUNCATED_MESSAGE = ("error: your turn was cut off at the output token limit, so this call may be "
                     "incomplete and was not run. Send it again, shorter if you can.")


def _tuple(items: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(items)


@attrs.frozen
class AgentRun:
    """What one run did: how it ended, every tool call requested, the answer and the cost.

    ``status`` is ``completed``, ``limit_reached``, ``budget_stopped`` or ``error``.
    ``calls`` holds every tool call the model asked for, in order, denied and refused ones
    included (kernel ``ToolCall``: ``metadata["provider_name"]`` is the name the API saw,
    ``metadata["raw_arguments"]`` the text of malformed arguments, ``metadata["turn"]`` the
    model turn that asked). ``args`` are as the model sent them, unredacted, because scoring
    must see a credential to report it: redact them before writing them anywhere
    (``toolscore_agent.outcome.run_calls`` does). ``usage`` sums the turns' reported tokens; a
    field is None when any turn did not report it. ``cost_usd`` is None when unknown (no
    price, or a turn without usage), never 0 for unknown. ``turns`` counts model calls made,
    ``retries`` the provider's retries of rate-limited or overloaded calls. ``error`` says
    why the run stopped early (redacted), None when it did not.
    """

    status: Status
    calls: tuple[ToolCall, ...] = attrs.field(factory=tuple, converter=_tuple)
    guard_denials: tuple[GuardDenial, ...] = attrs.field(factory=tuple, converter=_tuple)
    final_answer: str | None = None
    usage: Usage = attrs.field(factory=Usage)
    cost_usd: float | None = None
    turns: int = 0
    retries: int = 0
    error: str | None = None

    def trace(self) -> Trace:
        """The run as a kernel trace, for ``evaluate()`` (and the honesty check)."""
        return Trace(calls=self.calls, final_answer=self.final_answer, source_format=SOURCE_FORMAT)


@attrs.define
class _State:
    """The run so far (mutable while the loop runs; frozen into an AgentRun at the end)."""

    calls: list[ToolCall] = attrs.field(factory=list)
    denials: list[GuardDenial] = attrs.field(factory=list)
    usages: list[Usage] = attrs.field(factory=list)
    costs: list[float | None] = attrs.field(factory=list)
    final_answer: str | None = None
    turns: int = 0
    retries: int = 0

    def finish(self, status: Status, error: str | None = None) -> AgentRun:
        return AgentRun(status=status, calls=tuple(self.calls), guard_denials=tuple(self.denials),
                        final_answer=self.final_answer, usage=_sum_usage(self.usages),
                        cost_usd=_sum_costs(self.costs), turns=self.turns, retries=self.retries,
                        error=_safe(error) if error is not None else None)


def _safe(text: Any) -> str:
    return error_text(redact_text(str(text)))


def _sum_field(values: Sequence[int | None]) -> int | None:
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)


def _sum_usage(usages: Sequence[Usage]) -> Usage:
    """Tokens of all turns; a field is unknown when one turn did not report it."""
    return Usage(input_tokens=_sum_field([u.input_tokens for u in usages]),
                 output_tokens=_sum_field([u.output_tokens for u in usages]),
                 cached_tokens=_sum_field([u.cached_tokens for u in usages]))


def _sum_costs(costs: Sequence[float | None]) -> float | None:
    if any(c is None for c in costs):
        return None
    return float(sum(c for c in costs if c is not None))


def _task_info(task: Any, prompt: str) -> TaskInfo | None:
    if task is None:
        return None
    if isinstance(task, TaskInfo):
        return task
    if isinstance(task, Task):
        return TaskInfo(id=task.id, prompt=task.prompt)
    if isinstance(task, str):
        return TaskInfo(id=task, prompt=prompt)
    raise InputError(f"task is a {type(task).__name__}", expected="a Task, a TaskInfo or a task id")


def _server_info(client: Any) -> ServerInfo:
    info = getattr(client, "server_info", None)
    info = info if isinstance(info, Mapping) else {}

    def text(value: Any) -> str | None:
        return value if isinstance(value, str) else None

    return ServerInfo(name=text(info.get("name")), version=text(info.get("version")),
                      protocol_version=text(getattr(client, "protocol_version", None)),
                      transport=text(getattr(client, "transport", None)))


class _Names:
    """MCP name <-> the name the provider's API uses (identity for providers without rules)."""

    def __init__(self, provider: Any, tools: Sequence[ToolDefinition]) -> None:
        self.known = {t.name for t in tools}
        make = getattr(provider, "tool_name_map", None)
        self.map = make(tools) if callable(make) else None

    def to_mcp(self, wire_name: str) -> str | None:
        if self.map is not None:
            found = self.map.to_mcp(wire_name)
            if isinstance(found, str):
                return found
        return wire_name if wire_name in self.known else None


def run_agent(
    client: Any,
    provider: Any,
    prompt: str,
    *,
    system: str | None = None,
    guard: Any = None,
    budget: Any = None,
    price: Price | None = None,
    limits: Limits | None = None,
    max_output_tokens: int | None = None,
    extra: Mapping[str, Any] | None = None,
    tools: Iterable[Any] | None = None,
    task: Task | TaskInfo | str | None = None,
    cell_id: str | None = None,
) -> AgentRun:
    """Run ``prompt`` on ``provider`` with the tools of the started MCP ``client``.

    :param client: a started, initialised MCP client (``MCPStdioClient``, ``MCPHttpClient``
        or anything with ``list_tools()`` and ``call_tool(name, args)``).
    :param provider: a kernel ``Provider`` (``complete(request) -> ModelTurn``).
    :param guard: asked before every tool call: a ``Guard``, an object with ``check``, or a
        function ``(call)`` / ``(call, context)`` returning ``deny(reason)``, ``allow()``,
        a bool or None. A guard that raises denies the call.
    :param budget: a kernel ``Budget`` (or any ``BudgetLike``), shared by concurrent runs.
    :param price: the model's price; None = unknown, so the cost is None and a budget must
        allow unknown prices.
    :param max_output_tokens: the output cap of every request; with a budget and no cap,
        :data:`DEFAULT_MAX_OUTPUT_TOKENS` is sent, so the worst case is real.
    :param tools: the tool list to offer (``list_tools()`` dicts or ToolDefinitions); None
        lists the server's.
    :param task: the task, for the guard's context (and a study's records).
    :param cell_id: ``task::arm::repetition`` in a study, for the guard's context.
    """
    limits = limits or Limits()
    checker = as_guard(guard) if guard is not None else None
    task_info = _task_info(task, prompt)
    cap = max_output_tokens if max_output_tokens is not None else (
        DEFAULT_MAX_OUTPUT_TOKENS if budget is not None else None)
    state = _State()
    try:
        definitions = tool_definitions(tools if tools is not None else client.list_tools())
    except Exception as exc:
        return state.finish("error", f"the server's tools could not be listed: {type(exc).__name__}: {exc}")
    names = _Names(provider, definitions)
    server = _server_info(client)
    messages: list[Any] = [UserMessage(text=prompt)]

    while True:
        if limits.max_turns is not None and state.turns >= limits.max_turns:
            return state.finish("limit_reached", f"max_turns {limits.max_turns} reached")
        request = ModelRequest(messages=tuple(messages), system=system, tools=definitions,
                               max_output_tokens=cap, extra=dict(extra or {}))
        reservation = None
        if budget is not None:
            estimate = estimate_request_tokens(request.to_dict(), message_count=len(messages))
            try:
                reservation = budget.reserve(worst_case_usd(estimate, cap, price))
            except BudgetStopped as exc:
                return state.finish("budget_stopped", str(exc))
        state.turns += 1
        turn = _complete(provider, request, budget, reservation, price, state)
        if isinstance(turn, str):
            return state.finish("error", turn)
        if turn.text and turn.text.strip():
            state.final_answer = error_text(redact_text(turn.text), limit=20_000)
        messages.append(turn.as_message())
        if not turn.tool_calls:
            return state.finish("completed")
        context = _CallContext(client, checker, names, definitions, task_info, server, cell_id,
                               state.turns, truncated=turn.stop_reason == "max_tokens")
        for call in turn.tool_calls:
            if limits.max_calls is not None and len(state.calls) >= limits.max_calls:
                return state.finish("limit_reached", f"max_calls {limits.max_calls} reached")
            answer, crashed = _handle_call(call, context, state)
            messages.append(answer)
            if crashed is not None:
                return state.finish("error", crashed)


def _complete(provider: Any, request: ModelRequest, budget: Any, reservation: Any,
              price: Price | None, state: _State) -> ModelTurn | str:
    """One model call, settled with the budget; the turn, or the error that ends the run."""
    try:
        turn = provider.complete(request)
    except ProviderError as exc:
        state.retries += int(getattr(exc, "retries", 0) or 0)
        # A call with no answer may still have been billed; a refused one was not.
        unknown = isinstance(exc, ProviderTransportError)
        if reservation is not None:
            budget.settle(reservation, None if unknown else 0.0)
        state.usages.append(Usage() if unknown else Usage(0, 0, 0))
        state.costs.append(None if unknown else 0.0)
        return f"provider error ({type(exc).__name__}): {exc}"
    except InputError:
        if reservation is not None:
            budget.settle(reservation, 0.0)
        raise
    except Exception as exc:
        if reservation is not None:
            budget.settle(reservation, None)
        state.usages.append(Usage())
        state.costs.append(None)
        return f"provider failed ({type(exc).__name__}): {exc}"
    state.retries += int(getattr(provider, "last_retries", 0) or 0)
    if not isinstance(turn, ModelTurn):
        if reservation is not None:
            budget.settle(reservation, None)
        state.usages.append(Usage())
        state.costs.append(None)
        return f"provider returned a {type(turn).__name__}, not a ModelTurn"
    cost = cost_usd(turn.usage, price)
    if reservation is not None:
        budget.settle(reservation, cost)
    state.usages.append(turn.usage)
    state.costs.append(cost)
    return turn


@attrs.frozen
class _CallContext:
    """What handling one tool call needs besides the call itself."""

    client: Any
    guard: Any
    names: _Names
    tools: tuple[ToolDefinition, ...]
    task: TaskInfo | None
    server: ServerInfo
    cell_id: str | None
    turn: int
    truncated: bool


def _refused(call: ToolCall, state: _State, message: str, answer_to: ModelToolCall,
             **changes: Any) -> ToolResultMessage:
    """Record a call that was not run and answer it with a tool error."""
    state.calls.append(attrs.evolve(call, **changes))
    return ToolResultMessage(call_id=answer_to.id, tool=answer_to.name, content=message, is_error=True)


def _handle_call(model_call: ModelToolCall, ctx: _CallContext,
                 state: _State) -> tuple[ToolResultMessage, str | None]:
    """Check, run (or refuse) and record one call; the answer for the model, and the reason
    the run must stop when the server died."""
    wire_name = model_call.name
    mcp_name = ctx.names.to_mcp(wire_name)
    base = model_call.to_tool_call(mcp_name or wire_name)
    call = attrs.evolve(base, metadata={**base.metadata, "provider_name": wire_name, "turn": ctx.turn})
    if ctx.truncated:
        return _refused(call, state, TRUNCATED_MESSAGE, model_call, is_error=True,
                        error="not run: the model's turn was cut off at the output token limit"), None
    if model_call.malformed:
        return _refused(call, state, MALFORMED_MESSAGE, model_call, is_error=True,
                        error="not run: the arguments were not a valid JSON object"), None
    if mcp_name is None:
        listed = ", ".join(t.name for t in ctx.tools[:_MAX_LISTED_TOOLS])
        more = f" and {len(ctx.tools) - _MAX_LISTED_TOOLS} more" if len(ctx.tools) > _MAX_LISTED_TOOLS else ""
        shown = error_text(wire_name, limit=100)
        return _refused(call, state, f"error: there is no tool named {shown!r}. Available tools: "
                        f"{listed or 'none'}{more}.", model_call, is_error=True,
                        error=f"not run: the server has no tool named {shown!r}"), None
    if ctx.guard is not None:
        context = GuardContext(calls=tuple(state.calls), task=ctx.task, server=ctx.server,
                               cell_id=ctx.cell_id, turn=ctx.turn)
        try:
            decision = decide(ctx.guard, call, context)
        except GuardRuleError as exc:  # the study's rule is broken: end the run, blame no one's call
            message = _safe(exc)
            return _refused(call, state, "error: the harness guard could not check this call, so it was not run",
                            model_call, is_error=None, error=message), message
        if not decision.allowed:
            reason = _safe(decision.reason or "denied")
            state.denials.append(GuardDenial(tool=call.tool, reason=reason, call_id=call.id,
                                             args=call.args))
            return _refused(call, state, DENIED_PREFIX + reason, model_call, is_error=None,
                            denied=True, denied_reason=reason), None
    return _run_call(call, model_call, ctx, state)


def _run_call(call: ToolCall, model_call: ModelToolCall, ctx: _CallContext,
              state: _State) -> tuple[ToolResultMessage, str | None]:
    try:
        outcome = ctx.client.call_tool(call.tool, dict(call.args or {}))
    except Exception as exc:
        message = f"the server failed during {call.tool}: {type(exc).__name__}: {exc}"
        state.calls.append(attrs.evolve(call, is_error=None, error=_safe(message)))
        return _answer(model_call, "error: the tool server failed", True), message
    duration = getattr(outcome, "duration", None)
    result = getattr(outcome, "result", None)
    error = getattr(outcome, "error", None)
    if getattr(outcome, "crashed", False):
        message = f"the server crashed during {call.tool}" + (f": {error}" if error else "")
        state.calls.append(attrs.evolve(call, is_error=None, error=_safe(message), duration=duration))
        return _answer(model_call, "error: the tool server crashed", True), message
    if getattr(outcome, "timed_out", False):
        note = "the call timed out; its outcome is unknown"
        state.calls.append(attrs.evolve(call, is_error=None, error=note, duration=duration))
        return _answer(model_call, f"error: {note}", True), None
    protocol_error = getattr(outcome, "protocol_error", None)
    if protocol_error:
        note = f"the server's answer was not valid MCP: {protocol_error}"
        state.calls.append(attrs.evolve(call, is_error=True, error=_safe(note), duration=duration,
                                        result=record_result(result)))
        return _answer(model_call, f"error: {error_text(note)}", True), None
    is_error = getattr(outcome, "is_error", None)
    structured = result.get("structuredContent") if isinstance(result, Mapping) else None
    state.calls.append(attrs.evolve(
        call, result=record_result(result), structured_result=record_result(structured),
        is_error=is_error, error=_safe(error) if error else None, duration=duration))
    return _answer(model_call, result_text(result, error), is_error is not False), None


def _answer(model_call: ModelToolCall, content: str, is_error: bool) -> ToolResultMessage:
    return ToolResultMessage(call_id=model_call.id, tool=model_call.name, content=content, is_error=is_error)


__all__ = ["DEFAULT_MAX_OUTPUT_TOKENS", "DENIED_PREFIX", "MALFORMED_MESSAGE", "SOURCE_FORMAT", "TRUNCATED_MESSAGE",
           "AgentRun", "Status", "run_agent"]
