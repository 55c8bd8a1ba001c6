"""OpenAI Chat Completions and Responses API adapters, on objects made by the openai SDK."""

from __future__ import annotations

import json

import pytest
import toolscore_test_providers_support as S

from toolscore_core import InputError
from toolscore_core.kernel.traces import load_trace, load_trace_file

B = S.builders()
FIX = S.FIXTURES


# ----------------------------------------------------------------------- Chat Completions


def test_live_chat_completion_reads_parallel_calls_as_unknown(installed_plugin_manager):
    trace = load_trace(B.build_openai_chat_completion(), pm=installed_plugin_manager)
    assert trace.source_format == "openai"
    assert S.summary(trace) == [("call_orders_2", "list_orders", {"customer_id": "C-17"}),
                                ("call_policy_3", "get_refund_policy", {})]
    assert [c.is_error for c in trace.calls] == [None, None]  # no result yet: unknown, not ok
    assert trace.final_answer is None
    assert trace.metadata["model"] == "gpt-4o-2024-08-06"
    assert trace.calls[0]["tool"] == "list_orders"


def test_live_history_of_dicts_and_sdk_messages(installed_plugin_manager):
    trace = load_trace(B.build_openai_messages(), pm=installed_plugin_manager)
    assert trace.source_format == "openai"
    assert S.summary(trace) == S.expected_calls()
    assert [c.is_error for c in trace.calls] == [False] * 5  # Chat Completions has no error flag
    assert trace.calls[0].result == json.dumps({"customer_id": "C-17", "name": "Jane Doe"})
    assert trace.calls[3].result == "Error: Refund window has closed"
    assert trace.calls[4].args["message"] == B.NOTE  # non-ASCII kept exactly
    assert trace.final_answer == B.FINAL
    assert trace.calls[1].metadata["location"] == "$[4].tool_calls[0]"
    assert all(c.provider == "openai" for c in trace.calls)


@pytest.mark.parametrize("name", ["openai_messages.json", "openai_messages.jsonl"])
def test_saved_history_reads_like_the_live_one(name, installed_plugin_manager):
    live = load_trace(B.build_openai_messages(), pm=installed_plugin_manager)
    saved = load_trace_file(FIX / name, pm=installed_plugin_manager)
    assert saved.source_format == "openai"
    assert [(c.id, c.tool, c.args, c.result, c.is_error) for c in saved.calls] == \
           [(c.id, c.tool, c.args, c.result, c.is_error) for c in live.calls]
    assert saved.final_answer == live.final_answer == B.FINAL


def test_saved_chat_completion(installed_plugin_manager):
    trace = load_trace_file(FIX / "openai_chat_completion.json", pm=installed_plugin_manager)
    assert [c.tool for c in trace.calls] == ["list_orders", "get_refund_policy"]
    assert trace.metadata["id"] == "chatcmpl-fixture-1"


def test_streamed_chunks_are_assembled(installed_plugin_manager):
    live = B.build_openai_stream()
    assert len(live) > 5  # the arguments really arrive in pieces
    for trace in (load_trace(live, pm=installed_plugin_manager),
                  load_trace_file(FIX / "openai_stream_chunks.json", pm=installed_plugin_manager)):
        assert trace.source_format == "openai"
        assert S.summary(trace) == [("call_orders_2", "list_orders", {"customer_id": "C-17"}),
                                    ("call_policy_3", "get_refund_policy", {})]
        assert [c.is_error for c in trace.calls] == [None, None]
        assert trace.metadata["streamed_chunks"] == len(live)


def test_a_stream_cut_short_names_the_deltas(installed_plugin_manager):
    chunks = [c.model_dump(mode="json") for c in B.build_openai_stream()[:4]]  # arguments incomplete
    trace = load_trace(chunks, pm=installed_plugin_manager)  # a cut-off call is kept, marked malformed
    call = trace.calls[0]
    assert call.args is None and "not valid JSON" in call.metadata["arguments_error"]
    assert call.metadata["location"] == "$[*].choices[0].delta.tool_calls[0]"


