"""OpenAI Chat Completions: ``ChatCompletion`` responses and chat message histories.

Reads a ``ChatCompletion`` (object or dict; the first choice), the list of
``ChatCompletionChunk`` a ``stream=True`` call yields (deltas assembled), a request body
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

from toolscore_adapters._common import (
    CallBook,
    MalformedArguments,
    arguments_at,
    as_plain,
    invalid_arguments_metadata,
    lenient_arguments,
    paused_gc,
    read_duration,
    text_of,
)
from toolscore_adapters.providers._shapes import (
    OPENAI,
    Place,
    check_styles,
    field,
    list_confidence,
    module_style,
    placer,
)
from toolscore_core import InputError, Trace, TraceAdapter

_PLAIN_ROLES = ("assistant", "tool", "user", "system", "developer", "function")


def _tool_name(raw: Any, location: str) -> str:
    if type(raw) is not str or not raw:
        raise InputError(f"the tool name must be a non-empty string, not {raw!r}", location=location)
    return raw


def _is_chunk(item: Any) -> bool:
    if module_style(item) == OPENAI:
        return type(item).__name__ == "ChatCompletionChunk"
    return isinstance(item, dict) and item.get("object") == "chat.completion.chunk"


def assemble_stream(chunks: list[Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The assistant message a ``stream=True`` response adds up to (first choice): text
    deltas joined, tool-call deltas merged by their ``index`` (the id and name arrive in
    the first delta of a call, the argument string in pieces)."""
    text: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    meta: dict[str, Any] = {"streamed_chunks": len(chunks)}
    for i, raw in enumerate(chunks):
        chunk = as_plain(raw)
        if not isinstance(chunk, dict) or chunk.get("object") != "chat.completion.chunk":
            raise InputError("every item of a streamed response must be a chat.completion.chunk", location=f"$[{i}]")
        for key in ("id", "model"):
            if isinstance(chunk.get(key), str):
                meta.setdefault(key, chunk[key])
        choices = chunk.get("choices")
        if not isinstance(choices, list):
            raise InputError("'choices' must be a list", location=f"$[{i}].choices")
        for c, choice in enumerate(choices):
            choice = as_plain(choice)
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = as_plain(choice.get("delta")) or {}
            if not isinstance(delta, dict):
                raise InputError("'delta' must be an object", location=f"$[{i}].choices[{c}].delta")
            if isinstance(delta.get("content"), str):
                text.append(delta["content"])
            for d, piece in enumerate(as_plain(delta.get("tool_calls")) or ()):
                if not isinstance(piece, dict) or type(piece.get("index", 0)) is not int:
                    raise InputError("a tool-call delta needs an integer 'index'",
                                     location=f"$[{i}].choices[{c}].delta.tool_calls[{d}]")
                call = calls.setdefault(piece.get("index", 0), {"type": "function", "function": {"arguments": ""}})
                if piece.get("id"):
                    call["id"] = piece["id"]
                function = as_plain(piece.get("function")) or {}
                if isinstance(function, dict):
                    if function.get("name"):
                        call["function"]["name"] = function["name"]
                    if isinstance(function.get("arguments"), str):
                        call["function"]["arguments"] += function["arguments"]
    message: dict[str, Any] = {"role": "assistant", "content": "".join(text) or None}
    if calls:
        message["tool_calls"] = [calls[k] for k in sorted(calls)]
    return message, meta


