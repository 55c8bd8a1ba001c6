"""The ``openai-agents`` adapter on a real Agents SDK run (Runner.run_sync on a scripted Model
subclass) and on the files that run saved (tests/adapters/make_fixtures_frameworks.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest
import toolscore_test_providers_support as S

from toolscore_adapters.frameworks.openai_agents import OpenAIAgentsAdapter, failure_text
from toolscore_core import InputError
from toolscore_core.kernel.traces import load_trace

FIXTURES = S.FRAMEWORK_FIXTURES
REFUND_ERROR = S.REFUND_ERROR
FINAL = S.FRAMEWORK_FINAL
REFUND_SESSION = S.refund_session(["call_1", "call_2", "call_3", "call_4"])
DEFAULT_TEXT_0_24 = "An error occurred while running the tool. Please try again."
DEFAULT_TEXT_0_20 = f"An error occurred while running the tool. Please try again. Error: {REFUND_ERROR}"


@pytest.fixture(scope="module")
def builders() -> Any:
    pytest.importorskip("agents")
    return S.framework_builders()


@pytest.fixture(scope="module")
def run_result(builders: Any) -> Any:
    return builders.run_openai_agents()


def test_live_run_result_reads_the_refund_session(run_result: Any) -> None:
    adapter = OpenAIAgentsAdapter()
    assert adapter.detect(run_result) == 1.0
    trace = adapter.load(run_result)
    assert S.call_outcomes(trace) == REFUND_SESSION
    assert trace.final_answer == FINAL
    assert trace.calls[0].structured_result == {"customer_id": "C-1", "name": "Ada Lovelace"}
    assert trace.calls[2].result == f"Error: {REFUND_ERROR}"
    assert trace.calls[0].metadata["id"] == "fc_1"


def test_live_new_items_and_input_list(run_result: Any) -> None:
    adapter = OpenAIAgentsAdapter()
    assert adapter.detect(run_result.new_items) == 1.0
    assert S.call_outcomes(adapter.load(run_result.new_items)) == REFUND_SESSION
    input_list = run_result.to_input_list()
    assert 0 < adapter.detect(input_list) < 0.5  # a plain Responses list: left to openai-responses
    trace = adapter.load(input_list)
    assert S.call_outcomes(trace) == REFUND_SESSION and trace.final_answer == FINAL


def test_evaluate_accepts_the_live_run(run_result: Any, installed_plugin_manager: Any) -> None:
    from toolscore_core.scoring import evaluation
    result = evaluation.evaluate(
        expected=[{"tool": "lookup_customer", "args": {"email": "ada@example.com"}},
                  {"tool": "list_orders", "args": {"customer_id": "C-1"}},
                  {"tool": "refund_order", "args": {"order_id": "A-17", "amount": 42.5}},
                  {"tool": "notify"}],
        actual=run_result,
    )
    assert result.actual.source_format == "openai-agents"
    assert result.selection_accuracy == 1.0
    assert result.required_call_recall == 0.75  # refund_order failed


@pytest.mark.parametrize("name", ["openai_agents_new_items.json", "openai_agents_run_state.json"])
def test_saved_items_and_run_state_are_detected_and_read(name: str) -> None:
    trace = load_trace(FIXTURES / name)
    assert trace.source_format == "openai-agents"
    assert S.call_outcomes(trace) == REFUND_SESSION
    assert trace.final_answer == FINAL


def test_run_state_reads_generated_items_only_once() -> None:
    data = json.loads((FIXTURES / "openai_agents_run_state.json").read_text(encoding="utf-8"))
    assert data["model_responses"] and data["generated_items"]
    assert len(OpenAIAgentsAdapter().load(data).calls) == 4


def test_saved_input_list_reads_with_the_format_named() -> None:
    trace = load_trace(FIXTURES / "openai_agents_input_list.json", format="openai-agents")
    assert S.call_outcomes(trace) == REFUND_SESSION
    assert trace.final_answer == FINAL


def test_default_error_text_is_claimed_and_read_as_a_failure() -> None:
    data = json.loads((FIXTURES / "openai_agents_default_error_input_list.json").read_text(encoding="utf-8"))
    assert OpenAIAgentsAdapter().detect(data) == 0.9
    trace = load_trace(FIXTURES / "openai_agents_default_error_input_list.json")
    assert trace.source_format == "openai-agents"
    refund = trace.calls[2]
    assert refund.is_error is True and refund.error == DEFAULT_TEXT_0_24
    assert [c.is_error for c in trace.calls] == [False, False, True, False]


@pytest.mark.parametrize(("text", "error"), [
    (DEFAULT_TEXT_0_24, DEFAULT_TEXT_0_24),
    (DEFAULT_TEXT_0_20, REFUND_ERROR),          # 0.20 appends the detail
    (f"Error: {REFUND_ERROR}", REFUND_ERROR),   # the usual failure_error_function
    ("sent", None),
    ("No Error: here", None),
    ({"error": "x"}, None),
])
def test_failure_text_heuristic(text: Any, error: str | None) -> None:
    assert failure_text(text) == error


def test_unanswered_call_is_unknown_and_hosted_mcp_call_keeps_its_outcome() -> None:
    items = [
        {"role": "user", "content": "go"},
        {"type": "function_call", "name": "lookup", "arguments": "{}", "call_id": "c1"},
        {"type": "mcp_call", "id": "mcp_1", "name": "search", "arguments": '{"q": "x"}', "server_label": "docs",
         "output": None, "error": "server down"},
    ]
    lookup, search = OpenAIAgentsAdapter().load(items).calls
    assert lookup.is_error is None and lookup.result is None and lookup.args == {}
    assert search.is_error is True and search.error == "server down" and search.metadata["server_label"] == "docs"


def test_arguments_that_are_not_json_are_read_and_marked_invalid() -> None:
    """A model's argument text cut off mid-way is the failure to catch, not a reason to
    refuse the whole run: the call is kept, its arguments unknown, the raw text kept."""
    items = [{"type": "tool_call_item", "raw_item": {"type": "function_call", "name": "t", "arguments": "{x",
                                                     "call_id": "c"}}]
    call = OpenAIAgentsAdapter().load(items).calls[0]
    assert call.tool == "t" and call.args is None
    assert call.metadata["raw_arguments"] == "{x" and "JSON" in call.metadata["arguments_error"]


def test_an_empty_run_is_an_input_error() -> None:
    with pytest.raises(InputError, match="no tool calls and no assistant message"):
        OpenAIAgentsAdapter().load([{"role": "user", "content": "hi"}])
    assert OpenAIAgentsAdapter().detect([]) == 0.0


def test_a_call_without_a_name_names_its_place() -> None:
    with pytest.raises(InputError, match=r"\$\[1\]\.name"):
        OpenAIAgentsAdapter().load([{"role": "user", "content": "hi"}, {"type": "function_call", "call_id": "c"}])


def test_unicode_survives() -> None:
    items = [{"type": "function_call", "name": "greet", "arguments": '{"name": "Zoë 東京"}', "call_id": "c"},
             {"type": "function_call_output", "call_id": "c", "output": "こんにちは"}]
    call = OpenAIAgentsAdapter().load(items).calls[0]
    assert call.args == {"name": "Zoë 東京"} and call.result == "こんにちは" and call.is_error is False


def test_streamed_run_result_reads_too(builders: Any) -> None:
    testing = pytest.importorskip("agents.testing", reason="ScriptedModel arrived in openai-agents 0.24")
    import asyncio

    from agents import Agent, RunConfig, Runner, function_tool

    def refund_order(order_id: str) -> str:
        """Refund an order."""
        raise RuntimeError(REFUND_ERROR)

    model = testing.ScriptedModel([
        [testing.function_call("lookup_customer", {"email": "ada@example.com"}, call_id="c1")],
        [testing.function_call("refund_order", {"order_id": "A-17"}, call_id="c2")],
        [testing.assistant_message(FINAL)],
    ])
    agent = Agent(name="a", model=model, tools=[function_tool(builders.lookup_customer), function_tool(refund_order)])

    async def run() -> Any:
        streamed = Runner.run_streamed(agent, "refund", run_config=RunConfig(tracing_disabled=True))
        async for _ in streamed.stream_events():
            pass
        return streamed

    streamed = asyncio.run(run())
    assert type(streamed).__name__ == "RunResultStreaming"
    adapter = OpenAIAgentsAdapter()
    assert adapter.detect(streamed) == 1.0
    trace = adapter.load(streamed)
    assert S.call_outcomes(trace) == [("lookup_customer", {"email": "ada@example.com"}, "c1", False, None),
                               ("refund_order", {"order_id": "A-17"}, "c2", True, DEFAULT_TEXT_0_24)]
    assert trace.final_answer == FINAL


def test_a_handoff_is_a_call_marked_as_a_handoff(builders: Any) -> None:
    testing = pytest.importorskip("agents.testing", reason="ScriptedModel arrived in openai-agents 0.24")
    from agents import Agent, RunConfig, Runner, function_tool

    billing = Agent(name="billing", tools=[function_tool(builders.notify)], model=testing.ScriptedModel([
        [testing.function_call("notify", {"customer_id": "C-1", "message": "hi"}, call_id="c2")],
        [testing.assistant_message("done")],
    ]))
    triage = Agent(name="triage", handoffs=[billing], model=testing.ScriptedModel([
        [testing.function_call("transfer_to_billing", {}, call_id="c1")],
    ]))
    result = Runner.run_sync(triage, "refund", run_config=RunConfig(tracing_disabled=True))
    adapter = OpenAIAgentsAdapter()
    live = adapter.load(result)
    assert [(c.tool, c.is_error, c.metadata.get("handoff")) for c in live.calls] == [
        ("transfer_to_billing", False, True), ("notify", False, None)]
    saved = adapter.load(builders.dump_openai_agents_items(result.new_items))
    assert [c.metadata.get("handoff") for c in saved.calls] == [True, None]
    assert [c.tool for c in adapter.load(result.to_input_list()).calls] == ["transfer_to_billing", "notify"]
