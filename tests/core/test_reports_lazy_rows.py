"""The calls table's rows, built only when read, equal the rows built eagerly (issue 12).

Why: a console report shows at most 20 problem rows, so ``summarize`` no longer builds all
of a 10k-call trace's rows (``AlignedRows``); which rows are problems and how many were
left out now come from the pairing's outline. These tests hold that to the table's old
eager construction, kept here as the oracle, on random evaluations (judged ones too), and
check that the console's cut builds only the rows it shows.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from toolscore_core import Judge, JudgeAnswer, JudgeQuestion
from toolscore_core.kernel.model import Evaluation, unread
from toolscore_core.reports import alignment
from toolscore_core.reports.alignment import AlignedRows, Row, align, any_problem, problem_rows
from toolscore_core.reports.summary import summarize
from toolscore_core.scoring.evaluation import evaluate

TOOLS = ("search", "book", "cancel", "web_search", "search_web")
MODES = (None, "strict", "in_order", "unordered", "subset", "superset")


class SynonymJudge(Judge):
    """Two values are equivalent when one synonym set holds both (so some rows are judged)."""

    name = "synonyms-lazy-rows"
    description = "equivalence from a fixed synonym table"
    GROUPS = (frozenset({"web_search", "search_web", "search"}), frozenset({"NYC", "New York"}))

    def decide(self, questions: Sequence[JudgeQuestion]) -> Sequence[JudgeAnswer]:
        return [JudgeAnswer(equivalent=any(q.expected in g and q.actual in g for g in self.GROUPS),
                            reason="synonym table") for q in questions]


def eager_align(evaluation: Evaluation, *, call_limit: int = 60) -> list[Row]:
    """The table as it was built before rows became lazy: every row, at once."""
    expected, actual = list(evaluation.expected), list(evaluation.actual.calls)
    by_expected, pair_at = alignment._paired(unread(evaluation, "pairs"))
    paired_actual = {found[0] for found in by_expected.values()}
    spare_actual = iter([i for i in range(len(actual)) if i not in paired_actual])
    judged = alignment._judged(evaluation)
    rows: list[Row] = []
    for e_index, call in enumerate(expected):
        found = by_expected.get(e_index)
        if found is not None and found[0] < len(actual):
            j, tool_match, mismatched, k = found
            got = actual[j]
            if tool_match and not mismatched and call.tool == got.tool and not judged:
                rows.append(Row(len(rows) + 1, e_index, j, call, got, "match", call_limit=call_limit))
                continue
            rows.append(alignment._paired_row(len(rows) + 1, e_index, call, j, got, pair_at(k), call_limit,
                                              judged.get((e_index, j))))
            continue
        a_index = next(spare_actual, None)
        if a_index is None:
            rows.append(Row(len(rows) + 1, e_index, None, call, None, "missing", call_limit=call_limit))
        else:
            rows.append(alignment._paired_row(len(rows) + 1, e_index, call, a_index, actual[a_index], None,
                                              call_limit))
    for a_index in spare_actual:
        rows.append(Row(len(rows) + 1, None, a_index, None, actual[a_index], "unexpected", call_limit=call_limit))
    return rows


def eager_problems(rows: list[Row], limit: int) -> tuple[list[Row], int]:
    """The old cut: all rows when few, else only the problems; and how many were left out."""
    shown = rows if len(rows) <= limit else [r for r in rows if not r.ok or r.call_failed or r.judged]
    return shown[:limit], len(shown) - min(len(shown), limit)


def _call(rng: random.Random) -> dict[str, Any]:
    call: dict[str, Any] = {"tool": rng.choice(TOOLS)}
    if rng.random() < 0.9:
        call["args"] = {name: rng.choice(["NYC", "New York", 1, 2, True, None, [1], {"a": 1}])
                        for name in rng.sample(["city", "page", "q", "x"], rng.randint(0, 3))}
    return call


def random_case(rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Expected calls and a trace that repeats, edits, drops, adds, fails and reorders them."""
    expected = [_call(rng) for _ in range(rng.randint(0, 40))]
    actual: list[dict[str, Any]] = []
    for call in expected:
        roll = rng.random()
        if roll < 0.15:
            continue
        got = dict(call) if roll < 0.6 else {**call, **_call(rng)}
        if rng.random() < 0.15:
            got.update(is_error=True, error="failed")
        actual.append(got)
    actual += [_call(rng) for _ in range(rng.randint(0, 6))]
    if rng.random() < 0.5:
        rng.shuffle(actual)
    return expected, actual


@pytest.mark.parametrize("seed", range(60))
def test_lazy_rows_equal_the_eager_rows_and_cut(seed: int) -> None:
    rng = random.Random(seed)
    expected, actual = random_case(rng)
    judge = SynonymJudge() if seed % 3 == 0 else None
    evaluation = evaluate(expected, actual, mode=rng.choice(MODES), judge=judge)
    eager = eager_align(evaluation, call_limit=40)
    for limit in (0, 1, 3, 20, len(eager), len(eager) + 1):
        lazy = AlignedRows(evaluation, call_limit=40)  # fresh: the cut must not lean on rows built before
        assert lazy.problems(limit) == eager_problems(eager, limit)
        assert problem_rows(lazy, limit) == eager_problems(eager, limit)
    fresh = AlignedRows(evaluation, call_limit=40)
    assert fresh.any_problem() == any(not r.ok or r.call_failed or r.judged for r in eager)
    assert any_problem(fresh) == any_problem(eager)
    backwards = AlignedRows(evaluation, call_limit=40)
    assert [backwards[n] for n in reversed(range(len(backwards)))] == eager[::-1]
    assert list(AlignedRows(evaluation, call_limit=40)) == eager == align(evaluation, call_limit=40)
    assert backwards[1:4] == eager[1:4] and (not eager or backwards[-1] == eager[-1])


def test_the_console_cut_of_a_long_trace_builds_only_the_rows_it_shows() -> None:
    n = 2000
    expected = [{"tool": f"tool_{i % 20}", "args": {"q": f"item {i}", "page": i % 7}} for i in range(n)]
    actual = [{"tool": c["tool"], "args": {**c["args"], "q": c["args"]["q"] + (" (edited)" if i % 10 == 3 else "")},
               "is_error": i % 100 == 11} for i, c in enumerate(expected)]
    data = summarize(evaluate(expected, actual))
    assert isinstance(data.rows, AlignedRows)
    shown, left_out = problem_rows(data.rows, 20)
    assert len(shown) == 20 and left_out == n // 10 + n // 100 - 20
    assert any_problem(data.rows)
    assert sum(row is not None for row in data.rows._built) == 20  # not the 2,000 rows of the table


def test_lazy_rows_compare_print_and_hash_as_the_tuple_they_replace() -> None:
    """``ReportData`` is a frozen attrs class: its equality, repr and hash read ``rows``."""
    from toolscore_core.reports.alignment import AlignedRows

    expected, actual = random_case(random.Random(7))
    evaluation = evaluate(expected, actual)
    lazy, eager = AlignedRows(evaluation), tuple(AlignedRows(evaluation))
    assert lazy == eager and eager == lazy and lazy == list(eager) and lazy == AlignedRows(evaluation)
    assert lazy != eager[:-1] and lazy != "rows"
    assert repr(AlignedRows(evaluation)) == repr(eager)
    for rows in (AlignedRows(evaluation), eager):  # a row holds its calls' argument dicts: neither hashes
        with pytest.raises(TypeError, match="unhashable"):
            hash(rows)
    assert summarize(evaluation) == summarize(evaluation)
