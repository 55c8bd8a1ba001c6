"""Trace shapes tool-scorer 1.10.0 read and a migrating user's files still hold (issue 12).

Each test builds the shape the published tool accepted and checks that Toolscore reads
the calls from it, by detection (as ``evaluate()`` and the CLI do) unless stated.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openai
import pytest
from click.testing import CliRunner

from toolscore_core import InputError, evaluate, load_trace
from toolscore_core.cli import App, cli
from toolscore_core.kernel.traces import load_trace_file


def _summary(trace: Any) -> list[tuple[str, Any, Any]]:
    return [(c.tool, c.args, c.is_error) for c in trace.calls]


def _validate(pm: Any, *args: str) -> Any:
    return CliRunner().invoke(cli, ["validate", *args], obj=App(pm=pm), catch_exceptions=False)


# --------------------------------------------------------------- truncated arguments (item 3)
def _cut_off_completion() -> openai.types.chat.ChatCompletion:
    """A real SDK object of an answer cut off by max_tokens: the second call's arguments end mid-string."""
    return openai.types.chat.ChatCompletion.model_validate({
        "id": "chatcmpl-cut", "object": "chat.completion", "created": 1700000000, "model": "gpt-4o-mini",
        "choices": [{"index": 0, "finish_reason": "length", "message": {
            "role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "search", "arguments": '{"q": "hotels"}'}},
                {"id": "call_2", "type": "function",
                 "function": {"name": "get_weather", "arguments": '{"city": "New Yo'}},
            ]}}],
    })


def test_a_cut_off_openai_answer_is_read_and_its_broken_call_reported(installed_plugin_manager: Any) -> None:
    trace = load_trace(_cut_off_completion(), pm=installed_plugin_manager)
    assert [c.tool for c in trace.calls] == ["search", "get_weather"]
    broken = trace.calls[1]
    assert broken.args is None and broken.metadata["raw_arguments"] == '{"city": "New Yo'
    assert "not valid JSON" in broken.metadata["arguments_error"]
    assert trace.metadata["finish_reason"] == "length"
    result = evaluate([{"tool": "search", "args": {"q": "hotels"}},
                       {"tool": "get_weather", "args": {"city": "New York"}}], trace)
    finding = next(f for f in result.findings if f.code == "invalid-arguments")
    assert finding.severity == "error" and finding.call_index == 1 and "New Yo" in (finding.evidence or "")
    assert "max_tokens" in (finding.fix or "")
    pair = next(p for p in result.pairs if p.actual_index == 1)
    assert pair.argument_scores == {"city": 0.0} and pair.mismatches[0]["problem"] == "invalid JSON"
    # the good call still scores: precision 1/1, recall 1/2 over the argument units
    assert result.argument_f1 == pytest.approx(2 / 3)
    assert result.metrics["efficiency_metrics"]["invalid_arguments_count"] == 1


