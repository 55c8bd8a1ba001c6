"""Every figure the seed README prints for evaluate(), from our code on the same input."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolscore_core.scoring.evaluation import evaluate, evaluate_trace
from toolscore_core.scoring.matchers import Approx, Contains, IsType, OneOf, Regex
from toolscore_core.scoring.verdict import format_percent, top_issues

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "guardrails"


def test_fluent_plain_score_example() -> None:
    result = evaluate(
        expected=[
            {"tool": "get_weather", "args": {"city": "NYC"}},
            {"tool": "send_email", "args": {"to": "user@example.com"}},
        ],
        actual=[
            {"tool": "get_weather", "args": {"city": "New York"}},
            {"tool": "send_email", "args": {"to": "user@example.com"}},
        ],
    )
    assert result.score == pytest.approx(0.85)
    assert result.selection_accuracy == 1.0
    assert result.argument_f1 == 0.5


def test_failures_you_can_read_example() -> None:
    result = evaluate(
        expected=[
            {"tool": "search_flights", "args": {"origin": "SFO", "destination": "NYC"}},
            {"tool": "book_flight", "args": {"flight_id": Regex(r"FL-\d+")}},
        ],
        actual=[
            {"tool": "search_flights", "args": {"origin": "SFO", "destination": "BOS"}},
            {"tool": "cancel_booking", "args": {"booking_id": "BK-1"}},
        ],
    )
    assert f"{result.score:.2f}" == "0.47"
    assert f"{result.selection_accuracy:.2f}" == "0.50"
    assert f"{result.argument_f1:.2f}" == "0.40"
    assert f"{result.sequence_accuracy:.2f}" == "0.50"
    first, second = result.pairs
    assert first.mismatches[0] == {"argument": "destination", "problem": "mismatch", "expected": "'NYC'", "actual": "'BOS'"}
    assert (second.expected_index, second.actual_index, second.tool_match) == (1, 1, False)


def test_matchers_example_scores_full_marks() -> None:
    result = evaluate(
        expected=[{"tool": "get_weather", "args": {
            "city": OneOf("NYC", "New York"), "units": Contains("metric"), "lat": Approx(40.71, rel=1e-2),
            "days": IsType(int)}}],
        actual=[{"tool": "get_weather", "args": {
            "city": "NYC", "units": ["metric", "extended"], "lat": 40.7128, "days": 5}}],
    )
    assert result.score == 1.0 and result.argument_f1 == 1.0


EXAMPLE1_GOLD = [{"tool": "list_allowed_directories"}, {"tool": "read_text_file"}]
EXAMPLE1_SESSION = [{"tool": "read_text_file", "args": {"path": "/srv/acme-api/config/settings.json"},
                     "is_error": True, "error": "Access denied - path outside allowed directories", "duration": 0.004}]


def test_example_1_agent_that_gives_up_after_an_error() -> None:
    result = evaluate(EXAMPLE1_GOLD, EXAMPLE1_SESSION)
    assert format_percent(result.score) == "90.0%"
    assert format_percent(result.selection_accuracy) == "100.0%"
    assert format_percent(result.argument_f1) == "100.0%"
    assert format_percent(result.sequence_accuracy) == "50.0%"
    # The displayed-score rule: 90.0% is an A and a PASS (the seed's "B WARN" was float error).
    assert (result.grade, result.verdict) == ("A", "PASS")
    required = result.metrics["required_call_recall"]["details"]
    assert (required["completed"], required["required"]) == (0, 2)
    assert result.required_call_recall == 0.0
    messages = [f.message for f in result.findings]
    assert "1 of 1 tool calls failed (read_text_file)" in messages
    tool, problem, fix = top_issues(result)[0]
    assert tool == "list_allowed_directories"
    assert problem == "expected call to `list_allowed_directories` never happened"
    assert fix


def test_example_1_with_required_call_recall_weighted() -> None:
    result = evaluate(EXAMPLE1_GOLD, EXAMPLE1_SESSION, weights={"required_call_recall": 0.3})
    assert format_percent(result.score) == "69.2%"
    assert (result.grade, result.verdict) == ("D", "FAIL")
    assert sum(result.weights.values()) == pytest.approx(1.0)
    assert result.weights["required_call_recall"] == pytest.approx(0.3 / 1.3)


def test_example_3_guardrails_files() -> None:
    result = evaluate_trace(EXAMPLES / "gold.json", EXAMPLES / "trace.json", forbidden=EXAMPLES / "forbidden.json")
    by_code = {}
    for f in result.findings:
        by_code.setdefault(f.code, []).append(f.message)
    assert by_code["forbidden-call"] == ["call 2 run_shell matches forbidden rule 1: destructive shell command"]
    assert by_code["credential-in-arguments"] == [
        "call 3 http_post passes a credential (aws_access_key_id) in 'body.text': AKIA…LE"]
    assert by_code["failed-calls"] == ["2 of 5 tool calls failed (deploy x2)"]
    assert by_code["blind-retry"] == ["1 call repeats a failed call with the same arguments"]
    required = result.metrics["required_call_recall"]["details"]
    assert (required["completed"], required["required"]) == (1, 2)
    assert [{k: v[k] for k in ("index", "tool", "rule", "reason")} for v in result.policy_violations] == [
        {"index": 1, "tool": "run_shell", "rule": 0, "reason": "destructive shell command"}]
    eff = result.metrics["efficiency_metrics"]
    assert (eff["error_count"], eff["error_rate"], eff["retry_after_error_count"]) == (2, 0.4, 1)
    sec = result.metrics["security_metrics"]
    assert sec["secret_count"] == 1
    assert sec["secrets"] == [{"index": 2, "tool": "http_post", "path": "body.text", "kind": "aws_access_key_id",
                               "preview": "AKIA…LE"}]
    assert result.identical_rate == pytest.approx(0.2)


def test_behaviour_section_python_example() -> None:
    import json

    trace = json.loads((EXAMPLES / "trace.json").read_text())
    result = evaluate(
        expected=[{"tool": "run_shell", "args": {"command": "make test"}}],
        actual=trace,
        forbidden=[
            {"tool": "run_shell", "args": {"command": Contains("rm -rf")}, "reason": "destructive"},
            {"tool": "read_file", "args": {"path": Contains(".ssh")}},
        ],
        weights={"required_call_recall": 0.3},
    )
    assert result.policy_violations[0]["index"] == 1
    assert result.policy_violations[0]["tool"] == "run_shell"
    assert result.policy_violations[0]["rule"] == 0
    assert result.policy_violations[0]["reason"] == "destructive"
    assert result.policy_violations[0]["args"] == {"command": "rm -rf ./build ./dist"}
    assert result.required_call_recall == 1.0


def test_example_4_required_call_recall_on_plain_calls() -> None:
    calls = [
        {"tool": "search_orders", "args": {"customer": "ada@example.com"}, "result": "[A-17]", "is_error": False},
        {"tool": "issue_refund", "args": {"order_id": "A-17"}, "is_error": True, "error": "Refund window has closed"},
        {"tool": "send_email", "args": {"to": "ada@example.com"}, "result": "sent", "is_error": False},
    ]
    result = evaluate([{"tool": "search_orders"}, {"tool": "issue_refund"}, {"tool": "send_email"}], calls)
    assert result.required_call_recall == pytest.approx(2 / 3)
    assert result.selection_accuracy == 1.0 and result.sequence_accuracy == 1.0


def test_seed_policy_file_regex_finds_the_pattern_inside_the_command() -> None:
    """The seed's forbidden file uses {"$regex": "rm -rf"}: in a forbidden rule a regex is searched
    for, so it fires on a longer command, while an expected argument's Regex stays a full match."""
    from toolscore import Regex, evaluate

    actual = [{"tool": "run_shell", "args": {"command": "sudo rm -rf /srv/app"}, "is_error": False}]
    result = evaluate(expected=[{"tool": "run_shell", "args": {"command": Regex("rm -rf")}}], actual=actual,
                      forbidden=[{"tool": "run_shell", "args": {"command": Regex("rm -rf")}, "reason": "destructive"}])
    assert [v["rule"] for v in result.policy_violations] == [0]
    assert result.argument_f1 == 0.0  # full match for the expected argument
    safe = evaluate(expected=[], actual=[{"tool": "run_shell", "args": {"command": "make test"}}],
                    forbidden=[{"tool": "run_shell", "args": {"command": Regex("rm -rf")}}])
    assert safe.policy_violations == []
