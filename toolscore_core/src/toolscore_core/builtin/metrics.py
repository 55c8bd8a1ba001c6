"""The built-in metrics, registered through the same hook as third-party ones.

Each reads the evaluation context (one pairing per evaluation, see
:mod:`toolscore_core.scoring.pairing`) and returns a value in [0, 1]. Shared conventions, so an
empty run never earns vacuous credit:

- no expected and no actual calls: every metric is 1.0 (nothing was asked, nothing done);
- expected calls but no actual calls (or the reverse): 0.0.

Default weights (renormalised to sum 1 with whatever the user adds):
selection_accuracy 0.4, argument_f1 0.3, sequence_accuracy 0.2, redundancy 0.1;
required_call_recall 0 (opt-in: computed and reported, counted only when weighted).
"""

from __future__ import annotations

import bisect
from typing import Any, ClassVar

from toolscore_core.kernel.interfaces import Metric, MetricResult
from toolscore_core.kernel.plugins import hookimpl


def _empty_case(context: Any) -> float | None:
    n, m = len(context.expected), len(context.calls)
    if n == 0 and m == 0:
        return 1.0
    if n == 0 or m == 0:
        return 0.0
    return None


class SelectionAccuracy(Metric):
    """Share of the calls made whose tool the task expected (extra or wrong tools lower it)."""

    name: ClassVar[str] = "selection_accuracy"
    description: ClassVar[str] = "share of actual calls whose tool was expected"
    default_weight: ClassVar[float] = 0.4

    def compute(self, context: Any) -> MetricResult:
        tools = {e.tool for e in context.expected}
        right = sum([c.tool in tools for c in context.calls])  # a list of bools sums faster than a generator
        empty = _empty_case(context)
        value = empty if empty is not None else right / len(context.calls)
        return MetricResult(value=value, details={"right_tool_calls": right, "actual_calls": len(context.calls)})


class ArgumentF1(Metric):
    """F1 of argument matching over calls paired with the same tool.

    Recall counts every checked expected argument (also those of calls never made);
    precision counts the arguments of the actual calls paired with checked expectations
    (extra arguments lower it). ``args`` omitted = not checked; ``{}`` = one unit, met when
    the call had no arguments. When nothing is checked, a run with at least one same-tool
    pair scores 1.0 and one without scores 0.0.
    """

    name: ClassVar[str] = "argument_f1"
    description: ClassVar[str] = "F1 of matching arguments over same-tool pairs"
    default_weight: ClassVar[float] = 0.3

    def compute(self, context: Any) -> MetricResult:
        p = context.pairing
        precision = p.matched_units / p.actual_units if p.actual_units else None
        recall = p.matched_units / p.expected_units if p.expected_units else None
        details = {"matched": p.matched_units, "expected_units": p.expected_units,
                   "actual_units": p.actual_units, "precision": precision, "recall": recall}
        empty = _empty_case(context)
        if empty is not None:
            return MetricResult(value=empty, details=details)
        if precision is None and recall is None:
            value = 1.0 if p.paired_count else 0.0
        elif precision is None or recall is None:
            value = precision if recall is None else recall  # type: ignore[assignment]
        else:
            value = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return MetricResult(value=value, details=details)


class SequenceAccuracy(Metric):
    """Order of the calls, under the evaluation's mode (see :mod:`toolscore_core.scoring.modes`)."""

    name: ClassVar[str] = "sequence_accuracy"
    description: ClassVar[str] = "order of calls (LCS ratio, or the named mode's pass/fail)"
    default_weight: ClassVar[float] = 0.2

    def compute(self, context: Any) -> MetricResult:
        from toolscore_core.scoring.modes import sequence_score

        value, details = sequence_score(context.mode, context.expected, context.calls)
        return MetricResult(value=value, details=details)


class Redundancy(Metric):
    """Share of the calls made that were paired with an expected call: duplicates and
    extras lower it (1.0 = no redundant calls)."""

    name: ClassVar[str] = "redundancy"
    description: ClassVar[str] = "share of actual calls paired with an expected call (no extras or duplicates)"
    default_weight: ClassVar[float] = 0.1

    def compute(self, context: Any) -> MetricResult:
        paired = context.pairing.paired_count
        empty = _empty_case(context)
        value = empty if empty is not None else paired / len(context.calls)
        return MetricResult(value=value, details={"paired_calls": paired, "redundant_calls": len(context.calls) - paired})


