"""Tool calls that only the model's messages recorded (``gen_ai.output.messages``).

Some instrumentations trace inference but not tool execution: the calls then exist only as
``{"type": "tool_call", "id", "name", "arguments"}`` parts of an inference span's output
messages, and their results as ``{"type": "tool_call_response", "id", "response"}`` parts
of a later span's input messages. A requested call with an ``execute_tool`` span is read
from that span (see ``otel_calls``); one without is read from here, with its outcome
unknown unless a response names its id. Ids are trimmed before matching (the convention's
own example carries a leading space).
"""

from __future__ import annotations

from typing import Any

import attrs

from toolscore_adapters.protocols import otel_json
from toolscore_core import ToolCall

OUTPUT_KEY = "gen_ai.output.messages"
INPUT_KEY = "gen_ai.input.messages"


def _messages(value: Any) -> list[Any]:
    if isinstance(value, str):
        try:
            value = otel_json.loads(value)
        except (ValueError, RecursionError):  # bad JSON, or past the read limits (an InputError)
            return []  # content we cannot read adds no calls; the tool spans still count
    return value if isinstance(value, list) else []


def _parts(messages: list[Any], kind: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        parts = message.get("parts") if isinstance(message, dict) else None
        if isinstance(parts, list):
            out.extend(p for p in parts if isinstance(p, dict) and p.get("type") == kind)
    return out


def _id(part: dict[str, Any]) -> str | None:
    value = part.get("id")
    return value.strip() or None if isinstance(value, str) else None


def output_messages(attributes: dict[str, Any]) -> list[Any]:
    """A span's output messages as a list (parsed when recorded as JSON text); ``[]`` when
    absent, unreadable or not a list.

    Why one function: the requested calls and the final answer both read them, and the
    adapter parses them once per span for both (a chat span's messages can be long).
    """
    value = attributes.get(OUTPUT_KEY)
    return [] if value is None else _messages(value)


def has_responses(attributes: dict[str, Any]) -> bool:
    """Cheap check before parsing large input messages: only those with responses matter."""
    value = attributes.get(INPUT_KEY)
    return (isinstance(value, str) and "tool_call_response" in value) or isinstance(value, list)


class RequestedCalls:
    """Collects requested calls and responses span by span (a stream keeps only these)."""

    def __init__(self) -> None:
        self.requested: list[tuple[int, int, ToolCall]] = []  # (time, order, call)
        self.responses: dict[str, Any] = {}
        self._seen: set[str] = set()

    def add_span(self, attributes: dict[str, Any], time_ns: int, order: int,
                 output: list[Any] | None = None) -> None:
        """``output``: the span's :func:`output_messages`, when the caller has them already."""
        for part in _parts(output_messages(attributes) if output is None else output, "tool_call"):
            call = self._call(part)
            if call is None:
                continue
            if call.id is not None:
                if call.id in self._seen:
                    continue  # the same request repeated by an enclosing span
                self._seen.add(call.id)
            self.requested.append((time_ns, order, call))
        if has_responses(attributes):
            for part in _parts(_messages(attributes[INPUT_KEY]), "tool_call_response"):
                call_id = _id(part)
                if call_id is not None:
                    self.responses[call_id] = part.get("response", part.get("result"))

    @staticmethod
    def _call(part: dict[str, Any]) -> ToolCall | None:
        name = part.get("name")
        if not isinstance(name, str) or not name.strip():
            return None
        raw = part.get("arguments")
        if isinstance(raw, str):
            try:
                raw = otel_json.loads(raw) if raw.strip() else {}
            except (ValueError, RecursionError):  # bad JSON, or past the read limits (an InputError)
                raw = None
        args = raw if isinstance(raw, dict) else None
        metadata: dict[str, Any] = {"convention": "genai-messages"}
        if args is None and part.get("arguments") is not None:
            metadata["raw_arguments"] = part.get("arguments")
        return ToolCall(tool=name.strip(), args=args, id=_id(part), is_error=None, metadata=metadata)

    def unexecuted(self, executed_ids: set[str]) -> list[tuple[int, int, ToolCall]]:
        """Requested calls with no execution span, given a response when one names them."""
        out: list[tuple[int, int, ToolCall]] = []
        for time_ns, order, call in self.requested:
            if call.id is not None and call.id in executed_ids:
                continue
            if call.id is not None and call.id in self.responses:
                call = attrs.evolve(call, result=self.responses[call.id], is_error=False)
            out.append((time_ns, order, call))
        return out
