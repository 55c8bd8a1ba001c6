"""The scripted provider: a model that replays fixed turns, so studies run offline for free.

Why it exists: a study, a test or a CI job needs the whole agent loop (tool calls, guard,
budget, scoring) without a paid model. A script is a list of steps; each model call
answers with the next step's tool calls and text. Which step comes next is read from the
request itself (one step per assistant turn already in the conversation), not from a
counter, so one provider object can serve many runs and threads and a recorded request
replays to the same answer.

Usage is the kernel's offline token estimate of the request and of the scripted answer, so
a free price gives a known cost of 0.0 rather than an unknown one, and a priced dry run
of a scripted study exercises the budget exactly as a paid one would.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from toolscore_core import (
    AssistantMessage,
    InputError,
    ModelRequest,
    ModelToolCall,
    ModelTurn,
    Provider,
    Usage,
    estimate_json_tokens,
    estimate_request_tokens,
)


@attrs.frozen
class _Step:
    """One step, checked: the calls to ask for, as ``(tool, args)``, and the text."""

    calls: tuple[tuple[str, Any], ...]
    text: str | None


def _field(step: Any, key: str) -> Any:
    if isinstance(step, Mapping):
        return step.get(key)
    return getattr(step, key, None)


def _check_step(step: Any, index: int) -> _Step:
    where = f"script[{index}]"
    if not isinstance(step, Mapping) and not (hasattr(step, "calls") or hasattr(step, "text")):
        raise InputError(f"{where} is a {type(step).__name__}", location=where,
                         expected="a step: a mapping with calls and/or text",
                         hint='write each step as {calls: [{tool: NAME, args: {...}}], text: "..."}')
    if isinstance(step, Mapping):
        unknown = sorted(str(k) for k in step if k not in ("calls", "text"))
        if unknown:
            raise InputError(f"{where} has unknown key(s) {', '.join(unknown)}", location=where,
                             expected="only calls and text")
    text = _field(step, "text")
    if text is not None and not isinstance(text, str):
        raise InputError(f"{where}.text is a {type(text).__name__}", location=f"{where}.text",
                         expected="a string (the model's text for this turn)")
    raw_calls = _field(step, "calls") or ()
    if isinstance(raw_calls, (str, bytes, Mapping)) or not isinstance(raw_calls, Iterable):
        raise InputError(f"{where}.calls is not a list", location=f"{where}.calls",
                         expected="a list of {tool: NAME, args: {...}}")
    calls = []
    for n, call in enumerate(raw_calls):
        at = f"{where}.calls[{n}]"
        if not isinstance(call, Mapping):
            raise InputError(f"{at} is a {type(call).__name__}", location=at,
                             expected="a mapping {tool: NAME, args: {...}}")
        tool = call.get("tool")
        if not isinstance(tool, str) or not tool:
            raise InputError(f"{at}.tool is missing or not a string", location=f"{at}.tool",
                             expected="the MCP name of the tool to call")
        args = call.get("args", {})
        # A string is kept as the model's raw argument text: how a script simulates a
        # model sending malformed JSON.
        if args is not None and not isinstance(args, (Mapping, str)):
            raise InputError(f"{at}.args is a {type(args).__name__}", location=f"{at}.args",
                             expected="a mapping of arguments (or a string of raw argument text)")
        calls.append((tool, dict(args) if isinstance(args, Mapping) else args))
    return _Step(calls=tuple(calls), text=text)


class ScriptedProvider(Provider):
    """Replays ``script``: one step per model call; then an empty final answer.

    ``script`` is a sequence of steps, each a mapping ``{"calls": [{"tool": NAME, "args":
    {...}}], "text": ...}`` or any object with ``calls`` and ``text`` attributes (the
    harness's script steps). Call ids are ``call-<turn>-<n>``, both counted from 1. Once
    the script is exhausted every answer is an empty text with stop reason ``end_turn``,
    which ends any agent loop.
    """

    name = "scripted"
    description = "Replays a fixed script of model turns (offline, free)"

    def __init__(self, model: str | None = "scripted", *, script: Iterable[Any] = (),
                 **options: Any) -> None:
        super().__init__(model or "scripted", **options)
        if isinstance(script, (str, bytes, Mapping)) or not isinstance(script, Iterable):
            raise InputError("the script is not a list of steps", location="script",
                             expected="a list of steps {calls: [...], text: ...}")
        self.steps: tuple[_Step, ...] = tuple(_check_step(s, i) for i, s in enumerate(script))

    def complete(self, request: ModelRequest) -> ModelTurn:
        """The step after the assistant turns already in ``request``."""
        index = sum(isinstance(m, AssistantMessage) for m in request.messages)
        turn = index + 1
        if index < len(self.steps):
            step = self.steps[index]
            calls = tuple(ModelToolCall.parse(f"call-{turn}-{n}", tool, args)
                          for n, (tool, args) in enumerate(step.calls, start=1))
            text = step.text
        else:
            calls, text = (), ""
        output = estimate_json_tokens({"text": text, "calls": [c.to_dict() for c in calls]})
        usage = Usage(
            input_tokens=estimate_request_tokens(request.to_dict(),
                                                 message_count=len(request.messages)),
            output_tokens=output,
            cached_tokens=0,  # known: a script has no prompt cache
        )
        return ModelTurn(
            text=text,
            tool_calls=calls,
            stop_reason="tool_use" if calls else "end_turn",
            raw_stop_reason="tool_use" if calls else "end_turn",
            usage=usage,
            model=request.model or self.model,
            response_id=f"scripted-{turn}",
        )

    @property
    def exhausted_after(self) -> int:
        """How many model calls the script answers before it falls back to an empty end."""
        return len(self.steps)
