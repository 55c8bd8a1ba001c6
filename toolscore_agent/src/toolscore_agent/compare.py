"""``compare_runs``: what a study's rows say about its arms, and how sure that is.

Decisions a user can rely on:

- **One row per cell.** Files are read in the order given and the last row of a cell wins
  (a resumed or retried cell counts once), the kernel's ``latest_rows`` rule.
- **Every run stays in every population.** An ``error`` or ``unknown`` run is in the
  denominator of its arm's pass rate: dropping them would let an arm that crashes on hard
  tasks look better than one that tries and fails.
- **Unknown cost is not zero.** Mean cost and cost per pass are null when any run of the
  population has an unknown cost, and the number of such runs is reported.
- **The paired test is on tasks, not runs.** Two arms ran the same tasks; per task the arm
  with the higher pass rate "wins" it, ties are no evidence, and the exact sign test
  (McNemar's test when each task ran once) says whether the wins could be luck.
- **Streamed.** Rows are read a line at a time into one accumulator per task x arm (counts
  and sums only, which is all pass rates and pass^k need) plus one bit per cell, so memory
  does not grow with the rows or their calls. A retried cell (seen twice) makes a second
  pass over the files, so that its latest row counts (see ``_Cells``). For speed,
  a row is checked for the fields compare counts (identity, status, outcome, cost, usage,
  turns, calls, denials), each error naming the file, line and key, instead of being
  validated against the whole run-row schema (three times slower on large files).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from itertools import combinations
from pathlib import Path
from typing import Any

import attrs

from toolscore_agent.stats import (
    CONFIDENCE,
    difference_interval,
    pass_hat_k,
    sign_test,
    wilson_interval,
)
from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.jsonl import TornLine, iter_json_objects
from toolscore_core.kernel.runs import RUN_OUTCOMES, RUN_RECORD_VERSION, RUN_STATUSES

ALPHA = 0.05



@attrs.frozen(slots=True)
class Tally:
    """The aggregates of one population (an arm, or one task of one arm).

    ``pass_rate`` counts every run in its denominator; ``interval`` is its Wilson interval.
    ``mean_cost_usd`` and ``cost_per_pass_usd`` are None when any run's cost is unknown
    (``unknown_cost`` of them) and cost per pass also when nothing passed. Token totals
    leave out runs without reported usage (``unknown_usage``).
    """

    runs: int
    outcomes: dict[str, int]
    pass_rate: float | None
    interval: tuple[float, float]
    pass_hat_k: dict[int, float | None]
    total_cost_usd: float | None
    mean_cost_usd: float | None
    cost_per_pass_usd: float | None
    unknown_cost: int
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    unknown_usage: int
    turns: int
    mean_turns: float | None
    calls: int
    mean_calls: float | None
    guard_denials: int
    limit_stops: int
    budget_stops: int

    @property
    def passes(self) -> int:
        return self.outcomes["pass"]

    def to_dict(self) -> dict[str, Any]:
        data = attrs.asdict(self, recurse=False)
        data["interval"] = list(self.interval)
        data["pass_hat_k"] = {str(k): v for k, v in self.pass_hat_k.items()}
        return data


@attrs.frozen(slots=True)
class PairedTest:
    """Arm ``b`` against arm ``a`` on the tasks both ran.

    ``b_better`` / ``a_better`` count tasks where that arm's pass rate is higher; ``ties``
    the rest. ``p_value`` is the exact two-sided sign test on the untied tasks.
    ``difference`` is ``rate_b - rate_a`` over the runs of the shared tasks, with
    Newcombe's interval. ``unpaired_tasks`` ran in only one of the two arms (left out).
    """

    a: str
    b: str
    tasks: int
    b_better: int
    a_better: int
    ties: int
    p_value: float
    significant: bool
    difference: float | None
    interval: tuple[float, float] | None
    unpaired_tasks: tuple[str, ...]
    one_run_per_task: bool
    alpha: float = ALPHA

    @property
    def wording(self) -> str:
        """One sentence a user can act on, e.g. ``sonnet passes 4 more of 10 tasks; p = 0.13:
        not significant at 5 % (could be noise)``."""
        if self.tasks == 0:
            return f"{self.a} and {self.b} share no task: nothing to compare"
        level = f"{self.alpha * 100:g} %"
        if self.b_better == self.a_better == 0:
            return (f"{self.a} and {self.b} do equally well on all {self.tasks} task(s); "
                    f"no task separates them (p = 1)")
        lead, ahead, behind = ((self.b, self.b_better, self.a_better) if self.b_better >= self.a_better
                               else (self.a, self.a_better, self.b_better))
        if self.one_run_per_task:
            what = f"{lead} passes {ahead - behind} more of {self.tasks} tasks" if ahead != behind else \
                f"{self.a} and {self.b} each pass {ahead} task(s) the other fails, of {self.tasks}"
            if behind and ahead != behind:
                what += f" ({ahead} won, {behind} lost)"
        else:
            what = (f"{lead} has the higher pass rate on {ahead} of {self.tasks} tasks, "
                    f"the lower on {behind}")
        verdict = (f"significant at {level}" if self.significant
                   else f"not significant at {level} (could be noise)")
        return f"{what}; p = {format_p(self.p_value)}: {verdict}"

    def to_dict(self) -> dict[str, Any]:
        data = attrs.asdict(self, recurse=False)
        data["interval"] = list(self.interval) if self.interval is not None else None
        data["unpaired_tasks"] = list(self.unpaired_tasks)
        data["wording"] = self.wording
        return data


@attrs.frozen(slots=True)
class Comparison:
    """What :func:`compare_runs` returns: per arm, per task x arm, and the paired tests."""

    files: tuple[str, ...]
    rows: int
    superseded: int
    arms: dict[str, Tally]
    tasks: dict[str, dict[str, Tally]]  # task -> arm -> tally
    pairs: tuple[PairedTest, ...]
    confidence: float = CONFIDENCE
    torn: tuple[str, ...] = ()

    @property
    def cells(self) -> int:
        return self.rows - self.superseded

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": list(self.files), "rows": self.rows, "cells": self.cells, "superseded": self.superseded,
            "confidence": self.confidence, "torn": list(self.torn),
            "arms": {arm: tally.to_dict() for arm, tally in self.arms.items()},
            "tasks": {task: {arm: tally.to_dict() for arm, tally in arms.items()}
                      for task, arms in self.tasks.items()},
            "pairs": [pair.to_dict() for pair in self.pairs],
        }


def format_p(p: float) -> str:
    """Two decimals, three below 0.01, and ``< 0.001`` below that: enough to decide."""
    if p < 0.001:
        return "< 0.001"
    return f"{p:.3f}" if p < 0.01 else f"{p:.2f}"


# --- reading -----------------------------------------------------------------------------------------


def compare_runs(paths: str | Path | Iterable[str | Path], *, arms: Iterable[str] | None = None,
                 alpha: float = ALPHA, on_torn: Callable[[TornLine], None] | None = None) -> Comparison:
    """Aggregate the run rows in ``paths`` per arm and per task x arm, and test arm pairs.

    ``arms``: the two arms to test against each other (the first is ``a``, the baseline);
    by default every pair of arms, in sorted order. An arm id that is not in the rows is an
    InputError naming the ones that are.
    """
    files = [Path(paths)] if isinstance(paths, (str, Path)) else [Path(p) for p in paths]
    if not files:
        raise InputError("no runs file given", hint="Pass at least one runs.jsonl")
    wanted = tuple(arms) if arms is not None else None
    if wanted is not None and (len(wanted) != 2 or wanted[0] == wanted[1]):
        raise InputError(f"--arms takes two different arm ids, not {list(wanted)!r}",
                         hint="e.g. --arms haiku sonnet")
    torn: list[str] = []

    def torn_line(line: TornLine) -> None:
        torn.append(line.describe())
        if on_torn is not None:
            on_torn(line)

    cells = _Cells()
    for file in files:
        for number, data in iter_json_objects(file, on_torn=torn_line, what="a run row"):
            cells.add(data, file, number)
    if cells.retried:
        cells.recount((file, number, data) for file in files
                      for number, data in iter_json_objects(file, on_torn=_ignore_torn, what="a run row"))
    groups = cells.groups()
    arm_ids = sorted(cells.arms)
    if wanted is not None:
        missing = [arm for arm in wanted if arm not in cells.arms]
        if missing:
            raise InputError(f"arm {missing[0]!r} is not in the runs",
                             expected=f"one of {', '.join(arm_ids) or '(no arms: the files hold no rows)'}")
    task_tallies: dict[str, dict[str, Tally]] = {}
    arm_totals: dict[str, _Acc] = {arm: _Acc() for arm in arm_ids}
    arm_tasks: dict[str, list[tuple[int, int]]] = {arm: [] for arm in arm_ids}
    for task, arm in sorted(groups):
        acc = groups[task, arm]
        task_tallies.setdefault(task, {})[arm] = acc.tally([(acc.runs, acc.outcomes[0])])
        arm_totals[arm].merge(acc)
        arm_tasks[arm].append((acc.runs, acc.outcomes[0]))
    arm_tallies = {arm: arm_totals[arm].tally(arm_tasks[arm]) for arm in arm_ids}
    pairs = [wanted] if wanted is not None else list(combinations(arm_ids, 2))
    tests = tuple(_paired(a, b, task_tallies, alpha) for a, b in pairs)
    return Comparison(files=tuple(str(f) for f in files), rows=cells.rows, superseded=cells.rows - cells.distinct,
                      arms=arm_tallies, tasks=task_tallies, pairs=tests, torn=tuple(torn))


def _ignore_torn(line: TornLine) -> None:
    """The second reading of a file: its torn line was reported by the first."""


_OUTCOME_CODE = {name: code for code, name in enumerate(RUN_OUTCOMES)}  # "pass" is 0
_STATUS_CODE = {name: code for code, name in enumerate(RUN_STATUSES)}
_LIMIT, _BUDGET = _STATUS_CODE["limit_reached"], _STATUS_CODE["budget_stopped"]
_UNKNOWN = -1  # a count that was not reported (null)
_BITMAP_LIMIT = 1 << 20  # repetitions below this are one bit of their group's bitmap


class _Group:
    """One (task, arm): its running sums and which repetitions it has seen (one bit each)."""

    __slots__ = ("acc", "more", "seen")

    def __init__(self) -> None:
        self.acc = _Acc()
        self.seen = bytearray()
        self.more: set[int] | None = None  # repetitions too large for the bitmap

    def first_time(self, repetition: int) -> bool:
        """Mark ``repetition`` seen; True when it was not seen before."""
        if repetition >= _BITMAP_LIMIT:
            if self.more is None:
                self.more = set()
            if repetition in self.more:
                return False
            self.more.add(repetition)
            return True
        byte, bit = divmod(repetition, 8)
        if byte >= len(self.seen):
            self.seen.extend(bytes(byte + 1 - len(self.seen)))
        if self.seen[byte] >> bit & 1:
            return False
        self.seen[byte] |= 1 << bit
        return True


_Values = tuple[int, int, float, tuple[int, ...]]  # outcome code, status code, cost (NaN: unknown), counts


class _Cells:
    """Rows streamed into one accumulator per (task, arm), so memory does not grow with rows.

    What is kept per cell is one bit (its repetition was seen), so a retried cell is noticed.
    A file with no retried cell is read once. When a cell appears twice, its latest row
    must count instead of its first, so the values of the latest row of each retried cell
    are kept (a dict as large as the retried cells, not the rows) and :meth:`recount`
    reads the files a second time, adding every cell once, at its first row's place and
    with its latest row's values: exactly the sums in the order a one-slot-per-cell table
    gives, so the reports do not depend on how the rows were read.
    """

    def __init__(self) -> None:
        self.tasks: dict[str, int] = {}
        self.arms: dict[str, int] = {}
        self.by_index: dict[tuple[int, int], _Group] = {}
        self.latest: dict[tuple[int, int, int], _Values] = {}  # retried cells only
        self.rows = 0
        self.distinct = 0

    def _cell(self, data: dict[str, Any], file: Path,
              number: int) -> tuple[_Group, tuple[int, int, int], _Values]:
        task, arm, repetition, outcome, status, cost, counts = _fields(data, file, number)
        task_index = self.tasks.setdefault(task, len(self.tasks))
        arm_index = self.arms.setdefault(arm, len(self.arms))
        group = self.by_index.get((task_index, arm_index))
        if group is None:
            group = self.by_index[task_index, arm_index] = _Group()
        values = (_OUTCOME_CODE[outcome], _STATUS_CODE[status], math.nan if cost is None else float(cost), counts)
        return group, (task_index, arm_index, repetition), values

    def add(self, data: dict[str, Any], file: Path, number: int) -> None:
        group, key, values = self._cell(data, file, number)
        self.rows += 1
        if group.first_time(key[2]):
            self.distinct += 1
            group.acc.add(*values)
        else:  # a retried cell: its latest row wins
            self.latest[key] = values

    @property
    def retried(self) -> bool:
        return bool(self.latest)

    def recount(self, rows: Iterable[tuple[Path, int, dict[str, Any]]]) -> None:
        """Sum again from ``rows`` (the same files, read again), each cell once with its latest values."""
        for group in self.by_index.values():
            group.acc = _Acc()
        done: set[tuple[int, int, int]] = set()
        for file, number, data in rows:
            group, key, values = self._cell(data, file, number)
            if key in self.latest:
                if key in done:
                    continue
                done.add(key)
                values = self.latest[key]
            group.acc.add(*values)

    def groups(self) -> dict[tuple[str, str], _Acc]:
        """One accumulator per (task, arm)."""
        task_names = {index: name for name, index in self.tasks.items()}
        arm_names = {index: name for name, index in self.arms.items()}
        return {(task_names[t], arm_names[a]): group.acc for (t, a), group in self.by_index.items()}


def _bad(file: Path, number: int, key: str, message: str, expected: str) -> InputError:
    return InputError(message, file=file, location=f"line {number}, $.{key}", expected=expected)


def _fields(data: dict[str, Any], file: Path,
            number: int) -> tuple[str, str, int, str, str, float | None, tuple[int, ...]]:
    """The fields compare counts, each checked; an error names the file, line and key."""
    version = data.get("run_record_version", RUN_RECORD_VERSION)
    if version != RUN_RECORD_VERSION:
        raise _bad(file, number, "run_record_version", f"run_record_version {version!r} is not one this Toolscore reads",
                   f"run_record_version {RUN_RECORD_VERSION!r}")
    task, arm = data.get("task_id"), data.get("arm_id")
    for key, value in (("task_id", task), ("arm_id", arm)):
        if not isinstance(value, str) or not value or "::" in value:
            raise _bad(file, number, key, f"{key} is {value!r}, not a usable id", "a non-empty id without '::'")
    repetition = data.get("repetition")
    if isinstance(repetition, bool) or not isinstance(repetition, int) or repetition < 1:
        raise _bad(file, number, "repetition", f"repetition is {repetition!r}", "an integer from 1")
    cell = data.get("cell_id")
    if cell is not None and cell != f"{task}::{arm}::{repetition}":
        raise _bad(file, number, "cell_id", f"cell_id {cell!r} does not match task_id, arm_id and repetition",
                   repr(f"{task}::{arm}::{repetition}"))
    status, outcome = data.get("status"), data.get("outcome")
    if status not in _STATUS_CODE:
        raise _bad(file, number, "status", f"status {status!r} is not a run status", f"one of {', '.join(RUN_STATUSES)}")
    if outcome not in _OUTCOME_CODE:
        raise _bad(file, number, "outcome", f"outcome {outcome!r} is not a run outcome",
                   f"one of {', '.join(RUN_OUTCOMES)}")
    cost = data.get("cost_usd")
    if cost is not None and (isinstance(cost, bool) or not isinstance(cost, (int, float)) or not 0 <= cost < math.inf):
        raise _bad(file, number, "cost_usd", f"cost_usd is {cost!r}", "a number of at least 0, or null (unknown)")
    usage = data.get("usage") or {}
    if not isinstance(usage, Mapping):
        raise _bad(file, number, "usage", "usage is not an object", "an object of token counts")
    calls, denials = data.get("calls", []), data.get("guard_denials", [])
    for key, value in (("calls", calls), ("guard_denials", denials)):
        if not isinstance(value, list):
            raise _bad(file, number, key, f"{key} is not a list", "a list")
    counts = (_count(usage.get("input_tokens"), file, number, "usage.input_tokens"),
              _count(usage.get("output_tokens"), file, number, "usage.output_tokens"),
              _count(usage.get("cached_tokens"), file, number, "usage.cached_tokens"),
              _count(data.get("turns"), file, number, "turns"), len(calls), len(denials))
    return task, arm, repetition, outcome, status, cost, counts  # type: ignore[return-value]


def _count(value: Any, file: Path, number: int, key: str) -> int:
    if value is None:
        return _UNKNOWN
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _bad(file, number, key, f"{key} is {value!r}", "a whole number of at least 0, or null")
    return value


# --- aggregating -------------------------------------------------------------------------------------


class _Acc:
    """Running sums of one population; two of them merge (task x arm into arm)."""

    __slots__ = ("budget", "calls", "cost", "denials", "limit", "outcomes", "runs", "tokens", "turn_runs",
                 "turns", "unknown_cost", "unknown_usage")

    def __init__(self) -> None:
        self.runs = self.unknown_cost = self.unknown_usage = self.turns = self.turn_runs = 0
        self.calls = self.denials = self.limit = self.budget = 0
        self.cost = 0.0
        self.outcomes = [0] * len(RUN_OUTCOMES)
        self.tokens = [0, 0, 0]

    def add(self, outcome: int, status: int, cost: float, counts: tuple[int, ...]) -> None:
        input_tokens, output_tokens, cached, turns, calls, denials = counts
        self.runs += 1
        self.outcomes[outcome] += 1
        if math.isnan(cost):
            self.unknown_cost += 1
        else:
            self.cost += cost
        if input_tokens == output_tokens == _UNKNOWN:
            self.unknown_usage += 1
        for index, value in enumerate((input_tokens, output_tokens, cached)):
            if value != _UNKNOWN:
                self.tokens[index] += value
        if turns != _UNKNOWN:
            self.turns += turns
            self.turn_runs += 1
        self.calls += calls
        self.denials += denials
        self.limit += status == _LIMIT
        self.budget += status == _BUDGET

    def merge(self, other: _Acc) -> None:
        for name in ("runs", "unknown_cost", "unknown_usage", "turns", "turn_runs", "calls", "denials", "limit",
                     "budget", "cost"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.outcomes = [a + b for a, b in zip(self.outcomes, other.outcomes, strict=True)]
        self.tokens = [a + b for a, b in zip(self.tokens, other.tokens, strict=True)]

    def tally(self, per_task: list[tuple[int, int]]) -> Tally:
        runs, passes = self.runs, self.outcomes[0]
        total_cost = self.cost if not self.unknown_cost else None
        most = min((n for n, _ in per_task), default=0)
        return Tally(
            runs=runs, outcomes=dict(zip(RUN_OUTCOMES, self.outcomes, strict=True)), pass_rate=passes / runs if runs else None,
            interval=wilson_interval(passes, runs),
            pass_hat_k={k: pass_hat_k(per_task, k) for k in range(1, most + 1)},
            total_cost_usd=total_cost, mean_cost_usd=total_cost / runs if total_cost is not None and runs else None,
            cost_per_pass_usd=total_cost / passes if total_cost is not None and passes else None,
            unknown_cost=self.unknown_cost, input_tokens=self.tokens[0], output_tokens=self.tokens[1],
            cached_tokens=self.tokens[2], unknown_usage=self.unknown_usage, turns=self.turns,
            mean_turns=self.turns / self.turn_runs if self.turn_runs else None, calls=self.calls,
            mean_calls=self.calls / runs if runs else None, guard_denials=self.denials,
            limit_stops=self.limit, budget_stops=self.budget)


def _paired(a: str, b: str, tasks: dict[str, dict[str, Tally]], alpha: float) -> PairedTest:
    shared = [task for task, arms in tasks.items() if a in arms and b in arms]
    unpaired = tuple(task for task, arms in tasks.items() if (a in arms) != (b in arms))
    b_better = a_better = 0
    passes_a = runs_a = passes_b = runs_b = 0
    one_run = True
    for task in shared:
        ta, tb = tasks[task][a], tasks[task][b]
        rate_a, rate_b = ta.passes / ta.runs, tb.passes / tb.runs
        b_better += rate_b > rate_a
        a_better += rate_a > rate_b
        passes_a, runs_a, passes_b, runs_b = passes_a + ta.passes, runs_a + ta.runs, passes_b + tb.passes, runs_b + tb.runs
        one_run = one_run and ta.runs == tb.runs == 1
    p_value = sign_test(b_better, a_better)
    difference = interval = None
    if shared:
        difference = passes_b / runs_b - passes_a / runs_a
        interval = difference_interval(passes_a, runs_a, passes_b, runs_b)
    return PairedTest(a=a, b=b, tasks=len(shared), b_better=b_better, a_better=a_better,
                      ties=len(shared) - b_better - a_better, p_value=p_value, significant=p_value < alpha,
                      difference=difference, interval=interval, unpaired_tasks=unpaired,
                      one_run_per_task=one_run and bool(shared), alpha=alpha)


__all__ = ["ALPHA", "Comparison", "PairedTest", "Tally", "compare_runs", "format_p"]
