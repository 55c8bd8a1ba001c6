"""Pydantic AI runs: ``AgentRunResult``, its ``all_messages()`` list, and the JSON that
``all_messages_json()`` / ``ModelMessagesTypeAdapter`` write (format ``pydantic-ai``).

The JSON is read directly rather than through the installed pydantic-ai, because the
versions disagree: 1.x rejects the 2.x ``outcome: "retried"`` parts, and 2.x rewrites the
1.x ``retry-prompt`` parts. Both spellings mean the same here:

- a ``tool-call`` part inside a ``kind: "response"`` message is a call;
- a ``tool-return`` part inside a ``kind: "request"`` message is its result, matched by
  ``tool_call_id``. Its ``outcome`` (2.x) says how it went: ``failed`` and ``retried`` are
  errors, ``denied`` is a denied call, ``interrupted`` leaves the outcome unknown, and
  ``success`` (or no outcome, 1.x) is a success;
- a ``retry-prompt`` part with a ``tool_name`` (1.x ``ModelRetry``) is a failed result; one
  without a ``tool_name`` is output-validation feedback, not about a tool call.

Structured output arrives as a call to the output tool (``final_result`` by default) whose
return says "Final result processed."; that is the run's final answer, not a tool call.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from toolscore_adapters._common import from_package, lenient_arguments, result_text, to_plain
from toolscore_adapters.frameworks._shared import (
    dicts,
    iso_time,
    parse_json_text,
    peek_text,
    tag,
    text_or_json,
    where,
)
from toolscore_core import InputError, ToolCall, Trace, TraceAdapter

ERROR_OUTCOMES = frozenset({"failed", "retried"})
OUTPUT_TOOL_ACK = "Final result processed."
_PART_KINDS = frozenset({"tool-call", "tool-return", "retry-prompt", "text", "user-prompt", "system-prompt",
                         "thinking", "builtin-tool-call", "builtin-tool-return", "file", "instruction"})


class PydanticAIAdapter(TraceAdapter):
    """Pydantic AI message histories, live or saved with ``all_messages_json()``."""

    name: ClassVar[str] = "pydantic-ai"
    description: ClassVar[str] = "Pydantic AI run results and all_messages_json() message lists"

    def detect(self, data: Any) -> float:
        if _is_live_result(data):
            return 1.0
        if isinstance(data, (list, tuple)) and data and all(from_package(m, "pydantic_ai") for m in data):
            return 1.0 if all(hasattr(m, "parts") and hasattr(m, "kind") for m in data) else 0.0
        head = peek_text(data)
        if head is not None:
            return 0.95 if '"part_kind"' in head and '"kind"' in head else 0.0
        if isinstance(data, dict) and isinstance(data.get("messages"), list):
            return self.detect(data["messages"]) * 0.95
        if not isinstance(data, list) or not data:
            return 0.0
        messages = dicts(with_kinds(data))
        if len(messages) != len(data) or not all(m.get("kind") in ("request", "response") for m in messages):
            return 0.0
        parts = [p for m in messages if isinstance(m.get("parts"), list) for p in m["parts"]]
        if not parts:
            return 0.3
        tagged = [p for p in dicts(parts) if tag(p, "part_kind") in _PART_KINDS]
        return 0.95 if len(tagged) == len(parts) else 0.5

    def load(self, data: Any) -> Trace:
        final_output: Any = None
        if _is_live_result(data):
            final_output = getattr(data, "output", None)
            messages = json.loads(data.all_messages_json())
        elif isinstance(data, (list, tuple)) and data and all(from_package(m, "pydantic_ai") for m in data):
            from pydantic_ai.messages import ModelMessagesTypeAdapter

            messages = ModelMessagesTypeAdapter.dump_python(list(data), mode="json")
        elif isinstance(data, (bytes, bytearray, memoryview, str)):
            messages = parse_json_text(data, what="the pydantic-ai message JSON")
        elif isinstance(data, dict) and "messages" in data:
            messages = data["messages"]
        else:
            messages = data
        trace = read_messages(with_kinds(messages))
        if final_output is not None and not isinstance(final_output, str):
            return Trace(calls=trace.calls, final_answer=text_or_json(to_plain(final_output)),
                         source_format=self.name, metadata=trace.metadata)
        return Trace(calls=trace.calls, final_answer=trace.final_answer, source_format=self.name,
                     metadata=trace.metadata)


_RESPONSE_PARTS = frozenset({"tool-call", "text", "thinking", "builtin-tool-call", "builtin-tool-return", "file"})
_REQUEST_PARTS = frozenset({"tool-return", "retry-prompt", "user-prompt", "system-prompt", "instruction"})


def with_kinds(messages: Any) -> Any:
    """Messages saved without ``kind`` (tool-scorer 1.10.0 read them) given the kind their
    parts imply: a model's parts (tool-call, text) make a response; the others a request.
    Only a message whose every part names a pydantic-ai ``part_kind`` is given one, so a
    Gemini ``{"parts": [...]}`` content is never taken for pydantic-ai's."""
    if not isinstance(messages, list) or all(not isinstance(m, dict) or "kind" in m for m in messages):
        return messages
    out = []
    for m in messages:
        parts = m.get("parts") if isinstance(m, dict) and "kind" not in m else None
        kinds = {p.get("part_kind") for p in parts if isinstance(p, dict)} if isinstance(parts, list) else set()
        if parts and len(kinds) and all(isinstance(p, dict) for p in parts) and kinds <= _PART_KINDS:
            m = {**m, "kind": "response" if kinds <= _RESPONSE_PARTS else "request"}
        out.append(m)
    return out


