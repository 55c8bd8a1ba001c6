"""LangChain messages and LangGraph states/streams, from a real graph on a fake chat model."""

from __future__ import annotations

from typing import Any

import pytest
import toolscore_test_providers_support as S

from toolscore_core import InputError
from toolscore_core.kernel.traces import load_trace, load_trace_file

B = S.builders()
FIX = S.FIXTURES


@pytest.fixture(scope="module")
def state() -> dict[str, Any]:
    return B.build_langgraph_state()


def _assert_session(trace: Any, fmt: str) -> None:
    assert trace.source_format == fmt
    assert S.summary(trace) == S.expected_calls()
    assert [c.is_error for c in trace.calls] == [False, False, False, True, False]
    assert trace.calls[3].error == B.REFUND_ERROR  # ToolException text, status="error"
    assert trace.calls[0].result == '{"customer_id": "C-17", "name": "Jane Doe"}'
    assert trace.final_answer == B.FINAL


def test_live_graph_state(state, installed_plugin_manager):
    _assert_session(load_trace(state, pm=installed_plugin_manager), "langgraph")


def test_live_message_list_is_langchain(state, installed_plugin_manager):
    _assert_session(load_trace(list(state["messages"]), pm=installed_plugin_manager), "langchain")
    # and the LangGraph adapter reads a bare list when asked
    _assert_session(load_trace(list(state["messages"]), format="langgraph", pm=installed_plugin_manager),
                    "langgraph")


def test_live_stream_updates_and_values(installed_plugin_manager):
    from langchain_core.messages import HumanMessage

    updates = B.build_langgraph_stream_updates()
    assert {next(iter(chunk)) for chunk in updates} == {"agent", "tools"}
    _assert_session(load_trace(updates, pm=installed_plugin_manager), "langgraph")
    values = list(B.build_langgraph_app().stream({"messages": [HumanMessage(content=B.USER)]},
                                                 stream_mode="values"))
    assert len(values) > 2
    _assert_session(load_trace(values, pm=installed_plugin_manager), "langgraph")


@pytest.mark.parametrize(("name", "fmt"), [
    ("langchain_messages_to_dict.json", "langchain"),
    ("langchain_dumpd.json", "langchain"),
    ("langchain_model_dump.json", "langchain"),
    ("langgraph_state_dumpd.json", "langgraph"),
    ("langgraph_state_messages_to_dict.json", "langgraph"),
    ("langgraph_stream_updates.json", "langgraph"),
])
def test_saved_forms(name, fmt, installed_plugin_manager):
    _assert_session(load_trace_file(FIX / name, pm=installed_plugin_manager), fmt)


def test_provider_shaped_copies_of_the_calls_are_not_counted_twice(installed_plugin_manager):
    from langchain_core.messages import AIMessage, ToolMessage

    anthropic_shaped = AIMessage(
        content=[{"type": "text", "text": "checking"},
                 {"type": "tool_use", "id": "toolu_1", "name": "lookup_customer", "input": {"email": "j@x"}}],
        tool_calls=[{"name": "lookup_customer", "args": {"email": "j@x"}, "id": "toolu_1", "type": "tool_call"}],
    )
    openai_shaped = AIMessage(
        content="",
        additional_kwargs={"tool_calls": [{"id": "call_9", "type": "function",
                                           "function": {"name": "list_orders", "arguments": "{\"customer_id\": \"C\"}"}}]},
        tool_calls=[{"name": "list_orders", "args": {"customer_id": "C"}, "id": "call_9", "type": "tool_call"}],
    )
    messages = [anthropic_shaped, ToolMessage(content="ok", tool_call_id="toolu_1"),
                openai_shaped, ToolMessage(content="[]", tool_call_id="call_9"), AIMessage(content="done")]
    trace = load_trace(messages, pm=installed_plugin_manager)
    assert [(c.id, c.tool) for c in trace.calls] == [("toolu_1", "lookup_customer"), ("call_9", "list_orders")]
    assert trace.final_answer == "done"


def test_invalid_tool_calls_are_failed_calls_with_unknown_arguments(installed_plugin_manager):
    from langchain_core.messages import AIMessage

    message = AIMessage(content="", invalid_tool_calls=[
        {"name": "refund_order", "args": "{order_id: A-1}", "id": "bad_1", "error": "Expecting property name",
         "type": "invalid_tool_call"}])
    call = load_trace([message], pm=installed_plugin_manager).calls[0]
    assert (call.tool, call.args, call.is_error) == ("refund_order", None, True)
    assert call.error == "Expecting property name"
    assert call.metadata["invalid_arguments"] == "{order_id: A-1}"


def test_messages_saved_before_tool_calls_existed_use_additional_kwargs():
    from toolscore_adapters.providers.langchain import LangChainAdapter

    old = [{"type": "ai", "data": {"content": "", "additional_kwargs": {"tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "t", "arguments": "{\"a\": 1}"}}]}}},
           {"type": "tool", "data": {"content": "x", "tool_call_id": "c1"}}]
    trace = LangChainAdapter().load(old)
    assert [(c.id, c.tool, c.args, c.is_error) for c in trace.calls] == [("c1", "t", {"a": 1}, False)]


def test_a_tool_call_without_a_name_is_an_input_error(installed_plugin_manager):
    data = {"messages": [{"type": "ai", "data": {"content": "", "tool_calls": [{"args": {}, "id": "x"}]}}]}
    with pytest.raises(InputError) as err:
        load_trace(data, format="langgraph", pm=installed_plugin_manager)
    assert err.value.location == "$.messages[0].data.tool_calls[0].name"


def test_errors_in_stream_chunks_name_the_chunk_and_node(installed_plugin_manager):
    chunks = [{"agent": {"messages": [{"type": "ai", "data": {"content": "", "tool_calls": [
        {"name": "ok", "args": {}, "id": "a"}]}}]}},
              {"tools": {"messages": [{"type": "tool", "data": {"content": "x", "tool_call_id": "a"}}]}},
              {"agent": {"messages": [{"type": "ai", "data": {"content": "", "tool_calls": [
                  {"name": "bad", "args": "{not json", "id": "b"}]}}]}}]
    with pytest.raises(InputError) as err:
        load_trace(chunks, pm=installed_plugin_manager)
    assert err.value.location == "$[2].agent.messages[0].data.tool_calls[0].args"


def test_a_state_with_no_messages_reads_as_no_calls(installed_plugin_manager):
    trace = load_trace({"messages": []}, format="langgraph", pm=installed_plugin_manager)
    assert trace.calls == () and trace.final_answer is None
