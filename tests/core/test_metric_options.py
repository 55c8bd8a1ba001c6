"""Metric options: a plugin metric declares them, users pass them, bad ones are input errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest

from toolscore_core import (
    EvaluationContext,
    InputError,
    Metric,
    MetricResult,
    PluginError,
    UnknownNameError,
    hookimpl,
)
from toolscore_core.kernel.registry import collect
from toolscore_core.scoring.evaluation import (
    evaluate,
    evaluate_loaded,
    evaluate_trace,
    resolve_metric_options,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "guardrails"


class CallBudget(Metric):
    """1.0 when the run stayed within ``max_calls`` calls (of ``tools``, when given)."""

    name = "call_budget"
    description = "calls made within a budget"
    default_weight = 0.0
    options: ClassVar[dict[str, Any]] = {"max_calls": int, "tools": (list, type(None)), "slack": float}

    def compute(self, context: EvaluationContext) -> MetricResult:
        opts = context.options_for(self.name)
        tools = opts.get("tools")
        used = sum(1 for c in context.calls if tools is None or c.tool in tools)
        limit = opts.get("max_calls", 10) * (1 + opts.get("slack", 0.0))
        return MetricResult(value=1.0 if used <= limit else 0.0, details={"used": used, "limit": limit})


class MetricPlugin:
    def __init__(self, *metrics: Any) -> None:
        self.metrics = list(metrics)

    @hookimpl
    def toolscore_register_metrics(self) -> list[Any]:
        return self.metrics


@pytest.fixture
def budget_pm(plugin_manager: Any, register_plugin: Any) -> Any:
    register_plugin(MetricPlugin(CallBudget), name="budget-plugin")
    return plugin_manager


GOLD = [{"tool": "a"}]
TRACE = [{"tool": "a"}, {"tool": "b"}, {"tool": "a"}]


def test_a_plugin_metric_reads_its_options_and_is_reported_with_weight_zero(budget_pm: Any) -> None:
    plain = evaluate(GOLD, TRACE, plugin_manager=budget_pm)
    tight = evaluate(GOLD, TRACE, plugin_manager=budget_pm, metric_options={"call_budget": {"max_calls": 2}})
    only_a = evaluate(GOLD, TRACE, plugin_manager=budget_pm,
                      metric_options={"call_budget": {"max_calls": 2, "tools": ["a"]}})
    assert plain.metrics["call_budget"]["value"] == 1.0 and "options" not in plain.metrics["call_budget"]
    assert tight.metrics["call_budget"] == {"value": 0.0, "weight": 0.0, "details": {"used": 3, "limit": 2.0},
                                            "options": {"max_calls": 2}}
    assert only_a.metrics["call_budget"]["value"] == 1.0
    assert "call_budget" not in tight.weights
    assert tight.score == plain.score  # weight 0: reported, not counted
    weighted = evaluate(GOLD, TRACE, plugin_manager=budget_pm, weights={"call_budget": 1.0},
                        metric_options={"call_budget": {"max_calls": 2}})
    assert weighted.score < plain.score


def test_an_int_is_accepted_where_a_float_is_declared(budget_pm: Any) -> None:
    result = evaluate(GOLD, TRACE, plugin_manager=budget_pm, metric_options={"call_budget": {"max_calls": 2, "slack": 1}})
    assert result.metrics["call_budget"]["details"]["limit"] == 4.0 and result.metrics["call_budget"]["value"] == 1.0


def test_options_for_an_unknown_metric_suggest_the_right_name(budget_pm: Any) -> None:
    with pytest.raises(UnknownNameError) as caught:
        evaluate(GOLD, TRACE, plugin_manager=budget_pm, metric_options={"call_budgte": {"max_calls": 2}})
    assert "unknown metric 'call_budgte'" in caught.value.message
    assert "did you mean 'call_budget'" in (caught.value.expected or "")


@pytest.mark.parametrize(("options", "message"), [
    ({"max_call": 2}, r"metric 'call_budget' has no option 'max_call'.*one of: max_calls, slack, tools "
                      r"\(did you mean 'max_calls'\?\)"),
    ({"max_calls": "2"}, r"option call_budget.max_calls='2' is not int"),
    ({"max_calls": True}, r"option call_budget.max_calls=True is not int"),
    ({"tools": "a"}, r"option call_budget.tools='a' is not list or None"),
    ({"slack": False}, r"option call_budget.slack=False is not float"),
])
def test_a_wrong_key_or_type_is_an_input_error_naming_metric_and_key(budget_pm: Any, options: dict[str, Any],
                                                                     message: str) -> None:
    with pytest.raises(InputError, match=message):
        evaluate(GOLD, TRACE, plugin_manager=budget_pm, metric_options={"call_budget": options})


def test_a_metric_that_declares_no_options_refuses_them(budget_pm: Any) -> None:
    with pytest.raises(InputError, match=r"metric 'argument_f1' takes no options \(got 'strict'\)"):
        evaluate(GOLD, TRACE, plugin_manager=budget_pm, metric_options={"argument_f1": {"strict": True}})


def test_options_that_are_not_mappings_are_input_errors(budget_pm: Any) -> None:
    with pytest.raises(InputError, match="metric options must map metric names"):
        evaluate(GOLD, TRACE, plugin_manager=budget_pm, metric_options=[("call_budget", {})])  # type: ignore[arg-type]
    with pytest.raises(InputError, match="the options of metric 'call_budget' must map option names"):
        evaluate(GOLD, TRACE, plugin_manager=budget_pm, metric_options={"call_budget": 3})  # type: ignore[dict-item]


def test_a_metric_whose_options_declaration_is_broken_is_a_plugin_error(plugin_manager: Any,
                                                                        register_plugin: Any) -> None:
    class Odd(Metric):
        name = "odd"
        options: ClassVar[list[str]] = ["max_calls"]

        def compute(self, context: EvaluationContext) -> MetricResult:
            return MetricResult(value=1.0)

    register_plugin(MetricPlugin(Odd))
    with pytest.raises(PluginError, match="metric 'odd' declares options as list"):
        evaluate(GOLD, TRACE, plugin_manager=plugin_manager, metric_options={"odd": {"max_calls": 1}})


def test_evaluate_trace_and_evaluate_loaded_take_metric_options(budget_pm: Any) -> None:
    from toolscore_core.kernel.traces import load_trace

    on_files = evaluate_trace(EXAMPLES / "gold.json", EXAMPLES / "trace.json", plugin_manager=budget_pm,
                              metric_options={"call_budget": {"max_calls": 4}})
    assert on_files.metrics["call_budget"]["details"]["used"] == 5
    assert on_files.metrics["call_budget"]["value"] == 0.0
    from toolscore_core.scoring.contracts import as_contract

    contract = as_contract(GOLD)
    loaded = evaluate_loaded(contract.expected, load_trace(TRACE, pm=budget_pm), (), None, mode="default",
                             pm=budget_pm, metric_options={"call_budget": {"max_calls": 3}})
    assert loaded.metrics["call_budget"]["value"] == 1.0


def test_resolve_metric_options_returns_read_only_options(budget_pm: Any) -> None:
    registry = collect(budget_pm, "metrics")
    given = {"call_budget": {"max_calls": 2}}
    resolved = resolve_metric_options(registry, given)
    assert dict(resolved["call_budget"]) == {"max_calls": 2}
    with pytest.raises(TypeError):
        resolved["call_budget"]["max_calls"] = 5  # type: ignore[index]
    given["call_budget"]["max_calls"] = 9  # the caller's dict is copied, not shared
    assert resolved["call_budget"]["max_calls"] == 2
    assert resolve_metric_options(registry, None) == {}
