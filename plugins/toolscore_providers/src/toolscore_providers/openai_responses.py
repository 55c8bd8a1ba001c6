"""The OpenAI Responses API (``client.responses.create``) as a provider.

Stateless on purpose: every request re-sends the whole conversation with ``store: false``
(unless a study's ``extra`` says otherwise), so a recorded run replays exactly and no
conversation is kept on OpenAI's side. An assistant turn is replayed from the output items
the API returned (kept in ``provider_data``), reasoning items included, because the API
expects them back verbatim; a turn without them (a scripted or hand-written history) is
rebuilt from its text and calls.
"""

from __future__ import annotations

import json
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
from toolscore_providers.names import ToolNameMap
from toolscore_providers.schemas import wire_description, wire_schema

#: Prefix of a failed tool call's output: the Responses API has no error flag.
ERROR_PREFIX = "Error: "


def tool_result_text(message: ToolResultMessage) -> str:
    """A tool result as text, marked as an error when it is one (APIs without a flag)."""
    if message.is_error and not message.content.startswith(ERROR_PREFIX):
        return ERROR_PREFIX + message.content
    return message.content


def call_arguments(call: ModelToolCall) -> str:
    """The argument text to replay: the model's own raw text when it was malformed."""
    if call.raw_arguments is not None:
        return call.raw_arguments
    return json.dumps(call.arguments or {}, ensure_ascii=False, separators=(",", ":"))


class OpenAIResponsesProvider(SDKProvider):
    """OpenAI Responses: ``OpenAIResponsesProvider("gpt-...", client=openai.OpenAI())``.

    ``client`` is any object with ``responses.create``; without one, an ``openai.OpenAI``
    client is built on the first call from ``base_url`` and the key in ``api_key_env``
    (``OPENAI_API_KEY`` by default), with SDK retries off.
    """

    name = "openai"
    description = "OpenAI Responses API (pip install 'toolscore-providers[openai]')"
    default_api_key_env = "OPENAI_API_KEY"

    def make_client(self) -> Any:
        import openai

        key = self.api_key()
        return openai.OpenAI(api_key=key, base_url=self.base_url, **self.client_options())

    def build_params(self, request: ModelRequest) -> dict[str, Any]:
        """The keyword arguments of ``responses.create`` for ``request`` (no I/O)."""
        names = self.tool_name_map(request.tools)
        params: dict[str, Any] = {
            "model": request.model or self.model,
            "input": self._input(request, names),
            "store": False,
        }
        if request.system:
            params["instructions"] = request.system
        if request.tools:
            params["tools"] = [
                {"type": "function", "name": names.to_wire(tool.name),
                 "description": wire_description(tool.description),
                 "parameters": wire_schema(tool.input_schema), "strict": False}
                for tool in request.tools
            ]
        if request.max_output_tokens is not None:
            params["max_output_tokens"] = request.max_output_tokens
        extra = dict(request.extra)
        if "store" in extra:
            params["store"] = extra.pop("store")
        params.update(split_extra(extra))
        return params

    def _input(self, request: ModelRequest, names: ToolNameMap) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        for message in request.messages:
            if isinstance(message, AssistantMessage):
                output = message.provider_data.get("output")
                if isinstance(output, list) and output:
                    items.extend(output)
                    continue
                if message.text:
                    items.append({"type": "message", "role": "assistant", "content": message.text})
                items.extend({"type": "function_call", "call_id": call.id, "name": call.name,
                              "arguments": call_arguments(call)} for call in message.tool_calls)
            elif isinstance(message, ToolResultMessage):
                items.append({"type": "function_call_output", "call_id": message.call_id,
                              "output": tool_result_text(message)})
            else:
                items.append({"type": "message", "role": "user", "content": message.text})
        return items

    def complete_once(self, request: ModelRequest) -> ModelTurn:
        client = self.sdk_client()
        response = self.call(client, client.responses.create, **self.build_params(request))
        return self.read_response(client, response)

    def read_response(self, client: Any, response: Any) -> ModelTurn:
        """The turn in a Responses answer (an SDK ``Response`` or an equivalent dict)."""
        output = get(response, "output")
        if not isinstance(output, (list, tuple)):
            raise self.malformed(client, f"no output list in {type(response).__name__}")
        texts: list[str] = []
        refusals: list[str] = []
        calls: list[ModelToolCall] = []
        for item in output:
            kind = get(item, "type")
            if kind == "function_call":
                calls.append(ModelToolCall.parse(str(get(item, "call_id") or get(item, "id") or ""),
                                                 str(get(item, "name") or ""),
                                                 get(item, "arguments")))
            elif kind == "message":
                for part in get(item, "content") or ():
                    if get(part, "type") == "output_text":
                        texts.append(str(get(part, "text") or ""))
                    elif get(part, "type") == "refusal":
                        refusals.append(str(get(part, "refusal") or ""))
        status = get(response, "status")
        details = get(response, "incomplete_details")
        raw = get(details, "reason") if status == "incomplete" and details is not None else status
        raw = str(raw) if raw is not None else None
        stop = normalise_stop_reason(raw, has_tool_calls=bool(calls))
        if refusals and not calls and stop == "end_turn":
            stop = "refusal"
        text = "".join(texts) if texts else ("".join(refusals) if refusals else None)
        return ModelTurn(
            text=text,
            tool_calls=tuple(calls),
            stop_reason=stop,
            raw_stop_reason=raw,
            usage=_usage(get(response, "usage")),
            model=get(response, "model"),
            response_id=get(response, "id"),
            provider_data={"output": dump(list(output))},
        )


def _usage(usage: Any) -> Usage:
    if usage is None:
        return Usage()
    details = get(usage, "input_tokens_details")
    cached = get(details, "cached_tokens") if details is not None else None
    return Usage(count(get(usage, "input_tokens")), count(get(usage, "output_tokens")), count(cached))
