"""``run_agent`` against real parts: the bundled sample server and misbehaving servers over
stdio, the scripted provider, and the OpenAI Responses provider through the real ``openai``
SDK over HTTP to the scripted model server on 127.0.0.1. Nothing here calls a paid API.

What happened on the server is checked on the server (its notes, listed after the run), not
in the run's own record, so "a denied call never reaches the server" is proved, not assumed.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolscore_agent.loop import (
    DEFAULT_MAX_OUTPUT_TOKENS,
    DENIED_PREFIX,
    MALFORMED_MESSAGE,
    AgentRun,
    run_agent,
)
from toolscore_agent.model import Limits, Task
from toolscore_agent.tools import MAX_RESULT_CHARS, tool_definitions
from toolscore_core import (
    BadRequest,
    Budget,
    InputError,
    ModelRequest,
    ModelTurn,
    Price,
    Provider,
    ToolResultMessage,
    UserMessage,
    deny,
    estimate_request_tokens,
    worst_case_usd,
)
from toolscore_mcp.client import MCPStdioClient
from toolscore_providers import (
    FakeModelServer,
    OpenAIResponsesProvider,
    RetryPolicy,
    ScriptedProvider,
)

MISBEHAVING = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "misbehaving_server.py"
PRICE = Price(0.10, 0.50, "list price")


class Recording(ScriptedProvider):
    """The scripted provider, keeping every request it was sent (what the model saw)."""

    def __init__(self, script: list[dict[str, Any]]) -> None:
        super().__init__(script=script)
        self.requests: list[ModelRequest] = []

    def complete(self, request: ModelRequest) -> ModelTurn:
        self.requests.append(request)
        return super().complete(request)

    def tool_results(self) -> list[ToolResultMessage]:
        return [m for m in self.requests[-1].messages if isinstance(m, ToolResultMessage)]


@pytest.fixture
def notes() -> Iterator[MCPStdioClient]:
    client = MCPStdioClient([sys.executable, "-m", "toolscore_mcp.sample_server"])
    with client:
        yield client


def server_notes(client: Any) -> list[dict[str, Any]]:
    """The notes the server holds, asked of the server itself."""
    outcome = client.call_tool("list_notes", {})
    assert outcome.ok and outcome.result is not None
    return list(outcome.result["structuredContent"]["notes"])


def no_deletes(call: Any) -> Any:
    return deny("read-only study") if call.tool.startswith("delete") else None


def test_the_specs_python_example_shape_runs_to_completion(notes: MCPStdioClient) -> None:
    provider = Recording([{"calls": [{"tool": "create_note", "args": {"title": "groceries"}}]},
                          {"text": "Saved the note groceries."}])
    run = run_agent(notes, provider, "Save a note titled groceries.", guard=no_deletes,
                    budget=Budget(max_usd=0.05), price=PRICE, limits=Limits(max_turns=6, max_calls=10))
    assert isinstance(run, AgentRun)
    assert run.status == "completed" and run.error is None
    assert run.final_answer == "Saved the note groceries."
    assert run.turns == 2 and run.guard_denials == ()
    [call] = run.calls
    assert call.tool == "create_note" and call.args == {"title": "groceries"}
    assert call.is_error is False and call.structured_result == {"id": "n1"}
    assert call.metadata["provider_name"] == "create_note" and call.duration is not None
    assert [n["title"] for n in server_notes(notes)] == ["groceries"]
    # the model saw the server's tools and the result; a budget without a cap sends the default
    first = provider.requests[0]
    assert [t.name for t in first.tools][:2] == ["create_note", "list_notes"]
    assert first.max_output_tokens == DEFAULT_MAX_OUTPUT_TOKENS
    assert json.loads(provider.tool_results()[0].content) == {"id": "n1"}
    # usage is the provider's, summed; cost is usage times the price
    assert run.usage.input_tokens and run.usage.output_tokens and run.usage.cached_tokens == 0
    expected = (run.usage.input_tokens * 0.10 + run.usage.output_tokens * 0.50) / 1_000_000
    assert run.cost_usd == pytest.approx(expected)
    trace = run.trace()
    assert trace.calls == run.calls and trace.final_answer == run.final_answer


def test_a_denied_call_never_reaches_the_server(notes: MCPStdioClient) -> None:
    assert notes.call_tool("create_note", {"title": "old"}).ok
    provider = Recording([
        {"calls": [{"tool": "delete_note", "args": {"note_id": "n1"}}]},
        {"text": "Done: deleted 'old' successfully."},
    ])
    seen: list[tuple[str, int, str | None]] = []

    def guard(call: Any, context: Any) -> Any:
        seen.append((call.tool, context.turn, context.task.id if context.task else None))
        return deny("this study never deletes") if call.tool == "delete_note" else None

    run = run_agent(notes, provider, "Delete the note old.", guard=guard,
                    task=Task(id="clean-up", prompt="Delete the note old."), cell_id="clean-up::sloppy::1")
    assert run.status == "completed"
    [call] = run.calls
    assert call.denied and call.denied_reason == "this study never deletes"
    assert call.is_error is None and call.result is None
    [denial] = run.guard_denials
    assert (denial.tool, denial.reason, denial.call_id, denial.args) == (
        "delete_note", "this study never deletes", call.id, {"note_id": "n1"})
    assert seen == [("delete_note", 1, "clean-up")]
    [answer] = provider.tool_results()
    assert answer.is_error and answer.content == DENIED_PREFIX + "this study never deletes"
    # the server still holds the note: the delete was never sent
    assert [n["id"] for n in server_notes(notes)] == ["n1"]


def test_a_guard_that_raises_fails_closed(notes: MCPStdioClient) -> None:
    def broken(call: Any) -> Any:
        raise RuntimeError("rule table missing")

    provider = Recording([{"calls": [{"tool": "create_note", "args": {"title": "x"}}]}, {"text": "ok"}])
    run = run_agent(notes, provider, "go", guard=broken)
    assert run.calls[0].denied and "rule table missing" in (run.calls[0].denied_reason or "")
    assert server_notes(notes) == []


def test_max_turns_ends_the_run_as_limit_reached(notes: MCPStdioClient) -> None:
    provider = Recording([{"calls": [{"tool": "list_notes", "args": {}}]}] * 5)
    run = run_agent(notes, provider, "loop", limits=Limits(max_turns=2))
    assert run.status == "limit_reached" and "max_turns 2" in (run.error or "")
    assert run.turns == 2 and len(provider.requests) == 2 and len(run.calls) == 2


def test_max_calls_stops_before_the_call_over_the_limit(notes: MCPStdioClient) -> None:
    provider = Recording([{"calls": [{"tool": "create_note", "args": {"title": f"t{i}"}} for i in range(3)]},
                          {"text": "made three"}])
    run = run_agent(notes, provider, "make three", limits=Limits(max_calls=2))
    assert run.status == "limit_reached" and "max_calls 2" in (run.error or "")
    assert [c.args for c in run.calls] == [{"title": "t0"}, {"title": "t1"}]
    assert [n["title"] for n in server_notes(notes)] == ["t1", "t0"]  # the third never ran
    assert run.final_answer is None


def test_the_budget_stops_before_the_call_that_would_cross_max_usd(notes: MCPStdioClient) -> None:
    price = Price(100.0, 100.0, "expensive on purpose")
    prompt, cap = "Save two notes.", 200
    definitions = tool_definitions(notes.list_tools())
    first = ModelRequest(messages=(UserMessage(text=prompt),), tools=definitions, max_output_tokens=cap)
    first_worst = worst_case_usd(estimate_request_tokens(first.to_dict(), message_count=1), cap, price)
    assert first_worst is not None
    budget = Budget(max_usd=first_worst * 1.01)  # room for the first call's worst case, not two
    provider = Recording([{"calls": [{"tool": "create_note", "args": {"title": "one"}}]},
                          {"calls": [{"tool": "create_note", "args": {"title": "two"}}]},
                          {"text": "saved both"}])
    run = run_agent(notes, provider, prompt, budget=budget, price=price, max_output_tokens=cap)
    assert run.status == "budget_stopped"
    assert "budget stopped" in (run.error or "") and run.turns == 1
    assert len(provider.requests) == 1  # the second model call was never sent
    assert budget.max_usd is not None and budget.spent_usd <= budget.max_usd and budget.spent_usd == pytest.approx(run.cost_usd)
    assert budget.reserved_usd == 0  # every reservation was settled
    assert [n["title"] for n in server_notes(notes)] == ["one"]


def test_an_unknown_price_gives_an_unknown_cost_never_zero(notes: MCPStdioClient) -> None:
    script: list[dict[str, Any]] = [{"calls": [{"tool": "list_notes", "args": {}}]}, {"text": "none"}]
    run = run_agent(notes, Recording(script), "list")
    assert run.status == "completed" and run.cost_usd is None
    assert run.usage.input_tokens is not None  # tokens are known; only their price is not

    allowing = Budget(max_usd=1.0, allow_unknown_price=True)
    run = run_agent(notes, Recording(script), "list", budget=allowing)
    assert run.status == "completed" and run.cost_usd is None and allowing.has_unknown_costs

    refusing = Recording(script)
    with pytest.raises(InputError, match="cost is unknown"):
        run_agent(notes, refusing, "list", budget=Budget(max_usd=1.0))
    assert refusing.requests == []  # refused before any model call


def test_malformed_arguments_are_recorded_and_never_sent(notes: MCPStdioClient) -> None:
    provider = Recording([{"calls": [{"tool": "create_note", "args": '{"title": "half'}]},
                          {"text": "I could not create it."}])
    run = run_agent(notes, provider, "make a note")
    assert run.status == "completed"
    [call] = run.calls
    assert call.args is None and call.metadata["raw_arguments"] == '{"title": "half'
    assert call.is_error is True and "not a valid JSON object" in (call.error or "")
    [answer] = provider.tool_results()
    assert answer.is_error and answer.content == MALFORMED_MESSAGE
    assert server_notes(notes) == []


def test_a_tool_the_server_does_not_have_is_answered_not_sent(notes: MCPStdioClient) -> None:
    provider = Recording([{"calls": [{"tool": "rm_rf", "args": {}}]}, {"text": "ok"}])
    run = run_agent(notes, provider, "go")
    [call] = run.calls
    assert call.is_error is True and "no tool named 'rm_rf'" in (call.error or "")
    assert "create_note" in provider.tool_results()[0].content


def test_a_failing_tool_goes_back_to_the_model_as_an_error(notes: MCPStdioClient) -> None:
    provider = Recording([{"calls": [{"tool": "export_notes", "args": {"format": "csv"}}]}, {"text": "failed"}])
    run = run_agent(notes, provider, "export")
    [call] = run.calls
    assert call.is_error is True and "storage backend not configured" in (call.error or "")
    [answer] = provider.tool_results()
    assert answer.is_error and "storage backend not configured" in answer.content


class FailingProvider(Provider):
    """A real provider whose API refuses the second request, with a key in its message."""

    name = "failing"

    def __init__(self) -> None:
        super().__init__("m")
        self.calls = 0

    def complete(self, request: ModelRequest) -> ModelTurn:
        self.calls += 1
        if self.calls == 1:
            return ScriptedProvider(script=[{"calls": [{"tool": "list_notes", "args": {}}]}]).complete(request)
        key = "sk-ant-api03-" + "Z" * 40
        raise BadRequest(f"invalid x-api-key {key}", provider=self.name, status=401)


def test_a_provider_error_ends_the_run_as_error_with_a_redacted_message(notes: MCPStdioClient) -> None:
    budget = Budget(max_usd=1.0)
    run = run_agent(notes, FailingProvider(), "list", budget=budget, price=PRICE)
    assert run.status == "error" and run.turns == 2 and len(run.calls) == 1
    assert "BadRequest" in (run.error or "") and "sk-ant-api03-ZZZZ" not in (run.error or "")
    assert run.cost_usd is not None  # a refused request costs nothing: the total stays known
    assert budget.reserved_usd == 0


def test_a_server_crash_mid_call_ends_the_run_as_error() -> None:
    with MCPStdioClient([sys.executable, str(MISBEHAVING), "crash"]) as client:
        provider = Recording([{"calls": [{"tool": "echo", "args": {"text": "hi"}}]}, {"text": "said hi"}])
        run = run_agent(client, provider, "echo hi")
    assert run.status == "error" and "crashed" in (run.error or "")
    [call] = run.calls
    assert call.is_error is None and "crashed" in (call.error or "")
    assert len(provider.requests) == 1  # the model was not asked again


def test_a_huge_result_is_bounded_before_the_model_sees_it() -> None:
    with MCPStdioClient([sys.executable, str(MISBEHAVING), "big"], timeout=60) as client:
        provider = Recording([{"calls": [{"tool": "echo", "args": {"text": "hi"}}]}, {"text": "done"}])
        run = run_agent(client, provider, "echo")
    assert run.status == "completed"
    [answer] = provider.tool_results()
    assert len(answer.content) < MAX_RESULT_CHARS + 100
    assert "more characters cut by the harness" in answer.content


def test_openai_sdk_429_then_success_is_retried_counted_and_priced(notes: MCPStdioClient) -> None:
    openai = pytest.importorskip("openai")
    script = [
        {"error": 429, "message": "slow down", "headers": {"retry-after": "0"}},
        {"calls": [{"tool": "create_note", "args": {"title": "from the sdk"}}],
         "usage": {"input_tokens": 1000, "output_tokens": 100, "cached_tokens": 0}},
        {"text": "Saved it.", "usage": {"input_tokens": 1200, "output_tokens": 10, "cached_tokens": 0}},
    ]
    waits: list[float] = []
    with FakeModelServer(script) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="sk-test-not-a-real-key")
        provider = OpenAIResponsesProvider("gpt-5-mini", client=client,
                                           retry_policy=RetryPolicy(sleep=waits.append))
        run = run_agent(notes, provider, "Save a note.", budget=Budget(max_usd=1.0), price=PRICE)
    assert run.status == "completed" and run.final_answer == "Saved it."
    assert run.retries == 1 and waits == [0.0]
    assert (run.usage.input_tokens, run.usage.output_tokens) == (2200, 110)
    assert run.cost_usd == pytest.approx((2200 * 0.10 + 110 * 0.50) / 1_000_000)
    assert [n["title"] for n in server_notes(notes)] == ["from the sdk"]


def test_openai_sdk_missing_usage_makes_the_cost_unknown(notes: MCPStdioClient) -> None:
    openai = pytest.importorskip("openai")
    with FakeModelServer([{"text": "hello", "usage": None}]) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="sk-test-not-a-real-key")
        budget = Budget(max_usd=1.0)
        run = run_agent(notes, OpenAIResponsesProvider("gpt-5-mini", client=client), "hi",
                        budget=budget, price=PRICE)
    assert run.status == "completed" and run.cost_usd is None and run.usage.input_tokens is None
    assert budget.has_unknown_costs and budget.spent_usd > 0  # counted at its worst case


def test_the_specs_python_example_as_written_through_the_anthropic_sdk() -> None:
    """The spec's example, word for word except the SDK client, which points at our scripted
    model server instead of the paid API (and the interpreter, which is this one)."""
    anthropic = pytest.importorskip("anthropic")
    from toolscore.mcp import MCPStdioClient as FacadeClient
    from toolscore.mcp.agent import (
        AnthropicMessagesProvider,
        Budget,
        Limits,
        Price,
        deny,
        run_agent,
    )

    def guard(call: Any) -> Any:
        return deny("read-only study") if call.tool.startswith("delete") else None

    script = [
        {"calls": [{"tool": "delete_note", "args": {"note_id": "n1"}},
                   {"tool": "create_note", "args": {"title": "groceries"}}]},
        {"text": "Saved the note groceries; deleting was refused."},
    ]
    with FakeModelServer(script) as server:
        sdk = anthropic.Anthropic(base_url=server.base_url, api_key="sk-ant-test-not-a-real-key")
        with FacadeClient([sys.executable, "-m", "toolscore.mcp.sample_server"]) as client:
            run = run_agent(
                client,
                AnthropicMessagesProvider(sdk, "claude-haiku-5-5"),
                "Save a note titled groceries.",
                guard=guard,
                budget=Budget(max_usd=0.05),
                price=Price(0.10, 0.50, "list price"),
                limits=Limits(max_turns=6, max_calls=10),
            )
            titles = [n["title"] for n in server_notes(client)]
        sent = [r.body for r in server.requests]
    assert run.status == "completed" and run.final_answer == "Saved the note groceries; deleting was refused."
    assert [d.tool for d in run.guard_denials] == ["delete_note"] and titles == ["groceries"]
    assert run.cost_usd == pytest.approx((200 * 0.10 + 40 * 0.50) / 1_000_000)  # the server's default usage
    assert all(body["max_tokens"] == DEFAULT_MAX_OUTPUT_TOKENS for body in sent)
    # the second request answered the denied call with the guard's reason, as a tool error
    results = [block for message in sent[1]["messages"] if isinstance(message["content"], list)
               for block in message["content"] if block.get("type") == "tool_result"]
    denied = next(b for b in results if b["tool_use_id"] == run.calls[0].id)
    assert denied.get("is_error") is True
    assert DENIED_PREFIX + "read-only study" in json.dumps(denied["content"])
