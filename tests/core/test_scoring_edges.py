"""Scoring semantics that have bitten tools in this field: empty runs, bools, huge values,
weights, unknown outcomes, the single pairing, credentials never written whole."""

from __future__ import annotations

import json

import pytest

from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.interfaces import Metric, MetricResult
from toolscore_core.kernel.model import ToolCall, Trace
from toolscore_core.kernel.plugins import hookimpl
from toolscore_core.scoring import evaluation as evaluation_module
from toolscore_core.scoring.evaluation import evaluate

AWS = "AKIA" + "IOSFODNN7EXAMPLE"
GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def test_empty_actual_against_expected_scores_zero() -> None:
    result = evaluate([{"tool": "a", "args": {"x": 1}}, {"tool": "b"}], [])
    assert result.score == 0.0
    assert (result.selection_accuracy, result.argument_f1, result.sequence_accuracy, result.redundancy) == (0, 0, 0, 0)
    assert (result.grade, result.verdict) == ("F", "FAIL")
    assert result.required_call_recall == 0.0
    assert [f.message for f in result.findings if f.code == "missing-call"] == [
        "expected call to `a` never happened", "expected call to `b` never happened"]


def test_unchecked_expectations_against_empty_actual_score_zero_too() -> None:
    assert evaluate([{"tool": "a"}], []).score == 0.0


def test_both_empty_scores_one() -> None:
    result = evaluate([], [])
    assert result.score == 1.0 and result.required_call_recall == 1.0
    assert (result.grade, result.verdict) == ("A", "PASS")


def test_calls_when_none_were_expected_score_zero() -> None:
    result = evaluate([], [{"tool": "rm", "args": {"path": "/"}}])
    assert result.score == 0.0
    assert any(f.code == "unexpected-call" for f in result.findings)


def test_bool_never_equals_int() -> None:
    result = evaluate([{"tool": "f", "args": {"limit": 1}}], [{"tool": "f", "args": {"limit": True}}])
    assert result.argument_f1 == 0.0
    mismatch = next(f for f in result.findings if f.code == "argument-mismatch")
    assert "limit: 1 ≠ True" in mismatch.message
    assert evaluate([{"tool": "f", "args": {"limit": 1}}], [{"tool": "f", "args": {"limit": 1.0}}]).argument_f1 == 1.0


def test_empty_args_means_no_arguments() -> None:
    assert evaluate([{"tool": "f", "args": {}}], [{"tool": "f", "args": {}}]).argument_f1 == 1.0
    assert evaluate([{"tool": "f", "args": {}}], [{"tool": "f", "args": {"x": 1}}]).argument_f1 == 0.0
    assert evaluate([{"tool": "f"}], [{"tool": "f", "args": {"x": 1}}]).argument_f1 == 1.0


def test_a_ten_megabyte_argument_value_works_and_stays_out_of_records() -> None:
    big = "x" * (10 * 1024 * 1024)
    result = evaluate([{"tool": "upload", "args": {"blob": big}}], [{"tool": "upload", "args": {"blob": big}}])
    assert result.score == 1.0
    record = json.dumps(result.to_dict())
    assert len(record) < 100_000
    other = evaluate([{"tool": "upload", "args": {"blob": big}}], [{"tool": "upload", "args": {"blob": big + "y"}}])
    assert other.argument_f1 == 0.0
    assert all(len(f.message) < 1000 for f in other.findings)


