"""The Messages provider through the real anthropic SDK, over HTTP, to the scripted server."""

from __future__ import annotations

import pytest

from toolscore_core import (
    BadRequest,
    ModelRequest,
    Overloaded,
    ToolDefinition,
    ToolResultMessage,
    UserMessage,
)
from toolscore_providers import AnthropicMessagesProvider, ToolNameMap

LONG = "memory_" + "create_entities_with_observations_" * 3  # over 64 characters
TOOLS = [
    ToolDefinition(name=LONG, description="Create entities.",
                   input_schema={"type": "object", "properties": {"names": {"type": "array"}}}),
    ToolDefinition(name="read_graph", description="Read the graph.", input_schema={}),
]
WIRE = ToolNameMap.for_tools(TOOLS).to_wire(LONG)


def request() -> ModelRequest:
    return ModelRequest(messages=[UserMessage("Create Ada twice.")], system="Keep the graph.",
                        tools=TOOLS)


def test_tool_use_turn_then_final_text(model_server, anthropic_client, fast_retries):
    server = model_server([
        {"text": "Creating.", "calls": [{"tool": WIRE, "args": {"names": ["Ada"]}}],
         "usage": {"input_tokens": 820, "output_tokens": 60, "cached_tokens": 300}},
        {"text": "Ada is stored."},
    ])
    provider = AnthropicMessagesProvider(anthropic_client(server), "claude-test", retry_policy=fast_retries)
    first = provider.complete(request())
    call = first.tool_calls[0]
    assert len(WIRE) <= 64 and provider.tool_name_map(TOOLS).to_mcp(call.name) == LONG
    assert call.arguments == {"names": ["Ada"]} and first.text == "Creating."
    assert first.stop_reason == "tool_use"
    # input includes the cached part, as the kernel's Usage counts it
    assert (first.usage.input_tokens, first.usage.output_tokens, first.usage.cached_tokens) == (820, 60, 300)

    final = provider.complete(request().extended(
        first.as_message(), ToolResultMessage(call.id, call.name, "denied: read-only", is_error=True),
        UserMessage("And now?")))
    assert final.text == "Ada is stored." and final.stop_reason == "end_turn"

    sent = server.requests[0].body
    assert sent["system"] == "Keep the graph." and sent["max_tokens"] == 4096  # required: a default
    assert [t["name"] for t in sent["tools"]] == [WIRE, "read_graph"]
    assert sent["tools"][1]["input_schema"] == {"type": "object", "properties": {}}
    assert sent["tools"][0]["input_schema"]["properties"]["names"]["items"] == {}
    messages = server.requests[1].body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[1]["content"][1] == {"type": "tool_use", "id": call.id, "name": WIRE,
                                         "input": {"names": ["Ada"]}}
    results = messages[2]["content"]
    assert results[0] == {"type": "tool_result", "tool_use_id": call.id, "content": "denied: read-only",
                          "is_error": True}
    assert results[1] == {"type": "text", "text": "And now?"}  # after the results, same message
    assert server.requests[0].headers["authorization"] == "[redacted]"


def test_overloaded_529_is_retried_then_raised_as_overloaded(model_server, anthropic_client, fast_retries):
    server = model_server([{"error": 529, "message": "Overloaded"}] * 5)
    provider = AnthropicMessagesProvider("claude-test", client=anthropic_client(server), retry_policy=fast_retries)
    with pytest.raises(Overloaded) as caught:
        provider.complete(request())
    assert caught.value.status == 529 and caught.value.retryable
    assert getattr(caught.value, 'retries', None) == 3 and provider.last_retries == 3
    assert len(server.requests) == 4  # 1 + max_retries, and the SDK retried none of them
    assert {r.headers.get("x-stainless-retry-count") for r in server.requests} == {"0"}


def test_bad_request_is_not_retried(model_server, anthropic_client, fast_retries):
    server = model_server([{"error": 400, "message": "tools.0.custom.name: String should match pattern"}])
    provider = AnthropicMessagesProvider("claude-test", client=anthropic_client(server), retry_policy=fast_retries)
    with pytest.raises(BadRequest) as caught:
        provider.complete(request())
    assert caught.value.status == 400 and not caught.value.retryable
    assert "should match pattern" in caught.value.message
    assert len(server.requests) == 1 and provider.last_retries == 0


def test_refusal_stop_reason_is_normalised(model_server, anthropic_client):
    server = model_server([{"text": "I can't help with that.", "stop": "refusal"}])
    turn = AnthropicMessagesProvider("claude-test", client=anthropic_client(server)).complete(request())
    assert turn.stop_reason == "refusal" and turn.raw_stop_reason == "refusal"
