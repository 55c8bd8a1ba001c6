"""Gemini (``client.models.generate_content`` of the google-genai SDK) as a provider.

Shapes this API needs that the others do not: the assistant's role is ``model``; tool
results travel as ``function_response`` parts of a user turn, named by the tool (Gemini pairs
them by name and order, the call id is kept when the API gave one); tool definitions are one
``function_declarations`` list; request settings (``temperature``, ``response_json_schema`` ...)
are fields of ``config``, so a request's ``extra`` goes there, and a response schema implies
``response_mime_type: application/json``.

Errors: the SDK raises ``google.genai.errors.APIError`` (``code`` = the HTTP status), not the
``status_code`` shape of the OpenAI and Anthropic SDKs, and connection failures as httpx
errors; both are turned into the kernel's provider errors here. The SDK's own retries are off.
"""

from __future__ import annotations

from typing import Any

from toolscore_core import (
    AssistantMessage,
    BadRequest,
    ModelRequest,
    ModelToolCall,
    ModelTurn,
    Overloaded,
    ProviderError,
    ProviderTransportError,
    RateLimited,
    ToolResultMessage,
    Usage,
    normalise_stop_reason,
)
from toolscore_providers.base import SDKProvider, count, dump, get, translate_error, visible
from toolscore_providers.schemas import wire_description, wire_schema

#: Gemini finish reasons that mean a filter or policy ended the answer.
_REFUSALS = frozenset({"safety", "recitation", "blocklist", "prohibited_content", "spii", "image_safety"})
_TRANSPORT = frozenset({"ConnectError", "ConnectTimeout", "ReadTimeout", "TimeoutException", "RemoteProtocolError"})


class GeminiProvider(SDKProvider):
    """Google Gemini through google-genai; the key in ``api_key_env`` (``GEMINI_API_KEY``)."""

    name = "gemini"
    description = "Google Gemini generateContent API (pip install google-genai)"
    default_api_key_env = "GEMINI_API_KEY"

    def make_client(self) -> Any:
        from google import genai
        from google.genai import types

        key = self.api_key()
        options: dict[str, Any] = {"retry_options": types.HttpRetryOptions(attempts=1)}
        if self.base_url:
            options["base_url"] = self.base_url
        if self.timeout is not None:
            options["timeout"] = int(self.timeout * 1000)  # milliseconds in this SDK
        return genai.Client(api_key=key, http_options=types.HttpOptions(**options))

    def build_params(self, request: ModelRequest) -> dict[str, Any]:
        """The keyword arguments of ``models.generate_content`` for ``request`` (no I/O)."""
        names = self.tool_name_map(request.tools)
        config: dict[str, Any] = {}
        if request.system:
            config["system_instruction"] = request.system
        if request.tools:
            config["tools"] = [{"function_declarations": [
                {"name": names.to_wire(tool.name), "description": wire_description(tool.description),
                 "parameters_json_schema": wire_schema(tool.input_schema)} for tool in request.tools]}]
        if request.max_output_tokens is not None:
            config["max_output_tokens"] = request.max_output_tokens
        config.update(request.extra)
        if ("response_json_schema" in config or "response_schema" in config) and "response_mime_type" not in config:
            config["response_mime_type"] = "application/json"
        return {"model": request.model or self.model, "contents": _contents(request), "config": config}

    def complete_once(self, request: ModelRequest) -> ModelTurn:
        client = self.sdk_client()
        try:
            response = client.models.generate_content(**self.build_params(request))
        except Exception as exc:
            error = self._translate(exc, client)
            if error is None:
                raise
            raise error from None
        return self.read_response(client, response)

    def _translate(self, exc: BaseException, client: Any) -> ProviderError | None:
        names = {cls.__name__ for cls in type(exc).__mro__}
        secrets = [*self.secrets(client), self._key_or_none()]
        status = getattr(exc, "code", None)
        if "APIError" in names and isinstance(status, int):
            message = visible(getattr(exc, "message", None) or str(exc))
            text = f"HTTP {status}: {message}"
            if status == 429:
                spent = "quota" in message.lower() and "exceeded" in message.lower()
                return RateLimited(text, provider=self.name, status=status, retryable=False if spent else None,
                                   secrets=secrets)
            if status >= 500 or status in (408, 409):
                return Overloaded(text, provider=self.name, status=status, secrets=secrets)
            return BadRequest(text, provider=self.name, status=status, secrets=secrets)
        if names & _TRANSPORT:
            return ProviderTransportError(f"no answer from the API: {visible(str(exc))}", provider=self.name,
                                          secrets=secrets)
        return translate_error(exc, provider=self.name, secrets=secrets)

    def _key_or_none(self) -> str | None:
        try:
            return self.api_key()
        except Exception:
            return None

    def read_response(self, client: Any, response: Any) -> ModelTurn:
        """The turn in a ``generateContent`` answer (an SDK response or an equivalent dict)."""
        candidates = get(response, "candidates")
        if not isinstance(candidates, (list, tuple)) or not candidates:
            raise self.malformed(client, f"no candidates in {type(response).__name__}")
        first = candidates[0]
        parts = get(get(first, "content"), "parts") or []
        texts: list[str] = []
        calls: list[ModelToolCall] = []
        for n, part in enumerate(parts, start=1):
            text = get(part, "text")
            call = get(part, "function_call")
            if call is not None:
                ident = get(call, "id") or f"gemini_call_{n}"
                calls.append(ModelToolCall.parse(str(ident), str(get(call, "name") or ""), get(call, "args")))
            elif isinstance(text, str) and not get(part, "thought"):
                texts.append(text)
        raw = get(first, "finish_reason")
        raw = getattr(raw, "value", raw)
        raw = str(raw) if raw is not None else None
        mapped = "refusal" if raw is not None and raw.lower() in _REFUSALS else raw
        return ModelTurn(
            text="".join(texts) if texts else None,
            tool_calls=tuple(calls),
            stop_reason=normalise_stop_reason(mapped, has_tool_calls=bool(calls)),
            raw_stop_reason=raw,
            usage=_usage(get(response, "usage_metadata")),
            model=get(response, "model_version"),
            response_id=get(response, "response_id"),
            provider_data={"content": dump(get(first, "content"))},
        )


