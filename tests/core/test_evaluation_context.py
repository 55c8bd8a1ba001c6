"""EvaluationContext: the public, typed input of every metric, seen from a real plugin metric."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from typing import Any

import pytest

import toolscore_core
from toolscore_core import (
    CallPair,
    EvaluationContext,
    Judge,
    JudgeAnswer,
    JudgeQuestion,
    Metric,
    MetricResult,
    Pairing,
    hookimpl,
)
from toolscore_core.scoring.evaluation import evaluate
from toolscore_core.scoring.matchers import canonical


class Recorder(Metric):
    """Keeps the context it was given, so the test can look at exactly what a metric sees."""

    name = "context_recorder"
    seen: list[EvaluationContext] = []  # noqa: RUF012 - a test's notebook, not a declaration

    def compute(self, context: EvaluationContext) -> MetricResult:
        type(self).seen.append(context)
        return MetricResult(value=None)


class Plugin:
    @hookimpl
    def toolscore_register_metrics(self) -> list[Any]:
        return [Recorder]


@pytest.fixture
def seen(register_plugin: Any) -> list[EvaluationContext]:
    Recorder.seen = []
    register_plugin(Plugin())
    return Recorder.seen


def test_the_scoring_extension_points_are_public_kernel_names() -> None:
    for name in ("EvaluationContext", "Pairing", "CallPair", "Judge", "JudgeQuestion", "JudgeAnswer"):
        assert name in toolscore_core.__all__
    assert toolscore_core.Pairing is Pairing and toolscore_core.CallPair is CallPair


def test_a_metric_sees_the_pairing_keys_weights_and_mode(plugin_manager: Any, seen: list[EvaluationContext]) -> None:
    gold = [{"tool": "a", "args": {"x": 1}}, {"tool": "b"}]
    trace = [{"tool": "a", "args": {"x": 1}, "is_error": False}, {"tool": "c", "args": {"y": [1, 2]}}]
    result = evaluate(gold, trace, weights={"redundancy": 0}, mode="in_order",
                      forbidden=[{"tool": "c", "reason": "no c"}], plugin_manager=plugin_manager)
    (context,) = seen
    assert isinstance(context, EvaluationContext) and isinstance(context.pairing, Pairing)
    assert context.calls is context.trace.calls and [c.tool for c in context.calls] == ["a", "c"]
    assert context.trace is result.actual  # no judge: the trace as recorded
    assert context.pairing.expected_to_actual == (0, None)
    assert context.pairing.exact_indexes == frozenset({0}) and context.pairing.exact_pairs == 1
    assert all(isinstance(p, CallPair) for p in context.pairing.pairs)
    assert context.arg_keys == tuple(canonical(c.args) for c in context.calls)
    assert dict(context.weights) == result.weights and "redundancy" not in context.weights
    assert context.mode == "in_order" and [r.reason for r in context.forbidden] == ["no c"]
    assert context.outcomes_recorded is True
    assert context.judge is None and context.options == {}
    assert dict(context.options_for("context_recorder")) == {}
    # A metric that answers None is reported and not counted.
    assert result.metrics["context_recorder"] == {"value": None, "weight": 0.0, "details": {}}


class AliasJudge(Judge):
    name = "alias"

    def decide(self, questions: Sequence[JudgeQuestion]) -> Sequence[JudgeAnswer]:
        return [JudgeAnswer(equivalent=True, reason="alias") for _ in questions]


def test_with_a_judge_the_context_shows_the_calls_as_judged(plugin_manager: Any,
                                                            seen: list[EvaluationContext]) -> None:
    gold = [{"tool": "web_search", "args": {"q": "NYC"}}, {"tool": "get", "args": {"city": "NYC"}}]
    trace = [{"tool": "search_web", "args": {"q": "NYC"}}, {"tool": "get", "args": {"city": "New York"}}]
    result = evaluate(gold, trace, judge=AliasJudge(), plugin_manager=plugin_manager)
    # the metrics run twice: once judged, once deterministic for "score without judge"
    assert sorted(str(c.judge) for c in seen) == ["None", "alias"]
    (context,) = [c for c in seen if c.judge is not None]
    assert context.judge == "alias"
    renamed, rewritten = context.calls
    assert (renamed.tool, renamed.metadata["judged_tool"]) == ("web_search", "search_web")
    assert (rewritten.args, rewritten.metadata["judged_arguments"]) == ({"city": "NYC"}, {"city": "New York"})
    assert context.arg_keys == tuple(canonical(c.args) for c in context.calls)
    assert [c.tool for c in result.actual.calls] == ["search_web", "get"]  # the record keeps what happened
    assert result.actual.calls[1].args == {"city": "New York"}
    assert context.pairing is not None and context.pairing.expected_to_actual == (0, 1)
    assert result.score == 1.0


def test_the_kernel_interfaces_stay_cheap_to_import() -> None:
    code = ("import sys, toolscore_core.kernel.interfaces as i; "
            "print(any(m.startswith('toolscore_core.scoring') for m in sys.modules)); "
            "print(i.Metric.compute.__annotations__['context'], i.Judge.decide.__annotations__['return'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "False"
    assert out[1] == "EvaluationContext Sequence[JudgeAnswer]"