def test_legacy_function_call_pairs_results_by_name(installed_plugin_manager):
    live = load_trace(B.build_openai_legacy_function_call(), pm=installed_plugin_manager)
    saved = load_trace_file(FIX / "openai_legacy_function_call.json", pm=installed_plugin_manager)
    for trace in (live, saved):
        assert trace.source_format == "openai"
        assert [(c.id, c.tool, c.args) for c in trace.calls] == [
            (None, "lookup_customer", {"email": "jane@example.com"}),
            (None, "refund_order", {"order_id": "A-1002", "reason": "damaged"}),
        ]
        assert trace.calls[0].result == json.dumps({"customer_id": "C-17", "name": "Jane Doe"})
        assert trace.calls[1].result == B.REFUND_ERROR
        assert trace.final_answer == B.FINAL


def test_request_body_and_single_assistant_message(installed_plugin_manager):
    body = {"model": "gpt-4o", "messages": [m if isinstance(m, dict) else m.model_dump(exclude_none=True)
                                              for m in B.build_openai_messages()]}
    assert len(load_trace(body, pm=installed_plugin_manager).calls) == 5
    single = B.build_openai_chat_completion().choices[0].message
    assert [c.tool for c in load_trace(single, pm=installed_plugin_manager).calls] == ["list_orders",
                                                                                      "get_refund_policy"]


def test_unanswered_call_is_unknown_and_orphan_result_is_remembered(installed_plugin_manager):
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "one", "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": "two", "arguments": ""}},
        ]},
        {"role": "tool", "tool_call_id": "a", "content": "done", "duration_ms": 250},
        {"role": "tool", "tool_call_id": "zzz", "content": "lost"},
    ]
    trace = load_trace(messages, format="openai", pm=installed_plugin_manager)
    assert [(c.tool, c.is_error, c.duration) for c in trace.calls] == [("one", False, 0.25), ("two", None, None)]
    assert trace.calls[1].args == {}
    assert trace.metadata["unmatched_results"] == ["$[3]"]


def test_explicit_is_error_on_a_tool_message_is_honoured(installed_plugin_manager):
    messages = [
        {"role": "assistant", "tool_calls": [{"id": "a", "type": "function",
                                              "function": {"name": "t", "arguments": "{\"x\": 1}"}}]},
        {"role": "tool", "tool_call_id": "a", "content": "boom", "is_error": True},
    ]
    call = load_trace(messages, pm=installed_plugin_manager).calls[0]
    assert (call.is_error, call.error, call.args) == (True, "boom", {"x": 1})


def test_arguments_that_are_not_json_name_the_place(installed_plugin_manager):
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "ok", "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": "bad", "arguments": "{\"city\": NYC}"}},
        ]},
    ]
    trace = load_trace(messages, pm=installed_plugin_manager)  # kept with the raw text, not exit 2
    bad = trace.calls[1]
    assert (trace.calls[0].args, bad.args, bad.metadata["raw_arguments"]) == ({}, None, "{\"city\": NYC}")
    assert bad.metadata["location"] == "$[1].tool_calls[1]" and "not valid JSON" in bad.metadata["arguments_error"]


def test_errors_inside_a_completion_or_a_single_message_name_the_real_place(installed_plugin_manager):
    completion = B.build_openai_chat_completion().model_dump(mode="json")
    completion["choices"][0]["message"]["tool_calls"][1]["function"]["arguments"] = "{"
    trace = load_trace(completion, pm=installed_plugin_manager)
    assert trace.calls[1].metadata["location"] == "$.choices[0].message.tool_calls[1]"
    assert trace.calls[1].metadata["raw_arguments"] == "{"
    message = {"role": "assistant", "tool_calls": [{"id": "a", "type": "function",
                                                    "function": {"name": "", "arguments": "{}"}}]}
    with pytest.raises(InputError) as err:
        load_trace(message, format="openai", pm=installed_plugin_manager)
    assert err.value.location == "$.tool_calls[0].function.name"


