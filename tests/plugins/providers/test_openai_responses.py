"""The Responses provider through the real openai SDK, over HTTP, to the scripted server."""

from __future__ import annotations

from toolscore_core import ModelRequest, ToolDefinition, ToolResultMessage, UserMessage
from toolscore_providers import OpenAIResponsesProvider, ToolNameMap

TOOLS = [
    ToolDefinition(name="save_note", description="Save a note.",
                   input_schema={"type": "object", "properties": {"title": {"type": "string"},
                                                                   "tags": {"type": "array"}},
                                 "required": ["title"]}),
    ToolDefinition(name="notes.delete", description="Delete a note.",
                   input_schema={"type": "object", "properties": {"title": {"type": "string"}}}),
]
DOTTED = ToolNameMap.for_tools(TOOLS).to_wire("notes.delete")


def request() -> ModelRequest:
    return ModelRequest(messages=[UserMessage("Save groceries, delete old.")], system="Be careful.",
                        tools=TOOLS, max_output_tokens=256)


def test_tool_use_turn_then_final_text(model_server, openai_client):
    server = model_server([
        {"calls": [{"tool": "save_note", "args": {"title": "groceries"}},
                   {"tool": DOTTED, "args": {"title": "old"}}],
         "usage": {"input_tokens": 812, "output_tokens": 95, "cached_tokens": 512}},
        {"text": "Saved groceries; the delete was refused."},
    ])
    provider = OpenAIResponsesProvider("gpt-test", client=openai_client(server))
    first = provider.complete(request())
    assert [c.name for c in first.tool_calls] == ["save_note", DOTTED]
    assert provider.tool_name_map(TOOLS).to_mcp(first.tool_calls[1].name) == "notes.delete"
    assert first.tool_calls[0].arguments == {"title": "groceries"}
    assert first.stop_reason == "tool_use"
    assert (first.usage.input_tokens, first.usage.output_tokens, first.usage.cached_tokens) == (812, 95, 512)
    assert first.response_id == "resp_1" and first.model == "gpt-test"

    save, delete = first.tool_calls
    follow = request().extended(first.as_message(), ToolResultMessage(save.id, save.name, "saved"),
                                ToolResultMessage(delete.id, delete.name,
                                                  "denied by the harness guard: never deletes",
                                                  is_error=True))
    final = provider.complete(follow)
    assert final.text == "Saved groceries; the delete was refused." and final.stop_reason == "end_turn"

    sent = server.requests[0].body
    assert sent["model"] == "gpt-test" and sent["instructions"] == "Be careful."
    assert sent["store"] is False and sent["max_output_tokens"] == 256
    assert [t["name"] for t in sent["tools"]] == ["save_note", DOTTED]
    assert all(t["type"] == "function" and t["strict"] is False for t in sent["tools"])
    assert sent["tools"][0]["parameters"]["properties"]["tags"]["items"] == {}
    assert sent["input"] == [{"type": "message", "role": "user", "content": "Save groceries, delete old."}]

    second = server.requests[1].body["input"]
    assert [i["type"] for i in second] == ["message", "function_call", "function_call",
                                           "function_call_output", "function_call_output"]
    assert second[1]["call_id"] == save.id and second[2]["name"] == DOTTED
    assert second[3] == {"type": "function_call_output", "call_id": save.id, "output": "saved"}
    assert second[4]["output"] == "Error: denied by the harness guard: never deletes"
    assert server.requests[0].headers["authorization"] == "[redacted]"


def test_a_truncated_call_keeps_its_raw_arguments(model_server, openai_client):
    server = model_server([{"calls": [{"tool": "save_note", "raw_args": '{"title": "groc'}],
                            "stop": "max_tokens"}])
    turn = OpenAIResponsesProvider("gpt-test", client=openai_client(server)).complete(request())
    call = turn.tool_calls[0]
    assert call.arguments is None and call.raw_arguments == '{"title": "groc'
    assert turn.stop_reason == "max_tokens" and turn.raw_stop_reason == "max_output_tokens"


def test_missing_usage_is_unknown_not_zero(model_server, openai_client):
    server = model_server([{"text": "hi", "usage": None}])
    turn = OpenAIResponsesProvider("gpt-test", client=openai_client(server)).complete(request())
    assert turn.usage.input_tokens is None and turn.usage.output_tokens is None


def test_the_spec_order_client_then_model_works_too(model_server, openai_client):
    server = model_server([{"text": "hi"}])
    provider = OpenAIResponsesProvider(openai_client(server), "gpt-test")
    assert provider.model == "gpt-test"
    assert provider.complete(request()).text == "hi"
