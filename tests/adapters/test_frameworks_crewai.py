"""The experimental ``crewai`` adapter. CrewAI is not installed here (about 1 GB), so its
fixtures were built from the schema documented for crewai 1.15 (see
make_fixtures_frameworks.write_crewai_schema_fixtures); the live-object test runs only where
crewai imports."""

from __future__ import annotations

import json
from typing import Any

import pytest
import toolscore_test_providers_support as S

from toolscore_adapters.frameworks.crewai import CrewAIAdapter
from toolscore_core import InputError
from toolscore_core.kernel.traces import load_trace

FIXTURES = S.FRAMEWORK_FIXTURES
REFUND_ERROR = S.REFUND_ERROR
FINAL = S.FRAMEWORK_FINAL
CALLS = S.refund_outcomes()  # CrewAI keeps no call ids


def _summary(trace: Any) -> list[tuple[Any, ...]]:
    return [(c.tool, c.args, c.is_error, c.error) for c in trace.calls]


def _load(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def test_is_marked_experimental() -> None:
    assert CrewAIAdapter.experimental is True


def test_native_crew_output_joins_tool_failures_to_calls() -> None:
    trace = load_trace(FIXTURES / "crewai_crew_output.json")
    assert trace.source_format == "crewai"
    assert _summary(trace) == CALLS
    assert [c.id for c in trace.calls] == ["call_crew_1", "call_crew_2", "call_crew_3", "call_crew_4"]
    assert trace.calls[2].metadata["failure_reason"] == "tool_reported"
    assert trace.final_answer == FINAL
    assert trace.metadata["token_usage"]["total_tokens"] == 1200


def test_react_crew_output_reads_action_text_and_takes_the_answer_from_raw() -> None:
    data = _load("crewai_react_crew_output.json")
    assert FINAL not in json.dumps(data["tasks_output"][0]["messages"])
    trace = CrewAIAdapter().load(data)
    assert _summary(trace) == CALLS
    assert all(c.id is None for c in trace.calls)
    assert trace.final_answer == FINAL


def test_single_task_output_reads_too() -> None:
    task = _load("crewai_crew_output.json")["tasks_output"][0]
    assert CrewAIAdapter().detect(task) == 0.85
    assert _summary(CrewAIAdapter().load(task)) == CALLS


def test_tool_events_pair_by_started_event_id_with_durations() -> None:
    trace = load_trace(FIXTURES / "crewai_tool_events.json")
    assert trace.source_format == "crewai"
    assert _summary(trace) == CALLS
    assert [c.duration for c in trace.calls] == [0.25] * 4


def test_crewai_retries_of_a_raising_tool_are_one_call() -> None:
    events: list[dict[str, Any]] = []
    for attempt in (1, 2, 3):
        events.append({"type": "tool_usage_started", "event_id": f"s{attempt}", "tool_name": "refund_order",
                       "tool_args": '{"order_id": "A-17"}', "run_attempts": attempt})
        events.append({"type": "tool_usage_error", "started_event_id": f"s{attempt}", "tool_name": "refund_order",
                       "tool_args": {"order_id": "A-17"}, "error": REFUND_ERROR, "run_attempts": attempt})
    events.append({"type": "tool_usage_started", "event_id": "n", "tool_name": "notify", "tool_args": {}})
    refund, notify = CrewAIAdapter().load(events).calls
    assert refund.is_error is True and refund.error == REFUND_ERROR and refund.metadata["attempts"] == 3
    assert notify.is_error is None  # started, never finished: unknown


def test_openai_chat_messages_alone_are_left_to_the_openai_adapter() -> None:
    messages = _load("crewai_crew_output.json")["tasks_output"][0]["messages"]
    assert CrewAIAdapter().detect(messages) == 0.0


def test_bad_input_is_an_input_error() -> None:
    data = _load("crewai_crew_output.json")
    data["tasks_output"][0]["messages"][2]["tool_calls"][0]["function"]["arguments"] = 7
    with pytest.raises(InputError, match=r"\$\.tasks_output\[0\]\.messages\[2\]\.tool_calls\[0\]\.function\.arguments"):
        CrewAIAdapter().load(data)  # cut-off argument text is read and reported (test_compat_left.py)
    with pytest.raises(InputError, match="no tool_usage_started"):
        CrewAIAdapter().load([{"type": "tool_usage_finished", "tool_name": "x", "output": "y"}])
    with pytest.raises(InputError, match="not a CrewAI run"):
        CrewAIAdapter().load({"crew": "x"})
    assert CrewAIAdapter().load([]).calls == ()  # agent.tools_results of an agent that used no tool


def test_live_crew_output_when_crewai_is_installed() -> None:
    pytest.importorskip("crewai")
    from crewai.crews.crew_output import CrewOutput

    live = CrewOutput.model_validate(_load("crewai_crew_output.json"))
    assert CrewAIAdapter().detect(live) == 1.0
    assert _summary(CrewAIAdapter().load(live)) == CALLS


def test_react_action_input_that_is_not_json_leaves_arguments_unknown() -> None:
    task = {"raw": "x", "agent": "clerk", "messages": [
        {"role": "assistant", "content": "Thought: look\nAction: search\nAction Input: ada@example.com\nObservation: found"},
    ]}
    call = CrewAIAdapter().load(task).calls[0]
    assert call.tool == "search" and call.args is None
    assert call.metadata["unparsed_arguments"] == "ada@example.com" and call.result == "found"