def _is_live_result(data: Any) -> bool:
    return from_package(data, "pydantic_ai") and callable(getattr(data, "all_messages_json", None))


def read_messages(messages: Any) -> Trace:
    """Calls and final answer from the JSON form of a message history."""
    if not isinstance(messages, list):
        raise InputError("a pydantic-ai history must be a list of messages",
                         expected='[{"kind": "request"|"response", "parts": [...]}, ...]')
    if not messages:  # an empty history is a trace with no calls, as tool-scorer 1.10.0 read it
        return Trace(calls=[])
    calls: list[dict[str, Any]] = []
    results: dict[str, dict[str, Any]] = {}
    output_calls: dict[str, Any] = {}
    returns: dict[str, Any] = {}
    final_texts: list[str] = []
    metadata: dict[str, Any] = {}
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("kind") not in ("request", "response"):
            raise InputError("is not a pydantic-ai message", location=where(i),
                             expected='an object with "kind": "request" or "response"')
        parts = message.get("parts")
        if not isinstance(parts, list):
            raise InputError("'parts' must be a list", location=where(i, "parts"))
        for key in ("run_id", "conversation_id", "model_name"):
            if message.get(key) and key not in metadata:
                metadata[key] = message[key]
        if message["kind"] == "response":
            texts = []
            for j, part in enumerate(parts):
                if not isinstance(part, dict):
                    continue
                if part.get("part_kind") == "tool-call":
                    calls.append({**_call(part, i, j), "_sent": message.get("timestamp")})
                elif part.get("part_kind") == "text" and isinstance(part.get("content"), str):
                    texts.append(part["content"])
            if texts:
                final_texts = texts
            elif any(isinstance(p, dict) and p.get("part_kind") == "tool-call" for p in parts):
                final_texts = []
        else:
            for part in parts:
                if isinstance(part, dict):
                    _result(part, results, output_calls)
                    if isinstance(part.get("tool_call_id"), str):
                        returns[part["tool_call_id"]] = part.get("timestamp")
    tool_calls = []
    final_answer = "".join(final_texts) if final_texts else None
    for call in calls:
        sent = call.pop("_sent", None)
        if call["id"] is not None and call["id"] in output_calls:
            final_answer = text_or_json(call["args"])
            continue
        found = dict(results.get(call["id"]) or {}) if call["id"] is not None else {}
        if found:
            duration = _seconds_between(sent, returns.get(call["id"]))
            if duration is not None:
                found["duration"] = duration
        tool_calls.append(ToolCall(**{**call, **found}))
    return Trace(calls=tool_calls, final_answer=final_answer, metadata=metadata)


def _call(part: dict[str, Any], i: int, j: int) -> dict[str, Any]:
    tool = part.get("tool_name")
    if not isinstance(tool, str) or not tool:
        raise InputError(f"a tool-call part needs a tool_name, not {tool!r}", location=where(i, "parts", j, "tool_name"))
    call_id = part.get("tool_call_id")
    args: dict[str, Any] | None = {}
    invalid: dict[str, Any] | None = None
    if part.get("args") is not None:  # the model's text: cut off or not JSON is a finding, not a refusal
        args, invalid = lenient_arguments(part.get("args"), where=where(i, "parts", j, "args"))
    call: dict[str, Any] = {"tool": tool, "args": args, "id": call_id if isinstance(call_id, str) else None,
                            "index": None}
    if invalid:
        call["metadata"] = invalid
    return call


def _result(part: dict[str, Any], results: dict[str, dict[str, Any]], output_calls: dict[str, Any]) -> None:
    kind = part.get("part_kind")
    call_id = part.get("tool_call_id")
    if not isinstance(call_id, str):
        return
    if kind == "tool-return":
        content = part.get("content")
        outcome = part.get("outcome") or "success"
        if not isinstance(outcome, str):
            raise InputError(f"a tool-return outcome must be a string, not {type(outcome).__name__}",
                             expected='"success", "failed", "retried", "denied" or "interrupted"')
        if content == OUTPUT_TOOL_ACK and outcome == "success":
            output_calls[call_id] = True
            return
        text = result_text(content)
        if outcome in ERROR_OUTCOMES:
            results[call_id] = {"result": text, "is_error": True, "error": _error_text(content),
                                "metadata": {"outcome": outcome}}
        elif outcome == "denied":
            results[call_id] = {"result": text, "is_error": None, "denied": True,
                                "denied_reason": _error_text(content), "metadata": {"outcome": outcome}}
        elif outcome == "interrupted":
            results[call_id] = {"result": text, "is_error": None, "metadata": {"outcome": outcome}}
        else:
            results[call_id] = {"result": text, "is_error": False}
    elif kind == "retry-prompt" and part.get("tool_name"):
        results[call_id] = {"result": part.get("content"), "is_error": True,
                            "error": _error_text(part.get("content")), "metadata": {"outcome": "retry-prompt"}}


def _seconds_between(start: Any, end: Any) -> float | None:
    """Seconds from the model response that asked for a call to the tool's return (both
    ISO timestamps pydantic-ai records); None when either is missing or they disagree."""
    began, ended = iso_time(start), iso_time(end)
    if began is None or ended is None:
        return None
    try:
        seconds = (ended - began).total_seconds()
    except TypeError:  # one stamp naive, the other aware
        return None
    return seconds if seconds >= 0 else None


def _error_text(content: Any) -> str | None:
    """Error text: strings stay; pydantic validation error lists become their messages."""
    if content is None:
        return None
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(e, dict) and "msg" in e for e in content):
        return "; ".join(f"{'.'.join(map(str, e.get('loc') or ())) or 'input'}: {e['msg']}" for e in content)
    return text_or_json(content)
