"""Anthropic Messages and Google Gemini adapters, on objects made by their SDKs."""

from __future__ import annotations

import pytest
import toolscore_test_providers_support as S

from toolscore_core import InputError
from toolscore_core.kernel.traces import load_trace, load_trace_file

B = S.builders()
FIX = S.FIXTURES


# ------------------------------------------------------------------------------ Anthropic


def test_live_message_with_text_and_parallel_tool_use(installed_plugin_manager):
    trace = load_trace(B.build_anthropic_message(), pm=installed_plugin_manager)
    assert trace.source_format == "anthropic"
    assert S.summary(trace) == [("toolu_orders_2", "list_orders", {"customer_id": "C-17"}),
                                ("toolu_policy_3", "get_refund_policy", {})]
    assert [c.is_error for c in trace.calls] == [None, None]
    assert trace.final_answer is None  # the turn asked for tools: it is not an answer
    assert trace.metadata == {"id": "msg_fixture_1", "model": "claude-sonnet-4-5"}


def test_live_and_saved_history_with_is_error(installed_plugin_manager):
    live = load_trace(B.build_anthropic_messages(), pm=installed_plugin_manager)
    saved = load_trace_file(FIX / "anthropic_messages.json", pm=installed_plugin_manager)
    for trace in (live, saved):
        assert trace.source_format == "anthropic"
        assert S.summary(trace) == S.expected_calls("toolu_")
        assert [c.is_error for c in trace.calls] == [False, False, False, True, False]
        refund = trace.calls[3]
        assert (refund.result, refund.error) == (B.REFUND_ERROR, B.REFUND_ERROR)
        assert trace.calls[2].result == "Refunds within 30 days of purchase."
        assert trace.final_answer == B.FINAL


def test_tool_result_with_structured_content_keeps_the_blocks():
    from toolscore_adapters.providers.anthropic import AnthropicAdapter

    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
    trace = AnthropicAdapter().load([
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "snap", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [image]}]},
    ])
    assert trace.calls[0].result == [image]
    assert trace.calls[0].is_error is False


def test_tool_use_input_that_is_not_an_object_is_an_input_error(installed_plugin_manager):
    messages = [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "x", "input": [1]}]}]
    with pytest.raises(InputError) as err:
        load_trace(messages, format="anthropic", pm=installed_plugin_manager)
    assert err.value.location == "$[0].content[0].input"


def test_anthropic_request_body(installed_plugin_manager):
    from toolscore_adapters._common import to_plain

    body = {"model": "claude-sonnet-4-5", "max_tokens": 512, "messages": to_plain(B.build_anthropic_messages())}
    trace = load_trace(body, pm=installed_plugin_manager)
    assert trace.source_format == "anthropic"
    assert len(trace.calls) == 5


# --------------------------------------------------------------------------------- Gemini


def test_live_generate_content_response(installed_plugin_manager):
    trace = load_trace(B.build_gemini_response(), pm=installed_plugin_manager)
    assert trace.source_format == "gemini"
    assert S.summary(trace) == [("call_orders_2", "list_orders", {"customer_id": "C-17"}),
                                ("call_policy_3", "get_refund_policy", {})]
    assert [c.is_error for c in trace.calls] == [None, None]


@pytest.mark.parametrize("name", ["gemini_response_camel.json", "gemini_response_snake.json"])
def test_saved_response_in_both_spellings(name, installed_plugin_manager):
    trace = load_trace_file(FIX / name, pm=installed_plugin_manager)
    assert [c.tool for c in trace.calls] == ["list_orders", "get_refund_policy"]


@pytest.mark.parametrize("name", [None, "gemini_contents_camel.json", "gemini_contents_snake.json"])
def test_content_history_live_and_saved(name, installed_plugin_manager):
    if name is None:
        trace = load_trace(B.build_gemini_contents(), pm=installed_plugin_manager)
    else:
        trace = load_trace_file(FIX / name, pm=installed_plugin_manager)
    assert trace.source_format == "gemini"
    assert S.summary(trace) == S.expected_calls()
    assert [c.is_error for c in trace.calls] == [False, False, False, True, False]
    assert trace.calls[0].result == {"customer_id": "C-17", "name": "Jane Doe"}  # the "output" value
    assert trace.calls[3].error == B.REFUND_ERROR
    assert trace.final_answer == B.FINAL


def test_results_without_ids_pair_by_name_in_order():
    from toolscore_adapters.providers.gemini import GeminiAdapter

    contents = [
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {"n": 1}}},
                                    {"functionCall": {"name": "g", "args": {}}},
                                    {"functionCall": {"name": "f", "args": {"n": 2}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"output": "one"}}},
                                   {"functionResponse": {"name": "f", "response": {"output": "two"}}}]},
    ]
    trace = GeminiAdapter().load(contents)
    assert [(c.tool, c.args, c.result, c.is_error) for c in trace.calls] == [
        ("f", {"n": 1}, "one", False), ("g", {}, None, None), ("f", {"n": 2}, "two", False)]


def test_automatic_function_calling_history_is_read_before_the_candidate(installed_plugin_manager):
    from google.genai import types

    history = B.build_gemini_contents()[:-1]
    response = types.GenerateContentResponse(
        candidates=[types.Candidate(content=types.Content(role="model", parts=[types.Part(text=B.FINAL)]))],
        automatic_function_calling_history=history,
    )
    trace = load_trace(response, pm=installed_plugin_manager)
    assert [c.tool for c in trace.calls] == [t for _, t, _ in S.expected_calls()]
    assert trace.final_answer == B.FINAL


def test_gemini_function_call_without_a_name_is_an_input_error(installed_plugin_manager):
    contents = [{"role": "model", "parts": [{"functionCall": {"args": {}}}]}]
    with pytest.raises(InputError) as err:
        load_trace(contents, format="gemini", pm=installed_plugin_manager)
    assert err.value.location == "$[0].parts[0].functionCall.name"


def test_server_tools_and_mcp_connector_tools_are_calls(installed_plugin_manager):
    from anthropic.types import Message
    from anthropic.types.beta import BetaMCPToolResultBlock, BetaMCPToolUseBlock

    reply = Message.model_validate({
        "id": "msg_srv", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "stop_reason": "end_turn", "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1},
        "content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "refund law"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
             "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}},
            {"type": "server_tool_use", "id": "srvtoolu_2", "name": "web_search", "input": {"query": "policy"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_2", "content": [
                {"type": "web_search_result", "url": "https://example.com", "title": "Policy",
                 "encrypted_content": "abc", "page_age": None}]},
        ],
    })
    mcp_use = BetaMCPToolUseBlock(type="mcp_tool_use", id="mcptoolu_1", name="read_graph", server_name="memory",
                                  input={})
    mcp_result = BetaMCPToolResultBlock(type="mcp_tool_result", tool_use_id="mcptoolu_1", is_error=False,
                                        content=[{"type": "text", "text": "{}"}])
    messages = [{"role": "user", "content": "look it up"}, {"role": "assistant", "content": reply.content},
                {"role": "assistant", "content": [mcp_use, mcp_result]}]
    trace = load_trace(messages, pm=installed_plugin_manager)
    assert trace.source_format == "anthropic"
    assert [(c.id, c.tool, c.is_error) for c in trace.calls] == [
        ("srvtoolu_1", "web_search", True), ("srvtoolu_2", "web_search", False), ("mcptoolu_1", "read_graph", False)]
    assert trace.calls[0].metadata["block_type"] == "server_tool_use"
    assert trace.calls[2].metadata["server_name"] == "memory"
    assert trace.calls[2].result == "{}"