class RequiredCallRecall(Metric):
    """Share of expected calls that were made and did not fail.

    An expected call counts when its paired actual call (same tool) is not known to have
    failed: not an error, not denied. A call whose outcome is unknown (``is_error=None``:
    neither a result nor an error was recorded) counts as completed and is listed under
    ``unknown``: an unrecorded outcome is not a failure, even when other calls of the trace
    do record theirs (a call list where only the failures carry ``error`` is common).

    A failed call that the agent retried is completed by the retry: when the paired call
    failed and a later call of the same tool that no expected call was paired with did not
    fail, the expected call counts as completed and is listed under ``retried`` (a timeout
    then a successful second attempt is the agent recovering, not a missing call).
    """

    name: ClassVar[str] = "required_call_recall"
    description: ClassVar[str] = "share of expected calls made and succeeded (opt-in)"
    default_weight: ClassVar[float] = 0.0

    def compute(self, context: Any) -> MetricResult:
        calls = context.calls
        pairs = context.pairing.expected_to_actual
        missing = _none_positions(pairs)
        failed: list[int] = []
        retried: list[int] = []
        unknown = 0
        retries: _Retries | None = None  # built at the first failure: a clean trace never pays for it
        for i, j in _odd_pairs(calls, context.pairing.actual_to_expected):
            call = calls[j]
            ok = call.is_error is not True and not call.denied
            if not ok:
                retries = retries or _Retries(calls, _none_positions(context.pairing.actual_to_expected))
                retry = retries.take(call.tool, j)
                if retry is not None:
                    retried.append(i)
                    call, ok = calls[retry], True
            if not ok:
                failed.append(i)
            elif call.is_error is None:
                unknown += 1
        n = len(context.expected)
        completed = n - len(missing) - len(failed)
        value = 1.0 if n == 0 else completed / n
        details = {"completed": completed, "required": n, "missing": missing[:50], "failed": failed[:50],
                   "unknown_outcome": unknown, "outcomes_recorded": context.outcomes_recorded}
        if retried:  # only when it happened: evaluations without retries keep their exact bytes
            details["retried"] = retried[:50]
        return MetricResult(value=value, details=details)


def _none_positions(partners: tuple[int | None, ...]) -> list[int]:
    """The positions holding None, in order: the expected calls paired with no call, or the
    calls paired with no expected call.

    Why ``index``: a C-level search per unpaired call instead of a Python step per pair (a
    10k-call trace usually leaves a few unpaired)."""
    found: list[int] = []
    at = -1
    try:
        while True:
            at = partners.index(None, at + 1)
            found.append(at)
    except ValueError:
        return found


def _odd_pairs(calls: Any, actual_to_expected: tuple[int | None, ...]) -> list[tuple[int, int]]:
    """``(expected index, call index)`` of the paired calls not plainly successful (failed,
    denied or of unknown outcome), in expected order.

    Why: every other pair is a completed call with a recorded outcome, which only counts;
    visiting just these spares a step per pair. Expected order matters: retries are handed
    out in it. Reads the pairing from the calls' side, which :class:`Pairing` keeps the
    exact inverse of ``expected_to_actual``."""
    odd = [j for j, call in enumerate(calls) if call.is_error is not False or call.denied]
    return sorted([(i, j) for j in odd if (i := actual_to_expected[j]) is not None])


class _Retries:
    """The spare calls that did not fail, per tool in trace order, each handed out once.

    Why: a failed call's retry is the first later spare call of its tool that did not fail;
    scanning the trace from the failed call on for each failure cost O(failures x calls)
    (a 10k-call trace with 100 failures spent more there than in all other metrics). Here
    each lookup is a bisection plus a skip over calls already taken, which a union-find
    (next untaken position, paths halved) keeps near constant.
    """

    def __init__(self, calls: Any, spare: list[int]) -> None:
        """``spare``: the positions of the calls paired with no expected call, in trace order
        (visiting only them, not the whole trace, keeps a trace with one failure cheap)."""
        by_tool: dict[str, list[int]] = {}
        for k in spare:
            call = calls[k]
            if call.is_error is not True and not call.denied:
                by_tool.setdefault(call.tool, []).append(k)
        self._by_tool = by_tool
        self._next: dict[str, list[int]] = {}  # per tool: position -> a position at or after it not yet taken

    def take(self, tool: str, failed_at: int) -> int | None:
        """The first untaken spare success of ``tool`` after ``failed_at``, now taken; None if none."""
        positions = self._by_tool.get(tool)
        if not positions:
            return None
        nxt = self._next.get(tool)
        if nxt is None:
            nxt = self._next[tool] = list(range(len(positions) + 1))
        p = bisect.bisect_right(positions, failed_at)
        while nxt[p] != p:
            nxt[p] = nxt[nxt[p]]
            p = nxt[p]
        if p == len(positions):
            return None
        nxt[p] = p + 1
        return positions[p]


BUILTIN_METRICS: tuple[type[Metric], ...] = (
    SelectionAccuracy, ArgumentF1, SequenceAccuracy, Redundancy, RequiredCallRecall,
)


@hookimpl
def toolscore_register_metrics() -> list[type[Metric]]:
    return list(BUILTIN_METRICS)
