"""Python API that code written for tool-scorer 1.10.0 uses (issue 12 items 5 and 6, names)."""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import pytest

import toolscore
from toolscore import ANY, ToolscoreAssertionError, evaluate, expect, test_agent, test_agent_async
from toolscore_core.kernel.errors import InputError

CALLS = [{"tool": "search", "args": {"q": "x", "n": 1}}, {"tool": "book", "args": {"id": 7}}]


class RecordingAgent:
    """A real agent function that remembers whether it was called (a paid call in real life)."""

    def __init__(self) -> None:
        self.called = 0

    def __call__(self, prompt: Any) -> list[dict[str, Any]]:
        self.called += 1
        return CALLS


# -- item 5: test_agent validates before calling the agent ------------------------------

@pytest.mark.parametrize(("expected", "kwargs", "message"), [
    ([{"tool": "search"}], {"min_score": 90}, "between 0 and 1"),
    ([{"tool": "search"}], {"min_score": -0.1}, "between 0 and 1"),
    ([{"tool": "search"}], {"min_score": True}, "between 0 and 1"),
    ([{"tol": "search"}], {}, "tool"),
    ("not a list of calls", {}, "gold file"),
    ([{"tool": "search"}], {"weights": {"sequance": 1}}, "sequance"),
    ([{"tool": "search"}], {"mode": "sorted"}, "order mode"),
    ([{"tool": "search"}], {"mood": "unordered"}, "mood"),
    ([{"tool": "search"}], {"forbidden": [{"args": 3}]}, "args"),
])
def test_test_agent_checks_every_argument_before_calling_the_agent(expected: Any, kwargs: dict[str, Any],
                                                                   message: str) -> None:
    agent = RecordingAgent()
    with pytest.raises(InputError, match=message):
        test_agent(agent, "book it", expected, **kwargs)
    with pytest.raises(InputError, match=message):
        asyncio.run(test_agent_async(agent, "book it", expected, **kwargs))
    assert agent.called == 0


def test_test_agent_still_calls_the_agent_when_all_is_well() -> None:
    agent = RecordingAgent()
    assert test_agent(agent, "book it", CALLS, min_score=1.0).score == 1.0
    assert agent.called == 1


# -- item 6: expect() ---------------------------------------------------------------------

def test_a_chain_with_no_expectation_passes() -> None:
    assert expect(RecordingAgent()).on("hi").run() is not None
    assert expect(CALLS).run() is not None


def test_each_step_returns_the_same_builder() -> None:
    e = expect(RecordingAgent()).on("book it")
    e.calls("refund")  # result dropped: must still be checked
    with pytest.raises(ToolscoreAssertionError, match="refund"):
        e.run()
    assert e.calls("search") is e


def test_then_calls_may_start_a_chain() -> None:
    assert expect(CALLS).then_calls("search").then_calls("book").with_score(1.0).run().score == 1.0


def test_with_weights_reaches_the_score() -> None:
    extra = [*CALLS, CALLS[1]]
    plain = expect(extra).calls("search").calls("book").with_score(0.0).run().score
    weighted = expect(extra).calls("search").calls("book").with_weights(redundancy=10).with_score(0.0).run()
    assert weighted.weights["redundancy"] > 0.8
    assert weighted.score != plain


def test_with_strict_args_tells_int_from_float() -> None:
    trace = [{"tool": "search", "args": {"n": 1.0}}]
    assert expect(trace).calls("search", n=1).with_score(1.0).run().score == 1.0
    with pytest.raises(ToolscoreAssertionError):
        expect(trace).calls("search", n=1).with_strict_args().with_score(1.0).run()


def test_expect_checks_options_before_calling_the_agent() -> None:
    agent = RecordingAgent()
    with pytest.raises(InputError, match="sequance"):
        expect(agent).on("x").calls("search").with_weights(sequance=1).run()
    assert agent.called == 0


# -- names ------------------------------------------------------------------------------

def test_tool_scorer_assertion_error_name_is_ours() -> None:
    assert toolscore.ToolScoreAssertionError is ToolscoreAssertionError
    with pytest.raises(toolscore.ToolScoreAssertionError):
        expect(CALLS).calls("refund").run()


def test_redundant_rate_is_redundancy_with_a_deprecation_note() -> None:
    extra = [*CALLS, CALLS[1]]
    with pytest.warns(DeprecationWarning, match="redundancy"):
        old = evaluate(CALLS, extra, weights={"redundant_rate": 3})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = evaluate(CALLS, extra, weights={"redundancy": 3})
    assert old.weights == new.weights
    assert old.score == new.score


def test_evaluate_strict_needs_the_same_number_type_everywhere() -> None:
    expected = [{"tool": "t", "args": {"n": 1, "deep": {"xs": [2.0, "a"]}, "any": ANY}}]
    loose = [{"tool": "t", "args": {"n": 1.0, "deep": {"xs": [2, "a"]}, "any": 3}}]
    exact = [{"tool": "t", "args": {"n": 1, "deep": {"xs": [2.0, "a"]}, "any": 3.5}}]
    assert evaluate(expected, loose).argument_f1 == 1.0
    assert evaluate(expected, loose, strict=True).argument_f1 < 1.0
    assert evaluate(expected, exact, strict=True).argument_f1 == 1.0
    # strings were never stripped and True is never 1, strict or not
    assert evaluate([{"tool": "t", "args": {"s": "x"}}], [{"tool": "t", "args": {"s": " x"}}]).argument_f1 == 0.0
    assert evaluate([{"tool": "t", "args": {"b": 1}}], [{"tool": "t", "args": {"b": True}}],
                    strict=True).argument_f1 == 0.0
