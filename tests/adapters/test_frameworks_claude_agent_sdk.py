"""The ``claude-agent-sdk`` adapter on the messages the SDK's real ``query()`` yields (run on a
scripted CLI transport; the tools run in the SDK's own MCP server) and on the files that run
saved (tests/adapters/make_fixtures_frameworks.py)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
import toolscore_test_providers_support as S

from toolscore_adapters.frameworks.claude_agent_sdk import ClaudeAgentSDKAdapter
from toolscore_core import InputError
from toolscore_core.kernel.traces import load_trace

FIXTURES = S.FRAMEWORK_FIXTURES
REFUND_ERROR = S.REFUND_ERROR
FINAL = S.FRAMEWORK_FINAL
REFUND_SESSION = S.refund_session(["toolu_01", "toolu_02", "toolu_03", "toolu_04"])


@pytest.fixture(scope="module")
def builders() -> Any:
    pytest.importorskip("claude_agent_sdk")
    return S.framework_builders()


def test_live_message_list_reads_the_refund_session(builders: Any) -> None:
    messages = builders.run_claude_agent_sdk()
    assert {type(m).__name__ for m in messages} == {"SystemMessage", "AssistantMessage", "UserMessage", "ResultMessage"}
    adapter = ClaudeAgentSDKAdapter()
    assert adapter.detect(messages) == 1.0
    trace = adapter.load(messages)
    assert S.call_outcomes(trace) == REFUND_SESSION
    assert trace.final_answer == FINAL
    assert trace.calls[2].metadata == {"qualified_name": "mcp__shop__refund_order", "mcp_server": "shop"}
    assert trace.calls[0].result == json.dumps({"customer_id": "C-1", "name": "Ada Lovelace"})
    assert trace.metadata["session_id"] and trace.metadata["num_turns"] == 5 and trace.metadata["duration_ms"] == 2412


def test_full_mcp_names_can_be_kept(builders: Any) -> None:
    class KeepNames(ClaudeAgentSDKAdapter):
        strip_mcp_prefix = False

    trace = KeepNames().load(builders.run_claude_agent_sdk())
    assert [c.tool for c in trace.calls] == [f"mcp__shop__{t}" for t, *_ in REFUND_SESSION]
    frames = [json.loads(line) for line in (FIXTURES / "claude_agent_sdk_stream.jsonl").read_text().splitlines()]
    assert KeepNames().load(frames).calls[0].tool == "mcp__shop__lookup_customer"


@pytest.mark.parametrize("name", ["claude_agent_sdk_messages.json", "claude_agent_sdk_stream.jsonl"])
def test_saved_files_are_detected_and_read(name: str) -> None:
    trace = load_trace(FIXTURES / name)
    assert trace.source_format == "claude-agent-sdk"
    assert S.call_outcomes(trace) == REFUND_SESSION
    assert trace.final_answer == FINAL


def test_asdict_without_class_names_reads_by_keys() -> None:
    data = json.loads((FIXTURES / "claude_agent_sdk_messages.json").read_text(encoding="utf-8"))
    untyped = [{k: v for k, v in m.items() if k != "_type"} for m in data]
    assert ClaudeAgentSDKAdapter().detect(untyped) >= 0.8
    assert S.call_outcomes(ClaudeAgentSDKAdapter().load(untyped)) == REFUND_SESSION


def test_stream_json_text_reads_directly() -> None:
    text = (FIXTURES / "claude_agent_sdk_stream.jsonl").read_text(encoding="utf-8")
    assert ClaudeAgentSDKAdapter().detect(text) >= 0.9
    assert S.call_outcomes(ClaudeAgentSDKAdapter().load(text)) == REFUND_SESSION


def test_session_messages_with_timestamps_give_durations() -> None:
    sdk = pytest.importorskip("claude_agent_sdk")
    entries = [
        {"type": "queue-operation", "operation": "enqueue", "sessionId": "s"},
        {"type": "user", "uuid": "1", "sessionId": "s", "timestamp": "2026-12-02T10:00:00.000Z",
         "message": {"role": "user", "content": "refund A-17"}},
        {"type": "assistant", "uuid": "2", "sessionId": "s", "timestamp": "2026-12-02T10:00:01.000Z",
         "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash",
                                                        "input": {"command": "ls"}}]}},
        {"type": "user", "uuid": "3", "sessionId": "s", "timestamp": "2026-12-02T10:00:03.500Z",
         "toolUseResult": {"stdout": "a"},
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a"}]}},
    ]
    trace = ClaudeAgentSDKAdapter().load(entries)
    assert S.call_outcomes(trace) == [("Bash", {"command": "ls"}, "t1", False, None)]
    assert trace.calls[0].duration == 2.5
    transcript_text = "".join(json.dumps(e) + "\n" for e in entries)
    assert ClaudeAgentSDKAdapter().detect(transcript_text) == 0.9
    assert ClaudeAgentSDKAdapter().load(transcript_text).calls[0].duration == 2.5
    live = [sdk.SessionMessage(type=e["type"], uuid=e["uuid"], session_id="s", message=e["message"],
                               parent_tool_use_id=None) for e in entries[1:]]
    assert ClaudeAgentSDKAdapter().detect(live) == 1.0
    assert S.call_outcomes(ClaudeAgentSDKAdapter().load(live)) == [("Bash", {"command": "ls"}, "t1", False, None)]


def test_unanswered_tool_use_is_unknown(builders: Any) -> None:
    messages = builders.run_claude_agent_sdk()
    cut = [m for m in messages if not (type(m).__name__ == "UserMessage" and "toolu_04" in repr(m))]
    notify = ClaudeAgentSDKAdapter().load(cut).calls[3]
    assert notify.tool == "notify" and notify.is_error is None and notify.result is None


def test_subagent_calls_keep_their_parent() -> None:
    frames = [{"type": "assistant", "parent_tool_use_id": "task_1", "session_id": "s",
               "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "t9", "name": "Read",
                                                             "input": {"path": "a"}}]}}]
    call = ClaudeAgentSDKAdapter().load(frames).calls[0]
    assert call.metadata["parent_tool_use_id"] == "task_1" and call.is_error is None


def test_dataclass_blocks_built_by_hand_are_read(builders: Any) -> None:
    from claude_agent_sdk import (
        AssistantMessage,
        ResultMessage,
        TextBlock,
        ToolResultBlock,
        ToolUseBlock,
        UserMessage,
    )

    messages = [
        AssistantMessage(content=[TextBlock("checking"), ToolUseBlock("u1", "get_weather", {"city": "Zürich"})],
                         model="claude"),
        UserMessage(content=[ToolResultBlock("u1", [{"type": "text", "text": "sunny"}], None)]),
        ResultMessage(subtype="success", duration_ms=5, duration_api_ms=4, is_error=False, num_turns=2,
                      session_id="s", result="It is sunny."),
    ]
    trace = ClaudeAgentSDKAdapter().load(messages)
    assert S.call_outcomes(trace) == [("get_weather", {"city": "Zürich"}, "u1", False, None)]
    assert trace.calls[0].result == "sunny" and trace.final_answer == "It is sunny."
    assert dataclasses.is_dataclass(messages[0])


def test_bad_input_is_an_input_error(tmp_path: Path) -> None:
    adapter = ClaudeAgentSDKAdapter()
    assert adapter.load([]).calls == ()  # an empty run has no calls (as tool-scorer 1.10.0 read it)
    with pytest.raises(InputError, match=r"\$\[0\]\.message\.content\[0\]\.input"):
        adapter.load([{"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "a", "name": "t",
                                                                     "input": "not an object"}]}}])
    with pytest.raises(InputError, match=r"\$\[0\]\.message\.content\[0\]\.name"):
        adapter.load([{"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "a", "input": {}}]}}])
    with pytest.raises(InputError, match="no tool use and no assistant text"):
        adapter.load([{"type": "system", "subtype": "init", "session_id": "s"}])
    broken = tmp_path / "stream.jsonl"
    lines = (FIXTURES / "claude_agent_sdk_stream.jsonl").read_text(encoding="utf-8").splitlines()
    broken.write_text("\n".join([*lines[:3], lines[3][:50]]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"stream\.jsonl.*line 4"):
        load_trace(broken)


def test_provider_message_lists_are_not_claimed() -> None:
    anthropic_style = [{"role": "user", "content": "hi"},
                       {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "t", "input": {}}]}]
    assert ClaudeAgentSDKAdapter().detect(anthropic_style) == 0.0


def test_evaluate_accepts_the_live_messages_with_bare_tool_names(builders: Any) -> None:
    from toolscore_core.scoring import evaluation
    result = evaluation.evaluate(
        expected=[{"tool": "lookup_customer", "args": {"email": "ada@example.com"}},
                  {"tool": "refund_order", "args": {"order_id": "A-17", "amount": 42.5}}],
        actual=builders.run_claude_agent_sdk(),
    )
    assert result.actual.source_format == "claude-agent-sdk"
    assert result.argument_f1 == 1.0
    assert result.required_call_recall == 0.5  # refund_order failed
