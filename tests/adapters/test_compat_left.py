"""Issue 12, item 3 for the last adapters: Gemini's and Anthropic's rare string-form
arguments and CrewAI's argument text. A cut-off or broken argument string is read, its raw
text kept, its arguments unknown (None), an ``invalid-arguments`` finding raised and the
rest of the trace scored, instead of the whole trace being rejected (exit 2)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolscore_core import evaluate, load_trace

CUT = '{"city": "New Yo'
GOLD = [{"tool": "search", "args": {"q": "hotels"}}, {"tool": "get_weather", "args": {"city": "New York"}}]


def _check(trace: Any, fmt: str) -> None:
    """The broken second call is kept and reported; the good first call still scores."""
    assert trace.source_format == fmt
    assert [c.tool for c in trace.calls] == ["search", "get_weather"]
    good, broken = trace.calls
    assert good.args == {"q": "hotels"}
    assert broken.args is None and broken.metadata["raw_arguments"] == CUT
    assert "not valid JSON" in broken.metadata["arguments_error"]
    result = evaluate(GOLD, trace)
    finding = next(f for f in result.findings if f.code == "invalid-arguments")
    assert finding.call_index == 1 and "New Yo" in (finding.evidence or "")
    pair = next(p for p in result.pairs if p.actual_index == 1)
    assert pair.argument_scores == {"city": 0.0}
    assert 0.0 < result.argument_f1 < 1.0  # the good call's argument still counts


@pytest.mark.filterwarnings("error")  # no page of pydantic serializer warnings
def test_anthropic_message_built_by_the_sdk_with_string_input(installed_plugin_manager: Any) -> None:
    from anthropic._models import construct_type  # how the SDK builds a response, unvalidated
    from anthropic.types import Message

    message = construct_type(type_=Message, value={
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "stop_reason": "max_tokens", "stop_sequence": None, "usage": {"input_tokens": 9, "output_tokens": 9},
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "search", "input": '{"q": "hotels"}'},
                    {"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": CUT}]})
    assert type(message.content[1].input) is str
    _check(load_trace(message, pm=installed_plugin_manager), "anthropic")


def test_anthropic_mcp_tool_use_keeps_block_type_beside_the_raw_text(installed_plugin_manager: Any) -> None:
    history = [{"role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "search", "input": {"q": "hotels"}},
        {"type": "mcp_tool_use", "id": "t2", "name": "get_weather", "server_name": "wx", "input": CUT}]}]
    trace = load_trace(history, pm=installed_plugin_manager)
    _check(trace, "anthropic")
    assert trace.calls[1].metadata["block_type"] == "mcp_tool_use"


@pytest.mark.filterwarnings("error")  # no page of pydantic serializer warnings
def test_gemini_sdk_function_call_with_string_args(installed_plugin_manager: Any) -> None:
    from google.genai import types

    def part(name: str, args: str) -> types.Part:
        return types.Part(function_call=types.FunctionCall.model_construct(name=name, args=args))

    contents = [types.Content(role="user", parts=[types.Part(text="weather?")]),
                types.Content(role="model", parts=[part("search", '{"q": "hotels"}'), part("get_weather", CUT)])]
    _check(load_trace(contents, pm=installed_plugin_manager), "gemini")


def test_gemini_rest_json_with_string_args(installed_plugin_manager: Any) -> None:
    response = {"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "search", "args": {"q": "hotels"}}},
        {"functionCall": {"name": "get_weather", "args": CUT}}]}}]}
    _check(load_trace(json.loads(json.dumps(response)), pm=installed_plugin_manager), "gemini")


def test_gemini_call_without_args_still_takes_none(installed_plugin_manager: Any) -> None:
    response = {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "now"}}]}}]}
    trace = load_trace(response, pm=installed_plugin_manager)
    assert trace.calls[0].args == {} and "raw_arguments" not in trace.calls[0].metadata


def test_crewai_native_tool_call_with_cut_off_arguments(installed_plugin_manager: Any) -> None:
    def call(cid: str, name: str, arguments: str) -> dict[str, Any]:
        return {"id": cid, "type": "function", "function": {"name": name, "arguments": arguments}}

    crew = {"raw": "done", "token_usage": {}, "tasks_output": [{"raw": "done", "messages": [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None,
         "tool_calls": [call("c1", "search", '{"q": "hotels"}'), call("c2", "get_weather", CUT)]},
        {"role": "tool", "tool_call_id": "c1", "content": "3 hotels"}]}]}
    _check(load_trace(crew, pm=installed_plugin_manager), "crewai")


def test_crewai_tool_events_with_cut_off_arguments(installed_plugin_manager: Any) -> None:
    events = [
        {"type": "tool_usage_started", "tool_name": "search", "tool_args": '{"q": "hotels"}', "event_id": "e1"},
        {"type": "tool_usage_finished", "tool_name": "search", "started_event_id": "e1", "output": "3"},
        {"type": "tool_usage_started", "tool_name": "get_weather", "tool_args": CUT, "event_id": "e2"},
        {"type": "tool_usage_error", "tool_name": "get_weather", "started_event_id": "e2", "error": "bad args"},
    ]
    trace = load_trace(events, pm=installed_plugin_manager)
    _check(trace, "crewai")
    assert trace.calls[1].is_error is True
