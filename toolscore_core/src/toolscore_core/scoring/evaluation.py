"""``evaluate()``: score what an agent did against what the task needed.

One evaluation = read the expectation and the trace, pair the calls once
(:mod:`toolscore_core.scoring.pairing`), let every registered metric read that pairing, combine
the weighted metrics into the score, and add what the score does not show (failed
calls, blind retries, loops, credentials, forbidden calls; :mod:`toolscore_core.scoring.behaviour`).

Weights: the registered metrics' default weights, overridden by the gold file's
``weights`` and then by ``weights=``, are renormalised to sum 1 over the metrics with a
positive weight. An unknown name is an InputError with a did-you-mean.
"""

from __future__ import annotations

import gc
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from toolscore_core.kernel.errors import InputError, PluginError
from toolscore_core.kernel.interfaces import MetricResult
from toolscore_core.kernel.model import (
    CallPair,
    Evaluation,
    ExpectedCall,
    Finding,
    ForbiddenRule,
    ToolCall,
    Trace,
)
from toolscore_core.kernel.plugins import PluginManager, get_plugin_manager
from toolscore_core.kernel.registry import Registry, collect, instantiate
from toolscore_core.scoring.behaviour import bounded, efficiency, policy, security
from toolscore_core.scoring.contracts import as_contract, as_forbidden, load_contract
from toolscore_core.scoring.matchers import canonical
from toolscore_core.scoring.modes import DEFAULT_MODE, check_mode
from toolscore_core.scoring.pairing import Pairing, pair_calls
from toolscore_core.scoring.verdict import grade_for, verdict_for

MAX_FINDINGS_PER_CODE = 20


@attrs.frozen
class EvaluationContext:
    """What every metric reads: built once per evaluation, never recomputed by a metric."""

    expected: tuple[ExpectedCall, ...]
    trace: Trace
    pairing: Pairing
    forbidden: tuple[ForbiddenRule, ...] = ()
    mode: str = DEFAULT_MODE
    outcomes_recorded: bool = True  # False: no call in the trace says whether it succeeded
    options: dict[str, Any] = attrs.field(factory=dict)

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        return self.trace.calls


def metric_registry(pm: PluginManager | None = None) -> Registry:
    return collect(pm or get_plugin_manager(), "metrics")


def resolve_weights(registry: Registry, *layers: Mapping[str, Any] | None, file: str | None = None) -> dict[str, float]:
    """Default weights overridden by each layer in turn, renormalised to sum 1."""
    weights = {name: float(getattr(registry.get(name), "default_weight", 0.0)) for name in registry.names()}
    for layer in layers:
        for name, value in (layer or {}).items():
            if name not in registry:
                try:
                    registry.get(str(name))  # raises UnknownNameError with did-you-mean
                except InputError as exc:
                    if not file:
                        raise
                    raise InputError(exc.message, file=file, location=f"$.weights.{name}",
                                     expected=exc.expected) from None
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value != value:
                raise InputError(f"weight {name}={value!r} is not a non-negative number", file=file,
                                 location=f"$.weights.{name}" if file else None,
                                 hint="Use e.g. --weight required_call_recall=0.3")
            weights[name] = float(value)
    total = sum(w for w in weights.values() if w > 0)
    if total <= 0:
        raise InputError("every metric weight is 0, so there is nothing to score",
                         expected="at least one positive weight")
    return {name: w / total for name, w in sorted(weights.items()) if w > 0}


def _combine(results: dict[str, MetricResult], weights: dict[str, float]) -> float:
    counted = {name: w for name, w in weights.items() if results[name].value is not None}
    total = sum(counted.values())
    if total <= 0:
        return 0.0
    score = sum(w * float(results[name].value or 0.0) for name, w in counted.items()) / total
    return min(1.0, max(0.0, score))