def test_arguments_that_are_a_json_list_are_marked_invalid(installed_plugin_manager):
    messages = [{"role": "assistant", "tool_calls": [{"id": "a", "type": "function",
                                                       "function": {"name": "t", "arguments": "[1, 2]"}}]}]
    call = load_trace(messages, format="openai", pm=installed_plugin_manager).calls[0]
    assert call.args is None and call.metadata["arguments_error"] == "a JSON list, not an object"


@pytest.mark.parametrize(("message", "where"), [
    ({"role": "assistant", "tool_calls": {"id": "a"}}, "$[0].tool_calls"),
    ({"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "", "arguments": "{}"}}]},
     "$[0].tool_calls[0].function.name"),
    ({"role": "assistant", "tool_calls": [{"id": "a", "type": "function"}]}, "$[0].tool_calls[0].function"),
    ({"role": "assistant", "function_call": {"name": 7, "arguments": "{}"}}, "$[0].function_call.name"),
])
def test_broken_tool_calls_are_input_errors_with_a_place(message, where, installed_plugin_manager):
    with pytest.raises(InputError) as err:
        load_trace([message], format="openai", pm=installed_plugin_manager)
    assert err.value.location == where


def test_a_completion_without_choices_is_a_trace_without_calls():
    from toolscore_adapters.providers.openai import OpenAIChatAdapter

    assert OpenAIChatAdapter().load({"object": "chat.completion", "choices": []}).calls == ()


# ------------------------------------------------------------------------- Responses API


def test_live_response_object(installed_plugin_manager):
    trace = load_trace(B.build_openai_response(), pm=installed_plugin_manager)
    assert trace.source_format == "openai-responses"
    assert S.summary(trace) == [("call_orders_2", "list_orders", {"customer_id": "C-17"}),
                                ("call_policy_3", "get_refund_policy", {})]
    assert trace.calls[0].metadata["item_id"] == "fc_0"
    assert [c.is_error for c in trace.calls] == [None, None]


def test_live_and_saved_input_lists(installed_plugin_manager):
    live = load_trace(B.build_openai_responses_input(), pm=installed_plugin_manager)
    saved = load_trace_file(FIX / "openai_responses_input.json", pm=installed_plugin_manager)
    for trace in (live, saved):
        assert trace.source_format == "openai-responses"
        assert S.summary(trace) == S.expected_calls()
        assert trace.calls[3].result == "Error: Refund window has closed"
        assert [c.is_error for c in trace.calls] == [False] * 5
        assert trace.final_answer == B.FINAL


def test_saved_response(installed_plugin_manager):
    trace = load_trace_file(FIX / "openai_responses_response.json", pm=installed_plugin_manager)
    assert trace.metadata["id"] == "resp_fixture_1"
    assert [c.id for c in trace.calls] == ["call_orders_2", "call_policy_3"]


def test_hosted_mcp_call_items_carry_their_own_outcome():
    from toolscore_adapters.providers.openai_responses import OpenAIResponsesAdapter

    items = [
        {"type": "mcp_call", "id": "mcp_1", "server_label": "docs", "name": "search",
         "arguments": "{\"q\": \"refund\"}", "output": "3 hits", "error": None},
        {"type": "mcp_call", "id": "mcp_2", "server_label": "docs", "name": "fetch",
         "arguments": "{}", "output": None, "error": "404 not found"},
        {"type": "custom_tool_call", "call_id": "c9", "name": "sql", "input": "SELECT 1"},
    ]
    trace = OpenAIResponsesAdapter().load(items)
    assert [(c.tool, c.args, c.is_error, c.error) for c in trace.calls] == [
        ("search", {"q": "refund"}, False, None),
        ("fetch", {}, True, "404 not found"),
        ("sql", {"input": "SELECT 1"}, None, None),
    ]


def test_responses_arguments_not_json_name_the_item(installed_plugin_manager):
    items = [{"type": "function_call", "call_id": "c", "name": "t", "arguments": "{oops"}]
    call = load_trace(items, format="openai-responses", pm=installed_plugin_manager).calls[0]
    assert call.args is None and call.metadata["raw_arguments"] == "{oops"
    assert call.metadata["location"] == "$[0]"
