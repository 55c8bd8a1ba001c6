"""The rules that turn call outcomes into pass/fail, and rates and findings into a grade."""

from __future__ import annotations

from typing import Any

import pytest

from toolscore_core.kernel.model import Finding, ServerDefinition, ToolDefinition
from toolscore_mcp.scorecard.grading import (
    build_scorecard,
    grade_cap,
    letter,
    rank_issues,
    weighted_score,
)
from toolscore_mcp.scorecard.judge import judge, looks_like_error
from toolscore_mcp.scorecard.model import Scenario, ScenarioResult, percent, round_half_up
from toolscore_mcp.scorecard.runner import RunOutcome, is_destructive
from toolscore_mcp.session import CallOutcome

VALID = Scenario("t", "required_only", "happy", "success", {"a": 1}, "only the required properties")
INVALID = Scenario("t", "wrong_type", "edge", "reject", {"a": "x"}, "'a' of the wrong type")
ODD = Scenario("t", "unicode", "edge", "answer", {"a": "é"}, "'a' is non-ASCII text")


def answered(text: str, is_error: bool = False) -> CallOutcome:
    return CallOutcome(result={"content": [{"type": "text", "text": text}], "isError": is_error},
                       is_error=is_error, error=text if is_error else None, duration=0.001)


def rpc_error(code: int, message: str = "bad") -> CallOutcome:
    return CallOutcome(is_error=True, error=message, error_code=code, duration=0.001)


@pytest.mark.parametrize(
    ("scenario", "outcome", "passed", "problem"),
    [
        (VALID, answered('{"id": 1}'), True, None),
        (VALID, answered("export failed: no backend", is_error=True), False, "fails-on-valid-input"),
        (VALID, rpc_error(-32603), False, "fails-on-valid-input"),
        (VALID, answered("Error: database is locked"), False, "error-reported-as-success"),
        (VALID, answered("Database error: no such table: t"), False, "error-reported-as-success"),
        (INVALID, answered("invalid arguments", is_error=True), True, None),
        (INVALID, rpc_error(-32602), True, None),
        (INVALID, rpc_error(-32603), False, "unclean-rejection"),
        (INVALID, answered("ok, done"), False, "accepts-invalid-input"),
        (ODD, answered("saved"), True, None),
        (ODD, answered("no such thing", is_error=True), True, None),
        (ODD, rpc_error(-32603), False, "internal-error"),
        (VALID, CallOutcome(error="gone", crashed=True, duration=0.1), False, "server-crash"),
        (INVALID, CallOutcome(error="tools/call: no response within 1 s", timed_out=True), False, "tool-timeout"),
        (VALID, CallOutcome(result={"isError": "no"}, protocol_error="isError is 'no', not a boolean"),
         False, "protocol-violation"),
    ],
)
def test_judge(scenario: Scenario, outcome: CallOutcome, passed: bool, problem: str | None) -> None:
    result = judge(scenario, outcome, max_result_bytes=10_000)
    assert (result.passed, result.problem) == (passed, problem), result.reason


def test_oversized_answer_fails_even_when_it_succeeded() -> None:
    result = judge(VALID, answered("z" * 20_000), max_result_bytes=10_000)
    assert not result.passed and result.problem == "oversized-answer"
    assert result.result_bytes is not None and result.result_bytes > 20_000


def test_error_text_detection_is_not_fooled_by_ordinary_answers() -> None:
    assert looks_like_error("Error: boom")
    assert looks_like_error('{"error": "nope"}')
    assert looks_like_error("Failed: could not connect")
    assert not looks_like_error("Found 3 errors in the log file you asked about")
    assert not looks_like_error('{"notes": [], "total": 0}')
    assert not looks_like_error("")


@pytest.mark.parametrize(("percent_value", "grade"), [(100, "A"), (90, "A"), (89, "B"), (80, "B"), (79, "C"),
                                                      (70, "C"), (60, "D"), (59, "F"), (0, "F")])
def test_letter(percent_value: int, grade: str) -> None:
    assert letter(percent_value) == grade


def test_weights_renormalise_over_measured_parts() -> None:
    assert weighted_score({"happy": 0.8, "edge": 1.0, "lint": 0.93}) == pytest.approx(0.866)
    assert weighted_score({"happy": None, "edge": 1.0, "lint": 0.5}) == pytest.approx(0.75)
    assert weighted_score({"happy": None, "edge": None, "lint": None}) == 0.0
    assert round_half_up(86.5) == 87 and percent(0.866) == "87%" and percent(None) == "n/a"


def _finding(code: str, severity: str = "error", tool: str | None = "t", count: int = 1) -> Finding:
    return Finding(severity=severity, code=code, message=code, tool=tool, details={"count": count})  # type: ignore[arg-type]


def test_poisoning_caps_the_grade() -> None:
    assert grade_cap([_finding("poison-hide-from-user")])[0] == "C"
    assert grade_cap([_finding("poison-important-block", "warning")])[0] == "B"
    assert grade_cap([_finding("server-unrecoverable", tool=None)])[0] == "D"
    assert grade_cap([_finding("schema-missing-type")]) == (None, None)