def _check_result(name: str, result: Any) -> MetricResult:
    if not isinstance(result, MetricResult):
        raise PluginError(f"metric {name!r} returned {type(result).__name__}, not a MetricResult")
    value = result.value
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1):
        raise PluginError(f"metric {name!r} returned {value!r}; a metric value must be in [0, 1] or None")
    return result


def _capped(findings: list[Finding]) -> list[Finding]:
    """At most MAX_FINDINGS_PER_CODE findings per code; the rest summarised in one line."""
    kept: list[Finding] = []
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.code] = counts.get(f.code, 0) + 1
        if counts[f.code] <= MAX_FINDINGS_PER_CODE:
            kept.append(f)
    for code, n in counts.items():
        if n > MAX_FINDINGS_PER_CODE:
            sample = next(f for f in findings if f.code == code)
            kept.append(Finding(severity="info", code=code,
                                message=f"… and {n - MAX_FINDINGS_PER_CODE} more finding(s) like this ({code})",
                                details={"category": sample.details.get("category", "score"), "omitted": n - MAX_FINDINGS_PER_CODE}))
    return kept


def _score_findings(context: EvaluationContext) -> list[Finding]:
    """Missing, wrong, failed and extra calls and argument mismatches, from the pairing."""
    expected, calls = context.expected, context.calls
    findings: list[Finding] = []
    for pair in context.pairing.pairs:
        i, j = pair.expected_index, pair.actual_index
        if i is not None and (j is None or not pair.tool_match):
            tool = expected[i].tool
            instead = f" (`{calls[j].tool}` was called instead)" if j is not None else ""
            findings.append(Finding(
                severity="error", code="missing-call",
                message=f"expected call to `{tool}` never happened{instead}",
                call_index=j, tool=tool,
                fix=f"Make sure the agent can see `{tool}` (exact, case-sensitive name) and that the prompt "
                    f"or the tool's description tells it when to call it",
                details={"category": "score", "expected_index": i},
            ))
        if j is not None and (i is None or not pair.tool_match):
            tool = calls[j].tool
            findings.append(Finding(
                severity="info", code="unexpected-call",
                message=f"call {j + 1} {tool}: {pair.reason}",
                call_index=j, tool=tool,
                fix=f"Check why the agent calls `{tool}`: the task did not need this call",
                details={"category": "score"},
            ))
        if i is not None and j is not None and pair.tool_match:
            call = calls[j]
            if pair.mismatches:
                shown = "; ".join(
                    f"{m['argument']}: {m['expected']} ≠ {m['actual']}" if m["problem"] == "mismatch"
                    else f"{m['argument']}: {m['problem']}"
                    for m in pair.mismatches[:3])
                more = f" (+{len(pair.mismatches) - 3} more)" if len(pair.mismatches) > 3 else ""
                names = ", ".join(f"`{m['argument']}`" for m in pair.mismatches[:3])
                findings.append(Finding(
                    severity="warning", code="argument-mismatch",
                    message=f"call {j + 1} {call.tool}: {shown}{more}",
                    call_index=j, tool=call.tool,
                    fix=f"Check how the agent fills {names}: make the tool's parameter descriptions state the "
                        f"expected format, or loosen the expectation with a matcher",
                    details={"category": "score", "expected_index": i, "mismatches": list(pair.mismatches)},
                ))
            if context.outcomes_recorded and not call.succeeded:
                state = "was denied" if call.denied else ("failed" if call.is_error else "has no recorded outcome")
                findings.append(Finding(
                    severity="warning", code="required-call-failed",
                    message=f"expected call to `{call.tool}` was made but {state} (call {j + 1})",
                    call_index=j, tool=call.tool,
                    evidence=bounded(call.error, max_string=200) if call.error else None,
                    fix=f"Make `{call.tool}` succeed: fix its arguments or the conditions it needs, and have the "
                        "agent react to the error instead of moving on",
                    details={"category": "score", "expected_index": i},
                ))
    return findings


