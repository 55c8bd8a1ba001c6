"""One-line checks for any test framework: ``assert_tools``, ``test_agent``, ``test_agent_async``.

A failing check raises :class:`ToolscoreAssertionError`, an ``AssertionError``, so pytest,
unittest and plain scripts all report it as a test failure. The message is the whole
diagnosis (the aligned expected-vs-actual table with what differs in each row, the score
against the bar, the metrics behind it, and tips that follow from what went wrong),
because a CI log is often the only thing a person sees. It is coloured only when standard
output is a terminal, never in captured output or CI logs.
"""

from __future__ import annotations

import asyncio
import inspect
import io
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from toolscore_core.kernel.model import Evaluation

# The pass-bar rule lives with grades and verdicts (reports use it too, and must not import
# this module); it stays importable from here, where the test-suite API first exported it.
from toolscore_core.scoring.verdict import below_bar

DEFAULT_MIN_SCORE = 0.9
MAX_ROWS = 30
MESSAGE_WIDTH = 100


class ToolscoreAssertionError(AssertionError):
    """The agent's tool calls missed the bar; ``evaluation`` holds the full result."""

    def __init__(self, message: str, evaluation: Evaluation | None = None) -> None:
        super().__init__(message)
        self.evaluation = evaluation


#: tool-scorer 1.10.0's spelling, so ``except ToolScoreAssertionError`` in moved tests works.
ToolScoreAssertionError = ToolscoreAssertionError


def _pair(score: float, bar: float) -> tuple[str, str]:
    """Two-decimal renderings of score and bar, with a third decimal when they would tie."""
    shown, need = f"{score:.2f}", f"{bar:.2f}"
    if shown == need:
        shown, need = f"{score:.3f}", f"{bar:.3f}"
    return shown, need


def score_line(evaluation: Evaluation, min_score: float | None) -> str:
    """``score 0.47 < 0.90 required  ·  selection 0.50  ·  args 0.40  ·  sequence 0.50``."""
    if min_score is None:
        head = f"score {evaluation.score:.2f}"
    else:
        shown, need = _pair(evaluation.score, min_score)
        relation = "<" if below_bar(evaluation.score, min_score) else ">="
        head = f"score {shown} {relation} {need} required"
    parts = [head, f"selection {evaluation.selection_accuracy:.2f}", f"args {evaluation.argument_f1:.2f}",
             f"sequence {evaluation.sequence_accuracy:.2f}"]
    return "  ·  ".join(parts)


def tips(evaluation: Evaluation, rows: Sequence[Any]) -> list[str]:
    """Advice that follows from what actually went wrong, most useful first."""
    out: list[str] = []
    statuses = {r.status for r in rows}
    tool_swaps = any(p.startswith("tool:") for r in rows for p in r.problems)
    arg_problems = any(not p.startswith("tool:") for r in rows for p in r.problems)
    if "missing" in statuses or tool_swaps:
        out.append("Check that your agent has access to all required tools")
        out.append("Verify tool names match exactly (case-sensitive)")
    if arg_problems:
        out.append("Loosen arguments that may vary with matchers: ANY, OneOf, Approx, Regex, Contains")
    if "unexpected" in statuses:
        out.append("Extra calls lower the score: look for retries, loops or exploratory calls")
    if evaluation.selection_accuracy >= 1.0 and evaluation.sequence_accuracy < 1.0 and "missing" not in statuses:
        out.append("The calls came in a different order: if order does not matter, use mode='unordered'")
    if evaluation.policy_violations:
        out.append("Forbidden calls fail the check whatever the score: remove or guard them")
    if any(f.code in {"failed-calls", "blind-retry", "required-call-failed"} for f in evaluation.findings):
        out.append("Some calls failed: see evaluation.findings for the errors")
    return out