def test_trace_of_zero_calls_from_a_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A file that holds no call is more likely the wrong file than a run: say so."""
    path = tmp_path / "trace.json"
    path.write_text("[]")
    with pytest.raises(InputError, match="no tool call found: the file was read as custom"):
        evaluate([{"tool": "a"}], path)
    assert evaluate([{"tool": "a"}], []).score == 0.0  # an in-memory empty run is scored


def test_unknown_weight_name_suggests_the_right_one() -> None:
    with pytest.raises(InputError) as info:
        evaluate([{"tool": "a"}], [{"tool": "a"}], weights={"required_call_recal": 0.3})
    assert "did you mean 'required_call_recall'" in str(info.value)


@pytest.mark.parametrize("bad", [-1, "0.3", True, float("nan"), float("inf")])
def test_bad_weight_values_are_input_errors(bad: object) -> None:
    with pytest.raises(InputError, match="not a finite non-negative number"):
        evaluate([{"tool": "a"}], [{"tool": "a"}], weights={"redundancy": bad})  # type: ignore[dict-item]


def test_all_zero_weights_are_an_input_error() -> None:
    zero = dict.fromkeys(("selection_accuracy", "argument_f1", "sequence_accuracy", "redundancy"), 0)
    with pytest.raises(InputError, match="nothing to score"):
        evaluate([{"tool": "a"}], [{"tool": "a"}], weights=zero)


def test_weights_are_renormalised_and_a_single_metric_can_be_the_score() -> None:
    result = evaluate([{"tool": "a"}, {"tool": "b"}], [{"tool": "b"}, {"tool": "a"}],
                      weights={"selection_accuracy": 0, "argument_f1": 0, "redundancy": 0, "sequence_accuracy": 5})
    assert result.weights == {"sequence_accuracy": 1.0}
    assert result.score == 0.5


def test_a_registered_third_party_metric_can_be_weighted(plugin_manager, register_plugin) -> None:  # type: ignore[no-untyped-def]
    class Brevity(Metric):
        name = "brevity"
        default_weight = 0.0

        def compute(self, context: object) -> MetricResult:
            calls = context.calls  # type: ignore[attr-defined]
            return MetricResult(value=1.0 if len(calls) <= 1 else 0.0, details={"calls": len(calls)})

    class Plugin:
        @hookimpl
        def toolscore_register_metrics(self) -> list[type[Metric]]:
            return [Brevity]

    register_plugin(Plugin())
    plain = evaluate([{"tool": "a"}], [{"tool": "a"}, {"tool": "a"}], plugin_manager=plugin_manager)
    weighted = evaluate([{"tool": "a"}], [{"tool": "a"}, {"tool": "a"}], weights={"brevity": 1.0},
                        plugin_manager=plugin_manager)
    assert plain.metrics["brevity"]["details"] == {"calls": 2}
    assert "brevity" not in plain.weights
    assert weighted.score < plain.score
    assert weighted.weights["brevity"] == pytest.approx(1 / 2)


def test_unknown_outcomes_are_never_counted_as_failed() -> None:
    gold = [{"tool": "a"}, {"tool": "b"}]
    plain = evaluate(gold, [{"tool": "a"}, {"tool": "b"}])
    assert plain.required_call_recall == 1.0
    mixed = evaluate(gold, [{"tool": "a", "is_error": False}, {"tool": "b"}])  # b: unknown, not failed
    assert mixed.required_call_recall == 1.0
    assert mixed.metrics["required_call_recall"]["details"]["unknown_outcome"] == 1
    denied = evaluate(gold, [{"tool": "a", "is_error": False}, {"tool": "b", "denied": True}])
    assert denied.required_call_recall == 0.5


def test_pairing_runs_once_per_evaluation(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    original = evaluation_module.pair_calls

    def counting(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(evaluation_module, "pair_calls", counting)
    evaluate([{"tool": "a"}, {"tool": "b", "args": {"x": 1}}], [{"tool": "b", "args": {"x": 2}}], mode="superset")
    assert len(calls) == 1


def test_credentials_never_appear_whole_anywhere() -> None:
    trace = [
        {"tool": "http_post", "args": {"headers": {"auth": f"token {GITHUB}"}, "body": AWS},
         "result": f"echo {AWS}", "is_error": True, "error": f"rejected key {AWS}"},
        {"tool": "http_post", "args": {"headers": {"auth": f"token {GITHUB}"}, "body": AWS}, "is_error": True},
    ]
    gold = [{"tool": "http_post", "args": {"body": "safe"}}]
    result = evaluate(gold, trace, forbidden=[{"tool": "http_post", "reason": "no network"}])
    record = json.dumps(result.to_dict(), ensure_ascii=False)
    texts = [record, repr(result.findings), repr(result.policy_violations), repr(result.pairs)]
    texts += [repr(f) for f in result.findings]
    for text in texts:
        assert AWS not in text and GITHUB not in text
    assert "AKIA…LE" in record and "ghp_…R8" in record
    assert result.metrics["security_metrics"]["secret_count"] == 4


def test_live_trace_objects_and_tool_calls_are_accepted() -> None:
    trace = Trace(calls=[ToolCall(tool="a", args={"x": 1}, is_error=False)])
    assert evaluate([{"tool": "a", "args": {"x": 1}}], trace).score == 1.0
    assert evaluate([{"tool": "a"}], [ToolCall(tool="a")]).score == 1.0


def test_actual_none_is_an_input_error() -> None:
    with pytest.raises(InputError, match="no trace given"):
        evaluate([{"tool": "a"}], None)


def test_loops_and_identical_rate() -> None:
    calls = [{"tool": "poll", "args": {"id": 1}, "is_error": False}] * 4 + [{"tool": "done", "is_error": False}]
    result = evaluate([{"tool": "poll", "args": {"id": 1}}, {"tool": "done"}], calls)
    assert result.identical_rate == pytest.approx(3 / 5)
    assert any(f.code == "loop" and "4 times" in f.message for f in result.findings)
    assert result.redundancy == pytest.approx(2 / 5)
    assert result.metrics["efficiency_metrics"]["retry_after_error_count"] == 0


def test_blind_retry_needs_the_same_arguments_after_a_failure() -> None:
    calls = [
        {"tool": "deploy", "args": {"v": 1}, "is_error": True},
        {"tool": "deploy", "args": {"v": 2}, "is_error": True},  # changed: not blind
        {"tool": "deploy", "args": {"v": 2}, "is_error": False},  # same as a failure: blind
        {"tool": "deploy", "args": {"v": 2}, "is_error": False},  # after a success: not a retry
    ]
    result = evaluate([{"tool": "deploy"}], calls)
    assert result.metrics["efficiency_metrics"]["retry_after_error_count"] == 1
    assert result.metrics["efficiency_metrics"]["blind_retries"] == [2]
    assert result.required_call_recall == 1.0  # the pairing prefers the call that succeeded


def test_findings_are_bounded_on_long_traces() -> None:
    gold = [{"tool": "t", "args": {"i": i}} for i in range(300)]
    trace = [{"tool": "t", "args": {"i": -i - 1}} for i in range(300)]
    result = evaluate(gold, trace)
    mismatches = [f for f in result.findings if f.code == "argument-mismatch"]
    assert len(mismatches) == evaluation_module.MAX_FINDINGS_PER_CODE + 1
    assert "280 more" in mismatches[-1].message


def test_live_openai_response_object_is_scored_through_the_adapters(plugin_manager, register_plugin) -> None:  # type: ignore[no-untyped-def]
    openai_types = pytest.importorskip("openai.types.chat")
    adapters_plugin = pytest.importorskip("toolscore_adapters.plugin")
    register_plugin(adapters_plugin, kinds=["adapters"])
    response = openai_types.ChatCompletion.model_validate({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4.1-mini",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None,
            "tool_calls": [{"id": "call_1", "type": "function",
                            "function": {"name": "get_weather", "arguments": "{\"city\": \"New York\"}"}}]}}],
    })
    result = evaluate([{"tool": "get_weather", "args": {"city": "NYC"}}], response,
                      plugin_manager=plugin_manager)
    assert result.selection_accuracy == 1.0
    assert result.argument_f1 == 0.0
    assert result.actual.calls[0].args == {"city": "New York"}
