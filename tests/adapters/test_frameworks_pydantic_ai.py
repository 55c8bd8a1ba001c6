"""The ``pydantic-ai`` adapter on real runs (a pydantic-ai Agent on a FunctionModel / TestModel)
and on the files those runs saved (tests/adapters/make_fixtures_frameworks.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import toolscore_test_providers_support as S

from toolscore_adapters.frameworks.pydantic_ai import PydanticAIAdapter
from toolscore_core import InputError
from toolscore_core.kernel.traces import load_trace

FIXTURES = S.FRAMEWORK_FIXTURES
REFUND_ERROR = S.REFUND_ERROR
FINAL = S.FRAMEWORK_FINAL
REFUND_SESSION = S.refund_session(["pyd_call_1", "pyd_call_2", "pyd_call_3", "pyd_call_4"])


@pytest.fixture(scope="module")
def builders() -> Any:
    pytest.importorskip("pydantic_ai")
    return S.framework_builders()


def test_live_run_result_reads_the_refund_session(builders: Any) -> None:
    result = builders.run_pydantic_ai()
    adapter = PydanticAIAdapter()
    assert adapter.detect(result) == 1.0
    trace = adapter.load(result)
    assert S.call_outcomes(trace) == REFUND_SESSION
    assert trace.final_answer == FINAL
    assert trace.calls[0].result == {"customer_id": "C-1", "name": "Ada Lovelace"}
    assert trace.calls[2].metadata["outcome"] == "failed"


def test_live_message_lists_and_json_bytes_read_the_same(builders: Any) -> None:
    result = builders.run_pydantic_ai(failure="retried", json_string_args=True)
    adapter = PydanticAIAdapter()
    for source in (result.all_messages(), result.new_messages(), result.all_messages_json(),
                   result.all_messages_json().decode()):
        assert adapter.detect(source) >= 0.95, type(source)
        trace = adapter.load(source)
        assert S.call_outcomes(trace) == REFUND_SESSION
        assert trace.final_answer == FINAL
    assert adapter.load(result).calls[2].metadata["outcome"] == "retried"


@pytest.mark.parametrize("name", [
    "pydantic_ai_messages.json",               # 2.x ToolFailed: outcome "failed"
    "pydantic_ai_retry_messages.json",         # 2.x ModelRetry: outcome "retried", args as JSON strings
    "pydantic_ai_v1_retry_messages.json",      # 1.x ModelRetry: legacy retry-prompt part
    "pydantic_ai_new_messages_typeadapter.json",
])
def test_saved_files_read_the_refund_session(name: str) -> None:
    trace = load_trace(FIXTURES / name)
    assert trace.source_format == "pydantic-ai"
    assert S.call_outcomes(trace) == REFUND_SESSION
    assert trace.final_answer == FINAL
    assert trace.metadata.get("run_id")
    # time from the model response asking for the call to the tool's return
    assert all(c.duration is not None and 0 <= c.duration < 5 for c in trace.calls)


def test_v1_retry_prompt_is_a_failed_call() -> None:
    data = json.loads((FIXTURES / "pydantic_ai_v1_retry_messages.json").read_text(encoding="utf-8"))
    kinds = [p["part_kind"] for m in data for p in m["parts"]]
    assert "retry-prompt" in kinds and not any(p.get("outcome") == "retried" for m in data for p in m["parts"])
    refund = PydanticAIAdapter().load(data).calls[2]
    assert refund.is_error is True and refund.error == REFUND_ERROR
    assert refund.metadata["outcome"] == "retry-prompt"


def test_structured_output_is_the_final_answer_not_a_call() -> None:
    pytest.importorskip("pydantic_ai")
    from pydantic import BaseModel
    from pydantic_ai import Agent
    from pydantic_ai.models.test import TestModel

    class Refund(BaseModel):
        order_id: str
        refunded: bool

    agent = Agent(TestModel(), output_type=Refund)

    @agent.tool_plain
    def list_orders(customer_id: str) -> str:
        """List orders."""
        return "A-17"

    result = agent.run_sync("refund")
    trace = PydanticAIAdapter().load(result)
    assert [c.tool for c in trace.calls] == ["list_orders"]
    assert trace.calls[0].is_error is False and trace.calls[0].result == "A-17"
    assert json.loads(trace.final_answer or "") == result.output.model_dump()


def _history(parts_by_message: list[tuple[str, list[dict[str, Any]]]]) -> list[dict[str, Any]]:
    return [{"kind": kind, "parts": parts} for kind, parts in parts_by_message]


def test_outcomes_denied_interrupted_and_unanswered() -> None:
    history = _history([
        ("request", [{"part_kind": "user-prompt", "content": "go"}]),
        ("response", [
            {"part_kind": "tool-call", "tool_name": "delete", "args": {"id": 1}, "tool_call_id": "a"},
            {"part_kind": "tool-call", "tool_name": "wait", "args": None, "tool_call_id": "b"},
            {"part_kind": "tool-call", "tool_name": "never", "args": "", "tool_call_id": "c"},
        ]),
        ("request", [
            {"part_kind": "tool-return", "tool_name": "delete", "content": "not allowed", "tool_call_id": "a",
             "outcome": "denied"},
            {"part_kind": "tool-return", "tool_name": "wait", "content": "stopped", "tool_call_id": "b",
             "outcome": "interrupted"},
            {"part_kind": "retry-prompt", "content": "output invalid", "tool_call_id": "zzz"},
        ]),
    ])
    delete, wait, never = PydanticAIAdapter().load(history).calls
    assert delete.denied is True and delete.denied_reason == "not allowed" and delete.is_error is None
    assert wait.is_error is None and wait.args == {}
    assert never.is_error is None and never.result is None and never.args == {}


def test_validation_error_content_becomes_readable_text() -> None:
    history = _history([
        ("response", [{"part_kind": "tool-call", "tool_name": "refund", "args": {"amount": "x"}, "tool_call_id": "a"}]),
        ("request", [{"part_kind": "retry-prompt", "tool_name": "refund", "tool_call_id": "a",
                      "content": [{"loc": ["amount"], "msg": "Input should be a valid number", "type": "float_parsing"}]}]),
    ])
    call = PydanticAIAdapter().load(history).calls[0]
    assert call.is_error is True and call.error == "amount: Input should be a valid number"


def test_arguments_that_are_not_json_are_read_and_marked_invalid() -> None:
    history = _history([("response", [{"part_kind": "tool-call", "tool_name": "t", "args": "{oops", "tool_call_id": "a"}])])
    call = PydanticAIAdapter().load(history).calls[0]
    assert call.tool == "t" and call.args is None
    assert call.metadata["raw_arguments"] == "{oops" and "JSON" in call.metadata["arguments_error"]


def test_truncated_json_bytes_is_an_input_error() -> None:
    text = (FIXTURES / "pydantic_ai_messages.json").read_bytes()[:400]
    assert PydanticAIAdapter().detect(text) >= 0.9
    with pytest.raises(InputError, match=r"line 1, column \d+: .*not valid JSON"):
        PydanticAIAdapter().load(text)


def test_truncated_file_is_an_input_error(tmp_path: Path) -> None:
    broken = tmp_path / "run.json"
    broken.write_bytes((FIXTURES / "pydantic_ai_messages.json").read_bytes()[:700])
    with pytest.raises(InputError, match=r"run\.json"):
        load_trace(broken)


def test_empty_history_has_no_calls() -> None:
    assert PydanticAIAdapter().load(b"[]").calls == ()  # as tool-scorer 1.10.0 read it
    assert PydanticAIAdapter().detect([]) == 0.0


def test_bad_message_names_its_place() -> None:
    with pytest.raises(InputError, match=r"\$\[1\]"):
        PydanticAIAdapter().load([{"kind": "request", "parts": []}, {"role": "user"}])


def test_unicode_arguments_survive() -> None:
    history = _history([("response", [{"part_kind": "tool-call", "tool_name": "greet",
                                       "args": '{"name": "Zoë 東京 🚀"}', "tool_call_id": "a"}])])
    assert PydanticAIAdapter().load(history).calls[0].args == {"name": "Zoë 東京 🚀"}


def test_evaluate_accepts_the_live_run(builders: Any) -> None:
    from toolscore_core.scoring import evaluation
    result = evaluation.evaluate(
        expected=[{"tool": "lookup_customer", "args": {"email": "ada@example.com"}},
                  {"tool": "list_orders", "args": {"customer_id": "C-1"}},
                  {"tool": "refund_order", "args": {"order_id": "A-17", "amount": 42.5}},
                  {"tool": "notify"}],
        actual=builders.run_pydantic_ai(),
    )
    assert result.actual.source_format == "pydantic-ai"
    # refund_order failed, so 3 of the 4 required calls succeeded
    assert result.selection_accuracy == 1.0 and result.required_call_recall == 0.75
    assert [c.is_error for c in result.actual.calls] == [False, False, True, False]


def test_a_call_without_a_return_has_no_duration() -> None:
    history = _history([("response", [{"part_kind": "tool-call", "tool_name": "t", "args": {}, "tool_call_id": "a"}])])
    history[0]["timestamp"] = "2026-12-02T10:00:00Z"
    call = PydanticAIAdapter().load(history).calls[0]
    assert call.duration is None and call.is_error is None