def _order_finding(context: EvaluationContext, value: float | None, details: dict[str, Any]) -> list[Finding]:
    if context.mode == DEFAULT_MODE or value is None or value >= 1.0:
        return []
    where = ""
    if details.get("first_difference") is not None:
        where = f": first difference at call {details['first_difference'] + 1}"
    elif details.get("first_missing") is not None:
        i = details["first_missing"]
        where = f": expected call {i + 1} (`{context.expected[i].tool}`) not found in order"
    elif "matched" in details:
        where = f": {details['matched']} call(s) matched one-to-one"
    return [Finding(
        severity="warning", code="order",
        message=f"the calls do not satisfy mode {context.mode!r}{where}",
        fix=f"Make the agent follow the expected call order, or choose a looser mode than {context.mode!r}",
        details={"category": "score", **{k: v for k, v in details.items() if k != "mode"}},
    )]


def evaluate(
    expected: Any,
    actual: Any,
    forbidden: Any = None,
    weights: Mapping[str, float] | None = None,
    *,
    mode: str | None = None,
    format: str | None = None,
    min_score: float | None = None,
    plugin_manager: PluginManager | None = None,
) -> Evaluation:
    """Score ``actual`` (any trace the adapters read) against ``expected``.

    :param expected: a list of expected calls (dicts with matchers inline, ExpectedCall
        objects), a :class:`Contract`, or the path of a gold file.
    :param actual: a Trace, a trace file path, a list of call dicts, or a live SDK object.
    :param forbidden: rules (list of dicts / ForbiddenRule, or a file path); added after
        the gold file's own rules.
    :param weights: metric name -> weight, over the defaults and the gold file's weights.
    :param mode: order mode (see :mod:`toolscore_core.scoring.modes`); overrides the gold file's.
    :param format: the trace format, when detection should not decide.
    :param min_score: kept in the result for reports and assertions.
    """
    contract = as_contract(expected)
    rules = tuple(contract.forbidden) + as_forbidden(forbidden)
    chosen_mode = check_mode(mode if mode is not None else contract.mode)
    pm = plugin_manager or get_plugin_manager()
    if actual is None:
        raise InputError("no trace given (actual=None)", expected="a trace: a list of calls, a file, or an SDK result")
    from toolscore_core.kernel.traces import load_trace

    trace = load_trace(actual, format=format, pm=pm)
    return evaluate_loaded(contract.expected, trace, rules, weights, mode=chosen_mode, pm=pm,
                           contract_weights=contract.weights, source=contract.source,
                           min_score=min_score if min_score is not None else contract.min_score)


def evaluate_loaded(
    expected: tuple[ExpectedCall, ...],
    trace: Trace,
    rules: tuple[ForbiddenRule, ...],
    weights: Mapping[str, float] | None,
    *,
    mode: str,
    pm: PluginManager,
    contract_weights: Mapping[str, float] | None = None,
    source: str | None = None,
    min_score: float | None = None,
) -> Evaluation:
    """The evaluation proper, on an already-read expectation and trace.

    The cyclic garbage collector is paused meanwhile: scoring allocates many small,
    short-lived, acyclic objects, and on a 100k-call trace the collector's repeated full
    scans of the (large, live) trace cost more than the scoring itself.
    """
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        return _evaluate_loaded(expected, trace, rules, weights, mode=mode, pm=pm,
                                contract_weights=contract_weights, source=source, min_score=min_score)
    finally:
        if paused:
            gc.enable()


