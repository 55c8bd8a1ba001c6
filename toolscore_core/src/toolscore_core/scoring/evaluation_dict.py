"""``Evaluation.to_dict()`` and ``Evaluation.from_dict()``: the evidence record of one run.

Why this shape: harnesses and baselines store it, so it is versioned
(``schema_version``, validated by ``schemas/evaluation.schema.json``), JSON-safe (no
NaN, no tuples, string keys), complete (score, grade, verdict, weights, every metric,
every expected and actual call with its result, error and duration, the pairing, the
findings) and bounded: each call appears once, long strings are cut to ``max_string``
characters and long lists to ``max_items`` items, and every credential is replaced by its
redacted preview before anything is written. ``from_dict`` rebuilds an Evaluation from
such a record (values that were cut or redacted stay so).
"""

from __future__ import annotations

from typing import Any

from toolscore_core.kernel.jsonsafe import MAX_ITEMS, MAX_STRING, bounded
from toolscore_core.kernel.model import (
    CallPair,
    Evaluation,
    ExpectedCall,
    Finding,
    ToolCall,
    Trace,
    seconds,
)
from toolscore_core.scoring.matchers import parse_matchers, to_json_form
from toolscore_core.scoring.secrets import redact

EVALUATION_SCHEMA_VERSION = "1"
KIND = "toolscore.evaluation"
METRIC_FIELDS: tuple[str, ...] = ("selection_accuracy", "argument_f1", "sequence_accuracy", "redundancy",
                                  "identical_rate", "required_call_recall")


def _finding(f: Finding, limits: dict[str, int]) -> dict[str, Any]:
    return {
        "severity": f.severity,
        "code": f.code,
        "message": bounded(f.message, **limits),
        "call_index": f.call_index,
        "tool": f.tool,
        "evidence": bounded(f.evidence, **limits) if f.evidence is not None else None,
        "fix": f.fix,
        "details": bounded(f.details, **limits),
    }


def _pair(p: CallPair) -> dict[str, Any]:
    return {
        "expected_index": p.expected_index,
        "actual_index": p.actual_index,
        "score": p.score,
        "tool_match": p.tool_match,
        "argument_scores": {str(k): v for k, v in p.argument_scores.items()},
        "reason": redact(p.reason),
        "mismatches": [dict(m) for m in p.mismatches],
    }


def evaluation_to_dict(evaluation: Evaluation, *, max_string: int = MAX_STRING, max_items: int = MAX_ITEMS) -> dict[str, Any]:
    """The versioned, JSON-safe, redacted, bounded record of ``evaluation``."""
    from toolscore_core import __version__
    from toolscore_core.scoring.verdict import below_bar, displayed_percent, top_issues

    limits = {"max_string": max_string, "max_items": max_items}
    exp_to_act: dict[int, int] = {}
    act_to_exp: dict[int, int] = {}
    for p in evaluation.pairs:
        if p.tool_match and p.expected_index is not None and p.actual_index is not None:
            exp_to_act[p.expected_index] = p.actual_index
            act_to_exp[p.actual_index] = p.expected_index
    expected = [
        {"index": i, "tool": e.tool, "args": bounded(to_json_form(e.args), **limits) if e.args is not None else None,
         "description": bounded(e.description, **limits) if e.description is not None else None,
         "paired_with": exp_to_act.get(i)}
        for i, e in enumerate(evaluation.expected)
    ]
    actual = [
        {"index": i, "tool": c.tool, "args": bounded(c.args, **limits) if c.args is not None else None,
         "result": bounded(c.result, **limits), "is_error": c.is_error,
         "error": bounded(c.error, **limits) if c.error is not None else None, "duration": seconds(c.duration),
         "denied": c.denied, "id": c.id, "paired_with": act_to_exp.get(i)}
        for i, c in enumerate(evaluation.actual.calls)
    ]
    required = evaluation.metrics.get("required_call_recall", {}).get("details", {})
    passed = None if evaluation.min_score is None else not below_bar(evaluation.score, evaluation.min_score)
    return {
        "schema_version": EVALUATION_SCHEMA_VERSION,
        "kind": KIND,
        "toolscore_version": __version__,
        "score": evaluation.score,
        "score_percent": displayed_percent(evaluation.score),
        "grade": evaluation.grade,
        "verdict": evaluation.verdict,
        "min_score": evaluation.min_score,
        "passed": passed,
        "mode": evaluation.mode,
        "weights": dict(evaluation.weights),
        **{name: getattr(evaluation, name) for name in METRIC_FIELDS},
        "required_calls": {"completed": required.get("completed"), "required": required.get("required")},
        "metrics": bounded(evaluation.metrics, **limits),
        "policy_violations": bounded(evaluation.policy_violations, max_string=max_string, max_items=10 * max_items),
        "findings": [_finding(f, limits) for f in evaluation.findings],
        "top_issues": [{"tool": t, "problem": redact(p), "fix": f} for t, p, f in top_issues(evaluation)],
        "expected": expected,
        "actual": actual,
        "pairs": [_pair(p) for p in evaluation.pairs],
        "trace": {
            "source_format": evaluation.actual.source_format,
            "call_count": len(evaluation.actual.calls),
            "final_answer": bounded(evaluation.actual.final_answer, **limits),
        },
    }


