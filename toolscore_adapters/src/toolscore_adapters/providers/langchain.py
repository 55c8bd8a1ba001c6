"""LangChain messages: live ``BaseMessage`` lists and their three saved forms.

The forms are ``messages_to_dict`` (``{"type": "ai", "data": {...}}``), ``dumpd``
(``{"lc": 1, "type": "constructor", "id": [..., "AIMessage"], "kwargs": {...}}``, defaults
left out) and ``model_dump`` (flat dicts with ``type``). Calls come from
``AIMessage.tool_calls`` only: provider-shaped copies of the same calls in
``additional_kwargs`` or in ``tool_use`` content blocks are never counted again (they are
read only from messages saved before ``tool_calls`` existed). ``invalid_tool_calls`` (the
model wrote arguments that do not parse) are failed calls with unknown arguments.
``ToolMessage`` answers by ``tool_call_id``; ``status="error"`` marks a failure.
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
    LANGCHAIN,
    SAMPLE,
    Place,
    check_styles,
    list_confidence,
    module_style,
    placer,
)
from toolscore_core import InputError, Trace, TraceAdapter

_CLASS_KINDS = {
    "AIMessage": "ai", "AIMessageChunk": "ai", "HumanMessage": "human", "HumanMessageChunk": "human",
    "ToolMessage": "tool", "ToolMessageChunk": "tool", "SystemMessage": "system",
    "SystemMessageChunk": "system", "FunctionMessage": "function", "FunctionMessageChunk": "function",
    "ChatMessage": "chat", "ChatMessageChunk": "chat", "RemoveMessage": "remove",
}
_FIELDS = ("content", "tool_calls", "invalid_tool_calls", "additional_kwargs", "tool_call_id", "status",
           "name", "id", "response_metadata", "artifact")


def normalize_message(item: Any) -> tuple[str, dict[str, Any], str]:
    """(kind, fields, where the fields sit inside the item) of a LangChain message in any of
    its forms; kind is ``ai``, ``human``, ``tool``, ``system``, ``function``, ``chat`` or
    ``remove``."""
    if not isinstance(item, dict):
        if module_style(item) == LANGCHAIN:
            live_kind = str(getattr(item, "type", ""))
            return _CLASS_KINDS.get(live_kind, live_kind), {f: getattr(item, f, None) for f in _FIELDS}, ""
        raise InputError(f"is not a LangChain message (a {type(item).__name__})")
    if item.get("lc") == 1 and item.get("type") == "constructor":
        ident = item.get("id")
        cls = ident[-1] if isinstance(ident, list) and ident and isinstance(ident[-1], str) else ""
        kwargs = item.get("kwargs")
        fields = kwargs if isinstance(kwargs, dict) else {}
        declared = fields.get("type")
        kind = declared if isinstance(declared, str) else _CLASS_KINDS.get(cls, "")
        return _CLASS_KINDS.get(kind, kind), fields, ".kwargs"
    if isinstance(item.get("data"), dict) and isinstance(item.get("type"), str):
        data_kind: str = item["type"]
        return _CLASS_KINDS.get(data_kind, data_kind), item["data"], ".data"
    flat_kind = item.get("type")
    if flat_kind is None and item.get("role") in ("human", "ai"):  # {"role": "ai", ...}, as tool-scorer read
        flat_kind = item["role"]
    return (_CLASS_KINDS.get(flat_kind, flat_kind) if isinstance(flat_kind, str) else ""), item, ""


def read_messages(messages: list[Any], place: Place, provider: str) -> Trace:
    """Read a LangChain message list (shared with the LangGraph adapter); ``place(i)`` is
    where message ``i`` sits in the input, for error messages."""
    check_styles(messages, LANGCHAIN, place)
    book = CallBook(provider)
    final: str | None = None
    for index, raw in enumerate(messages):
        kind, fields, inner = normalize_message(raw)
        at = place(index) + inner
        if kind == "ai":
            asked = _ai_calls(fields, at, book)
            text = text_of(as_plain(fields.get("content")))
            final = None if asked else (text if text else final)
        elif kind == "tool":
            status = fields.get("status")
            book.result(call_id=fields.get("tool_call_id"), name=fields.get("name"),
                        result=_result_value(fields.get("content")), is_error=status == "error",
                        duration=read_duration(as_plain(fields.get("response_metadata"))), location=at)
        elif kind == "function":
            book.result(name=fields.get("name"), result=_result_value(fields.get("content")), location=at)
    return Trace(calls=book.calls(), final_answer=final, source_format=provider, metadata=book.trace_metadata())


def _ai_calls(fields: dict[str, Any], at: str, book: CallBook) -> int:
    made = 0
    tool_calls = as_plain(fields.get("tool_calls"))
    if tool_calls is None:  # saved before tool_calls existed: the OpenAI-shaped copy is all there is
        extra = as_plain(fields.get("additional_kwargs")) or {}
        legacy = extra.get("tool_calls") if isinstance(extra, dict) else None
        if isinstance(legacy, list):
            return _legacy_calls(legacy, f"{at}.additional_kwargs.tool_calls", book)
        return 0
    if not isinstance(tool_calls, list):
        raise InputError("'tool_calls' must be a list", location=f"{at}.tool_calls")
    for j, raw in enumerate(tool_calls):
        call = as_plain(raw)
        where = f"{at}.tool_calls[{j}]"
        if not isinstance(call, dict):
            raise InputError("a tool call must be an object", location=where)
        name = call.get("name")
        if not isinstance(name, str) or not name:
            raise InputError(f"the tool name must be a non-empty string, not {name!r}", location=f"{where}.name")
        args = parse_arguments(call.get("args", {}), where=f"{where}.args")
        book.call(name, args if args is not None else {}, call_id=call.get("id"), location=where)
        made += 1
    invalid = as_plain(fields.get("invalid_tool_calls"))
    for j, raw in enumerate(invalid if isinstance(invalid, list) else ()):
        call = as_plain(raw)
        if not isinstance(call, dict):
            continue
        where = f"{at}.invalid_tool_calls[{j}]"
        raw_name = call.get("name")
        name = raw_name if isinstance(raw_name, str) and raw_name else "(unnamed)"
        call_id = call.get("id") or f"invalid_{where}"
        book.call(name, None, call_id=call_id, location=where, metadata={"invalid_arguments": call.get("args")})
        book.result(call_id=call_id, is_error=True,
                    error=str(call.get("error") or "the model's arguments are not valid JSON"))
        made += 1
    return made


def _legacy_calls(calls: list[Any], at: str, book: CallBook) -> int:
    for j, raw in enumerate(calls):
        call = as_plain(raw)
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise InputError("a tool call needs a 'function' with a name", location=f"{at}[{j}]")
        args, invalid = lenient_arguments(function.get("arguments"), where=f"{at}[{j}].function.arguments")
        book.call(function["name"], args, call_id=call.get("id"), location=f"{at}[{j}]", metadata=invalid)
    return len(calls)


def _result_value(content: Any) -> Any:
    content = as_plain(content)
    if isinstance(content, list):
        text = text_of(content)
        return text if text is not None else content
    return content


# Role names of LangChain's own message types; "user"/"assistant" beside them mean the same.
_ROLE_KINDS = {"human": "human", "ai": "ai", "tool": "tool", "system": "system", "function": "function",
               "user": "human", "assistant": "ai"}


def role_form(messages: Any) -> Any:
    """A list of plain dicts that name LangChain's kinds as ``role`` (``{"role": "human"}``,
    ``{"role": "ai", "tool_calls": [...]}``, as tool-scorer 1.10.0 read them), rewritten to
    the flat ``type`` form. Only when some message says ``human`` or ``ai``: that is what
    makes the list LangChain's rather than an OpenAI chat."""
    if not isinstance(messages, list) or not any(
        isinstance(m, dict) and "type" not in m and m.get("role") in ("human", "ai") for m in messages[:SAMPLE]
    ):  # a sample, as detection looks at: a long plain chat is not scanned whole
        return messages
    out = []
    for m in messages:
        role = m.get("role") if isinstance(m, dict) and "type" not in m else None
        kind = _ROLE_KINDS.get(role) if isinstance(role, str) else None
        if kind is None:
            out.append(m)
            continue
        rewritten = {k: v for k, v in m.items() if k != "role"}
        rewritten["type"] = kind
        rewritten.setdefault("content", "")
        out.append(rewritten)
    return out


class LangChainAdapter(TraceAdapter):
    """LangChain message lists: live messages, messages_to_dict, dumpd and model_dump forms."""

    name: ClassVar[str] = "langchain"
    description: ClassVar[str] = "LangChain messages (AIMessage.tool_calls, ToolMessage), live or serialized"

    def detect(self, data: Any) -> float:
        if module_style(data) == LANGCHAIN:
            return 0.9
        if isinstance(data, dict):
            return 0.85 if list_confidence([data], LANGCHAIN, neutral=0.0) == 0.9 else 0.0
        return list_confidence(role_form(data), LANGCHAIN, neutral=0.0)

    def load(self, data: Any) -> Trace:
        if isinstance(data, tuple):
            data = list(data)
        if not isinstance(data, list):
            if module_style(data) == LANGCHAIN or isinstance(data, dict):
                data = [data]
            else:
                raise InputError(f"is not a LangChain message list (a {type(data).__name__})")
        return read_messages(role_form(data), placer([]), self.name)
