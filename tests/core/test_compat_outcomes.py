"""Call outcomes as a tool-scorer 1.10.0 user's call lists state them (issue 12, item 2).

A call with a result and no error succeeded; one with neither is unknown, never failed;
and a report row that marks an expected call "✓ match" says so when that call failed.
"""

from __future__ import annotations

import io

from toolscore_core import evaluate, load_trace
from toolscore_core.reports.markdown import render_markdown
from toolscore_core.reports.summary import required_line, summarize


def _calls(n: int, failing: set[int], *, with_results: bool) -> list[dict[str, object]]:
    calls: list[dict[str, object]] = []
    for i in range(n):
        call: dict[str, object] = {"tool": f"step_{i}", "args": {"i": i}}
        if i in failing:
            call["error"] = f"step {i} broke"
        elif with_results:
            call["result"] = "done"
        calls.append(call)
    return calls


def test_only_the_calls_that_carry_an_error_failed() -> None:
    gold = [{"tool": f"step_{i}", "args": {"i": i}} for i in range(100)]
    trace = _calls(100, failing={3, 50, 97}, with_results=False)
    result = evaluate(gold, trace)
    details = result.metrics["required_call_recall"]["details"]
    assert result.metrics["efficiency_metrics"]["error_count"] == 3
    assert (details["completed"], details["failed"], details["unknown_outcome"]) == (97, [3, 50, 97], 97)
    assert result.required_call_recall == 0.97
    assert required_line(summarize(result)).startswith("Required calls completed: 97 of 100")
    # unknown outcomes are not reported as failed required calls
    failed = [f for f in result.findings if f.code == "required-call-failed"]
    assert sorted(f.call_index for f in failed) == [3, 50, 97]


def test_a_call_with_a_result_and_no_error_succeeded() -> None:
    trace = load_trace(_calls(3, failing={1}, with_results=True))
    assert [c.is_error for c in trace.calls] == [False, True, False]
    assert [c.succeeded for c in trace.calls] == [True, False, True]
    unknown = load_trace([{"tool": "a", "args": {}}, {"tool": "b", "error": "x"}])
    assert [c.is_error for c in unknown.calls] == [None, True]


def test_a_matched_call_that_failed_says_so_in_its_row() -> None:
    gold = [{"tool": "search", "args": {"q": "x"}}, {"tool": "book", "args": {"id": 1}}]
    trace = [{"tool": "search", "args": {"q": "x"}, "result": "found"},
             {"tool": "book", "args": {"id": 1}, "error": "payment declined"}]
    result = evaluate(gold, trace)
    rows = summarize(result).rows
    assert [r.status_text() for r in rows] == ["✓ match", "✓ match, but the call failed: payment declined"]
    out = io.StringIO()
    render_markdown(result, out)
    row = next(line for line in out.getvalue().splitlines() if line.startswith("| 2 |"))
    assert "✓ match, but the call failed: payment declined" in row


def test_the_console_report_shows_the_failed_match_even_when_every_row_matches() -> None:
    from toolscore_core.reports.console import render_console

    result = evaluate([{"tool": "book"}], [{"tool": "book", "error": "payment declined"}])
    out = io.StringIO()
    render_console(result, out, color=False)
    assert "but the call failed: payment declined" in out.getvalue()


def test_a_denied_match_says_it_was_denied() -> None:
    result = evaluate([{"tool": "rm"}], [{"tool": "rm", "denied": True, "denied_reason": "policy"}])
    assert summarize(result).rows[0].status_text() == "✓ match, but the call was denied"
