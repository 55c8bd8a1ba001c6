"""Shapes tool-scorer 1.10.0's helpers read and ours refused or dropped (found by running its
own unit tests against Toolscore): an answer with no tool use, LangChain dicts written with
``role``, Messages-API dicts given to the Claude Agent SDK reader, Agents SDK items whose
``raw_item`` has no type, and empty runs. Each is a small widening; detection is unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from toolscore import (
    from_anthropic,
    from_claude_agent_sdk,
    from_crewai,
    from_langgraph,
    from_openai_agents,
    from_pydantic_ai,
    load_trace,
)
from toolscore_core import InputError


@pytest.mark.parametrize("response", [{"content": []}, {"content": [{"type": "text", "text": "Hello!"}]}])
def test_an_anthropic_answer_without_tool_use_has_no_calls(response: dict[str, Any]) -> None:
    assert from_anthropic(response) == []


def test_a_bare_text_answer_is_still_not_claimed_by_detection() -> None:
    with pytest.raises(InputError, match="no trace format recognised"):
        load_trace({"content": [{"type": "text", "text": "Hello!"}]})


def test_langchain_dicts_with_role_human_and_ai_are_read() -> None:
    messages = [{"role": "human", "content": "hello"},
                {"role": "ai", "content": "", "tool_calls": [{"name": "search", "args": {"q": "x"}, "id": "t1"}]}]
    calls = from_langgraph({"messages": messages})
    assert [(c.tool, c.args, c.id) for c in calls] == [("search", {"q": "x"}, "t1")]
    assert load_trace(messages).source_format == "langchain"
    assert from_langgraph({"messages": [{"role": "human", "content": "hi"}, {"role": "ai", "content": "Hi!"}]}) == []


def test_a_role_list_is_bad_input_not_a_crash() -> None:
    with pytest.raises(InputError):
        from_langgraph({"messages": [{"role": ["ai"], "content": "x"}]})


def test_claude_agent_sdk_reads_messages_api_dicts_instead_of_dropping_their_tool_use() -> None:
    messages = [{"role": "user", "content": "find cats"},
                {"role": "assistant", "content": [{"type": "text", "text": "Searching."},
                                                  {"type": "tool_use", "id": "tu_1", "name": "search",
                                                   "input": {"q": "cats"}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "3 cats",
                                              "is_error": False}]}]
    (call,) = from_claude_agent_sdk(messages)
    assert (call.tool, call.args, call.result, call.is_error) == ("search", {"q": "cats"}, "3 cats", False)
    (bare,) = from_claude_agent_sdk([{"content": [{"type": "tool_use", "name": "ping", "input": {}}]}])
    assert bare.tool == "ping"


def test_agents_sdk_items_whose_raw_item_has_no_type_take_the_items_type() -> None:
    items = [{"type": "message_output_item", "raw_item": {}},
             {"type": "tool_call_item", "raw_item": {"name": "get_weather", "arguments": '{"city": "NYC"}',
                                                     "call_id": "c1"}},
             {"type": "tool_call_output_item", "raw_item": {"call_id": "c1", "output": "sunny"}}]
    (call,) = from_openai_agents(items)
    assert (call.tool, call.args, call.result) == ("get_weather", {"city": "NYC"}, "sunny")
    with pytest.raises(InputError):  # an outer type that is no string is not looked up
        from_openai_agents([{"type": ["tool_call_item"], "raw_item": {"name": "x"}}])


@pytest.mark.parametrize("helper", [from_claude_agent_sdk, from_openai_agents, from_pydantic_ai, from_crewai])
def test_an_empty_run_has_no_calls(helper: Any) -> None:
    assert helper([]) == []  # e.g. from_crewai(agent.tools_results) for an agent that used no tool


RPC = [{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "label_write", "arguments": {"n": "bug"}}},
       {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "taken"}], "isError": True}},
       {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "issue_write", "arguments": {}}},
       {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "updated"}]}}]


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_format_mcp_reads_a_plain_json_rpc_log(tmp_path: Any, suffix: str) -> None:
    import json

    path = tmp_path / f"session{suffix}"
    text = json.dumps(RPC) if suffix == ".json" else "".join(json.dumps(m) + "\n" for m in RPC)
    path.write_text(text, encoding="utf-8")
    trace = load_trace(path, format="mcp")
    assert [(c.tool, c.is_error) for c in trace.calls] == [("label_write", True), ("issue_write", False)]
    with pytest.raises(InputError, match="no header line"):  # neither a session nor JSON-RPC
        load_trace([{"tool": "x"}], format="mcp")
