"""expect(agent_or_trace): the fluent chain from the seed, sync and async."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolscore import ANY, Contains, Regex, ToolscoreAssertionError, expect
from toolscore_core.kernel.errors import InputError

BOOKED = [
    {"tool": "search_flights", "args": {"origin": "SFO", "destination": "NYC"}, "result": ["FL-100"]},
    {"tool": "book_flight", "args": {"flight_id": "FL-100"}, "result": {"booking": "BK-7"}},
]
WRONG = [
    {"tool": "search_flights", "args": {"origin": "SFO", "destination": "BOS"}},
    {"tool": "cancel_booking", "args": {"booking_id": "BK-1"}},
]


def flight_agent(prompt: str) -> list[dict[str, Any]]:
    return BOOKED if "NYC" in prompt else WRONG


def test_the_seed_chain_passes_for_a_good_agent() -> None:
    result = (
        expect(flight_agent).on("book me a flight to NYC")
        .calls("search_flights", origin=ANY, destination="NYC")
        .then_calls("book_flight", flight_id=Regex(r"FL-\d+"))
        .does_not_call("cancel_booking")
        .with_score(0.9)
        .run()
    )
    assert result.score == 1.0
    assert result.policy_violations == []


def test_the_seed_chain_fails_with_the_readable_table() -> None:
    chain = (
        expect(flight_agent).on("book me a flight to Boston")
        .calls("search_flights", origin=ANY, destination="NYC")
        .then_calls("book_flight", flight_id=Regex(r"FL-\d+"))
        .does_not_call("cancel_booking")
    )
    with pytest.raises(ToolscoreAssertionError) as caught:
        chain.run()
    message = str(caught.value)
    assert "destination: 'NYC' ≠ 'BOS'" in message
    assert "tool: 'book_flight' ≠" in message and "'cancel_booking'" in message
    assert "Forbidden calls:" in message
    assert "call 2 cancel_booking" in message


def test_calls_without_kwargs_leaves_arguments_unchecked() -> None:
    result = expect(BOOKED).calls("search_flights").then_calls("book_flight").run()
    assert result.argument_f1 == 1.0
    assert result.expected[0].args is None


def test_does_not_call_alone_checks_only_the_rule() -> None:
    trace = [{"tool": "run_shell", "args": {"command": "make test"}},
             {"tool": "run_shell", "args": {"command": "rm -rf /srv/app"}}]
    expect(trace).does_not_call("run_shell", command=Contains("sudo")).run()
    with pytest.raises(ToolscoreAssertionError, match="call 2 run_shell"):
        expect(trace).does_not_call("run_shell", command=Contains("rm -rf")).run()


def test_with_score_is_the_bar() -> None:
    half = expect(WRONG).calls("search_flights", destination="NYC").then_calls("book_flight")
    with pytest.raises(ToolscoreAssertionError):
        half.run()
    assert half.with_score(0.0).run().score < 0.9


def test_copy_lets_a_base_be_shared() -> None:
    base = expect(BOOKED).calls("search_flights")
    longer = base.copy().then_calls("book_flight")
    assert len(base.expected) == 1
    assert len(longer.expected) == 2


def test_run_async_with_an_async_agent() -> None:
    async def agent(prompt: str) -> list[dict[str, Any]]:
        await asyncio.sleep(0)
        return flight_agent(prompt)

    chain = (expect(agent).on("to NYC").calls("search_flights", origin=ANY, destination="NYC")
             .then_calls("book_flight"))
    result = asyncio.run(chain.run_async())
    assert result.score == 1.0
    with pytest.raises(TypeError, match="run_async"):
        chain.run()


def test_run_async_with_a_sync_agent_and_a_trace() -> None:
    async def scenario() -> None:
        partial = expect(flight_agent).on("NYC").calls("book_flight").with_score(0.0)
        assert (await partial.run_async()).selection_accuracy < 1
        assert (await expect(BOOKED).calls("search_flights").then_calls("book_flight").run_async()).score == 1.0

    asyncio.run(scenario())


def test_misuse_is_a_clear_input_error() -> None:
    with pytest.raises(InputError, match=r"on\(prompt\)"):
        expect(flight_agent).calls("search_flights").run()
    with pytest.raises(InputError, match="not an agent"):
        expect(BOOKED).on("hello").calls("search_flights").run()
    with pytest.raises(InputError, match="between 0 and 1"):
        expect(BOOKED).with_score(90)
    with pytest.raises(InputError, match="non-empty string"):
        expect(BOOKED).calls("")


def test_with_options_reaches_evaluate() -> None:
    swapped = [BOOKED[1], BOOKED[0]]
    chain = expect(swapped).calls("search_flights").then_calls("book_flight")
    with pytest.raises(ToolscoreAssertionError, match="different order"):
        chain.with_score(1.0).run()
    assert chain.with_options(mode="unordered").with_score(1.0).run().score == 1.0
