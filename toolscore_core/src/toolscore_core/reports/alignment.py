"""The expected-vs-actual table every report shows, computed once from an Evaluation.

The evaluation's pairing says which actual call answers which expected call. A report
needs more: one row per expected call in order, the actual calls nobody expected, and for
each row what exactly differs (``destination: 'NYC' ≠ 'BOS'``). Expected and actual calls
left unpaired side by side are shown on one row (``tool: 'book_flight' ≠
'cancel_booking'``), because that is how a person reads "it called the wrong tool".
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from operator import itemgetter
from typing import Any, Literal

import attrs

from toolscore_core.kernel.model import CallPair, Evaluation, ExpectedCall, ToolCall, unread
from toolscore_core.reports.text import format_call, format_value, redact

RowStatus = Literal["match", "mismatch", "missing", "unexpected"]
FULL = 1.0 - 1e-9


@attrs.frozen
class Row:
    """One line of the table: an expected call, the actual call shown against it, and why."""

    number: int
    expected_index: int | None
    actual_index: int | None
    expected_call: ExpectedCall | None
    actual_call: ToolCall | None
    status: RowStatus
    problems: tuple[str, ...] = ()
    call_limit: int = 60
    judged: str = ""  # what a judge decided for this row, with its reason ("" when nothing)

    # The calls are rendered only when a report shows the row: a 100k-call trace must not
    # pay for formatting (and scanning for credentials) rows nobody will see.
    @property
    def expected(self) -> str:
        """The expected call as text, "" when there is none."""
        return "" if self.expected_call is None else render_expected(self.expected_call, self.call_limit)

    @property
    def actual(self) -> str:
        """The actual call as text, "" when there is none."""
        return "" if self.actual_call is None else render_actual(self.actual_call, self.call_limit)

    @property
    def ok(self) -> bool:
        return self.status == "match"

    @property
    def call_failed(self) -> bool:
        """The actual call answers the expectation but is known to have failed or been denied:
        a "✓ match" alone would hide that the answer the agent got was an error."""
        call = self.actual_call
        return call is not None and (call.is_error is True or call.denied)

    def status_text(self) -> str:
        if self.status == "match":
            call = self.actual_call
            if call is not None and call.denied:
                return "✓ match, but the call was denied"
            if call is not None and call.is_error is True:
                from toolscore_core.reports.text import visible

                detail = visible(call.error or call.result, 80) if (call.error or call.result) else ""
                return "✓ match, but the call failed" + (f": {detail}" if detail else "")
            return f"✓ {self.judged}" if self.judged else "✓ match"
        if self.status == "missing":
            return "missing: never called"
        if self.status == "unexpected":
            where = f" (call {self.actual_index + 1})" if self.actual_index is not None else ""
            return f"unexpected call{where}"
        return "; ".join(self.problems) or "partial match"


def render_expected(call: ExpectedCall, limit: int) -> str:
    return format_call(call.tool, call.args, limit=limit, unchecked=call.args is None)


def render_actual(call: ToolCall, limit: int) -> str:
    text = format_call(call.tool, call.args, limit=limit, unchecked=call.args is None)
    return text


def _argument_problems(expected: ExpectedCall, actual: ToolCall, pair: CallPair | None) -> list[str]:
    """``name: 'want' ≠ 'got'`` for each argument that did not fully match."""
    if pair is not None and pair.tool_match:
        # The pairing already explained every argument of a same-tool pair (redacted).
        return [_describe_mismatch(m) for m in pair.mismatches]
    if expected.args is None:
        return []
    got = actual.args or {}
    scores = pair.argument_scores if pair is not None else {}
    problems: list[str] = []
    for name, want in expected.args.items():
        if name not in got:
            problems.append(f"{redact(name)}: missing (want {format_value(redact(want), 30)})")
            continue
        score = scores.get(name)
        matched = _plain_equal(want, got[name]) if score is None else score >= FULL
        if not matched:
            problems.append(f"{redact(name)}: {format_value(redact(want), 30)} ≠ "
                            f"{format_value(redact(got[name]), 30)}")
    for name, value in got.items():
        if name not in expected.args:
            problems.append(f"{redact(name)}: not expected ({format_value(redact(value), 30)})")
    return problems


def _describe_mismatch(item: dict[str, str]) -> str:
    """One of the pairing's own (already redacted) argument problems, as a table line."""
    name = item.get("argument", "?")
    problem = item.get("problem")
    want, got = item.get("expected"), item.get("actual")
    if problem == "missing":
        return f"{name}: missing (want {want})" if want is not None else f"{name}: missing"
    if problem == "unexpected":
        return f"{name}: not expected ({got})" if got is not None else f"{name}: not expected"
    if problem == "mismatch":
        return f"{name}: {want} ≠ {got}"
    return f"{name}: {problem}"