def evaluation_from_dict(data: dict[str, Any]) -> Evaluation:
    """Rebuild an Evaluation from :func:`evaluation_to_dict` output (a baseline, say)."""
    from toolscore_core.kernel.errors import InputError

    if not isinstance(data, dict) or data.get("kind", KIND) != KIND or "schema_version" not in data:
        raise InputError("is not a Toolscore evaluation record", location="$",
                         expected='an object from Evaluation.to_dict() with "schema_version"')
    if str(data["schema_version"]) != EVALUATION_SCHEMA_VERSION:
        raise InputError(f"evaluation schema_version {data['schema_version']!r} is not supported",
                         location="$.schema_version", expected=f"version {EVALUATION_SCHEMA_VERSION}")
    try:
        expected = tuple(
            ExpectedCall(tool=e["tool"], args=parse_matchers(e["args"], path=["expected", i, "args"])
                         if e.get("args") is not None else None, description=e.get("description"))
            for i, e in enumerate(data.get("expected", []))
        )
        calls = tuple(
            ToolCall(tool=c["tool"], args=c.get("args"), id=c.get("id"), result=c.get("result"),
                     is_error=c.get("is_error"), error=c.get("error"), duration=c.get("duration"),
                     denied=bool(c.get("denied", False)))
            for c in data.get("actual", [])
        )
        trace_info = data.get("trace") or {}
        findings = tuple(
            Finding(severity=f["severity"], code=f["code"], message=f["message"], call_index=f.get("call_index"),
                    tool=f.get("tool"), evidence=f.get("evidence"), fix=f.get("fix"), details=f.get("details") or {})
            for f in data.get("findings", [])
        )
        pairs = tuple(
            CallPair(expected_index=p.get("expected_index"), actual_index=p.get("actual_index"), score=p["score"],
                     tool_match=p["tool_match"], argument_scores=p.get("argument_scores") or {},
                     reason=p.get("reason", ""), mismatches=tuple(p.get("mismatches") or ()))
            for p in data.get("pairs", [])
        )
        # typed Any: mypy cannot tell which keyword each float lands on
        metric_values: dict[str, Any] = {name: float(data[name]) for name in METRIC_FIELDS}
        return Evaluation(
            score=float(data["score"]), grade=data["grade"], verdict=data["verdict"],
            **metric_values,
            weights=dict(data.get("weights") or {}), metrics=dict(data.get("metrics") or {}),
            findings=findings, policy_violations=list(data.get("policy_violations") or []), pairs=pairs,
            expected=expected,
            actual=Trace(calls=calls, final_answer=trace_info.get("final_answer"),
                         source_format=trace_info.get("source_format")),
            mode=data.get("mode") or "default", min_score=data.get("min_score"),
        )
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(f"evaluation record is incomplete or malformed ({type(exc).__name__}: {exc})",
                         expected="the output of Evaluation.to_dict()") from None


__all__ = ["EVALUATION_SCHEMA_VERSION", "KIND", "METRIC_FIELDS", "evaluation_from_dict", "evaluation_to_dict"]
