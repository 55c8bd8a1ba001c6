"""assert_tools / test_agent / test_agent_async: readable failures, any callable."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolscore import ToolscoreAssertionError, assert_tools, test_agent, test_agent_async
from toolscore_core.scoring.assertions import failure_message
from toolscore_core.scoring.matchers import Regex

FLIGHTS_EXPECTED = [
    {"tool": "search_flights", "args": {"origin": "SFO", "destination": "NYC"}},
    {"tool": "book_flight", "args": {"flight_id": Regex(r"FL-\d+")}},
]
FLIGHTS_WRONG = [
    {"tool": "search_flights", "args": {"origin": "SFO", "destination": "BOS"}},
    {"tool": "cancel_booking", "args": {"booking_id": "BK-1"}},
]
FLIGHTS_RIGHT = [
    {"tool": "search_flights", "args": {"origin": "SFO", "destination": "NYC"}},
    {"tool": "book_flight", "args": {"flight_id": "FL-100"}},
]


def _failure(expected: Any, actual: Any, **kwargs: Any) -> ToolscoreAssertionError:
    with pytest.raises(ToolscoreAssertionError) as caught:
        assert_tools(expected, actual, **kwargs)
    return caught.value


def test_failure_message_is_the_seed_table() -> None:
    error = _failure(FLIGHTS_EXPECTED, FLIGHTS_WRONG, min_score=0.9)
    message = str(error)
    assert isinstance(error, AssertionError)
    assert "Expected vs Actual Tool Calls" in message
    assert "destination: 'NYC' ≠ 'BOS'" in message
    # The cell wraps like the seed's; the row still holds the whole mismatch.
    assert "tool: 'book_flight' ≠" in message and "'cancel_booking'" in message
    from toolscore_core.reports.alignment import align

    assert error.evaluation is not None
    assert align(error.evaluation)[1].problems == ("tool: 'book_flight' ≠ 'cancel_booking'",)
    assert "score 0.47 < 0.90 required  ·  selection 0.50  ·  args 0.40  ·  sequence 0.50" in message
    assert "Tips:" in message
    assert "Verify tool names match exactly (case-sensitive)" in message
    # Captured output is not a terminal: no colour codes in the message.
    assert "\x1b[" not in message
    assert error.evaluation is not None and error.evaluation.score == pytest.approx(0.47, abs=0.005)


def test_message_rows_are_aligned_expected_vs_actual() -> None:
    message = str(_failure(FLIGHTS_EXPECTED, FLIGHTS_WRONG))
    lines = message.splitlines()
    first = next(i for i, line in enumerate(lines) if "search_flights(origin='SFO'" in line)
    # Expected and actual of row 1 sit on the same line, in that order.
    assert lines[first].index("search_flights") < lines[first].rindex("search_flights")
    assert "│   1 │" in lines[first] or "│ 1 │" in lines[first]


def test_colour_only_when_asked_for_a_terminal() -> None:
    error = _failure(FLIGHTS_EXPECTED, FLIGHTS_WRONG)
    assert error.evaluation is not None
    coloured = failure_message(error.evaluation, 0.9, color=True)
    assert "\x1b[" in coloured
    plain = failure_message(error.evaluation, 0.9, color=False)
    assert "\x1b[" not in plain


def test_passing_check_returns_the_evaluation() -> None:
    result = assert_tools(FLIGHTS_EXPECTED, FLIGHTS_RIGHT, min_score=0.9)
    assert result.score == 1.0
    assert result.grade == "A"


def test_score_exactly_at_the_bar_passes() -> None:
    # Example 1's figures: 90.0% against a 0.9 bar is a pass, whatever the float error.
    result = assert_tools(
        [{"tool": "list_allowed_directories"}, {"tool": "read_text_file"}],
        [{"tool": "read_text_file", "args": {"path": "/x"}, "is_error": True, "error": "Access denied"}],
        min_score=0.9,
    )
    assert f"{result.score * 100:.1f}" == "90.0"


def test_min_score_none_checks_only_forbidden_rules() -> None:
    result = assert_tools(FLIGHTS_EXPECTED, FLIGHTS_WRONG, min_score=None)
    assert result.score < 0.5


def test_a_forbidden_call_fails_whatever_the_score() -> None:
    error = _failure(FLIGHTS_EXPECTED, [*FLIGHTS_RIGHT, {"tool": "cancel_booking", "args": {"booking_id": "BK-7"}}],
                     min_score=0.0, forbidden=[{"tool": "cancel_booking", "reason": "never cancel"}])
    message = str(error)
    assert "Forbidden calls:" in message
    assert "call 3 cancel_booking: never cancel" in message


def test_a_credential_never_reaches_the_message() -> None:
    secret = "AKIAIOSFODNN7EXAMPLE"
    error = _failure([{"tool": "http_post", "args": {"body": {"text": "hello"}}}],
                     [{"tool": "http_post", "args": {"body": {"text": f"key {secret}"}}}], min_score=1.0)
    assert secret not in str(error)
    assert "AKIA…LE" in str(error)


def test_test_agent_with_a_sync_callable() -> None:
    calls: list[str] = []

    def agent(prompt: str) -> list[dict[str, Any]]:
        calls.append(prompt)
        return FLIGHTS_RIGHT

    result = test_agent(agent, "book me a flight to NYC", FLIGHTS_EXPECTED, min_score=0.9)
    assert calls == ["book me a flight to NYC"]
    assert result.score == 1.0
    with pytest.raises(ToolscoreAssertionError, match="destination: 'NYC' ≠ 'BOS'"):
        test_agent(lambda _prompt: FLIGHTS_WRONG, "x", FLIGHTS_EXPECTED)


def test_test_agent_runs_an_async_agent_outside_a_loop() -> None:
    async def agent(prompt: str) -> list[dict[str, Any]]:
        await asyncio.sleep(0)
        return FLIGHTS_RIGHT

    assert test_agent(agent, "go", FLIGHTS_EXPECTED).score == 1.0


def test_test_agent_async_takes_sync_and_async_agents() -> None:
    async def async_agent(prompt: str) -> list[dict[str, Any]]:
        await asyncio.sleep(0)
        return FLIGHTS_RIGHT

    def sync_agent(prompt: str) -> list[dict[str, Any]]:
        return FLIGHTS_WRONG

    async def scenario() -> None:
        ok = await test_agent_async(async_agent, "go", FLIGHTS_EXPECTED)
        assert ok.score == 1.0
        with pytest.raises(ToolscoreAssertionError):
            await test_agent_async(sync_agent, "go", FLIGHTS_EXPECTED)
        with pytest.raises(TypeError, match="test_agent_async"):
            test_agent(async_agent, "go", FLIGHTS_EXPECTED)

    asyncio.run(scenario())


def test_pytest_never_collects_the_helpers() -> None:
    assert test_agent.__test__ is False  # type: ignore[attr-defined]
    assert test_agent_async.__test__ is False  # type: ignore[attr-defined]


def test_an_sdk_response_goes_through_the_adapters() -> None:
    openai_types = pytest.importorskip("openai.types.chat")
    response = openai_types.ChatCompletion.model_validate({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4.1-mini",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {
                "name": "get_weather", "arguments": "{\"city\": \"NYC\"}"}}]}}],
    })
    from toolscore_core.kernel.plugins import PluginManager

    pm = PluginManager(autoload=True, strict=True)  # the installed adapters read SDK objects
    result = test_agent(lambda _p: response, "weather?", [{"tool": "get_weather", "args": {"city": "NYC"}}],
                        plugin_manager=pm)
    assert result.score == 1.0


def test_not_a_callable_is_an_input_error() -> None:
    from toolscore_core.kernel.errors import InputError

    with pytest.raises(InputError, match="callable"):
        test_agent("not an agent", "x", FLIGHTS_EXPECTED)  # type: ignore[arg-type]

