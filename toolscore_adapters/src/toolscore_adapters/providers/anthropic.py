"""Anthropic Messages API: ``Message`` objects and message histories.

The assistant's ``tool_use`` blocks are answered by ``tool_result`` blocks in the next
user turn, paired by ``tool_use_id``; ``is_error: true`` marks a failed call. Server tools
(``server_tool_use`` with a ``web_search_tool_result``-style answer, an ``..._error``
content object on failure) and MCP connector tools (``mcp_tool_use`` / ``mcp_tool_result``)
are calls too, marked in their metadata. Content
may be SDK block objects (``message.content`` appended as it is) or plain dicts. The
final answer is the text of the last assistant turn that asked for no tool.
"""

from __future__ import annotations

from typing import Any, ClassVar

from toolscore_adapters._common import CallBook, as_plain, lenient_arguments, read_duration, text_of
from toolscore_adapters.providers._shapes import (
    ANTHROPIC,
    SAMPLE,
    check_styles,
    list_confidence,
    module_style,
    placer,
)
from toolscore_core import InputError, Trace, TraceAdapter

# Client tools (tool_use), server tools run by Anthropic (server_tool_use: web search, code
# execution ...) and the MCP connector's remote tools (mcp_tool_use); their results are
# tool_result / <name>_tool_result / mcp_tool_result blocks naming the tool_use_id.
_CALL_BLOCKS = ("tool_use", "server_tool_use", "mcp_tool_use")


def _is_error_content(content: Any) -> bool:
    """Server tools report failure as a content object typed ``..._error``."""
    content = as_plain(content)
    kind = content.get("type") if isinstance(content, dict) else None
    return isinstance(kind, str) and kind.endswith("_error")


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
            if _bare_response(data):
                return 0.9
            return 0.0
        return list_confidence(data, ANTHROPIC, neutral=0.2)

    def load(self, data: Any) -> Trace:
        data = as_plain(data)
        place = placer([])
        meta: dict[str, Any] = {}
        if isinstance(data, dict):
            if isinstance(data.get("messages"), list):
                messages, place = data["messages"], placer(["messages"])
            elif ("role" in data and "content" in data) or _bare_response(data, named=True):
                # a response saved as {"content": [...]} alone is the assistant's turn
                messages, place = [data if "role" in data else {"role": "assistant", **data}], placer([], single=True)
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
                if kind in _CALL_BLOCKS:
                    name = block.get("name")
                    if not isinstance(name, str) or not name:
                        raise InputError(f"the tool name must be a non-empty string, not {name!r}",
                                         location=f"{where}.name")
                    args, block_meta = lenient_arguments(block.get("input", {}), where=f"{where}.input")
                    if kind != "tool_use":
                        block_meta = {**(block_meta or {}), "block_type": kind}
                        if isinstance(block.get("server_name"), str):
                            block_meta["server_name"] = block["server_name"]
                    book.call(name, args, call_id=block.get("id"), location=where, metadata=block_meta)
                    asked = True
                elif isinstance(kind, str) and (kind == "tool_result" or kind.endswith("_tool_result")):
                    flag = block.get("is_error")
                    content = block.get("content")
                    failed = bool(flag) if flag is not None else _is_error_content(content)
                    book.result(call_id=block.get("tool_use_id"), result=_result_value(content),
                                is_error=failed, duration=read_duration(block), location=where)
            if message.get("role") == "assistant":
                text = text_of(content)
                final = None if asked else (text if text else final)
        return Trace(calls=book.calls(), final_answer=final, source_format=self.name,
                     metadata={**meta, **book.trace_metadata()})


def _bare_response(data: dict[str, Any], *, named: bool = False) -> bool:
    """``{"content": [...]}`` with neither ``role`` nor ``type`` (tool-scorer 1.10.0 read it):
    Anthropic's only when its blocks are Anthropic's (``tool_use``, ``text``...), so that no
    other format's ``content`` list is claimed. ``named``: the format was given (e.g.
    ``from_anthropic``), so an answer with no tool use, or no blocks, is one too: no calls."""
    content = data.get("content")
    if "role" in data or "type" in data or not isinstance(content, list) or not (content or named):
        return False
    kinds = {block.get("type") for block in content[:SAMPLE] if isinstance(block, dict)}
    return (named or bool(kinds & set(_CALL_BLOCKS))) and kinds <= _BARE_BLOCKS


_BARE_BLOCKS = {"text", "thinking", "redacted_thinking", "tool_use", "server_tool_use", "mcp_tool_use",
                "web_search_tool_result", "mcp_tool_result"}


def _result_value(content: Any) -> Any:
    content = as_plain(content)
    if isinstance(content, list):
        text = text_of(content)
        if text is not None and all(isinstance(b, dict) and b.get("type") == "text" for b in content):
            return text
    return content
