"""Grades, verdicts, the pass bar and the ranked "Top issues to fix".

Why the displayed score decides: people read "90.0%" and expect an A and a PASS. A raw
0.8999999999999999 (from summing weighted floats) must not become a B. So the score is
first rounded to one decimal of a percent (half up, in exact decimal arithmetic) and the
boundaries are compared with that number.
"""

from __future__ import annotations

from collections.abc import Collection
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

GRADE_BOUNDS: tuple[tuple[float, str], ...] = ((90.0, "A"), (80.0, "B"), (70.0, "C"), (60.0, "D"))
PASS_AT = 90.0
WARN_AT = 70.0


def displayed_percent(score: float) -> float:
    """The score as a percentage with one decimal, exactly as reports print it."""
    # repr() gives the shortest decimal that round-trips; 12 significant digits then absorb
    # float noise such as 0.8999999999999999 before the half-up rounding.
    value = Decimal(repr(float(score))) * 100
    value = Decimal(f"{value:.12g}") if value else value
    return float(value.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def format_percent(score: float) -> str:
    """``0.9`` -> ``'90.0%'`` (the same rounding the grade uses)."""
    return f"{displayed_percent(score):.1f}%"


def below_bar(score: float, min_score: float | None) -> bool:
    """True when ``score`` misses the bar ``min_score`` (no bar: never).

    The pass-bar rule of every command, assertion and report: the bar is judged on the
    score as a person reads it (one decimal of a percent), the same rule as grades, so a
    0.8999999 shown as 90.0% passes a 0.9 bar and a report never says "90.0% is below the
    required 90.0%".
    """
    return min_score is not None and displayed_percent(score) < displayed_percent(min_score)


def grade_for(score: float) -> str:
    """A >= 90, B >= 80, C >= 70, D >= 60, else F, on the displayed percentage."""
    shown = displayed_percent(score)
    for bound, grade in GRADE_BOUNDS:
        if shown >= bound:
            return grade
    return "F"


def verdict_for(score: float, min_score: float | None = None) -> str:
    """PASS >= 90, WARN >= 70, else FAIL, on the displayed percentage.

    With a bar (``min_score``), the bar decides FAIL: a run below it is FAIL (never WARN
    beside a "FAIL score below the required ..." line), and a run that clears it is not
    FAIL (at worst WARN), so a report never contradicts the exit code.
    """
    shown = displayed_percent(score)
    if min_score is not None:
        if below_bar(score, min_score):
            return "FAIL"
        return "PASS" if shown >= PASS_AT else "WARN"
    if shown >= PASS_AT:
        return "PASS"
    if shown >= WARN_AT:
        return "WARN"
    return "FAIL"


# How urgent each finding code is: lower ranks first.
_RANK: dict[str, int] = {
    "forbidden-call": 0,
    "credential-in-arguments": 1,
    "missing-call": 2,
    "wrong-tool": 3,
    "required-call-failed": 4,
    "argument-mismatch": 5,
    "failed-calls": 6,
    "blind-retry": 7,
    "loop": 8,
    "unexpected-call": 9,
    "order": 10,
}
_SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}


def top_issues(
    evaluation: Any, limit: int | None = 10, *, codes: Collection[str] | None = None
) -> list[tuple[str, str, str]]:
    """The findings worth fixing first, as ``(tool, problem, fix)``.

    Ranked by kind (policy and credential errors, then missing and wrong calls, then
    argument problems, then behaviour), then severity, then call order. Findings without
    a fix are informational and left out; ``codes`` keeps only findings of those codes
    (reports list behaviour and safety findings in their own section).
    """
    findings = [f for f in evaluation.findings if f.fix and (codes is None or f.code in codes)]
    findings.sort(key=lambda f: (_RANK.get(f.code, 50), _SEVERITY_RANK.get(f.severity, 3),
                                 f.call_index if f.call_index is not None else -1))
    issues = [(f.tool or "-", f.message, f.fix) for f in findings]
    return issues if limit is None else issues[:limit]


__all__ = ["GRADE_BOUNDS", "PASS_AT", "WARN_AT", "below_bar", "displayed_percent", "format_percent", "grade_for", "top_issues",
           "verdict_for"]