def test_otel_span_with_non_json_arguments_is_scored_not_rejected(adapter_pm: Any, tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    data = json.loads((root / "examples" / "otel_genai_spans.json").read_text(encoding="utf-8"))
    spans = data["resourceSpans"][0]["scopeSpans"][0]["spans"]
    refund = next(s for s in spans if s["name"] == "execute_tool issue_refund")
    for attribute in refund["attributes"]:
        if attribute["key"] == "gen_ai.tool.call.arguments":
            attribute["value"] = {"stringValue": '{"order_id": "A-17", "amount": 42.5'}
    path = tmp_path / "spans.json"
    path.write_text(json.dumps(data), encoding="utf-8")  # one line: the streaming reader
    trace = load_trace_file(path, pm=adapter_pm)
    call = next(c for c in trace.calls if c.tool == "issue_refund")
    assert call.args is None and call.metadata["raw_arguments"].startswith('{"order_id": "A-17"')
    assert sum(1 for c in trace.calls if c.args is not None) == len(trace.calls) - 1


def test_validate_shows_invalid_arguments_and_exits_0(installed_plugin_manager: Any, tmp_path: Path) -> None:
    path = tmp_path / "cut.json"
    path.write_text(_cut_off_completion().model_dump_json(), encoding="utf-8")
    result = _validate(installed_plugin_manager, str(path))
    assert result.exit_code == 0, result.output
    assert "1 call(s) have arguments that are not a JSON object" in result.output
    assert '(invalid JSON) {"city": "New Yo' in result.output


# --------------------------------------------------------------------- input shapes
def test_openai_choice_message_without_role(installed_plugin_manager: Any) -> None:
    data = {"choices": [{"message": {"content": None, "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "search", "arguments": '{"q": 1}'}}]}}]}
    trace = load_trace(data, pm=installed_plugin_manager)
    assert trace.source_format == "openai" and _summary(trace) == [("search", {"q": 1}, None)]


def test_anthropic_content_without_type_or_role(installed_plugin_manager: Any) -> None:
    data = {"content": [{"type": "text", "text": "Looking it up."},
                        {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"q": "x"}}]}
    trace = load_trace(data, pm=installed_plugin_manager)
    assert trace.source_format == "anthropic" and _summary(trace) == [("search", {"q": "x"}, None)]


def test_langchain_dicts_with_human_and_ai_roles(installed_plugin_manager: Any) -> None:
    data = [{"role": "human", "content": "weather?"},
            {"role": "ai", "content": "", "tool_calls": [{"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}]},
            {"role": "tool", "content": "sunny", "tool_call_id": "c1"},
            {"role": "ai", "content": "It is sunny."}]
    trace = load_trace(data, pm=installed_plugin_manager)
    assert trace.source_format == "langchain"
    assert _summary(trace) == [("get_weather", {"city": "Paris"}, False)]
    assert trace.calls[0].result == "sunny" and trace.final_answer == "It is sunny."


def test_pydantic_ai_messages_without_kind(installed_plugin_manager: Any) -> None:
    data = [{"parts": [{"part_kind": "user-prompt", "content": "weather?"}]},
            {"parts": [{"part_kind": "tool-call", "tool_name": "get_weather", "args": {"city": "Oslo"},
                        "tool_call_id": "t1"}]},
            {"parts": [{"part_kind": "tool-return", "tool_name": "get_weather", "content": "snow",
                        "tool_call_id": "t1"}]}]
    trace = load_trace(data, pm=installed_plugin_manager)
    assert trace.source_format == "pydantic-ai"
    assert _summary(trace) == [("get_weather", {"city": "Oslo"}, False)]


@pytest.mark.parametrize("data", [[], {"choices": []}, {"object": "chat.completion", "choices": []}])
def test_an_empty_trace_has_no_calls_and_is_scored(data: Any, installed_plugin_manager: Any) -> None:
    trace = load_trace(data, pm=installed_plugin_manager)
    assert trace.calls == ()
    result = evaluate([{"tool": "search"}], trace)
    assert result.selection_accuracy == 0.0 and result.required_call_recall == 0.0


def test_an_empty_completion_file_gets_the_no_tool_call_message(installed_plugin_manager: Any, tmp_path: Path) -> None:
    path = tmp_path / "empty.json"
    path.write_text('{"choices": []}', encoding="utf-8")
    with pytest.raises(InputError, match="no tool call found: the file was read as openai"):
        load_trace_file(path, pm=installed_plugin_manager)


# ------------------------------------------------------------------------------ CrewAI
CREW_RESULTS = [
    {"result": "3 hotels found", "tool_name": "search_hotels", "tool_args": {"city": "Rome"}},
    {"result": "booked", "tool_name": "book", "tool_args": '{"hotel": "Roma"}', "result_as_answer": True},
]


@pytest.mark.parametrize("data", [CREW_RESULTS, {"tools_results": CREW_RESULTS}])
def test_crewai_agent_tools_results(data: Any, installed_plugin_manager: Any) -> None:
    trace = load_trace(data, pm=installed_plugin_manager)
    assert trace.source_format == "crewai"
    assert _summary(trace) == [("search_hotels", {"city": "Rome"}, False), ("book", {"hotel": "Roma"}, False)]
    assert trace.calls[0].result == "3 hotels found" and trace.calls[1].metadata == {"result_as_answer": True}


def test_a_live_crewai_agent_object_is_read_by_its_tools_results(installed_plugin_manager: Any) -> None:
    from toolscore_adapters.frameworks.crewai import CrewAIAdapter

    agent_class = type("Agent", (), {"__module__": "crewai.agent"})  # crewai itself is not installed
    agent = agent_class()
    agent.tools_results = list(CREW_RESULTS)
    adapter = CrewAIAdapter()
    assert adapter.detect(agent) == 1.0
    assert [c.tool for c in adapter.load(agent).calls] == ["search_hotels", "book"]


# ------------------------------------------------------------------- --format custom (item 10)
def _tool_scorer_custom_example() -> dict[str, Any]:
    """The shape of tool-scorer 1.10.0's examples/trace_custom.json, written here afresh."""
    return {"calls": [
        {"tool": "write_note", "args": {"title": "todo", "lines": ["milk", "eggs"]},
         "result": {"success": True, "id": 7}, "timestamp": 1710000000.0, "duration": 0.04},
        {"tool": "read_note", "args": {"id": 7}, "result": "milk\neggs", "timestamp": 1710000000.2,
         "duration": 0.01, "cost": 0.0002},
    ]}


def test_tool_scorer_custom_example_shape_is_detected_and_read(installed_plugin_manager: Any, tmp_path: Path) -> None:
    path = tmp_path / "trace_custom.json"
    path.write_text(json.dumps(_tool_scorer_custom_example()), encoding="utf-8")
    trace = load_trace_file(path, pm=installed_plugin_manager)
    assert trace.source_format == "custom"
    assert _summary(trace) == [("write_note", {"title": "todo", "lines": ["milk", "eggs"]}, False),
                               ("read_note", {"id": 7}, False)]
    assert trace.calls[0].metadata == {"timestamp": 1710000000.0}
    assert trace.calls[1].metadata == {"timestamp": 1710000000.2, "cost": 0.0002}
    assert [c.duration for c in trace.calls] == [0.04, 0.01]


def test_custom_reads_the_common_spellings(installed_plugin_manager: Any) -> None:
    data = [{"name": "search", "arguments": '{"q": "x"}', "output": "found", "elapsed": 0.5},
            {"name": "fetch", "input": {"url": "u"}, "error": "timeout", "time": 12}]
    trace = load_trace(data, pm=installed_plugin_manager)
    assert trace.source_format == "custom"
    assert [(c.tool, c.args, c.result, c.is_error, c.duration) for c in trace.calls] == [
        ("search", {"q": "x"}, "found", False, 0.5), ("fetch", {"url": "u"}, None, True, None)]
    assert trace.calls[1].metadata == {"time": 12}


def test_format_custom_keeps_unknown_keys_and_validate_lists_them(installed_plugin_manager: Any,
                                                                  tmp_path: Path) -> None:
    data = [{"tool": "search", "args": {"q": "x"}, "result": "ok", "model": "m1", "span": {"n": 1}}]
    with pytest.raises(InputError, match="no trace format recognised"):
        load_trace(data, pm=installed_plugin_manager)  # detection never guesses at foreign keys
    trace = load_trace(data, format="custom", pm=installed_plugin_manager)
    assert trace.calls[0].metadata == {"model": "m1", "span": {"n": 1}}
    assert trace.metadata["unknown_keys"] == ["model", "span"]
    path = tmp_path / "own.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = _validate(installed_plugin_manager, str(path), "--format", "custom")
    assert result.exit_code == 0, result.output
    assert "unknown keys  model, span" in result.output
    as_json = _validate(installed_plugin_manager, str(path), "--format", "custom", "--json")
    assert json.loads(as_json.output)["unknown_keys"] == ["model", "span"]


def test_custom_arguments_text_that_is_not_json_marks_the_call(installed_plugin_manager: Any) -> None:
    trace = load_trace([{"tool": "a", "arguments": '{"x": 1'}, {"tool": "b", "args": {}}],
                       format="custom", pm=installed_plugin_manager)
    assert trace.calls[0].args is None and trace.calls[0].metadata["raw_arguments"] == '{"x": 1'
    assert trace.calls[1].args == {}