def _plain_equal(want: Any, got: Any) -> bool:
    # Used only when the pairing did not score an argument: the scorer's own comparison.
    from toolscore_core.scoring.matchers import matches

    return matches(want, got)


def align(evaluation: Evaluation, *, call_limit: int = 60) -> list[Row]:
    """Rows in expected order; unpaired actual calls fill unpaired expected rows, then trail."""
    return list(AlignedRows(evaluation, call_limit=call_limit))


# One planned row: (kind, expected index, actual index, pairing row number, shown), where
# shown says whether a report lists the row among its problems (None: only the row can say).
_Step = tuple[str, int | None, int | None, int | None, bool | None]


class AlignedRows(Sequence[Row]):
    """The rows :func:`align` returns, each built only when read.

    Why: a report shows at most a few dozen rows (the problems, when there are many), yet a
    10k-call trace has 10k rows, and building them all (the pairing's explanation of every
    mismatch included) was most of a console report's time. The plan says, for nearly every
    row, whether it is a problem without building it, so :meth:`problems` builds only the
    rows shown and counts the others. Read whole, it equals :func:`align`, row for row.
    """

    def __init__(self, evaluation: Evaluation, *, call_limit: int = 60) -> None:
        self._expected = list(evaluation.expected)
        self._actual = list(evaluation.actual.calls)
        self._limit = call_limit
        by_expected, self._pair_at = _paired(unread(evaluation, "pairs"))
        self._judged = _judged(evaluation)
        self._steps = _plan(self._expected, self._actual, by_expected, self._judged)
        self._built: list[Row | None] = [None] * len(self._steps)

    def __len__(self) -> int:
        return len(self._steps)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return self._row(range(len(self))[index])

    def __iter__(self) -> Iterator[Row]:
        return (self._row(n) for n in range(len(self._steps)))

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence of the same rows, as the tuple it replaces was, so a
        ``ReportData`` still compares by value."""
        if isinstance(other, (AlignedRows, tuple, list)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))

    def _row(self, n: int) -> Row:
        """Row ``n`` (0-based), built once."""
        row = self._built[n]
        if row is None:
            row = self._built[n] = self._build(n)
        return row

    def _build(self, n: int) -> Row:
        """Row ``n`` exactly as the table has always built it."""
        kind, e_index, a_index, k, _shown = self._steps[n]
        number, limit = n + 1, self._limit
        if kind == "unexpected":
            assert a_index is not None
            return Row(number, None, a_index, None, self._actual[a_index], "unexpected", call_limit=limit)
        assert e_index is not None
        call = self._expected[e_index]
        if kind == "missing":
            return Row(number, e_index, None, call, None, "missing", call_limit=limit)
        assert a_index is not None
        got = self._actual[a_index]
        if kind == "match":
            return _match_row(number, e_index, call, a_index, got, limit)
        if kind == "spare":
            return _paired_row(number, e_index, call, a_index, got, None, limit)
        assert k is not None
        return _paired_row(number, e_index, call, a_index, got, self._pair_at(k), limit,
                           self._judged.get((e_index, a_index)))

    def _shown(self, n: int) -> bool:
        """Whether row ``n`` is a problem a report lists (built only when the plan cannot say)."""
        shown = self._steps[n][4]
        return _worth_showing(self._row(n)) if shown is None else shown

    def problems(self, limit: int) -> tuple[list[Row], int]:
        """What :func:`problem_rows` gives, building only the rows it returns (and those whose
        status only the row itself tells)."""
        if len(self) <= limit:
            return list(self), 0
        shown = list(self._shown_rows())
        return [self._row(n) for n in shown[:limit]], len(shown) - min(len(shown), limit)

    def any_problem(self) -> bool:
        """Whether any row is worth showing, without building the rows the plan vouches for."""
        return next(self._shown_rows(), None) is not None

    def _shown_rows(self) -> Iterator[int]:
        """The numbers (0-based) of the rows :meth:`_shown` keeps, in order.

        Why not ``n for n in range(len(self)) if self._shown(n)``: that is a method call per
        row, a third of the console report's cut of a 10k-call trace; the plan's own answer
        is read inline here, and a row is built only where the plan left it to the row.
        """
        row = self._row
        return (n for n, step in enumerate(self._steps)
                if (step[4] if step[4] is not None else _worth_showing(row(n))))


def _plan(expected: list[ExpectedCall], actual: list[ToolCall], by_expected: dict[int, tuple[int, bool, bool, int]],
          judged: dict[tuple[int, int], tuple[bool, str]]) -> list[_Step]:
    """Each row's step, in the table's order: the same choices :func:`align` has always made.

    Unpaired actual calls fill unpaired expected rows, then trail as unexpected calls."""
    paired_actual = set(map(itemgetter(0), by_expected.values()))
    # a trace whose every call is paired (the usual case) has no spare call to look for
    spare_actual = iter([] if paired_actual.issuperset(range(len(actual))) else
                        [i for i in range(len(actual)) if i not in paired_actual])
    steps: list[_Step] = []
    append = steps.append
    for e_index, call in enumerate(expected):
        found = by_expected.get(e_index)
        if found is not None and found[0] < len(actual):
            j, tool_match, mismatched, k = found
            got = actual[j]
            if tool_match and not mismatched and call.tool == got.tool and not judged:
                append(("match", e_index, j, k, got.is_error is True or got.denied))
            else:
                append(("pair", e_index, j, k, _pair_shown(call, got, tool_match, mismatched, judged)))
            continue
        a_index = next(spare_actual, None)
        if a_index is None:
            append(("missing", e_index, None, None, True))
        else:
            append(("spare", e_index, a_index, None, True if call.tool != actual[a_index].tool else None))
    steps.extend(("unexpected", None, a_index, None, True) for a_index in spare_actual)
    return steps


def _pair_shown(call: ExpectedCall, got: ToolCall, tool_match: bool, mismatched: bool,
                judged: dict[tuple[int, int], tuple[bool, str]]) -> bool | None:
    """Whether a paired row is a problem, when that follows from the pairing's outline alone:
    without a judge, a different tool, or a same-tool pair with argument mismatches, always
    gives problems (None: the row must be built to tell)."""
    if judged:
        return None
    if call.tool != got.tool:
        return True
    return True if tool_match and mismatched else None


def _paired(pairs: Sequence[CallPair]) -> tuple[dict[int, tuple[int, bool, bool, int]], Callable[[int], CallPair]]:
    """Expected index -> (actual index, tool_match, has mismatches, row number) of every row
    pairing two calls, and how to get row ``k`` itself.

    Why: the pairing's rows are built when first read (``Evaluation.pairs``); read from
    their outline, the table builds only the rows it needs whole (those with a problem),
    not the thousands of plain matches of a long trace."""
    from toolscore_core.scoring.pairing import PairRows

    if isinstance(pairs, PairRows):
        outline: Sequence[tuple[int | None, int | None, bool, bool]] = pairs.outline()
        pair_at: Callable[[int], CallPair] = pairs.row
    else:
        outline = [(p.expected_index, p.actual_index, p.tool_match, bool(p.mismatches)) for p in pairs]
        pair_at = pairs.__getitem__
    by_expected = {i: (j, tool_match, mismatched, k) for k, (i, j, tool_match, mismatched) in enumerate(outline)
                   if i is not None and j is not None}
    return by_expected, pair_at


_ROW_FIELDS = ("number", "expected_index", "actual_index", "expected_call", "actual_call", "status", "problems",
               "call_limit", "judged")
# Setting Row's slots directly is only sound while it has exactly these fields and no
# validator or converter; otherwise _match_row goes through __init__.
_ROW_SOUND = (tuple(f.name for f in attrs.fields(Row)) == _ROW_FIELDS
              and all(f.validator is None and f.converter is None and f.on_setattr is None for f in attrs.fields(Row)))
_ROW_SETTERS = tuple(Row.__dict__[name].__set__ for name in _ROW_FIELDS) if _ROW_SOUND else ()


def _match_row(number: int, e_index: int, call: ExpectedCall, a_index: int, got: ToolCall, limit: int) -> Row:
    """The row :func:`_paired_row` gives a same-tool pair without mismatches or a judge's
    note, ``Row(number, e_index, a_index, call, got, "match", call_limit=limit)``.

    Why: nearly every row of a long trace is one, and ``Row.__init__`` with its keyword
    parsing, plus the generic path's argument comparison, was most of ``align``."""
    if not _ROW_SOUND:
        return Row(number, e_index, a_index, call, got, "match", call_limit=limit)
    s_number, s_e, s_a, s_expected, s_actual, s_status, s_problems, s_limit, s_judged = _ROW_SETTERS
    row = object.__new__(Row)
    s_number(row, number)
    s_e(row, e_index)
    s_a(row, a_index)
    s_expected(row, call)
    s_actual(row, got)
    s_status(row, "match")
    s_problems(row, ())
    s_limit(row, limit)
    s_judged(row, "")
    return row


