"""The runner against live servers of ours that misbehave on purpose (real stdio client)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import pytest

from toolscore_mcp.client import open_client
from toolscore_mcp.scorecard.api import grade_client
from toolscore_mcp.scorecard.model import Scorecard
from toolscore_mcp.scorecard.runner import RunOptions

FAULTY = Path(__file__).resolve().parent / "servers" / "scorecard_faulty_server.py"


def grade_faulty(tools: str, **options: Any) -> tuple[Scorecard, str]:
    with open_client([sys.executable, str(FAULTY), "--tools", tools], timeout=10) as client:
        card = grade_client(client, RunOptions(**options), lint_rules=[])
    return card, client.stderr_text  # after close: the stderr drain has read everything


def finding(card: Scorecard, code: str, tool: str | None = None) -> Any:
    matches = [f for f in card.findings if f.code == code and (tool is None or f.tool == tool)]
    assert matches, f"no {code} finding; got {[(f.code, f.tool) for f in card.findings]}"
    return matches[0]


def row(card: Scorecard, tool: str) -> Any:
    return next(t for t in card.tools if t.name == tool)


@pytest.mark.parametrize("concurrency", [1, 4])
def test_a_hanging_tool_costs_at_most_max_timeouts_times_the_timeout(concurrency: int) -> None:
    started = time.monotonic()
    card, stderr = grade_faulty("ok_echo,hang", timeout=0.5, max_timeouts=2, concurrency=concurrency)
    elapsed = time.monotonic() - started
    # 6 hanging scenarios would take 3 s; two timeouts then skip: ~1 s plus start-up.
    assert elapsed < 2.9, elapsed
    hang = row(card, "hang")
    assert (hang.passed, hang.run) == (0, 2) and hang.skipped == "skipped after 2 timeouts"
    assert row(card, "ok_echo").passed == 6
    assert finding(card, "tool-timeout", "hang").severity == "error"
    # every timed-out request was cancelled with notifications/cancelled
    assert stderr.count("cancelled ") == 2


def test_the_deadline_bounds_the_whole_run() -> None:
    started = time.monotonic()
    card, _ = grade_faulty("hang,ok_echo", timeout=5, deadline=1.0, max_timeouts=5)
    assert time.monotonic() - started < 3.5
    assert finding(card, "deadline-reached").severity == "warning"
    assert not card.complete


@pytest.mark.parametrize("concurrency", [1, 4])
def test_a_crash_restarts_the_server_and_is_blamed_on_the_right_call(concurrency: int) -> None:
    card, _ = grade_faulty("ok_echo,crash_negative,accept_all", concurrency=concurrency, timeout=3)
    crash = finding(card, "server-crash")
    assert crash.tool == "crash_negative"
    assert '"n": -1' in crash.evidence and crash.details["count"] == 1
    failed = [(r.scenario.tool, r.scenario.kind) for r in card.results if r.problem == "server-crash"]
    assert failed == [("crash_negative", "out_of_range")]
    # the run went on after the restart: every other scenario got an answer
    assert row(card, "crash_negative").passed == 5 and row(card, "ok_echo").passed == 6
    assert len(card.results) == 18


def test_a_server_that_cannot_be_restarted_ends_the_run_with_a_capped_grade(tmp_path: Path) -> None:
    marker = tmp_path / "crashed"
    started = time.monotonic()
    argv = [sys.executable, str(FAULTY), "--tools", "ok_echo,crash_negative", "--no-restart", str(marker)]
    with open_client(argv, timeout=10) as client:
        card = grade_client(client, RunOptions(timeout=3), lint_rules=[])
    assert time.monotonic() - started < 10
    assert marker.exists()
    gone = finding(card, "server-unrecoverable")
    assert "could not be restarted" in gone.message
    assert card.grade in ("D", "F") and not card.complete
    assert card.top_issues[0].code == "server-unrecoverable"


def test_silent_acceptance_and_errors_reported_as_success_are_findings() -> None:
    card, _ = grade_faulty("accept_all,error_success")
    accepts = finding(card, "accepts-invalid-input", "accept_all")
    assert accepts.severity == "warning" and accepts.details["count"] == 3
    assert row(card, "accept_all").passed == 3  # its happy path is fine
    as_success = finding(card, "error-reported-as-success", "error_success")
    assert "database is locked" in as_success.message
    assert row(card, "error_success").passed == 0
    assert card.happy == 0.5


def test_an_oversized_answer_is_a_finding() -> None:
    card, _ = grade_faulty("huge", max_result_bytes=1_000_000)
    big = finding(card, "oversized-answer", "huge")
    assert "2,000,0" in big.message
    assert card.happy == 0.0  # every valid call answered 2 MB


def test_a_schema_the_generator_cannot_read_costs_that_tool_a_finding_only() -> None:
    card, _ = grade_faulty("weird_schema,ok_echo")
    unsupported = [f for f in card.findings if f.code == "scenario-unsupported-schema"]
    assert {f.tool for f in unsupported} == {"weird_schema"} and len(unsupported) == 2
    assert row(card, "weird_schema").run > 0  # its edge cases still ran
    assert row(card, "ok_echo").passed == 6


def test_annotations_are_checked_against_behaviour() -> None:
    card, _ = grade_faulty("counter,ok_echo")
    assert finding(card, "annotation-idempotent-mismatch", "counter").severity == "warning"


def test_a_read_only_tool_that_changes_state_is_a_finding() -> None:
    card, _ = grade_faulty("bump,stats")
    mutates = [f for f in card.findings if f.code == "annotation-readonly-mutates"]
    assert [f.tool for f in mutates] == ["bump"]
    assert "stats" in mutates[0].message


def test_a_malformed_result_is_a_protocol_violation() -> None:
    card, _ = grade_faulty("bad_shape,ok_echo")
    violation = finding(card, "protocol-violation", "bad_shape")
    assert violation.severity == "error" and "'content' is not a list" in violation.message
    assert card.top_issues[0].code == "protocol-violation"


def test_destructive_tools_are_only_called_when_allowed() -> None:
    with open_client([sys.executable, "-m", "toolscore_mcp.sample_server"], timeout=10) as client:
        card = grade_client(client, RunOptions(), lint_rules=[])
    delete = row(card, "delete_note")
    assert delete.run == 0 and delete.skipped is not None and "destructive" in delete.skipped
    assert not [r for r in card.results if r.scenario.tool == "delete_note"]
    assert finding(card, "destructive-not-called", "delete_note").severity == "info"
    assert "delete_note" not in [f.tool for f in card.top_issues]
