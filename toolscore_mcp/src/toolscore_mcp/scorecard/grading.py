"""From what the runner saw and what lint found to a grade, a score and the issues to fix.

The score is a weighted mean of three rates (each 0..1):

- happy: happy-path scenarios that succeeded. Weight 0.6: a tool that fails valid calls
  is broken for every user, every time.
- edge: edge cases handled cleanly (rejected or answered, never crashed, hung or silently
  accepted). Weight 0.2.
- lint: the lint score of the definitions (``toolscore mcp lint``). Weight 0.2.

A part that could not be measured (no scenario ran) is left out and the weights of the
others renormalised, so a missing part never counts as zero or as perfect. An inconclusive
call (a valid call refused only because of a value we made up, see ``fairness``) counts in
no rate and no row: it proves nothing about the tool; it is reported as an info finding.

The letter comes from the score as displayed (a whole percent): A >= 90, B >= 80, C >= 70,
D >= 60, else F. Poisoning caps it: a server whose definitions hide instructions from the
user or override the model (lint errors of the poisoning rules) is at best a C, and one
with warning-level poisoning signs (``<IMPORTANT>`` blocks) at best a B. A server that
could not be kept running is at best a D.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolscore_core.kernel.model import Finding, ServerDefinition
from toolscore_mcp.scorecard.model import Scorecard, ToolReport, round_half_up
from toolscore_mcp.scorecard.runner import RunOutcome

WEIGHTS = {"happy": 0.6, "edge": 0.2, "lint": 0.2}
GRADE_FLOORS = (("A", 90), ("B", 80), ("C", 70), ("D", 60))
GRADE_ORDER = "ABCDF"
# Lint rule ids that mean the definitions try to steer or deceive the model.
POISONING_CODES = frozenset({"poison-hidden-unicode", "poison-instruction-override", "poison-hide-from-user",
                             "poison-sensitive-file", "poison-important-block", "poison-scripted-reply"})
SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}
# Runtime problems before static ones of the same severity: they are what users hit.
RUNTIME_RANK = {"server-unrecoverable": 0, "server-crash": 1, "tool-timeout": 2, "protocol-violation": 3,
                "fails-on-valid-input": 4, "error-reported-as-success": 5, "accepts-invalid-input": 6,
                "unclean-rejection": 7, "internal-error": 8, "oversized-answer": 9}
TOP_ISSUES = 10
# Tools deliberately not called: a note on the scorecard, never an issue to fix.
NOT_CALLED_CODES = frozenset({"destructive-not-called", "writes-not-called"})


def letter(percent: int) -> str:
    for grade, floor in GRADE_FLOORS:
        if percent >= floor:
            return grade
    return "F"


def is_poisoning(finding: Finding) -> bool:
    return finding.code in POISONING_CODES or finding.code.startswith("poison-")


def weighted_score(parts: dict[str, float | None], weights: dict[str, float] = WEIGHTS) -> float:
    used = {name: weights[name] for name, value in parts.items() if value is not None and weights.get(name)}
    total = sum(used.values())
    if not total:
        return 0.0
    return sum(weights[name] * (parts[name] or 0.0) for name in used) / total


def grade_cap(findings: Sequence[Finding]) -> tuple[str | None, str | None]:
    """The best grade the findings allow, and why (``None``: no cap)."""
    poison = [f for f in findings if is_poisoning(f)]
    if any(f.severity == "error" for f in poison):
        return "C", "poisoning: the definitions try to steer the model or hide things from the user"
    if any(f.code == "server-unrecoverable" for f in findings):
        return "D", "the server could not be kept running"
    if poison:
        return "B", "possible poisoning: instruction blocks in the definitions"
    return None, None


def rank_issues(findings: Sequence[Finding]) -> list[Finding]:
    """Worst first: severity, then runtime before static, then how many calls it hit."""
    def key(pair: tuple[int, Finding]) -> tuple[int, int, int, int, int]:
        position, finding = pair
        poison = 0 if is_poisoning(finding) else 1
        runtime = RUNTIME_RANK.get(finding.code, len(RUNTIME_RANK))
        count = int(finding.details.get("count", 1)) if isinstance(finding.details, dict) else 1
        return (SEVERITY_RANK.get(finding.severity, 3), poison, runtime, -count, position)

    fixable = [f for f in findings if f.severity != "info" or f.code not in NOT_CALLED_CODES]
    return [f for _, f in sorted(enumerate(fixable), key=key)]


def build_scorecard(
    server: ServerDefinition,
    run: RunOutcome,
    lint: Any | None,
    *,
    tool_tokens: dict[str, int],
    instructions_tokens: int,
    target: str | None = None,
) -> Scorecard:
    """Grade one server. ``lint`` is a LintResult (``toolscore_mcp.lint.runner``) or None."""
    results = run.results
    happy = [r for r in results if r.scenario.category == "happy" and not r.inconclusive]
    edge = [r for r in results if r.scenario.category == "edge" and not r.inconclusive]
    happy_rate = sum(r.passed for r in happy) / len(happy) if happy else None
    edge_rate = sum(r.passed for r in edge) / len(edge) if edge else None
    lint_findings = list(getattr(lint, "findings", ()) or ()) if lint is not None else []
    lint_rate = _lint_score(lint)
    parts = {"happy": happy_rate, "edge": edge_rate, "lint": lint_rate}
    score = weighted_score(parts)
    findings = [*run.findings, *lint_findings]
    cap, cap_reason = grade_cap(findings)
    grade = letter(round_half_up(score * 100))
    if cap is not None and GRADE_ORDER.index(grade) < GRADE_ORDER.index(cap):
        grade = cap
    else:
        cap_reason = None
    ranked = rank_issues(findings)
    tools = tuple(_tool_row(tool.name, run, tool_tokens.get(tool.name, 0)) for tool in server.tools)
    return Scorecard(
        server_name=server.name or "unnamed server",
        server_version=server.version,
        protocol_version=server.protocol_version,
        grade=grade,
        score=score,
        happy=happy_rate,
        edge=edge_rate,
        lint=lint_rate,
        lint_errors=sum(f.severity == "error" for f in lint_findings),
        lint_warnings=sum(f.severity == "warning" for f in lint_findings),
        tools=tools,
        definition_tokens=sum(tool_tokens.values()),
        instructions_tokens=instructions_tokens,
        findings=tuple(findings),
        top_issues=tuple(ranked[:TOP_ISSUES]),
        blocking=tuple(f for f in ranked if f.severity == "error"),
        grade_cap=cap_reason,
        weights=dict(WEIGHTS),
        results=results,
        duration=run.duration,
        complete=not any(f.code in ("deadline-reached", "server-unrecoverable") for f in run.findings),
        target=target,
    )


def _lint_score(lint: Any | None) -> float | None:
    if lint is None:
        return None
    value = getattr(lint, "score", None)
    if value is None:
        return None
    value = float(value)
    return value / 100 if value > 1 else value


def _tool_row(name: str, run: RunOutcome, tokens: int) -> ToolReport:
    every = [r for r in run.results if r.scenario.tool == name]
    mine = [r for r in every if not r.inconclusive]
    latencies = [r.duration for r in mine if r.duration is not None and not r.timed_out and not r.crashed]
    return ToolReport(
        name=name,
        passed=sum(r.passed for r in mine),
        run=len(mine),
        generated=run.planned.get(name, 0),
        avg_latency_ms=(sum(latencies) / len(latencies) * 1000) if latencies else None,
        definition_tokens=tokens,
        skipped=run.skipped.get(name) or (None if len(every) == run.planned.get(name, 0) else
                                          f"{run.planned.get(name, 0) - len(every)} not run"),
    )