def _evaluate_loaded(
    expected: tuple[ExpectedCall, ...],
    trace: Trace,
    rules: tuple[ForbiddenRule, ...],
    weights: Mapping[str, float] | None,
    *,
    mode: str,
    pm: PluginManager,
    contract_weights: Mapping[str, float] | None,
    source: str | None,
    min_score: float | None,
) -> Evaluation:
    if min_score is not None and (isinstance(min_score, bool) or not isinstance(min_score, (int, float))
                                  or not 0 <= min_score <= 1):
        raise InputError(f"min_score {min_score!r} is not a number between 0 and 1", hint="Use e.g. 0.9 for 90%")
    registry = metric_registry(pm)
    if contract_weights:
        resolve_weights(registry, contract_weights, file=source)  # name the gold file in its own errors
    normalised = resolve_weights(registry, contract_weights, weights)
    calls = trace.calls
    arg_keys = [canonical(c.args) for c in calls]  # computed once: pairing and loop detection share them
    pairing = pair_calls(expected, calls, actual_keys=arg_keys)
    outcomes_recorded = any(c.is_error is not None or c.denied for c in calls)
    context = EvaluationContext(expected=tuple(expected), trace=trace, pairing=pairing, forbidden=rules,
                                mode=mode, outcomes_recorded=outcomes_recorded)
    results: dict[str, MetricResult] = {}
    for name in registry.names():
        metric = instantiate(registry.get(name))
        results[name] = _check_result(name, metric.compute(context))
    score = _combine(results, normalised)

    keys = [(c.tool, k) for c, k in zip(calls, arg_keys, strict=True)]
    efficiency_metrics, behaviour_findings = efficiency(calls, keys)
    security_metrics, security_findings = security(calls)
    violations, policy_findings = policy(calls, rules)

    metrics: dict[str, Any] = {
        "efficiency_metrics": efficiency_metrics,
        "security_metrics": security_metrics,
        "pairing": {"pairs": len(pairing.pairs), "paired": pairing.paired_count, "exact_pairs": pairing.exact_pairs},
    }
    for name, result in results.items():
        metrics[name] = {"value": result.value, "weight": normalised.get(name, 0.0), "details": result.details}
    sequence = results.get("sequence_accuracy")
    findings = (policy_findings + security_findings + behaviour_findings + _score_findings(context)
                + _order_finding(context, sequence.value if sequence else None, sequence.details if sequence else {}))
    for result in results.values():
        findings.extend(result.findings)

    def value(name: str, default: float = 0.0) -> float:
        result = results.get(name)
        return float(result.value) if result is not None and result.value is not None else default

    return Evaluation(
        score=score,
        grade=grade_for(score),
        verdict=verdict_for(score),
        selection_accuracy=value("selection_accuracy"),
        argument_f1=value("argument_f1"),
        sequence_accuracy=value("sequence_accuracy"),
        redundancy=value("redundancy"),
        identical_rate=float(efficiency_metrics["identical_rate"]),
        required_call_recall=value("required_call_recall"),
        weights=normalised,
        metrics=metrics,
        findings=tuple(_capped(findings)),
        policy_violations=violations,
        pairs=pairing.pairs,
        expected=tuple(expected),
        actual=trace,
        mode=mode,
        min_score=min_score,
    )


def evaluate_trace(
    gold_path: str | Path,
    trace_path: str | Path,
    *,
    forbidden: Any = None,
    weights: Mapping[str, float] | None = None,
    format: str | None = None,
    mode: str | None = None,
    min_score: float | None = None,
    plugin_manager: PluginManager | None = None,
) -> Evaluation:
    """``evaluate`` on a gold file and a trace file; errors name the file at fault."""
    from toolscore_core.kernel.traces import load_trace_file

    contract = load_contract(gold_path)
    pm = plugin_manager or get_plugin_manager()
    trace = load_trace_file(Path(trace_path), format=format, pm=pm)
    rules = tuple(contract.forbidden) + as_forbidden(forbidden)
    return evaluate_loaded(
        contract.expected, trace, rules, weights,
        mode=check_mode(mode if mode is not None else contract.mode, file=str(gold_path)),
        pm=pm, contract_weights=contract.weights, source=contract.source,
        min_score=min_score if min_score is not None else contract.min_score,
    )


__all__ = ["CallPair", "EvaluationContext", "evaluate", "evaluate_loaded", "evaluate_trace", "metric_registry",
           "resolve_weights"]