def failure_message(evaluation: Evaluation, min_score: float | None, *, color: bool | None = None) -> str:
    """The readable diagnosis put into :class:`ToolscoreAssertionError`."""
    from toolscore_core.reports.alignment import align, problem_rows
    from toolscore_core.reports.console import calls_table, make_console
    from toolscore_core.reports.summary import SCORING_CODES, finding_text, severity_label
    from toolscore_core.reports.text import safe_text

    if color is None:
        color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    buffer = io.StringIO()
    console = make_console(buffer, color=color, width=MESSAGE_WIDTH)
    rows = align(evaluation, call_limit=MESSAGE_WIDTH)
    shown, left_out = problem_rows(rows, MAX_ROWS)
    if shown:
        console.print(calls_table(shown, left_out))
    console.print(score_line(evaluation, min_score))
    if evaluation.policy_violations:
        console.print()
        console.print("Forbidden calls:")
        for violation in evaluation.policy_violations[:MAX_ROWS]:
            index = violation.get("index")
            where = f"call {index + 1} " if isinstance(index, int) else ""
            reason = violation.get("reason") or f"forbidden rule {violation.get('rule', 0) + 1}"
            console.print(f"  • {where}{safe_text(violation.get('tool'), 60)}: {safe_text(reason, 200)}")
    # Errors the table does not already show (a credential in the arguments, a plugin's own).
    errors = [f for f in evaluation.findings
              if f.severity == "error" and f.code != "forbidden-call" and f.code not in SCORING_CODES]
    if errors:
        console.print()
        for finding in errors[:10]:
            console.print(f"  {severity_label(finding):<8} {finding_text(finding)}")
    advice = tips(evaluation, rows)
    if advice:
        console.print()
        console.print("Tips:")
        for tip in advice:
            console.print(f"  • {tip}")
    return "\n" + buffer.getvalue().rstrip() + "\n"


def check(evaluation: Evaluation, min_score: float | None) -> Evaluation:
    """Raise :class:`ToolscoreAssertionError` when ``evaluation`` misses the bar or broke a
    forbidden rule; otherwise return it."""
    if below_bar(evaluation.score, min_score) or evaluation.policy_violations:
        raise ToolscoreAssertionError(failure_message(evaluation, min_score), evaluation)
    return evaluation


def assert_tools(expected: Any, actual: Any, min_score: float | None = DEFAULT_MIN_SCORE,
                 **evaluate_kwargs: Any) -> Evaluation:
    """Evaluate ``actual`` against ``expected`` and fail unless the score reaches ``min_score``.

    ``actual`` is anything :func:`toolscore.load_trace` reads (a list of call dicts, an SDK
    response, a trace file path). Extra keyword arguments go to :func:`toolscore.evaluate`
    (``forbidden=``, ``weights=``, ``mode=``, ``format=``). A forbidden call fails the check
    whatever the score. Returns the :class:`~toolscore_core.kernel.model.Evaluation` on success::

        assert_tools([{"tool": "get_weather", "args": {"city": "NYC"}}], response, min_score=0.9)
    """
    from toolscore_core.scoring.evaluation import evaluate

    evaluation = evaluate(expected, actual, min_score=min_score, **evaluate_kwargs)
    return check(evaluation, min_score)


def _call_agent(agent: Callable[..., Any], prompt: Any, expected: Any, min_score: float | None,
                evaluate_kwargs: dict[str, Any]) -> Any:
    """Check every argument, then call the agent: a bad argument must not cost a paid call."""
    from toolscore_core.scoring.preflight import check_before_calling

    check_before_calling(agent, expected, min_score, evaluate_kwargs)
    return agent(prompt)


def test_agent(agent: Callable[..., Any], input: Any, expected: Any,
               min_score: float | None = DEFAULT_MIN_SCORE, **evaluate_kwargs: Any) -> Evaluation:
    """Run ``agent(input)`` and check its tool calls: :func:`assert_tools` in one step.

    The response may be anything the adapters read (an OpenAI or Anthropic response, a
    LangGraph state, a list of call dicts ...). An ``async`` agent is run to completion
    when no event loop is running; inside one, use :func:`test_agent_async`.
    """
    response = _call_agent(agent, input, expected, min_score, evaluate_kwargs)
    if inspect.isawaitable(response):
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            response = asyncio.run(_await(response))
        else:
            if inspect.iscoroutine(response):
                response.close()
            raise TypeError("the agent returned an awaitable inside a running event loop: "
                            "use `await test_agent_async(...)`")
    return assert_tools(expected, response, min_score, **evaluate_kwargs)


async def _await(awaitable: Any) -> Any:
    return await awaitable


async def test_agent_async(agent: Callable[..., Any], input: Any, expected: Any,
                           min_score: float | None = DEFAULT_MIN_SCORE, **evaluate_kwargs: Any) -> Evaluation:
    """``await``-able :func:`test_agent`: the agent may be sync or async."""
    response = _call_agent(agent, input, expected, min_score, evaluate_kwargs)
    if inspect.isawaitable(response):
        response = await response
    return assert_tools(expected, response, min_score, **evaluate_kwargs)


# Users import these into test modules; their names start with "test" but they are helpers.
test_agent.__test__ = False  # type: ignore[attr-defined]
test_agent_async.__test__ = False  # type: ignore[attr-defined]

__all__ = [
    "DEFAULT_MIN_SCORE",
    "ToolScoreAssertionError",
    "ToolscoreAssertionError",
    "assert_tools",
    "below_bar",
    "check",
    "failure_message",
    "score_line",
    "test_agent",
    "test_agent_async",
    "tips",
]
