"""OpenAI Agents SDK runs (format ``openai-agents``): a live ``RunResult``, its
``new_items``, the ``to_input_list()`` dicts, the saved items
(``[{"type": "tool_call_item", "raw_item": {...}, "output": ...}]``) and the resumable run
state written by ``result.to_state().to_json()``.

Results pair with calls by ``call_id``. The SDK records no error flag anywhere: a tool that
raises becomes an ordinary ``function_call_output`` whose text comes from the tool's
``failure_error_function``. So a failure is recognised by its text (a documented heuristic):

- the SDK's default handler text, "An error occurred while running the tool. Please try
  again." (0.24; 0.20 appends " Error: <message>");
- an output that starts with "Error:", the usual custom ``failure_error_function``.

Every other output counts as a success. A handoff to another agent is a function call as
the model sees it, so it stays a call (``metadata["handoff"]`` marks it where the items say
so). A plain Responses API item list is also readable
here, but only claimed strongly when it carries the SDK's default error text; otherwise the
``openai-responses`` adapter reads it (pass ``format="openai-agents"`` to get the heuristic).
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from toolscore_adapters._common import from_package, lenient_arguments, result_text, to_plain
from toolscore_adapters.frameworks._shared import dicts, tag, text_or_json, where
from toolscore_core import InputError, ToolCall, Trace, TraceAdapter

DEFAULT_ERROR_PREFIX = "An error occurred while running the tool"
ERROR_PREFIX = "Error:"
_CALL_TYPES = frozenset({"function_call", "custom_tool_call", "mcp_call"})
_OUTPUT_TYPES = frozenset({"function_call_output", "custom_tool_call_output"})
_RESPONSE_TYPES = _CALL_TYPES | _OUTPUT_TYPES | {"message", "reasoning"}
_ITEM_TYPES = frozenset({"tool_call_item", "tool_call_output_item", "message_output_item", "reasoning_item",
                         "handoff_call_item", "handoff_output_item", "mcp_list_tools_item",
                         "mcp_approval_request_item", "mcp_approval_response_item", "tool_approval_item"})


def failure_text(output: Any) -> str | None:
    """The error message when ``output`` is an Agents SDK failure text, else None."""
    if not isinstance(output, str):
        return None
    text = output.strip()
    if text.startswith(DEFAULT_ERROR_PREFIX):
        _, marker, detail = text.partition(ERROR_PREFIX)
        return detail.strip() if marker and detail.strip() else text
    if text.startswith(ERROR_PREFIX):
        return text[len(ERROR_PREFIX):].strip() or text
    return None


class OpenAIAgentsAdapter(TraceAdapter):
    """OpenAI Agents SDK run results, their items, input lists and saved run state."""

    name: ClassVar[str] = "openai-agents"
    description: ClassVar[str] = "OpenAI Agents SDK RunResult, new_items, to_input_list() and run state JSON"

    def detect(self, data: Any) -> float:
        if _is_live_result(data):
            return 1.0
        if isinstance(data, (list, tuple)) and data and all(_is_live_item(i) for i in data):
            return 1.0
        if isinstance(data, dict):
            if isinstance(data.get("generated_items"), list) and ("$schemaVersion" in data or "current_agent" in data):
                return 0.95
            return 0.0
        if not isinstance(data, list) or not data:
            return 0.0
        items = dicts(data)
        if len(items) != len(data):
            return 0.0
        if all(tag(i, "type") in _ITEM_TYPES and "raw_item" in i for i in items):
            return 0.95
        typed = [i for i in items if tag(i, "type") is not None]
        if not typed or not all(i["type"] in _RESPONSE_TYPES for i in typed):
            return 0.0
        if not any(i["type"] in _CALL_TYPES for i in typed):
            return 0.0
        if any(i["type"] == "function_call_output" and isinstance(i.get("output"), str)
               and i["output"].startswith(DEFAULT_ERROR_PREFIX) for i in typed):
            return 0.9  # the SDK's own default error text: nobody else writes it
        return 0.35  # a plain Responses item list: openai-responses should win it

    def load(self, data: Any) -> Trace:
        final_output: Any = None
        if _is_live_result(data):
            final_output = getattr(data, "final_output", None)
            raw_items = [_live_item(item) for item in data.new_items]
        elif isinstance(data, (list, tuple)) and data and all(_is_live_item(i) for i in data):
            raw_items = [_live_item(item) for item in data]
        elif isinstance(data, dict) and isinstance(data.get("generated_items"), list):
            raw_items = [_saved_item(item, ("generated_items", n)) for n, item in enumerate(data["generated_items"])]
        elif isinstance(data, list):
            if not data:  # an empty run is a trace with no calls, as tool-scorer 1.10.0 read it
                return Trace(calls=[], source_format=self.name)
            raw_items = [_saved_item(item, (n,)) for n, item in enumerate(data)]
        else:
            raise InputError("is not an OpenAI Agents SDK run",
                             expected="a RunResult, its new_items, to_input_list() or the run state JSON")
        trace = read_items(raw_items)
        final = text_or_json(to_plain(final_output)) if final_output is not None else trace.final_answer
        return Trace(calls=trace.calls, final_answer=final, source_format=self.name, metadata=trace.metadata)


def _is_live_result(data: Any) -> bool:
    return from_package(data, "agents") and hasattr(data, "new_items") and hasattr(data, "final_output")


def _is_live_item(data: Any) -> bool:
    return from_package(data, "agents") and hasattr(data, "raw_item") and hasattr(data, "type")


def _live_item(item: Any) -> tuple[dict[str, Any], Any, tuple[str | int, ...]]:
    raw = to_plain(item.raw_item)
    output = getattr(item, "output", None) if item.type == "tool_call_output_item" else None
    return _mark_handoff(raw if isinstance(raw, dict) else {}, item.type), output, ()


def _mark_handoff(raw: dict[str, Any], item_type: Any) -> dict[str, Any]:
    """A handoff to another agent reaches the model as a function call (``transfer_to_<agent>``);
    it stays a call, tagged so reports can tell it from a tool."""
    return {**raw, "_handoff": True} if item_type == "handoff_call_item" else raw


# RunItem type -> the raw item type it wraps (tool-scorer 1.10.0 read items whose raw_item had none)
_ITEM_RAW_TYPES = {"tool_call_item": "function_call", "tool_call_output_item": "function_call_output"}


def _saved_item(item: Any, path: tuple[str | int, ...]) -> tuple[dict[str, Any], Any, tuple[str | int, ...]]:
    if not isinstance(item, dict):
        raise InputError(f"an item must be an object, not {type(item).__name__}", location=where(*path))
    if "raw_item" in item:
        raw = item["raw_item"]
        if not isinstance(raw, dict):
            raise InputError("'raw_item' must be an object", location=where(*path, "raw_item"))
        outer = item.get("type")
        kind = _ITEM_RAW_TYPES.get(outer) if isinstance(outer, str) and "type" not in raw else None
        if kind is not None:  # a raw_item saved without its type: the item's type says what it is
            raw = {**raw, "type": kind}
        return _mark_handoff(raw, item.get("type")), item.get("output"), (*path, "raw_item")
    return item, None, path


def read_items(items: list[tuple[dict[str, Any], Any, tuple[str | int, ...]]]) -> Trace:
    """Calls, results and the last assistant text from Responses-style raw items."""
    calls: list[ToolCall] = []
    results: dict[str, dict[str, Any]] = {}
    final_answer: str | None = None
    for raw, output, path in items:
        kind = tag(raw, "type")
        if kind in _CALL_TYPES:
            calls.append(_call(raw, path))
        elif kind in _OUTPUT_TYPES:
            call_id = raw.get("call_id")
            if isinstance(call_id, str):
                results[call_id] = _outcome(raw.get("output"), output)
        elif kind == "message" and raw.get("role") == "assistant":
            text = _message_text(raw.get("content"))
            if text:
                final_answer = text
    paired = []
    for call in calls:
        found = results.get(call.id) if call.id is not None else None
        paired.append(ToolCall(**{**_fields(call), **found}) if found else call)
    if not paired and not final_answer:
        raise InputError("holds no tool calls and no assistant message",
                         expected="function_call / function_call_output items")
    return Trace(calls=paired, final_answer=final_answer)


def _fields(call: ToolCall) -> dict[str, Any]:
    return attrs.asdict(call, recurse=False)


def _call(raw: dict[str, Any], path: tuple[str | int, ...]) -> ToolCall:
    tool = raw.get("name")
    if not isinstance(tool, str) or not tool:
        raise InputError(f"a {raw.get('type')} item needs a name, not {tool!r}", location=where(*path, "name"))
    if raw.get("type") == "custom_tool_call":
        args: dict[str, Any] | None = {"input": raw.get("input")}
    invalid: dict[str, Any] | None = None
    if raw.get("type") != "custom_tool_call":  # a model's argument text: cut off or not JSON is a finding
        args, invalid = lenient_arguments(raw.get("arguments"), where=where(*path, "arguments"))
    call_id = raw.get("call_id") if raw.get("type") != "mcp_call" else raw.get("id")
    metadata = {k: raw[k] for k in ("id", "status", "server_label") if raw.get(k) is not None}
    if invalid:
        metadata.update(invalid)
    if raw.get("_handoff"):
        metadata["handoff"] = True
    if raw.get("type") == "mcp_call":  # hosted MCP: the outcome is on the call itself
        error = raw.get("error")
        has_outcome = "output" in raw or error is not None
        return ToolCall(tool=tool, args=args, id=call_id, result=raw.get("output"),
                        is_error=(error is not None) if has_outcome else None,
                        error=text_or_json(error), metadata=metadata)
    return ToolCall(tool=tool, args=args, id=call_id if isinstance(call_id, str) else None, metadata=metadata)


def _outcome(wire_output: Any, python_output: Any) -> dict[str, Any]:
    text = result_text(wire_output)
    error = failure_text(text)
    found: dict[str, Any] = {"result": text, "is_error": error is not None, "error": error}
    if python_output is not None and not isinstance(python_output, str):
        found["structured_result"] = to_plain(python_output)
    return found


def _message_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") in ("output_text", "text")]
        joined = "".join(t for t in texts if isinstance(t, str))
        return joined or None
    return None