def _contents(request: ModelRequest) -> list[dict[str, Any]]:
    """The conversation as user/model turns of parts; consecutive tool results share a turn."""
    out: list[dict[str, Any]] = []

    def user_parts() -> list[dict[str, Any]]:
        if out and out[-1]["role"] == "user":
            parts: list[dict[str, Any]] = out[-1]["parts"]
            return parts
        out.append({"role": "user", "parts": []})
        return out[-1]["parts"]

    for message in request.messages:
        if isinstance(message, AssistantMessage):
            kept = message.provider_data.get("content")
            if isinstance(kept, dict) and kept.get("parts"):
                out.append({"role": "model", "parts": list(kept["parts"])})
                continue
            parts: list[dict[str, Any]] = [{"text": message.text}] if message.text else []
            parts += [{"function_call": {"name": call.name, "args": call.arguments or {},
                                         **({"id": call.id} if call.id else {})}} for call in message.tool_calls]
            if parts:
                out.append({"role": "model", "parts": parts})
        elif isinstance(message, ToolResultMessage):
            key = "error" if message.is_error else "result"
            user_parts().append({"function_response": {"name": message.tool, "id": message.call_id,
                                                       "response": {key: message.content}}})
        else:
            user_parts().append({"text": message.text})
    return out


def _usage(usage: Any) -> Usage:
    if usage is None:
        return Usage()
    output = count(get(usage, "candidates_token_count"))
    thoughts = count(get(usage, "thoughts_token_count")) or 0
    return Usage(count(get(usage, "prompt_token_count")), output + thoughts if output is not None else None,
                 count(get(usage, "cached_content_token_count")))


__all__ = ["GeminiProvider"]
