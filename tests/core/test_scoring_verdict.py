"""Grades and verdicts come from the score as displayed; top issues are ranked with fixes."""

from __future__ import annotations

import pytest

from toolscore_core.scoring.evaluation import evaluate
from toolscore_core.scoring.verdict import (
    displayed_percent,
    format_percent,
    grade_for,
    top_issues,
    verdict_for,
)


@pytest.mark.parametrize(
    ("score", "shown", "grade", "verdict"),
    [
        (0.9, 90.0, "A", "PASS"),
        (0.8999999999999999, 90.0, "A", "PASS"),  # 0.4 + 0.3 + 0.1 + 0.1 in floats
        (0.4 + 0.3 + 0.1 + 0.1, 90.0, "A", "PASS"),
        (0.89949, 89.9, "B", "WARN"),
        (0.89951, 90.0, "A", "PASS"),
        (0.8, 80.0, "B", "WARN"),
        (0.7999999999999999, 80.0, "B", "WARN"),
        (0.7, 70.0, "C", "WARN"),
        (0.6999999, 70.0, "C", "WARN"),
        (0.6923076923076923, 69.2, "D", "FAIL"),
        (0.6, 60.0, "D", "FAIL"),
        (0.5999, 60.0, "D", "FAIL"),
        (0.59949, 59.9, "F", "FAIL"),
        (0.0, 0.0, "F", "FAIL"),
        (1.0, 100.0, "A", "PASS"),
    ],
)
def test_boundaries_use_the_displayed_score(score: float, shown: float, grade: str, verdict: str) -> None:
    assert displayed_percent(score) == shown
    assert format_percent(score) == f"{shown:.1f}%"
    assert (grade_for(score), verdict_for(score)) == (grade, verdict)


def test_example_one_sum_lands_on_the_boundary_and_is_an_a() -> None:
    result = evaluate([{"tool": "list_allowed_directories"}, {"tool": "read_text_file"}],
                      [{"tool": "read_text_file", "is_error": True}])
    assert format_percent(result.score) == "90.0%"
    assert result.grade == "A" and result.verdict == "PASS"


def test_top_issues_rank_safety_first_then_missing_calls_then_behaviour() -> None:
    trace = [
        {"tool": "read_text_file", "args": {"path": "/x"}, "is_error": True, "error": "denied"},
        {"tool": "read_text_file", "args": {"path": "/x"}, "is_error": True, "error": "denied"},
        {"tool": "run_shell", "args": {"command": "rm -rf /"}, "is_error": False},
    ]
    result = evaluate([{"tool": "list_allowed_directories"}, {"tool": "read_text_file", "args": {"path": "/y"}}], trace,
                      forbidden=[{"tool": "run_shell", "reason": "no shell"}])
    issues = top_issues(result, limit=None)
    tools_in_order = [tool for tool, _, _ in issues]
    assert tools_in_order[0] == "run_shell"
    assert issues[0][1] == "call 3 run_shell matches forbidden rule 1: no shell"
    assert tools_in_order[1] == "list_allowed_directories"
    problems = [problem for _, problem, _ in issues]
    assert problems[1] == "expected call to `list_allowed_directories` never happened (`run_shell` was called instead)"
    assert problems.index("2 of 3 tool calls failed (read_text_file x2)") > 1
    assert all(fix for _, _, fix in issues)
    assert len(top_issues(result, limit=2)) == 2
