"""Required-call recall counts a failed call the agent retried successfully as completed.

Before: a timeout followed by a second, successful attempt of the same call reported
"Required calls completed: 0 of 1" because the expected call was paired with the failed one.
"""

from __future__ import annotations

from toolscore import evaluate

GOLD = [{"tool": "search", "args": {"q": "x"}}]


def _recall(actual):
    metric = evaluate(GOLD if len(actual) < 4 else GOLD * 2, actual).metrics["required_call_recall"]
    return metric["value"], metric["details"]


def test_a_successful_retry_completes_the_failed_call():
    value, details = _recall([{"tool": "search", "args": {"q": "x"}, "error": "timeout"},
                              {"tool": "search", "args": {"q": "x"}, "result": "3 hits"}])
    # (the pairing itself may already prefer the successful attempt; either way it completes)
    assert value == 1.0 and details["failed"] == [] and details["unknown_outcome"] == 0


def test_a_retry_with_no_recorded_outcome_is_unknown_not_failed():
    value, details = _recall([{"tool": "search", "args": {"q": "x"}, "error": "timeout"},
                              {"tool": "search", "args": {"q": "x"}}])
    assert value == 1.0 and details["unknown_outcome"] == 1 and details["retried"] == [0]


def test_a_retry_that_failed_too_leaves_the_call_failed():
    value, details = _recall([{"tool": "search", "args": {"q": "x"}, "error": "timeout"},
                              {"tool": "search", "args": {"q": "x"}, "error": "timeout again"}])
    assert value == 0.0 and details["failed"] == [0] and "retried" not in details


def test_another_tool_is_not_a_retry():
    value, details = _recall([{"tool": "search", "args": {"q": "x"}, "error": "timeout"},
                              {"tool": "fetch", "args": {"q": "x"}, "result": "ok"}])
    assert value == 0.0 and details["failed"] == [0]


def test_a_call_paired_with_another_expected_call_is_not_a_retry():
    actual = [{"tool": "search", "args": {"q": "x"}, "error": "timeout"},
              {"tool": "search", "args": {"q": "x"}, "result": "ok"},
              {"tool": "noop", "args": {}}, {"tool": "noop", "args": {}}]
    value, details = _recall(actual)  # two expected searches: one failed, one succeeded
    assert value == 0.5 and len(details["failed"]) == 1 and "retried" not in details


def test_evaluations_without_retries_keep_their_details():
    _, details = _recall([{"tool": "search", "args": {"q": "x"}, "result": "ok"}])
    assert "retried" not in details