def unwrap_completion(data: Any) -> tuple[list[Any], Place, dict[str, Any]]:
    """The message list inside ``data``, where each message sits in the file, and trace metadata."""
    data = as_plain(data) if not isinstance(data, (list, tuple)) else list(data)
    if isinstance(data, list):
        if data and _is_chunk(data[0]):
            message, meta = assemble_stream(data)
            # an error is located in the deltas of every chunk (JSONPath wildcard)
            return [message], (lambda index: "$[*].choices[0].delta"), meta
        return data, placer([]), {}
    if not isinstance(data, dict):
        raise InputError(f"is not an OpenAI chat completion or message list (a {type(data).__name__})",
                         expected="a ChatCompletion, a {\"messages\": [...]} body or a list of messages")
    if isinstance(data.get("choices"), list):
        choices = data["choices"]
        meta = {k: data[k] for k in ("id", "model") if isinstance(data.get(k), str)}
        if not choices:  # a completion with no choices made no calls (tool-scorer read it so)
            return [], placer(["choices"]), meta
        message = as_plain(field(choices[0], "message"))
        if not isinstance(message, dict):
            raise InputError("the first choice has no message", location="$.choices[0].message")
        if "role" not in message:  # a choice's message is the assistant's, even when role is left out
            message = {"role": "assistant", **message}
        finish = field(choices[0], "finish_reason")
        if isinstance(finish, str):
            meta["finish_reason"] = finish  # "length": the answer (and its arguments) was cut off
        if len(choices) > 1:
            meta["choices"] = len(choices)
        return [message], placer(["choices", 0, "message"], single=True), meta
    if isinstance(data.get("messages"), list):
        return data["messages"], placer(["messages"]), {}
    if "role" in data:
        return [data], placer([], single=True), {}
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
                message = field(choices[0], "message")
                if "role" in message:
                    return 0.8
                return 0.75 if not {"content", "tool_calls", "function_call"}.isdisjoint(message) else 0.0
            if choices == [] and set(data) <= {"choices", "id", "model", "object", "created", "usage"}:
                return 0.6  # a completion with no choices: no calls
            if isinstance(data.get("messages"), list):
                return list_confidence(data["messages"], OPENAI, neutral=0.3) * 0.95
            if data.get("role") == "assistant" and (data.get("tool_calls") or data.get("function_call")):
                return 0.85
            return 0.0
        if isinstance(data, (list, tuple)) and data and _is_chunk(data[0]):
            return 0.95
        return list_confidence(data, OPENAI, neutral=0.3)

    def load(self, data: Any) -> Trace:
        with paused_gc():
            return self._load(data)

    def _load(self, data: Any) -> Trace:
        messages, place, meta = unwrap_completion(data)
        book = CallBook(self.name)
        final: str | None = None
        checked = False
        # Written for speed (a 100k-call history must read in a few times json.load): plain
        # role-based messages skip the provider-style check, which runs once, over the whole
        # list, as soon as one message could belong to another provider.
        for index, raw in enumerate(messages):
            message = raw if type(raw) is dict else as_plain(raw)
            if type(message) is not dict or (
                "type" in message or "parts" in message or message.get("role") not in _PLAIN_ROLES
                or type(message.get("content")) is list
            ):  # a message that could be another provider's: check the whole list once
                if not checked:
                    check_styles(messages, OPENAI, place)
                    checked = True
                if type(message) is not dict:
                    raise InputError("is not an OpenAI chat message", location=place(index))
            role = message.get("role")
            if role == "assistant":
                made = self._assistant_calls(message, place(index), book)
                content = message.get("content")
                if made:
                    final = None
                elif content:
                    final = text_of(content) or final
            elif role == "tool" or role == "function":
                flag = message.get("is_error")
                content = message.get("content")
                if not book.result(
                    call_id=message.get("tool_call_id") if role == "tool" else None,
                    name=message.get("name"),
                    result=content if type(content) is str else _result_value(content),
                    is_error=flag if type(flag) is bool else False,
                    duration=read_duration(message),
                ):
                    book.unmatched[-1] = place(index)
        return Trace(calls=book.calls(), final_answer=final, source_format=self.name,
                     metadata={**meta, **book.trace_metadata()})

    def _assistant_calls(self, message: dict[str, Any], where: str, book: CallBook) -> int:
        made = 0
        tool_calls = message.get("tool_calls")
        if tool_calls:
            if type(tool_calls) is not list:
                tool_calls = as_plain(tool_calls)
                if not isinstance(tool_calls, list):
                    raise InputError("'tool_calls' must be a list", location=f"{where}.tool_calls")
            for j, raw_call in enumerate(tool_calls):
                call = raw_call if type(raw_call) is dict else as_plain(raw_call)
                at = f"{where}.tool_calls[{j}]"
                if type(call) is not dict:
                    raise InputError("a tool call must be an object", location=at)
                function = call.get("function")
                if function is None and (call.get("type") == "custom" or "custom" in call):
                    custom = as_plain(call.get("custom")) or {}
                    if not isinstance(custom, dict):
                        raise InputError("'custom' must be an object", location=f"{at}.custom")
                    name = _tool_name(custom.get("name"), f"{at}.custom.name")
                    book.call(name, {"input": custom.get("input")}, call_id=call.get("id"), location=at)
                    made += 1
                    continue
                if type(function) is not dict:
                    function = as_plain(function)
                    if not isinstance(function, dict):
                        raise InputError("a tool call needs a 'function' object", location=f"{at}.function")
                name = _tool_name(function.get("name"), f"{at}.function.name")
                try:
                    args = arguments_at(function.get("arguments"), at, ".function.arguments")
                    book.call(name, args, call.get("id"), at)
                except MalformedArguments as exc:  # e.g. cut off by finish_reason "length"
                    book.call(name, None, call.get("id"), at,
                              invalid_arguments_metadata(function.get("arguments"), exc.reason))
                made += 1
        elif tool_calls is not None and tool_calls != [] and not isinstance(tool_calls, list):
            raise InputError("'tool_calls' must be a list", location=f"{where}.tool_calls")
        legacy = message.get("function_call")
        if legacy:
            legacy = as_plain(legacy)
            at = f"{where}.function_call"
            if not isinstance(legacy, dict):
                raise InputError("'function_call' must be an object", location=at)
            name = _tool_name(legacy.get("name"), f"{at}.name")
            args, meta = lenient_arguments(legacy.get("arguments"), where=f"{at}.arguments")
            book.call(name, args, location=at, metadata=meta)
            made += 1
        return made


def _result_value(content: Any) -> Any:
    """Tool message content: text stays text; a list of text parts is joined."""
    if isinstance(content, (list, tuple)):
        text = text_of(content)
        return text if text is not None else as_plain(content)
    return as_plain(content)
