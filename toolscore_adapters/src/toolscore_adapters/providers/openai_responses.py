"""OpenAI Responses API: ``Response`` objects and input/output item lists.

The model's ``function_call`` items are answered by ``function_call_output`` items with
the same ``call_id`` (the item ``id`` is a different, per-item id, kept in metadata).
Hosted MCP calls (``mcp_call``) carry their own output or error in one item, and custom
tools (``custom_tool_call``) take a free-text ``input``. The final answer is the text of
the last assistant ``message`` item after the last call.
"""

from __future__ import annotations

from typing import Any, ClassVar

from toolscore_adapters._common import (
    CallBook,
    as_plain,
    lenient_arguments,
    parse_arguments,
    read_duration,
    text_of,
)
from toolscore_adapters.providers._shapes import (
    RESPONSES,
    check_styles,
    list_confidence,
    module_style,
    placer,
)
from toolscore_core import InputError, Trace, TraceAdapter


def _name(raw: Any, at: str) -> str:
    if not isinstance(raw, str) or not raw:
        raise InputError(f"the tool name must be a non-empty string, not {raw!r}", location=f"{at}.name")
    return raw


def _output(raw: Any) -> Any:
    raw = as_plain(raw)
    if isinstance(raw, list):
        text = text_of(raw)
        return text if text is not None else raw
    return raw


class OpenAIResponsesAdapter(TraceAdapter):
    """Responses API output and input items (function_call / function_call_output)."""

    name: ClassVar[str] = "openai-responses"
    description: ClassVar[str] = "OpenAI Responses API: Response objects and item lists"

    def detect(self, data: Any) -> float:
        if module_style(data) == RESPONSES:
            return 1.0 if type(data).__name__ in ("Response", "ParsedResponse") else 0.9
        if isinstance(data, dict):
            if data.get("object") == "response" and isinstance(data.get("output"), list):
                return 0.95
            if isinstance(data.get("input"), list) and "model" in data:
                return list_confidence(data["input"], RESPONSES, neutral=0.15) * 0.95
            return 0.0
        # 0.85, not 0.9: an openai-agents to_input_list() is the same items, and that
        # adapter claims it at 0.9 when the SDK's own markers are present
        score = list_confidence(data, RESPONSES, neutral=0.15)
        return 0.85 if score == 0.9 else score

    def load(self, data: Any) -> Trace:
        data = as_plain(data)
        place = placer([])
        meta: dict[str, Any] = {}
        if isinstance(data, dict):
            if isinstance(data.get("output"), list):
                items, place = data["output"], placer(["output"])
                meta = {k: data[k] for k in ("id", "model") if isinstance(data.get(k), str)}
            elif isinstance(data.get("input"), list):
                items, place = data["input"], placer(["input"])
            elif isinstance(data.get("type"), str):
                items, place = [data], placer([], single=True)
            else:
                raise InputError("is not an OpenAI Responses API response or item list",
                                 expected="a Response (with 'output') or a list of items")
        elif isinstance(data, list):
            items = data
        else:
            raise InputError(f"is not an OpenAI Responses API item list (a {type(data).__name__})")
        check_styles(items, RESPONSES, place)
        book = CallBook(self.name)
        final: str | None = None
        for index, raw in enumerate(items):
            item = as_plain(raw)
            at = place(index)
            kind = item.get("type")
            if kind == "function_call":
                args, invalid = lenient_arguments(item.get("arguments"), where=f"{at}.arguments")
                item_meta = _item_meta(item)
                if invalid:
                    item_meta = {**(item_meta or {}), **invalid}
                book.call(_name(item.get("name"), at), args, call_id=item.get("call_id") or item.get("id"),
                          location=at, metadata=item_meta)
                final = None
            elif kind == "custom_tool_call":
                book.call(_name(item.get("name"), at), {"input": item.get("input")},
                          call_id=item.get("call_id") or item.get("id"), location=at,
                          metadata=_item_meta(item))
                final = None
            elif kind in ("function_call_output", "custom_tool_call_output"):
                book.result(call_id=item.get("call_id"), result=_output(item.get("output")),
                            is_error=False, duration=read_duration(item), location=at)
            elif kind == "mcp_call":
                args = parse_arguments(item.get("arguments"), where=f"{at}.arguments")
                call_id = item.get("id") or f"mcp_call_{index}"
                book.call(_name(item.get("name"), at), args, call_id=call_id, location=at,
                          metadata={"server_label": item.get("server_label")} if item.get("server_label") else None)
                error = item.get("error")
                if error is not None or item.get("output") is not None:
                    book.result(call_id=call_id, result=item.get("output"), is_error=error is not None,
                                error=None if error is None else str(error), location=at)
                final = None
            elif item.get("role") == "assistant":
                text = text_of(item.get("content"))
                final = text if text else final
        return Trace(calls=book.calls(), final_answer=final, source_format=self.name,
                     metadata={**meta, **book.trace_metadata()})


def _item_meta(item: dict[str, Any]) -> dict[str, Any] | None:
    meta = {k: item[k] for k in ("id", "status") if isinstance(item.get(k), str)}
    return {("item_id" if k == "id" else k): v for k, v in meta.items()} or None
