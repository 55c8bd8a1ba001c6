"""Anthropic Messages API: ``Message`` objects and message histories.

The assistant's ``tool_use`` blocks are answered by ``tool_result`` blocks in the next
user turn, paired by ``tool_use_id``; ``is_error: true`` marks a failed call. Content
may be SDK block objects (``message.content`` appended as it is) or plain dicts. The
final answer is the text of the last assistant turn that asked for no tool.
"""

from __future__ import annotations

from typing import Any, ClassVar

from toolscore_adapters._common import CallBook, as_plain, parse_arguments, read_duration, text_of
from toolscore_adapters.providers._shapes import (
    ANTHROPIC,
    check_styles,
    list_confidence,
    module_style,
    placer,
)
from toolscore_core import InputError, Trace, TraceAdapter


class AnthropicAdapter(TraceAdapter):
    """Messages API responses and histories (tool_use / tool_result blocks)."""

    name: ClassVar[str] = "anthropic"
    description: ClassVar[str] = "Anthropic Messages: Message objects and message lists"

    def detect(self, data: Any) -> float:
        if module_style(data) == ANTHROPIC:
            return 1.0 if type(data).__name__ in ("Message", "BetaMessage", "ParsedMessage") else 0.0
        if isinstance(data, dict):
            if data.get("type") == "message" and data.get("role") == "assistant" and isinstance(
                data.get("content"), list
            ):
                return 0.95
            if isinstance(data.get("messages"), list) and "model" in data:
                return list_confidence(data["messages"], ANTHROPIC, neutral=0.2) * 0.95
            return 0.0
        return list_confidence(data, ANTHROPIC, neutral=0.2)

    def load(self, data: Any) -> Trace:
        data = as_plain(data)
        place = placer([])
        meta: dict[str, Any] = {}
        if isinstance(data, dict):
            if isinstance(data.get("messages"), list):
                messages, place = data["messages"], placer(["messages"])
            elif "role" in data and "content" in data:
                messages, place = [data], placer([], single=True)
                meta = {k: data[k] for k in ("id", "model") if isinstance(data.get(k), str)}
            else:
                raise InputError("is not an Anthropic message or message list",
                                 expected="a Message, a {\"messages\": [...]} body or a list of messages")
        elif isinstance(data, list):
            messages = data
        else:
            raise InputError(f"is not an Anthropic message list (a {type(data).__name__})")
        check_styles(messages, ANTHROPIC, place)
        book = CallBook(self.name)
        final: str | None = None
        for index, raw in enumerate(messages):
            message = as_plain(raw)
            at = place(index)
            content = message.get("content")
            if isinstance(content, str):
                if message.get("role") == "assistant":
                    final = content or final
                continue
            if not isinstance(content, list):
                continue
            asked = False
            for j, raw_block in enumerate(content):
                block = as_plain(raw_block)
                if not isinstance(block, dict):
                    continue
                kind = block.get("type")
                where = f"{at}.content[{j}]"
                if kind == "tool_use":
                    name = block.get("name")
                    if not isinstance(name, str) or not name:
                        raise InputError(f"the tool name must be a non-empty string, not {name!r}",
                                         location=f"{where}.name")
                    args = parse_arguments(block.get("input", {}), where=f"{where}.input")
                    book.call(name, args, call_id=block.get("id"), location=where)
                    asked = True
                elif kind == "tool_result":
                    flag = block.get("is_error")
                    book.result(call_id=block.get("tool_use_id"), result=_result_value(block.get("content")),
                                is_error=bool(flag) if flag is not None else False,
                                duration=read_duration(block), location=where)
            if message.get("role") == "assistant":
                text = text_of(content)
                final = None if asked else (text if text else final)
        return Trace(calls=book.calls(), final_answer=final, source_format=self.name,
                     metadata={**meta, **book.trace_metadata()})


def _result_value(content: Any) -> Any:
    content = as_plain(content)
    if isinstance(content, list):
        text = text_of(content)
        if text is not None and all(isinstance(b, dict) and b.get("type") == "text" for b in content):
            return text
    return content