def _judged(evaluation: Evaluation) -> dict[tuple[int, int], tuple[bool, str]]:
    """(expected, actual) -> (the judge matched the tool, "judged match (...): reason") for
    every pair a judge's yes changed, from ``Evaluation.metrics["judge"]``."""
    record = evaluation.metrics.get("judge")
    if not isinstance(record, dict):
        return {}
    notes: dict[tuple[int, int], list[str]] = {}
    tools: set[tuple[int, int]] = set()
    for entry in record.get("answers", ()):
        if not isinstance(entry, dict) or not entry.get("applied"):
            continue
        key = (entry.get("expected_index"), entry.get("actual_index"))
        if not all(isinstance(k, int) for k in key):
            continue
        what = "tool" if entry.get("kind") == "tool" else f"`{entry.get('argument')}`"
        reason = entry.get("reason")
        notes.setdefault(key, []).append(what + (f": {reason}" if reason else ""))  # type: ignore[arg-type]
        if entry.get("kind") == "tool":
            tools.add(key)  # type: ignore[arg-type]
    from toolscore_core.reports.text import visible

    name = record.get("name", "judge")
    return {key: (key in tools, visible(f"judged match ({name}): {'; '.join(parts)}", 160))
            for key, parts in notes.items()}


def _paired_row(number: int, e_index: int, call: ExpectedCall, a_index: int, got: ToolCall,
                pair: CallPair | None, limit: int, judged: tuple[bool, str] | None = None) -> Row:
    problems: list[str] = []
    if call.tool != got.tool and not (judged and judged[0]):
        problems.append(f"tool: {call.tool!r} ≠ {got.tool!r}")
    else:
        problems.extend(_argument_problems(call, got, pair))
    status: RowStatus = "mismatch" if problems else "match"
    return Row(number, e_index, a_index, call, got, status, tuple(problems), call_limit=limit,
               judged=judged[1] if judged else "")


def _worth_showing(row: Row) -> bool:
    """A problem, a match whose call failed, or a match a judge decided (shown with its reason)."""
    return not row.ok or row.call_failed or bool(row.judged)


def problem_rows(rows: Sequence[Row], limit: int) -> tuple[list[Row], int]:
    """At most ``limit`` rows worth showing (all rows when few, else only the problems),
    and how many were left out."""
    if isinstance(rows, AlignedRows):
        return rows.problems(limit)
    shown = list(rows) if len(rows) <= limit else [r for r in rows if _worth_showing(r)]
    return shown[:limit], len(shown) - min(len(shown), limit)


def any_problem(rows: Sequence[Row]) -> bool:
    """Whether any row is worth showing (so a report draws its calls table at all)."""
    if isinstance(rows, AlignedRows):
        return rows.any_problem()
    return any(_worth_showing(r) for r in rows)


def iter_failed(rows: Sequence[Row]) -> Iterator[Row]:
    return (r for r in rows if not r.ok)


__all__ = ["AlignedRows", "Row", "align", "any_problem", "iter_failed", "problem_rows", "render_actual",
           "render_expected"]
