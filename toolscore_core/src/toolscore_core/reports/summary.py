"""What every evaluation report says, independent of how it is drawn.

Console, Markdown, HTML and JUnit all show the same facts: the metric table, every
computed metric with its weight, the grade, how many required calls really succeeded,
the top issues to fix, the behaviour and safety findings and the expected-vs-actual rows. Computing them here once keeps the four
renderers consistent (a figure cannot differ between the HTML and the console) and keeps
each renderer about layout only.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from toolscore_core.kernel.model import Evaluation, Finding
from toolscore_core.reports.alignment import AlignedRows, Row
from toolscore_core.reports.text import safe_text

# The four rows the console has always shown, then any other metric the user weighted in.
CORE_METRICS: tuple[tuple[str, str], ...] = (
    ("selection_accuracy", "Selection Accuracy"),
    ("argument_f1", "Argument F1"),
    ("sequence_accuracy", "Sequence Accuracy"),
)
WEIGHT_TO_ATTRIBUTE = {
    "selection": "selection_accuracy",
    "arguments": "argument_f1",
    "sequence": "sequence_accuracy",
    "redundancy": "redundancy",
}
SEVERITY_LABEL = {"error": "ERROR", "warning": "WARNING", "info": "INFO"}
# Finding codes that explain the score (shown in the calls table and top issues), as
# opposed to behaviour and safety findings (failed calls, retries, credentials, policy).
SCORING_CODES = frozenset({"missing-call", "wrong-tool", "argument-mismatch", "unexpected-call", "order"})
# Told by the "Required calls completed" line and the top issues instead.
REQUIRED_CODES = frozenset({"required-call-failed"})
MAX_ISSUES = 5
METRICS_TITLE = "Metrics and weights"
MAX_FINDINGS = 50


@attrs.frozen
class MetricRow:
    key: str
    label: str
    value: float | None


@attrs.frozen
class MetricDetail:
    """One computed metric as every report lists it: its value and its share of the score.

    ``weight`` 0 means computed and reported but not scored (an opt-in metric, or a
    plugin's metric nobody weighted); ``None`` means the record does not say.
    """

    key: str
    label: str
    value: float | None
    weight: float | None

    @property
    def scored(self) -> bool:
        return bool(self.weight)


@attrs.frozen
class Issue:
    """One entry of "Top issues to fix": what it is about, the problem, how to fix it."""

    subject: str
    problem: str
    fix: str | None = None


@attrs.frozen
class ReportData:
    score: float
    grade: str
    verdict: str
    metrics: tuple[MetricRow, ...]
    all_metrics: tuple[MetricDetail, ...]
    required_done: int
    required_total: int
    required_weighted: bool
    issues: tuple[Issue, ...]
    findings: tuple[Finding, ...]
    findings_left_out: int
    rows: Sequence[Row]  # built row by row as read: see AlignedRows
    min_score: float | None
    mode: str
    expected_count: int
    actual_count: int

    @property
    def below_min_score(self) -> bool:
        from toolscore_core.scoring.verdict import below_bar

        return below_bar(self.score, self.min_score)


def metric_value(evaluation: Evaluation, name: str) -> float | None:
    """The value of metric ``name`` (a weight name, an attribute, or a plugin metric)."""
    attribute = WEIGHT_TO_ATTRIBUTE.get(name, name)
    if attribute in attrs.fields_dict(Evaluation):
        value = getattr(evaluation, attribute)
        return float(value) if isinstance(value, (int, float)) else None
    raw = evaluation.metrics.get(name)
    if isinstance(raw, dict):
        raw = raw.get("value")
    return float(raw) if isinstance(raw, (int, float)) and not isinstance(raw, bool) else None


def _label(name: str) -> str:
    return name.replace("_", " ").title()


def metric_rows(evaluation: Evaluation) -> tuple[MetricRow, ...]:
    rows = [MetricRow("score", "Overall Score", evaluation.score)]
    judged = evaluation.metrics.get("judge")
    if isinstance(judged, dict) and isinstance(judged.get("score_without_judge"), (int, float)):
        rows.append(MetricRow("score_without_judge", "Score Without Judge", float(judged["score_without_judge"])))
    rows += [MetricRow(attr, label, getattr(evaluation, attr)) for attr, label in CORE_METRICS]
    shown = {attr for attr, _ in CORE_METRICS} | {"selection", "arguments", "sequence", "redundancy"}
    for name, weight in evaluation.weights.items():
        if weight and name not in shown:
            rows.append(MetricRow(name, _label(name), metric_value(evaluation, name)))
    return tuple(rows)


def metric_details(evaluation: Evaluation) -> tuple[MetricDetail, ...]:
    """Every metric the evaluation computed (built-in or a plugin's, weighted or not).

    Read from ``evaluation.metrics``, where each metric's entry carries ``value`` and
    ``weight``; the behaviour figures stored beside them (efficiency, security, pairing)
    are not metrics and are left out. Scored metrics come first, heaviest first, then the
    unscored ones, each group by name, so the order never depends on plugin install order.
    """
    details: list[MetricDetail] = []
    for name, entry in evaluation.metrics.items():
        if not isinstance(entry, dict) or "value" not in entry:
            continue
        weight = _weight(entry.get("weight", evaluation.weights.get(name)))
        details.append(MetricDetail(str(name), _label(str(name)), metric_value(evaluation, str(name)), weight))
    details.sort(key=lambda d: (not d.scored, -(d.weight or 0.0), d.key))
    return tuple(details)


def _weight(raw: object) -> float | None:
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        return None
    return float(raw)


def weight_text(weight: float | None) -> str:
    """``0.4`` -> ``0.40``; ``0`` -> ``0 (not scored)``; unknown -> ``n/a``."""
    if weight is None:
        return "n/a"
    if not weight:
        return "0 (not scored)"
    return f"{weight:.2f}"


def required_counts(evaluation: Evaluation) -> tuple[int, int]:
    total = len(evaluation.expected)
    details = evaluation.metrics.get("required_call_recall")
    if isinstance(details, dict) and isinstance(details.get("completed"), int):
        return details["completed"], total
    return round(evaluation.required_call_recall * total), total


def top_issues(evaluation: Evaluation, limit: int = MAX_ISSUES) -> tuple[Issue, ...]:
    """The ranked issues about the calls the task needed, in the report's own shape.

    Behaviour and safety findings have their own section and the required-call line its own
    count, so each problem is told once (as in the seed's example 1, whose only top issue
    is the call that never happened).
    """
    from toolscore_core.scoring import verdict

    issues: list[Issue] = []
    for item in verdict.top_issues(evaluation, codes=SCORING_CODES)[:limit]:
        if isinstance(item, tuple):  # (tool, problem, fix)
            subject, problem, fix = (*item, None, None, None)[:3]
        else:
            get = item.get if isinstance(item, dict) else lambda k, _i=item: getattr(_i, k, None)
            subject = get("tool") or get("subject") or get("code")
            problem = get("problem") or get("message")
            fix = get("fix")
        issues.append(Issue(safe_text(subject or "", 60), safe_text(problem or ""), safe_text(fix) or None))
    return tuple(issues)


def behaviour_findings(evaluation: Evaluation, limit: int = MAX_FINDINGS) -> tuple[tuple[Finding, ...], int]:
    """Behaviour and safety findings, errors first (stable within a severity), and how many
    were cut. Findings about the score itself (a missing or wrong call) are left to the
    calls table and the top issues, so each problem is told once."""
    order = {"error": 0, "warning": 1, "info": 2}
    relevant = [f for f in evaluation.findings if f.code not in SCORING_CODES | REQUIRED_CODES]
    ranked = sorted(relevant, key=lambda f: order.get(f.severity, 3))
    return tuple(ranked[:limit]), max(len(ranked) - limit, 0)


def summarize(evaluation: Evaluation, *, call_limit: int = 60) -> ReportData:
    done, total = required_counts(evaluation)
    findings, left_out = behaviour_findings(evaluation)
    return ReportData(
        score=evaluation.score,
        grade=evaluation.grade,
        verdict=evaluation.verdict,
        metrics=metric_rows(evaluation),
        all_metrics=metric_details(evaluation),
        required_done=done,
        required_total=total,
        required_weighted=bool(evaluation.weights.get("required_call_recall")),
        issues=top_issues(evaluation),
        findings=findings,
        findings_left_out=left_out,
        rows=AlignedRows(evaluation, call_limit=call_limit),
        min_score=evaluation.min_score,
        mode=evaluation.mode,
        expected_count=len(evaluation.expected),
        actual_count=len(evaluation.actual.calls),
    )


def required_line(data: ReportData) -> str:
    """``Required calls completed: 0 of 2 (missing or failed; not part of the default score)``."""
    line = f"Required calls completed: {data.required_done} of {data.required_total}"
    missing = data.required_total - data.required_done
    if data.required_weighted:
        return line + " (weighted into the score)"
    if missing:
        return line + " (missing or failed; not part of the default score)"
    return line


def finding_text(finding: Finding) -> str:
    return safe_text(finding.message)


def severity_label(finding: Finding) -> str:
    return SEVERITY_LABEL.get(finding.severity, finding.severity.upper())


__all__ = [
    "METRICS_TITLE",
    "Issue",
    "MetricDetail",
    "MetricRow",
    "ReportData",
    "behaviour_findings",
    "finding_text",
    "metric_details",
    "metric_rows",
    "metric_value",
    "required_counts",
    "required_line",
    "severity_label",
    "summarize",
    "top_issues",
    "weight_text",
]
