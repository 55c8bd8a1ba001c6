"""Chat Completions at a ``base_url``: vLLM, Ollama, LM Studio and other compatible servers.

Why a provider of its own: these are the local models users run for free, and they bend
the format in known ways, each handled here rather than in the harness: arguments sent as
an object instead of a JSON string, tool calls without ids (or with ids repeated across
turns), ``finish_reason: "stop"`` on a turn that holds tool calls, and no ``usage`` at all
(recorded as unknown, never as zeros). A key is optional: local servers need none, and the
SDK, which insists on one, gets a placeholder.
"""

from __future__ import annotations

from typing import Any

from toolscore_core import (
    AssistantMessage,
    ModelRequest,
    ModelToolCall,
    ModelTurn,
    ToolResultMessage,
    Usage,
    normalise_stop_reason,
)
from toolscore_providers.base import SDKProvider, count, get, split_extra
from toolscore_providers.openai_responses import call_arguments, tool_result_text
from toolscore_providers.schemas import wire_description, wire_schema

#: What the SDK is given as a key when the server needs none.
NO_KEY = "not-needed"


class OpenAIChatProvider(SDKProvider):
    """Chat Completions: ``OpenAIChatProvider("qwen3", base_url="http://localhost:8000/v1")``.

    ``client`` is any object with ``chat.completions.create``. ``api_key_env`` is ``None``
    by default (local servers); name a variable for a hosted one. ``max_tokens_param`` is the
    name of the output cap: ``max_tokens`` (what compatible servers accept, the default) or
    ``max_completion_tokens`` (what OpenAI's reasoning models require).
    """

    name = "openai-chat"
    description = "OpenAI-compatible Chat Completions at a base_url (vLLM, Ollama, LM Studio)"
    default_api_key_env = None

    def __init__(self, model: Any = None, client: Any = None, *, max_tokens_param: str = "max_tokens",
                 **settings: Any) -> None:
        super().__init__(model, client, **settings)
        self.max_tokens_param = max_tokens_param

    def make_client(self) -> Any:
        import openai

        key = self.api_key() or NO_KEY
        return openai.OpenAI(api_key=key, base_url=self.base_url, **self.client_options())

    def build_params(self, request: ModelRequest) -> dict[str, Any]:
        """The keyword arguments of ``chat.completions.create`` for ``request`` (no I/O)."""
        names = self.tool_name_map(request.tools)
        messages: list[dict[str, Any]] = []
        if request.system:
            messages.append({"role": "system", "content": request.system})
        for message in request.messages:
            if isinstance(message, AssistantMessage):
                entry: dict[str, Any] = {"role": "assistant", "content": message.text}
                if message.tool_calls:
                    entry["tool_calls"] = [
                        {"id": call.id, "type": "function",
                         "function": {"name": call.name, "arguments": call_arguments(call)}}
                        for call in message.tool_calls
                    ]
                messages.append(entry)
            elif isinstance(message, ToolResultMessage):
                messages.append({"role": "tool", "tool_call_id": message.call_id,
                                 "content": tool_result_text(message)})
            else:
                messages.append({"role": "user", "content": message.text})
        params: dict[str, Any] = {"model": request.model or self.model, "messages": messages}
        if request.tools:
            params["tools"] = [
                {"type": "function", "function": {
                    "name": names.to_wire(tool.name), "description": wire_description(tool.description),
                    "parameters": wire_schema(tool.input_schema), "strict": False}}
                for tool in request.tools
            ]
        if request.max_output_tokens is not None:
            params[self.max_tokens_param] = request.max_output_tokens
        params.update(split_extra(request.extra))
        return params

    def complete_once(self, request: ModelRequest) -> ModelTurn:
        client = self.sdk_client()
        reply = self.call(client, client.chat.completions.create, **self.build_params(request))
        seen = {call.id for m in request.messages if isinstance(m, AssistantMessage) for call in m.tool_calls}
        turn = 1 + sum(isinstance(m, AssistantMessage) for m in request.messages)
        return self.read_reply(client, reply, seen_ids=seen, turn=turn)

    def read_reply(self, client: Any, reply: Any, *, seen_ids: set[str] = frozenset(),  # type: ignore[assignment]
                   turn: int = 1) -> ModelTurn:
        """The turn in a chat completion; ids missing or reused get ``call_<turn>_<n>``."""
        choices = get(reply, "choices")
        if not isinstance(choices, (list, tuple)) or not choices:
            raise self.malformed(client, "a chat completion without choices")
        choice = choices[0]
        message = get(choice, "message")
        if message is None:
            raise self.malformed(client, "a chat completion choice without a message")
        calls: list[ModelToolCall] = []
        used = set(seen_ids)
        for n, call in enumerate(get(message, "tool_calls") or (), start=1):
            function = get(call, "function")
            call_id = get(call, "id")
            if not isinstance(call_id, str) or not call_id or call_id in used:
                call_id = f"call_{turn}_{n}"
            used.add(call_id)
            calls.append(ModelToolCall.parse(call_id, str(get(function, "name") or ""),
                                             get(function, "arguments")))
        raw = get(choice, "finish_reason")
        raw = str(raw) if raw is not None else None
        text = get(message, "content")
        refusal = get(message, "refusal")
        stop = normalise_stop_reason(raw, has_tool_calls=bool(calls))
        if refusal and not calls:
            stop, text = "refusal", text or str(refusal)
        return ModelTurn(
            text=text if isinstance(text, str) else None,
            tool_calls=tuple(calls),
            stop_reason=stop,
            raw_stop_reason=raw,
            usage=_usage(get(reply, "usage")),
            model=get(reply, "model"),
            response_id=get(reply, "id"),
        )


def _usage(usage: Any) -> Usage:
    if usage is None:
        return Usage()
    details = get(usage, "prompt_tokens_details")
    cached = get(details, "cached_tokens") if details is not None else None
    return Usage(count(get(usage, "prompt_tokens")), count(get(usage, "completion_tokens")),
                 count(cached))
