"""Anthropic Messages (``client.messages.create``) as a provider.

Shapes this API needs that the others do not: ``max_tokens`` is required (a default is
sent when the study sets none), tool results travel as ``tool_result`` blocks at the start
of the next user message (failed and denied calls with ``is_error: true``), and an assistant
turn is replayed with its content blocks verbatim (thinking blocks and their signatures
must come back unchanged), kept in ``provider_data``.

Usage: this API counts cache reads and writes apart from ``input_tokens``; the kernel's
``Usage.input_tokens`` includes cached input, so the three are added, and ``cached_tokens`` is
the part read from the cache.
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
from toolscore_providers.base import SDKProvider, count, dump, get, split_extra
from toolscore_providers.schemas import wire_description, wire_schema

#: ``max_tokens`` when a study sets no ``max_output_tokens`` (the API requires one).
DEFAULT_MAX_TOKENS = 4096


class AnthropicMessagesProvider(SDKProvider):
    """Anthropic Messages: ``AnthropicMessagesProvider(anthropic.Anthropic(), "claude-...")``.

    ``client`` is any object with ``messages.create``; without one, an
    ``anthropic.Anthropic`` client is built on the first call from ``base_url`` and the key
    in ``api_key_env`` (``ANTHROPIC_API_KEY`` by default), with SDK retries off.
    """

    name = "anthropic"
    description = "Anthropic Messages API (pip install 'toolscore-providers[anthropic]')"
    default_api_key_env = "ANTHROPIC_API_KEY"

    def __init__(self, model: Any = None, client: Any = None, *,
                 default_max_tokens: int = DEFAULT_MAX_TOKENS, **settings: Any) -> None:
        super().__init__(model, client, **settings)
        self.default_max_tokens = default_max_tokens

    def make_client(self) -> Any:
        import anthropic

        key = self.api_key()
        return anthropic.Anthropic(api_key=key, base_url=self.base_url, **self.client_options())

    def build_params(self, request: ModelRequest) -> dict[str, Any]:
        """The keyword arguments of ``messages.create`` for ``request`` (no I/O)."""
        names = self.tool_name_map(request.tools)
        params: dict[str, Any] = {
            "model": request.model or self.model,
            "max_tokens": (request.max_output_tokens if request.max_output_tokens is not None
                           else self.default_max_tokens),
            "messages": _messages(request),
        }
        if request.system:
            params["system"] = request.system
        if request.tools:
            params["tools"] = [
                {"name": names.to_wire(tool.name),
                 "description": wire_description(tool.description, limit=None),
                 "input_schema": wire_schema(tool.input_schema)}
                for tool in request.tools
            ]
        params.update(split_extra(request.extra))
        return params

    def complete_once(self, request: ModelRequest) -> ModelTurn:
        client = self.sdk_client()
        message = self.call(client, client.messages.create, **self.build_params(request))
        return self.read_message(client, message)

    def read_message(self, client: Any, message: Any) -> ModelTurn:
        """The turn in a Messages answer (an SDK ``Message`` or an equivalent dict)."""
        content = get(message, "content")
        if not isinstance(content, (list, tuple)):
            raise self.malformed(client, f"no content list in {type(message).__name__}")
        texts: list[str] = []
        calls: list[ModelToolCall] = []
        for block in content:
            kind = get(block, "type")
            if kind == "text":
                texts.append(str(get(block, "text") or ""))
            elif kind == "tool_use":
                calls.append(ModelToolCall.parse(str(get(block, "id") or ""),
                                                 str(get(block, "name") or ""), get(block, "input")))
        raw = get(message, "stop_reason")
        raw = str(raw) if raw is not None else None
        return ModelTurn(
            text="".join(texts) if texts else None,
            tool_calls=tuple(calls),
            stop_reason=normalise_stop_reason(raw, has_tool_calls=bool(calls)),
            raw_stop_reason=raw,
            usage=_usage(get(message, "usage")),
            model=get(message, "model"),
            response_id=get(message, "id"),
            provider_data={"content": dump(list(content))},
        )


def _messages(request: ModelRequest) -> list[dict[str, Any]]:
    """The conversation as alternating user/assistant messages of content blocks.

    Consecutive tool results (and a user text right after them) share one user message,
    results first, as the API requires after an assistant turn with tool calls.
    """
    out: list[dict[str, Any]] = []

    def user_blocks() -> list[dict[str, Any]]:
        if out and out[-1]["role"] == "user":
            blocks: list[dict[str, Any]] = out[-1]["content"]
            return blocks
        out.append({"role": "user", "content": []})
        return out[-1]["content"]

    for message in request.messages:
        if isinstance(message, AssistantMessage):
            kept = message.provider_data.get("content")
            if isinstance(kept, list) and kept:
                blocks = list(kept)
            else:
                blocks = [{"type": "text", "text": message.text}] if message.text else []
                blocks += [{"type": "tool_use", "id": call.id, "name": call.name,
                            "input": call.arguments if call.arguments is not None else {}}
                           for call in message.tool_calls]
            if blocks:  # an empty assistant turn is refused; the API merges the user turns around it
                out.append({"role": "assistant", "content": blocks})
        elif isinstance(message, ToolResultMessage):
            block: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.call_id,
                                     "content": message.content}
            if message.is_error:
                block["is_error"] = True
            user_blocks().append(block)
        else:
            user_blocks().append({"type": "text", "text": message.text})
    return out


def _usage(usage: Any) -> Usage:
    if usage is None:
        return Usage()
    plain = count(get(usage, "input_tokens"))
    written = count(get(usage, "cache_creation_input_tokens")) or 0
    read = count(get(usage, "cache_read_input_tokens")) or 0
    total = plain + written + read if plain is not None else None
    return Usage(total, count(get(usage, "output_tokens")), read)