def test_ranking_puts_errors_first_then_runtime_before_static() -> None:
    ranked = rank_issues([
        _finding("description-too-short", "warning"),
        _finding("schema-missing-type"),
        _finding("accepts-invalid-input", "warning", count=3),
        _finding("fails-on-valid-input"),
        _finding("destructive-not-called", "info"),
        _finding("server-crash"),
    ])
    assert [f.code for f in ranked] == ["server-crash", "fails-on-valid-input", "schema-missing-type",
                                        "accepts-invalid-input", "description-too-short"]


class _Lint:
    def __init__(self, score: float, findings: list[Finding]) -> None:
        self.score = score
        self.findings = findings


def _run(results: list[ScenarioResult], findings: tuple[Finding, ...] = ()) -> RunOutcome:
    planned: dict[str, int] = {}
    for result in results:
        planned[result.scenario.tool] = planned.get(result.scenario.tool, 0) + 1
    return RunOutcome(results=tuple(results), generated={}, planned=planned, findings=findings, skipped={},
                      not_run=0, duration=0.1, restarts=0)


def _result(scenario: Scenario, passed: bool) -> ScenarioResult:
    return ScenarioResult(scenario=scenario, passed=passed, reason="", duration=0.002)


def test_a_poisoned_server_with_perfect_rates_is_not_an_a() -> None:
    server = ServerDefinition(name="s", version="1", tools=[ToolDefinition(name="t")])
    run = _run([_result(VALID, True), _result(INVALID, True)])
    clean = build_scorecard(server, run, _Lint(1.0, []), tool_tokens={"t": 10}, instructions_tokens=0)
    assert clean.grade == "A" and clean.grade_cap is None
    poison = _finding("poison-hide-from-user", tool=None)
    capped = build_scorecard(server, run, _Lint(0.95, [poison]), tool_tokens={"t": 10}, instructions_tokens=42)
    assert capped.score > 0.9 and capped.grade == "C"
    assert capped.grade_cap is not None and "hide" in capped.grade_cap
    assert capped.instructions_tokens == 42 and capped.lint_errors == 1
    assert capped.blocking == (poison,)


def test_scorecard_rows_and_rates() -> None:
    other = Scenario("u", "required_only", "happy", "success", {}, "")
    server = ServerDefinition(name="s", tools=[ToolDefinition(name="t"), ToolDefinition(name="u")])
    run = _run([_result(VALID, True), _result(other, False), _result(INVALID, True), _result(ODD, False)])
    card: Any = build_scorecard(server, run, None, tool_tokens={"t": 5, "u": 7}, instructions_tokens=0)
    assert card.happy == 0.5 and card.edge == 0.5 and card.lint is None
    assert card.score == pytest.approx(0.5)
    assert [(t.name, t.passed, t.run) for t in card.tools] == [("t", 2, 3), ("u", 0, 1)]
    assert card.definition_tokens == 12 and card.title == "s"


@pytest.mark.parametrize(("name", "hints", "destructive"), [
    ("delete_note", {}, True), ("dropTable", {}, True), ("remove-user", {}, True), ("rm", {}, True),
    ("list_notes", {}, False), ("deleted_items_report", {}, False), ("removal_stats", {}, False),
    ("wipe", {"readOnlyHint": True}, False), ("archive", {"destructiveHint": True}, True),
])
def test_destructive_detection(name: str, hints: dict[str, Any], destructive: bool) -> None:
    assert is_destructive(ToolDefinition(name=name, annotations=hints)) is destructive


def test_credentials_in_answers_never_reach_the_report() -> None:
    leaky = answered("Error: connecting with AKIAZ3MHQF7TWXYPLQ2R failed")
    result = judge(VALID, leaky, max_result_bytes=10_000)
    assert result.problem == "error-reported-as-success"
    for text in (result.reason, result.excerpt or ""):
        assert "AKIAZ3MHQF7TWXYPLQ2R" not in text and "AKIA…2R" in text
    refused = judge(INVALID, rpc_error(-32602, "bad key ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
                    max_result_bytes=10_000)
    assert "a1B2c3D4e5F6" not in (refused.error or "") + refused.reason and "ghp_…R8" in refused.reason


def test_slow_answers_and_repeated_failures_aggregate_per_tool() -> None:
    from toolscore_mcp.scorecard.runner import RunOptions, aggregate_findings

    failing = [judge(VALID, answered("boom", is_error=True), max_result_bytes=10_000) for _ in range(3)]
    slow = ScenarioResult(scenario=ODD, passed=True, reason="answered", duration=6.5)
    findings = aggregate_findings([*failing, slow], RunOptions(slow_seconds=5.0))
    assert [(f.code, f.severity, f.tool) for f in findings] == [("fails-on-valid-input", "error", "t"),
                                                               ("slow-answer", "info", "t")]
    assert findings[0].details["count"] == 3 and findings[0].message == "fails on valid input (boom)"
    assert "6.5 s" in findings[1].message
