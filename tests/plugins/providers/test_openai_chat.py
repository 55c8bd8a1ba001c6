"""The Chat Completions provider (local OpenAI-compatible servers) through the real openai SDK."""

from __future__ import annotations

import pytest

from toolscore_core import InputError, ModelRequest, ToolDefinition, ToolResultMessage, UserMessage
from toolscore_providers import OpenAIChatProvider
from toolscore_providers.fake_server import FakeModelServer

TOOLS = [ToolDefinition(name="save_note", description="Save a note.",
                        input_schema={"type": "object", "properties": {"title": {"type": "string"}}})]


def request() -> ModelRequest:
    return ModelRequest(messages=[UserMessage("Save groceries.")], system="Be brief.", tools=TOOLS,
                        max_output_tokens=64, extra={"temperature": 0})


def test_tool_use_turn_then_final_text_without_a_key(model_server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server = model_server([
        {"calls": [{"tool": "save_note", "args": {"title": "groceries"}}], "usage": None},
        {"text": "Saved."},
    ])
    # No client given: the provider builds one from base_url, with a placeholder key.
    provider = OpenAIChatProvider("qwen3", base_url=server.base_url)
    first = provider.complete(request())
    call = first.tool_calls[0]
    assert call.name == "save_note" and call.arguments == {"title": "groceries"}
    assert first.stop_reason == "tool_use" and first.usage.input_tokens is None  # no usage: unknown
    final = provider.complete(request().extended(first.as_message(),
                                                 ToolResultMessage(call.id, call.name, "saved")))
    assert final.text == "Saved." and final.usage.input_tokens == 100

    sent = server.requests[0].body
    assert sent["messages"][0] == {"role": "system", "content": "Be brief."}
    assert sent["max_tokens"] == 64 and sent["temperature"] == 0
    assert sent["tools"][0]["function"]["name"] == "save_note"
    assert server.requests[0].headers["authorization"] == "[redacted]"
    history = server.requests[1].body["messages"]
    assert history[2]["tool_calls"][0]["function"] == {"name": "save_note",
                                                       "arguments": '{"title":"groceries"}'}
    assert history[3] == {"role": "tool", "tool_call_id": call.id, "content": "saved"}


def test_compat_quirks_object_arguments_missing_ids_and_stop_with_calls(model_server, openai_client):
    server = model_server([{"raw": (
        '{"id": "x", "object": "chat.completion", "model": "llama", "choices": [{"index": 0,'
        ' "finish_reason": "stop", "message": {"role": "assistant", "content": null, "tool_calls": ['
        '{"type": "function", "function": {"name": "save_note", "arguments": {"title": "a"}}},'
        '{"id": "0", "type": "function", "function": {"name": "save_note", "arguments": "{\\"title"}}]}}]}')}])
    turn = OpenAIChatProvider("llama", client=openai_client(server)).complete(request())
    first, second = turn.tool_calls
    assert first.arguments == {"title": "a"} and first.id == "call_1_1"
    assert second.id == "0" and second.arguments is None and second.raw_arguments == '{"title'
    assert turn.stop_reason == "tool_use" and turn.raw_stop_reason == "stop"


def test_a_named_key_variable_that_is_unset_is_an_input_error(monkeypatch):
    monkeypatch.delenv("LOCAL_LLM_KEY", raising=False)
    with FakeModelServer([{"text": "hi"}]) as server:
        provider = OpenAIChatProvider("qwen3", base_url=server.base_url, api_key_env="LOCAL_LLM_KEY")
        with pytest.raises(InputError) as caught:
            provider.complete(request())
    assert "LOCAL_LLM_KEY" in str(caught.value) and server.requests == []
