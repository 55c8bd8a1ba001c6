"""OpenAI Chat Completions: ``ChatCompletion`` responses and chat message histories.

Reads a ``ChatCompletion`` (object or dict; the first choice), a request body
``{"messages": [...]}``, a single assistant message, or a message list in which the
assistant's ``tool_calls`` are answered by ``role="tool"`` messages (paired by
``tool_call_id``). The deprecated ``functions`` API is read too: an assistant
``function_call`` answered by a ``role="function"`` message, paired by name since it has
no id. Chat Completions has no error flag for tool results, so an answered call is a
success unless the tool message carries an explicit ``is_error``; an unanswered call is
unknown.
"""

from __future__ import annotations

from typing import Any, ClassVar

from toolscore_core.files import json_path

from toolscore_adapters._common import CallBook, as_plain, parse_arguments, read_duration, text_of
from toolscore_adapters.providers._shapes import (
    OPENAI,
    check_styles,
    field,
    list_confidence,
    module_style,
)
from toolscore_core import InputError, Trace, TraceAdapter


def _tool_name(raw: Any, location: list[str | int]) -> str:
    if not isinstance(raw, str) or not raw:
        raise InputError(f"the tool name must be a non-empty string, not {raw!r}", location=json_path(location))
    return raw


def unwrap_completion(data: Any) -> tuple[list[Any], list[str | int], dict[str, Any]]:
    """The message list inside ``data`` with its place in the file, and trace metadata."""
    data = as_plain(data)
    if isinstance(data, list):
        return data, [], {}
    if not isinstance(data, dict):
        raise InputError(f"is not an OpenAI chat completion or message list (a {type(data).__name__})",
                         expected="a ChatCompletion, a {\"messages\": [...]} body or a list of messages")
    if isinstance(data.get("choices"), list):
        choices = data["choices"]
        if not choices:
            raise InputError("the chat completion has no choices", location="$.choices")
        message = as_plain(field(choices[0], "message"))
        if not isinstance(message, dict):
            raise InputError("the first choice has no message", location="$.choices[0].message")
        meta = {k: data[k] for k in ("id", "model") if isinstance(data.get(k), str)}
        if len(choices) > 1:
            meta["choices"] = len(choices)
        return [message], ["choices", 0, "message"], meta
    if isinstance(data.get("messages"), list):
        return data["messages"], ["messages"], {}
    if "role" in data:
        return [data], [], {}
    raise InputError("is not an OpenAI chat completion or message list",
                     expected="a ChatCompletion, a {\"messages\": [...]} body or a list of messages")


class OpenAIChatAdapter(TraceAdapter):
    """Chat Completions responses and message histories (tool_calls and legacy function_call)."""

    name: ClassVar[str] = "openai"
    description: ClassVar[str] = "OpenAI Chat Completions: ChatCompletion objects and message lists"

    def detect(self, data: Any) -> float:
        if module_style(data) == OPENAI:
            return 1.0 if type(data).__name__ in ("ChatCompletion", "ParsedChatCompletion") else 0.95
        if isinstance(data, dict):
            if data.get("object") == "chat.completion" and isinstance(data.get("choices"), list):
                return 0.95
            choices = data.get("choices")
            if isinstance(choices, list) and choices and isinstance(field(choices[0], "message"), dict):
                return 0.8 if "role" in field(choices[0], "message") else 0.0
            if isinstance(data.get("messages"), list):
                return list_confidence(data["messages"], OPENAI, neutral=0.3) * 0.95
            if data.get("role") == "assistant" and (data.get("tool_calls") or data.get("function_call")):
                return 0.85
            return 0.0
        return list_confidence(data, OPENAI, neutral=0.3)

    def load(self, data: Any) -> Trace:
        messages, prefix, meta = unwrap_completion(data)
        check_styles(messages, OPENAI, prefix)
        book = CallBook(self.name)
        final: str | None = None
        for index, raw in enumerate(messages):
            message = as_plain(raw)
            where = [*prefix, index]
            role = message.get("role")
            if role == "assistant":
                made = self._assistant_calls(message, where, book)
                text = text_of(message.get("content"))
                final = None if made else (text if text else final)
            elif role in ("tool", "function"):
                flag = message.get("is_error")
                book.result(
                    call_id=message.get("tool_call_id") if role == "tool" else None,
                    name=message.get("name"),
                    result=_result_value(message.get("content")),
                    is_error=flag if isinstance(flag, bool) else False,
                    duration=read_duration(message),
                    location=json_path(where),
                )
        return Trace(calls=book.calls(), final_answer=final, source_format=self.name,
                     metadata={**meta, **book.trace_metadata()})

    def _assistant_calls(self, message: dict[str, Any], where: list[str | int], book: CallBook) -> int:
        made = 0
        tool_calls = message.get("tool_calls")
        if tool_calls is not None and not isinstance(tool_calls, list):
            raise InputError("'tool_calls' must be a list", location=json_path([*where, "tool_calls"]))
        for j, raw_call in enumerate(tool_calls or ()):
            call = as_plain(raw_call)
            at = [*where, "tool_calls", j]
            if not isinstance(call, dict):
                raise InputError("a tool call must be an object", location=json_path(at))
            if call.get("type") == "custom" or "custom" in call:
                custom = as_plain(call.get("custom")) or {}
                if not isinstance(custom, dict):
                    raise InputError("'custom' must be an object", location=json_path([*at, "custom"]))
                name = _tool_name(custom.get("name"), [*at, "custom", "name"])
                book.call(name, {"input": custom.get("input")}, call_id=call.get("id"), location=json_path(at))
            else:
                function = as_plain(call.get("function"))
                if not isinstance(function, dict):
                    raise InputError("a tool call needs a 'function' object", location=json_path([*at, "function"]))
                name = _tool_name(function.get("name"), [*at, "function", "name"])
                args = parse_arguments(function.get("arguments"), where=json_path([*at, "function", "arguments"]))
                book.call(name, args, call_id=call.get("id"), location=json_path(at))
            made += 1
        legacy = as_plain(message.get("function_call"))
        if legacy:
            at = [*where, "function_call"]
            if not isinstance(legacy, dict):
                raise InputError("'function_call' must be an object", location=json_path(at))
            name = _tool_name(legacy.get("name"), [*at, "name"])
            args = parse_arguments(legacy.get("arguments"), where=json_path([*at, "arguments"]))
            book.call(name, args, location=json_path(at))
            made += 1
        return made


def _result_value(content: Any) -> Any:
    """Tool message content: text stays text; a list of text parts is joined."""
    if isinstance(content, (list, tuple)):
        text = text_of(content)
        return text if text is not None else as_plain(content)
    return as_plain(content)
