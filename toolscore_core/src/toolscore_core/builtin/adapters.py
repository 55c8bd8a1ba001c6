"""The kernel's own trace format: a plain list of call dicts (``format="custom"``).

This is what ``toolscore mcp record`` users hand-edit and what tests write inline::

    [{"tool": "get_weather", "args": {"city": "NYC"}, "result": "...", "is_error": false,
      "error": null, "duration": 0.12}]

An object ``{"calls": [...], "final_answer": "..."}`` is accepted too. Every other format
lives in the toolscore-adapters distribution.
"""

from __future__ import annotations

from typing import Any, ClassVar

from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.files import json_path
from toolscore_core.kernel.interfaces import TraceAdapter
from toolscore_core.kernel.model import ToolCall, Trace, seconds
from toolscore_core.kernel.plugins import hookimpl

_CALL_FIELDS = {"tool", "args", "id", "call_id", "result", "structured_result", "is_error", "error",
                "duration", "denied", "denied_reason", "provider", "index", "metadata"}


class CustomCallListAdapter(TraceAdapter):
    """A JSON list of ``{"tool", "args", "result", "is_error", "error", "duration"}`` dicts."""

    name: ClassVar[str] = "custom"
    description: ClassVar[str] = 'a plain list of {"tool", "args", ...} call dicts'

    def detect(self, data: Any) -> float:
        calls = data.get("calls") if isinstance(data, dict) and set(data) <= {"calls", "final_answer", "metadata"} else data
        if isinstance(calls, (list, tuple)):
            if not calls:
                return 0.05  # an empty run: ours, weakly, so evaluate(actual=[]) scores 0
            if all(isinstance(c, dict) and "tool" in c and set(c) <= _CALL_FIELDS for c in calls):
                return 0.9
            if all(isinstance(c, ToolCall) for c in calls):
                return 1.0
        return 0.0

    def load(self, data: Any) -> Trace:
        final_answer = None
        metadata: dict[str, Any] = {}
        prefix: list[str | int] = []
        calls_data = data
        if isinstance(data, dict):
            calls_data = data.get("calls")
            final_answer = data.get("final_answer")
            metadata = dict(data.get("metadata") or {})
            prefix = ["calls"]
        if not isinstance(calls_data, (list, tuple)):
            raise InputError("is not a list of tool calls", location=json_path(prefix),
                             expected='a list of {"tool": NAME, "args": {...}} objects')
        calls = tuple(self._call(c, [*prefix, i]) for i, c in enumerate(calls_data))
        return Trace(calls=calls,
                     final_answer=final_answer, source_format=self.name, metadata=metadata)

    def _call(self, item: Any, where: list[str | int]) -> ToolCall:
        if isinstance(item, ToolCall):
            return item
        if not isinstance(item, dict):
            raise InputError(f"a call must be an object, not {type(item).__name__}", location=json_path(where))
        tool = item.get("tool")
        if not isinstance(tool, str) or not tool:
            raise InputError(f"'tool' must be a non-empty string, not {tool!r}", location=json_path([*where, "tool"]))
        args = item.get("args", {})
        if args is not None and not isinstance(args, dict):
            raise InputError(f"'args' must be an object, not {type(args).__name__}", location=json_path([*where, "args"]))
        duration = item.get("duration")
        if duration is not None and (isinstance(duration, bool) or not isinstance(duration, (int, float))):
            raise InputError("'duration' must be a number of seconds", location=json_path([*where, "duration"]))
        is_error = item.get("is_error")
        error = item.get("error")
        if is_error is None and error:
            is_error = True
        if is_error is None and "result" in item:
            is_error = False
        return ToolCall(
            tool=tool,
            args=args,
            id=item.get("id", item.get("call_id")),
            result=item.get("result"),
            structured_result=item.get("structured_result"),
            is_error=None if is_error is None else bool(is_error),
            error=None if error is None else str(error),
            duration=seconds(duration),  # NaN, infinite or too large for a float: unknown
            denied=bool(item.get("denied", False)),
            denied_reason=item.get("denied_reason"),
            provider=item.get("provider"),
            index=item.get("index"),
            metadata=dict(item.get("metadata") or {}),
        )


@hookimpl
def toolscore_register_adapters() -> list[type[TraceAdapter]]:
    return [CustomCallListAdapter]
