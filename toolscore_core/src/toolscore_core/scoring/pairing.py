"""Pairing actual calls with expected calls: one-to-one, optimal, explained, bounded.

Why not greedy first-fit: a greedy matcher lets the first expected call take an actual
call that a later expected call needed more (published trajectory matchers fail
this way; tests/core/test_pairing.py has the cases). Here the pairing maximises the number of matching arguments over the whole
trace, then, among equally good pairings, keeps the fewest unrequested arguments.

How it stays fast and bounded (10k calls of one tool in well under a second):

1. Calls are only ever paired with calls of the same tool name (blocking by tool).
2. Exact matches are paired by hashing first: an expected call whose arguments are plain
   values equals an actual call with identical arguments, which is always an optimal
   partner (no other actual call can match more of its arguments with fewer extras), so
   these pairs are fixed in O(n).
3. What remains of each tool is solved with ``toolscore_core.scoring.assignment.linear_sum_assignment``
   (numpy for small blocks, scipy for large ones).
   When it fits one window of :data:`WINDOW` x :data:`WINDOW` calls (every ordinary
   trace), that is the exact optimum. Beyond that, each window of expected calls is
   solved against the actual calls that share its most distinctive argument values (an
   inverted index), keeping pairs that match something, and what is left is paired in
   trace order, window by window, until one side is used up (see ``_assign_block``).
   Memory stays O(WINDOW^2) and time O(n * WINDOW). Once numpy is loaded, a long block's
   (name, canonical value) pairs are coded to integers once (``_CodeTable``), and its windows
   and index read the codes instead of hashing the values again. The same algorithm runs at every size,
   and blocks never mix tools, so the same content gets the same pairing whatever
   surrounds it in other tools or in exact matches.

Argument credit (used by the pairing and by ``argument_f1``): an expected call with
``args=None`` checks nothing; ``{}`` checks that no argument was passed (one unit of
credit); otherwise each expected argument is one unit, matched when the actual call has
that argument and its value satisfies the expected value or matcher. Every argument of
the actual call counts against precision (extras lower it) when the expectation is
checked. Actual arguments that were not recorded (``args=None``) match nothing.
"""

from __future__ import annotations

import functools
import sys
from collections import defaultdict, deque
from collections.abc import Iterable, Mapping, Sequence
from operator import itemgetter
from typing import Any

import attrs

from toolscore_core.kernel.model import CallPair, ExpectedCall, LazyTuple, ToolCall, materialised
from toolscore_core.scoring.matchers import (
    _PLAIN_TYPES,
    _SCALARS,
    Matcher,
    canonical,
    has_matcher,
    matches,
)

WINDOW = 256
PREVIEW_CHARS = 80


@attrs.frozen
class Credit:
    """Argument credit of one expected call against one actual call of the same tool."""

    matched: int  # argument units that match
    expected_units: int  # checked expected units (recall denominator)
    actual_units: int  # actual arguments counted for precision


@attrs.frozen
class Pairing:
    """The one pairing of an evaluation; every metric reads it, nothing recomputes it.

    Public (``toolscore_core.Pairing``) because plugin metrics read it through
    ``EvaluationContext.pairing``; a metric that needs "which call answered which
    expectation" must use this rather than pair calls again, or two metrics could disagree.

    - ``expected_to_actual[i]``: the index (into ``context.calls``) of the actual call paired
      with expected call ``i``, or None when it was never made. Paired calls have the same
      tool, or a judge said they are the same tool (see :mod:`toolscore_core.scoring.judging`).
    - ``actual_to_expected[j]``: the reverse; None for an extra or unexpected call. The two
      maps are exact inverses of each other, and a metric may read either (the built-in
      ``required_call_recall`` reads both): a plugin that builds a ``Pairing`` itself must
      keep them so.
    - ``credits[i]``: the argument credit of expected call ``i`` against its partner (None
      when unpaired).
    - ``pairs``: every row a report shows, in expected order: pairs, a missing expected call
      shown beside the unexpected call made in its place (``tool_match=False``), and calls
      left alone.
    - ``matched_units`` / ``expected_units`` / ``actual_units``: the totals of ``argument_f1``
      (matched argument units, recall and precision denominators).
    - ``exact_pairs``: how many pairs had identical arguments (paired by hashing), and
      ``exact_indexes`` which expected calls they are.
    """

    expected_to_actual: tuple[int | None, ...]
    actual_to_expected: tuple[int | None, ...]
    credits: tuple[Credit | None, ...]
    pairs: tuple[CallPair, ...]
    matched_units: int
    expected_units: int
    actual_units: int
    exact_pairs: int
    exact_indexes: frozenset[int] = frozenset()  # the expected calls counted in exact_pairs

    __getattribute__ = materialised("pairs")  # rows built on the first read of .pairs

    @property
    def paired_count(self) -> int:
        return sum(1 for a in self.expected_to_actual if a is not None)


def preview_value(value: Any, limit: int = PREVIEW_CHARS) -> str:
    """A short, redacted repr for explanations (long values are cut, never whole secrets)."""
    if isinstance(value, Matcher) or value is None or type(value) in (int, float, bool) or (
            type(value) is str and len(value) < 16):
        text = repr(value)  # nothing in it can hold a credential
    elif type(value) is str:
        from toolscore_core.scoring.secrets import redact_head

        text = repr(redact_head(value, limit))  # a 10 MB value is not scanned whole
    else:
        from toolscore_core.scoring.secrets import redact

        text = repr(redact(value))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def expected_units(expected: ExpectedCall) -> int:
    if expected.args is None:
        return 0
    return len(expected.args) or 1


def credit(expected: ExpectedCall, actual: ToolCall) -> Credit:
    """How much of ``expected``'s arguments ``actual`` satisfies (same tool assumed)."""
    exp = expected.args
    if exp is None:
        return _credit_of(0, 0, 0)
    act = actual.args
    if act is None:
        return _credit_of(0, len(exp) or 1, 0)
    if not exp:
        return _credit_of(1 if not act else 0, 1, len(act) or 1)
    return _credit_of(_matched_arguments(exp, act), len(exp), len(act) or 0)


# Credits are frozen values, so one instance per (matched, expected, actual) units serves every
# pair: a trace of 10k differing pairs built 10k of them, each through attrs' frozen __init__.
_credit_of = functools.lru_cache(maxsize=4096)(Credit)


def _matched_arguments(exp: Mapping[str, Any], act: Mapping[str, Any]) -> int:
    """How many of ``exp``'s arguments ``act`` has with a value that :func:`matches`.

    Why not a generator of ``matches`` calls: in a trace where every pair differs, this ran
    once per pair and the call per argument was most of its cost."""
    matched = 0
    for key, value in exp.items():
        if key in act:
            other = act[key]
            kind = type(value)
            # Fast path, safe: matches() answers exactly this for two values of one plain scalar type.
            if kind is type(other) and kind in _SCALARS:
                if value == other:
                    matched += 1
            elif matches(value, other):
                matched += 1
    return matched


def explain_arguments(expected: ExpectedCall, actual: ToolCall) -> tuple[dict[str, float], tuple[dict[str, str], ...]]:
    """Per-argument scores and the mismatches, as ``{"argument", "problem", "expected", "actual"}``."""
    exp = expected.args
    scores: dict[str, float] = {}
    problems: list[dict[str, str]] = []
    if exp is None:
        return scores, ()
    act = actual.args
    if act is None:
        # arguments the model wrote as broken JSON were kept as raw text by the adapter
        problem = "invalid JSON" if actual.metadata and "arguments_error" in actual.metadata else "not recorded"
        return {k: 0.0 for k in exp}, ({"argument": "*", "problem": problem,
                                         "expected": preview_value(exp), "actual": problem},)
    if not exp and act:
        for key, value in act.items():
            scores[key] = 0.0
            problems.append({"argument": key, "problem": "unexpected", "expected": "(no arguments)",
                             "actual": preview_value(value)})
        return scores, tuple(problems)
    for key, value in exp.items():
        if key not in act:
            scores[key] = 0.0
            problems.append({"argument": key, "problem": "missing", "expected": preview_value(value), "actual": "(missing)"})
        elif matches(value, act[key]):
            scores[key] = 1.0
        else:
            scores[key] = 0.0
            problems.append({"argument": key, "problem": "mismatch", "expected": preview_value(value),
                             "actual": preview_value(act[key])})
    for key, value in act.items():
        if key not in exp:
            problems.append({"argument": key, "problem": "unexpected", "expected": "(not expected)",
                             "actual": preview_value(value)})
    return scores, tuple(problems)


def _exact_key(args: dict[str, Any] | None) -> Any:
    return canonical(args)


_ABSENT = object()  # an argument a call does not have


class _Keys:
    """The calls' ``canonical(args)``, read by a window as argument name -> canonical value.

    Why: ``pair_calls`` hashed every call's arguments already (the exact pairs and the
    index); a window that hashed each value again spent most of its Python time on it.
    ``canonical`` of an argument dict is ``("d", frozenset of (name, canonical(value)))``,
    so the dict of that frozenset gives each value's canonical form, equal to what hashing
    the value again gives. ``expected`` holds None for a call whose arguments hold a
    matcher (or were not checked): such a row is compared value by value as before.
    """

    __slots__ = ("_table", "act_block", "actual", "exp_block", "expected")

    def __init__(self, expected: Sequence[Any], actual: Sequence[Any],
                 exp_block: Sequence[int] | None = None, act_block: Sequence[int] | None = None) -> None:
        self.expected, self.actual = expected, actual
        self.exp_block, self.act_block = exp_block, act_block  # the block's calls, coded at once (see coded)
        self._table: _CodeTable | bool | None = False  # False: not built yet; None: the block cannot be coded

    def table(self, actual: Sequence[ToolCall], exp_idx: Sequence[int] = (),
              act_idx: Sequence[int] = ()) -> _CodeTable | None:
        """The block's :class:`_CodeTable`, built on first use (for the given calls when no block was given)."""
        if self._table is False:
            self._table = _CodeTable.build(self.exp_block or exp_idx, self.act_block or act_idx,
                                           self.expected, self.actual, actual)
        return self._table if isinstance(self._table, _CodeTable) else None

    def built(self) -> _CodeTable | None:
        """The table if it was built (never builds it)."""
        return self._table if isinstance(self._table, _CodeTable) else None

    def coded(self, exp_idx: Sequence[int], act_idx: Sequence[int], actual: Sequence[ToolCall]) -> _WindowInputs | None:
        """A window's arrays from the block's table; None: the window has a row the table does
        not cover (or there is no table), and is read call by call."""
        table = self.table(actual, exp_idx, act_idx)
        return None if table is None else table.window(exp_idx, act_idx)

    @staticmethod
    def _pairs(indexes: Sequence[int], keys: Sequence[Any]) -> list[frozenset[tuple[str, Any]] | None] | None:
        pairs: list[frozenset[tuple[str, Any]] | None] = []
        for i in indexes:
            key = keys[i]
            if key is None or key[0] == "z":  # no arguments: canonical(None) is ("z",)
                pairs.append(None)
            elif key[0] == "d":
                pairs.append(key[1])
            else:
                return None  # arguments that are not a dict: the window hashes them as before
        return pairs

    def actual_pairs(self, act_idx: Sequence[int]) -> list[frozenset[tuple[str, Any]] | None] | None:
        """Per actual call of the window: its (name, canonical value) pairs (None: args not recorded)."""
        return self._pairs(act_idx, self.actual)

    def expected_pairs(self, exp_idx: Sequence[int]) -> list[frozenset[tuple[str, Any]] | None] | None:
        """Per expected call of the window: its (name, canonical value) pairs (None: no key, see above)."""
        return self._pairs(exp_idx, self.expected)

    def actual_maps(self, act_idx: Sequence[int]) -> list[dict[str, Any] | None] | None:
        """:meth:`actual_pairs` as dicts, for reading one argument name at a time."""
        pairs = self.actual_pairs(act_idx)
        return None if pairs is None else [None if p is None else dict(p) for p in pairs]

    def expected_maps(self, exp_idx: Sequence[int]) -> list[dict[str, Any] | None] | None:
        """:meth:`expected_pairs` as dicts, for reading one argument name at a time."""
        pairs = self.expected_pairs(exp_idx)
        return None if pairs is None else [None if p is None else dict(p) for p in pairs]


# A window's arrays: matched units, checked rows, precision units (and those against an
# expectation of no arguments), rows expecting no arguments, failed actual calls.
_WindowInputs = tuple[Any, Any, Any, Any, Any, Any]
NAME_LIMIT = 32  # a block whose actual calls use more argument names is read call by call


class _CodeTable:
    """A block's calls as integer codes of their (argument name, canonical value) pairs, one column per name.

    Why: in a long trace of one tool every window read its calls' keys again (a dict per
    call, then a code per name and call), and the inverted index hashed every pair again:
    most of the one-tool worst case's Python time. Coding each pair of the block once lets
    every window build its matched counts, and every chunk find its candidates, with numpy
    alone. Two pairs share a code exactly when they are equal as dict keys, the equality
    that gave a window's codes and the index's entries (canonical forms compare as an
    equivalence: exact numbers, tagged types, a NaN equal only to itself), so a row matches
    a column on a name exactly when the window's codes said so. Rows are covered only when
    their key holds at least one pair (no matcher, checked, not ``{}``); such rows charge
    every actual call its arguments, as the matrix's precision term does for them. A
    call's precision units are its key's pair count (names are unique in a dict).
    """

    __slots__ = ("act_block", "act_codes", "counts", "exact_counts", "exp_bare", "exp_block", "exp_codes", "failed",
                 "holder", "owners", "plain", "starts", "units", "units_for_empty")
    act_block: Any  # the block's actual calls (ascending indexes), then per position of them:
    act_codes: Any  # (calls, names) codes, -2 where a call lacks the name
    units: Any  # precision units, and those against an expectation of no arguments
    units_for_empty: Any
    failed: Any  # 1.0 for a call that did not succeed
    exp_block: Any  # the block's expected calls, then per position of them:
    exp_codes: Any  # (calls, names) codes, -1 where a call lacks the name or no actual call holds its value
    plain: Any  # covered: a key with at least one pair
    exp_bare: list[int]  # positions without a dict key
    counts: Any  # per code: how many actual calls hold it
    holder: Any  # per code held by one call: its position (else -1)
    owners: Any  # the holders of each code, code after code (from starts[code] to starts[code + 1])
    starts: Any
    exact_counts: bool  # the actual calls' values are plain scalars, no NaN (see _plain_values)

    @classmethod
    def build(cls, exp_block: Sequence[int], act_block: Sequence[int], expected_keys: Sequence[Any],
              actual_keys: Sequence[Any], actual: Sequence[ToolCall]) -> _CodeTable | None:
        """The table of a block; None when the block is not in trace order, an actual key is not
        a dict's (nor None), or the calls use more than :data:`NAME_LIMIT` argument names."""
        import numpy as np

        table = cls()
        table.exp_block, table.act_block = np.array(exp_block, dtype=np.int64), np.array(act_block, dtype=np.int64)
        if (np.diff(table.exp_block) <= 0).any() or (np.diff(table.act_block) <= 0).any():
            return None  # positions are found by binary search
        act_pairs, act_sizes, bare = _flat_pairs(act_block, actual_keys)
        if act_pairs is None:
            return None
        values: dict[Any, int] = {}
        codes = np.array([values.setdefault(pair, len(values)) for pair in act_pairs], dtype=np.int64)
        slots: dict[Any, int] = {}
        slot_of = np.array([slots.setdefault(pair[0], len(slots)) for pair in values], dtype=np.int64)
        if len(slots) > NAME_LIMIT:
            return None
        sizes = np.array(act_sizes, dtype=np.int64)
        owner = np.repeat(np.arange(len(act_block)), sizes)
        table.act_codes = _scatter(len(act_block), len(slots), owner, codes, slot_of, -2)
        exp_pairs, exp_sizes, table.exp_bare = _flat_pairs(exp_block, expected_keys, strict=False)
        assert exp_pairs is not None
        table.exact_counts = _plain_values(values)
        exp_codes = np.array([values.get(pair, -1) for pair in exp_pairs], dtype=np.int64)
        table.plain = np.array(exp_sizes, dtype=np.int64) > 0
        exp_owner = np.repeat(np.arange(len(exp_block)), exp_sizes)
        table.exp_codes = _scatter(len(exp_block), len(slots), exp_owner, exp_codes, slot_of, -1)
        table.counts = np.bincount(codes, minlength=len(values))
        single = table.counts[codes] == 1
        table.holder = np.full(len(values), -1, dtype=np.int64)  # a code held by one call: that call's position
        table.holder[codes[single]] = owner[single]
        table.owners = owner[np.argsort(codes, kind="stable")]  # the holders of each code, code after code
        table.starts = np.concatenate(([0], np.cumsum(table.counts)))
        table.units = sizes
        table.units_for_empty = np.maximum(sizes, 1)
        table.units_for_empty[bare] = 0  # arguments not recorded: no unit even against "no arguments"
        table.failed = np.array([0 if actual[j].succeeded else 1 for j in act_block], dtype=np.float64)
        return table

    def positions(self, block: Any, indexes: Sequence[int]) -> Any:
        """The positions of ``indexes`` in a block (ascending), or None when one is not in it."""
        import numpy as np

        wanted = np.array(indexes, dtype=np.int64)
        found = np.searchsorted(block, wanted)
        if len(found) and (int(found.max()) >= len(block) or (block[found] != wanted).any()):
            return None
        return found

    def window(self, exp_idx: Sequence[int], act_idx: Sequence[int]) -> _WindowInputs | None:
        """The arrays :func:`_window_inputs` gives the window; None when a row is not covered."""
        import numpy as np

        rows, cols = self.positions(self.exp_block, exp_idx), self.positions(self.act_block, act_idx)
        if rows is None or cols is None or not self.plain[rows].all():
            return None
        n, m = len(rows), len(cols)
        # int8: a cell counts at most NAME_LIMIT names, and a name's comparison (bool, one
        # byte) is added as a view of its bytes, without the cast numpy's buffers made of
        # each int64 addition (see _add_name).
        matched = np.zeros((n, m), dtype=np.int8)
        row_codes, col_codes = self.exp_codes[rows], self.act_codes[cols]
        for slot in range(row_codes.shape[1]):
            self._add_name(matched, row_codes[:, slot], col_codes[:, slot], cols)
        return (matched, np.ones(n, dtype=bool), self.units[cols], self.units_for_empty[cols],
                np.zeros(n, dtype=bool), self.failed[cols])

    def _add_name(self, matched: Any, row_codes: Any, col_codes: Any, cols: Any) -> None:
        """Add 1 where a row's code of one name equals a column's (no code: -1 rows, -2 columns).

        When every code the window's columns hold is held by one call of the whole block, a
        row's code sits in at most one column, found through ``holder``: one cell per row,
        not a row of comparisons (as :func:`_add_distinct` does for a window's own codes)."""
        import numpy as np

        hit = np.flatnonzero(row_codes >= 0)
        if len(hit) == 0:
            return
        if not SCATTER_DISTINCT or (self.counts[col_codes[col_codes >= 0]] != 1).any():
            matched += (row_codes[:, None] == col_codes[None, :]).view(np.int8)  # True is the byte 1
            return
        column = np.full(len(self.units), -1, dtype=np.int64)  # block position -> window column
        column[cols] = np.arange(len(cols))
        holders = self.holder[row_codes[hit]]
        where = np.where(holders >= 0, column[holders], -1)
        found = where >= 0
        matched[hit[found], where[found]] += 1

    def candidates(self, chunk: Sequence[int], remaining: Any, limit: int) -> list[int]:
        """:func:`_affinity_candidates` of ``chunk`` (calls of the block) from the codes.

        Only for a block whose expected calls without a key check no argument (``exp_bare``;
        a matcher's row indexes its plain values, which the table does not code).
        ``remaining``: per block position, whether the actual call is still unpaired. Each
        code of the chunk's rows held by at most :data:`POSTING_LIMIT` calls counts one hit
        for each remaining call holding it (the inverted index's entries, with their
        multiplicity); ranked by hits, then trace order, the first ``limit``, in trace order."""
        import numpy as np

        rows = self.positions(self.exp_block, chunk)
        codes = self.exp_codes[rows].ravel()
        codes = codes[codes >= 0]
        codes = codes[self.counts[codes] <= POSTING_LIMIT]
        lengths = self.counts[codes]
        ends = np.cumsum(lengths)
        holders = self.owners[np.repeat(self.starts[codes] - ends + lengths, lengths) + np.arange(int(ends[-1]) if len(ends) else 0)]
        holders = holders[remaining[holders]]
        hits = np.bincount(holders, minlength=len(self.units))
        held = np.flatnonzero(hits)  # ascending: trace order breaks ties
        ranked = held[np.argsort(-hits[held], kind="stable")][:limit]
        return self.act_block[np.sort(ranked)].tolist()


_EXACT_TAGS = frozenset("snbz")  # canonical's tags of str, number, bool and None
_EXACT_TYPES = frozenset({str, int, float, bool})  # a tag's value ("z",)'s is the tag itself


def _plain_values(pairs: Iterable[tuple[str, Any]]) -> bool:
    """Whether every (name, canonical value) pair holds a str, int, bool, None or a float that is not NaN.

    Why: when the actual calls' values are all such, and an expected value is one of the
    same exact types, they are equal canonical forms exactly when :func:`matches` says
    they match. So a window's matched count of a pair whose expected arguments are a flat
    dict of such values is the count :func:`credit` gives, and ``assemble_pairing`` can take
    it instead of comparing the arguments again. A NaN breaks it: JSON parsing reuses one
    NaN object, and identical objects are equal dict keys (the same code) while
    ``matches`` says NaN != NaN. Nested values, other types and unhashable reprs are
    refused without looking further (the credit is then computed as ever). Read once per
    distinct value of a block's actual calls (the table's ``values``)."""
    forms = list(map(itemgetter(1), pairs))
    if not _EXACT_TAGS.issuperset(map(itemgetter(0), forms)):
        return False
    kinds = set(map(type, map(itemgetter(-1), forms)))
    if not _EXACT_TYPES.issuperset(kinds):
        return False
    if float in kinds:
        numbers = [form[1] for form in forms if type(form[-1]) is float]
        return all(map(float.__eq__, numbers, numbers))  # False only for a NaN
    return True


def _flat_pairs(block: Sequence[int], keys: Sequence[Any], *,
                strict: bool = True) -> tuple[list[Any] | None, list[int], list[int]]:
    """The block's (name, canonical value) pairs end to end, how many each call holds, and the
    positions of the calls without a dict key (no arguments recorded; for expected calls
    also a matcher or nothing checked, whose pairs a window reads call by call).

    With ``strict``, a key of anything but a dict or None gives None (the table is not built)."""
    pairs: list[Any] = []
    sizes: list[int] = []
    bare: list[int] = []
    for k, index in enumerate(block):
        key = keys[index]
        if key is not None and key[0] == "d":
            pairs.extend(key[1])
            sizes.append(len(key[1]))
            continue
        if strict and key is not None and key[0] != "z":
            return None, sizes, bare
        sizes.append(0)
        bare.append(k)
    return pairs, sizes, bare


def _scatter(calls: int, names: int, owner: Any, codes: Any, slot_of: Any, absent: int) -> Any:
    """The (calls, names) matrix of codes from the flat pairs (``owner``: each pair's call);
    ``absent`` where a call lacks a name (or its value is held by no actual call: a code below 0)."""
    import numpy as np

    table = np.full((calls, names), absent, dtype=np.int64)
    known = codes >= 0
    table[owner[known], slot_of[codes[known]]] = codes[known]
    return table


def _solve_window(
    exp_idx: Sequence[int],
    act_idx: Sequence[int],
    expected: Sequence[ExpectedCall],
    actual: Sequence[ToolCall],
    keys: _Keys | None = None,
) -> list[tuple[int, int, int]]:
    """Optimal assignment inside one window (lexicographic: most matched units, then fewest
    unrequested actual arguments, then calls that succeeded, then closest positions).

    ``keys``: the calls' ``canonical(args)`` when the caller has them (see :class:`_Keys`)."""
    if len(exp_idx) == 1 or len(act_idx) == 1:
        line = _solve_line(exp_idx, act_idx, expected, actual)
        if line is not None:
            return line
    if "numpy" not in sys.modules:  # once numpy is loaded, its matrix is cheaper than this
        sparse = _sparse_minima(exp_idx, act_idx, expected, actual, keys)
        if sparse is not None:
            return sparse
    coded = keys.coded(exp_idx, act_idx, actual) if keys is not None else None
    inputs = coded if coded is not None else _window_inputs(exp_idx, act_idx, expected, actual, keys)
    return _solve_matrix(exp_idx, act_idx, inputs)


def _window_inputs(
    exp_idx: Sequence[int],
    act_idx: Sequence[int],
    expected: Sequence[ExpectedCall],
    actual: Sequence[ToolCall],
    keys: _Keys | None,
) -> _WindowInputs:
    """The arrays a window's cost is made of, read from the calls one by one (any arguments, matchers too)."""
    import numpy as np

    n, m = len(exp_idx), len(act_idx)
    matched = np.zeros((n, m), dtype=np.int64)
    checked = np.array([expected[i].args is not None for i in exp_idx], dtype=bool)
    act_args = [actual[j].args for j in act_idx]
    # Precision units, as credit() counts them: an actual call's arguments, except that a
    # call with none counts one unit against an expectation of "no arguments" ({}).
    act_units = np.array([0 if a is None else len(a) for a in act_args], dtype=np.int64)
    act_units_for_empty = np.array([0 if a is None else (len(a) or 1) for a in act_args], dtype=np.int64)
    expects_nothing = np.array([expected[i].args == {} for i in exp_idx], dtype=bool)
    # Matched units, one argument name at a time, vectorised over plain values.
    act_maps = keys.actual_maps(act_idx) if keys is not None else None
    row_maps = keys.expected_maps(exp_idx) if keys is not None else None
    names: dict[str, list[int]] = defaultdict(list)
    for row, i in enumerate(exp_idx):
        args = expected[i].args
        if args is None:
            continue
        if not args:
            for col, a in enumerate(act_args):
                if a is not None and not a:
                    matched[row, col] = 1
            continue
        for key in args:
            names[key].append(row)
    for key, rows in names.items():
        codes: dict[Any, int] = {}
        # built as a list, then one array: setting numpy items one by one cost more than the codes
        if act_maps is not None:  # the same canonical values, read from the calls' keys, in the same order
            act_codes = np.array([-2 if mp is None or (c := mp.get(key, _ABSENT)) is _ABSENT
                                  else codes.setdefault(c, len(codes)) for mp in act_maps], dtype=np.int64)
        else:
            act_codes = np.array([codes.setdefault(canonical(a[key]), len(codes)) if a is not None and key in a
                                  else -2 for a in act_args], dtype=np.int64)
        plain_rows: list[int] = []
        plain_codes: list[int] = []
        for row in rows:
            row_map = row_maps[row] if row_maps is not None else None
            if row_map is not None:  # safe: a row has a key only when no matcher sits in its arguments
                code = codes.get(row_map[key], -1)
                if code >= 0:
                    plain_rows.append(row)
                    plain_codes.append(code)
                continue
            value = expected[exp_idx[row]].args[key]  # type: ignore[index]
            if has_matcher(value):
                for col, a in enumerate(act_args):
                    if a is not None and key in a and matches(value, a[key]):
                        matched[row, col] += 1
            else:
                code = codes.get(canonical(value), -1)
                if code >= 0:
                    plain_rows.append(row)
                    plain_codes.append(code)
        if plain_rows and SCATTER_DISTINCT and _add_distinct(matched, plain_rows, plain_codes, act_codes):
            continue
        if plain_rows:  # one outer comparison per argument name, not one per row (each row once per name)
            equal = np.asarray(plain_codes, dtype=np.int64)[:, None] == act_codes[None, :]
            if len(plain_rows) == n:  # every row, in order: added in place, without gathering rows
                matched += equal
            else:
                matched[plain_rows] += equal
    not_succeeded = np.array([0 if actual[j].succeeded else 1 for j in act_idx], dtype=np.float64)
    return matched, checked, act_units, act_units_for_empty, expects_nothing, not_succeeded


def _solve_matrix(exp_idx: Sequence[int], act_idx: Sequence[int], inputs: _WindowInputs) -> list[tuple[int, int, int]]:
    """The window's lexicographic cost from its arrays, and its optimal assignment (see :func:`_solve_window`)."""
    import numpy as np

    from toolscore_core.scoring.assignment import linear_sum_assignment

    matched, checked, act_units, act_units_for_empty, expects_nothing, not_succeeded = inputs
    n, m = len(exp_idx), len(act_idx)
    # Lexicographic weights: each level's total over a whole assignment stays below one
    # unit of the level above (distance < 1 per pair; at most min(n, m) pairs).
    pairs_bound = float(min(n, m) + 1)
    low = pairs_bound
    mid = pairs_bound * low
    big = float(int(act_units_for_empty.sum()) + 1) * mid
    # cost = -matched * big + precision * mid + not_succeeded * low + distance, added in that
    # order in place (each cell gets the very same float operations as one expression would
    # give it); a term the same on every row is added as one row, the distance is shared.
    # == matched * -big, exactly (each count made a float, then multiplied), without a
    # buffered cast inside the multiplication; matched may be int8 (see _CodeTable.window).
    cost = matched.astype(np.float64)
    cost *= -big
    if checked.all() and not expects_nothing.any():  # every row charges an actual call its arguments
        cost += act_units.astype(np.float64) * mid
    else:
        precision_cost = np.where(checked[:, None],
                                  np.where(expects_nothing[:, None], act_units_for_empty[None, :], act_units[None, :]), 0)
        cost += precision_cost.astype(np.float64) * mid
    cost += not_succeeded * low
    cost += _distance(n, m)
    obvious = strict_minima(cost)
    if obvious is None:
        obvious = near_minima(cost)
    if obvious is not None:
        row_list, col_list = obvious
    else:
        row_ids, col_ids = linear_sum_assignment(cost)
        row_list, col_list = row_ids.tolist(), col_ids.tolist()
    units = matched[row_list, col_list].tolist()  # one gather, not a numpy scalar per pair
    return [(exp_idx[r], act_idx[c], k) for r, c, k in zip(row_list, col_list, units, strict=True)]


SCATTER_DISTINCT = True  # tests switch it off to compare with the outer comparison


def _add_distinct(matched: Any, plain_rows: list[int], plain_codes: list[int], act_codes: Any) -> bool:
    """``matched[plain_rows] += (plain_codes == act_codes)`` when no two columns share a code; False otherwise.

    Why: a distinctive argument (a query, an id) gives every actual call its own code, so
    each row's outer comparison has exactly one True, at the column holding its code
    (every code in ``plain_codes`` is held by a column); adding 1 there is the same sum
    without comparing and adding a whole row per name. Rows are distinct, so each cell is
    added to once."""
    import numpy as np

    held = np.flatnonzero(act_codes >= 0)
    if len(held) == 0 or int(act_codes.max()) + 1 != len(held):  # codes are 0.. in order of first holder
        return False
    column = np.empty(len(held), dtype=np.int64)
    column[act_codes[held]] = held
    matched[plain_rows, column[plain_codes]] += 1
    return True


@functools.lru_cache(maxsize=4)
def _distance(n: int, m: int) -> Any:
    """The position term of a window's cost: |row * m / n - column| / (m + n + 1), read-only.

    Why cached: a long trace of one tool is solved in windows of the same shape, and this
    matrix was three of the dozen full-matrix operations building each window's cost."""
    import numpy as np

    distance = np.abs(np.arange(n)[:, None] * (m / max(n, 1)) - np.arange(m)[None, :]) / (m + n + 1)
    distance.flags.writeable = False
    return distance


def strict_minima(cost: Any) -> tuple[list[int], list[int]] | None:
    """The assignment when each call of the smaller side has one strictly cheapest partner, all different.

    Why: in an ordinary window every call's own partner is clearly best, and proving it
    takes one ``argmin`` where the solver takes several augmenting passes per row. Every
    call of the smaller side is paired in any assignment, each costs at least its row's
    minimum and only its argmin reaches it, so when the argmins are distinct they are the
    unique optimum, the one any exact solver returns. Rows come in increasing order, as the
    solver gives them. None (a tie, or two calls wanting one partner): ask the solver.
    """
    import numpy as np

    n, m = cost.shape
    side = cost if n <= m else cost.T
    if side.shape[0] == 0:
        return None
    best = side.argmin(axis=1)
    # checked first: it costs one row, the tie check a matrix; counting is cheaper than np.unique's sort
    if int(np.bincount(best, minlength=side.shape[1]).max()) > 1:
        return None
    lowest = side[np.arange(side.shape[0]), best]
    if int(np.count_nonzero(side <= lowest[:, None], axis=1).max()) > 1:
        return None
    if n <= m:
        return list(range(n)), best.tolist()
    pairs = sorted(zip(best.tolist(), range(m), strict=True))
    return [r for r, _ in pairs], [c for _, c in pairs]


NEAR_LIMIT = 32  # near_minima re-solves at most this many rows apart; more go to the solver


def near_minima(cost: Any) -> tuple[list[int], list[int]] | None:
    """The assignment when all but a few rows keep a strictly cheapest partner of their own, proved unique.

    Why: in a long trace of one tool where every call differs a little, a failed call makes
    its row prefer a neighbour's partner, so :func:`strict_minima` gives up and the solver
    took the whole 256 x 256 window (about 3 ms, the largest share of the worst case).
    How: rows whose strict minimum no other row wants keep it; the few others are solved
    against the columns nobody kept (a small matrix, the same solver). That candidate is
    then proved the unique optimum of the whole matrix by column potentials ``v`` (zero
    except on the re-solved rows' columns, see :func:`_potentials`): when each row's
    partner is its cheapest cell of ``cost - v`` by more than the rounding of that
    subtraction, every other assignment costs strictly more (each row pays at least its
    reduced minimum, and the potentials add no less to it: all columns are used, or
    ``v`` is <= 0 on the used ones and 0 on the others). A unique optimum is what any
    exact solver returns, whatever its tie-breaking. Anything unproved returns None and
    the solver decides as before. Rows come in increasing order, as the solver gives them.
    """
    import numpy as np

    n, m = cost.shape
    if n > m:  # solved on the transpose, then listed by row
        found = near_minima(cost.T)
        if found is None:
            return None
        pairs = sorted(zip(found[1], found[0], strict=True))
        return [r for r, _ in pairs], [c for _, c in pairs]
    if n == 0:
        return None
    rows = np.arange(n)
    best = cost.argmin(axis=1)
    lowest = cost[rows, best]
    settled = (np.count_nonzero(cost <= lowest[:, None], axis=1) == 1) & (np.bincount(best, minlength=m)[best] == 1)
    rest = np.flatnonzero(~settled)
    if len(rest) == 0 or len(rest) > NEAR_LIMIT:
        return None
    kept = np.zeros(m, dtype=bool)
    kept[best[settled]] = True
    free = np.flatnonzero(~kept)  # n <= m: at least as many as the rows in rest

    from toolscore_core.scoring.assignment import linear_sum_assignment

    sub_rows, sub_cols = linear_sum_assignment(cost[np.ix_(rest, free)])
    partner = best.copy()
    partner[rest[sub_rows]] = free[sub_cols]
    tol = 64.0 * float(np.spacing(4.0 * max(abs(float(cost.max())), abs(float(cost.min())), 1.0)))
    v = _potentials(cost, partner, rest, settled, lowest, tol)
    if v is None or not _proved(cost, partner, v, tol):
        return None
    return rows.tolist(), partner.tolist()


def _potentials(cost: Any, partner: Any, rest: Any, settled: Any, lowest: Any, tol: float) -> Any:
    """Column potentials for :func:`_proved`: the largest solution of the re-solved rows' constraints.

    Only the columns of the rows in ``rest`` get a potential. For each such row ``r`` and
    column ``j`` of another such row: ``v[j] <= v[partner[r]] + cost[r, j] - cost[r, partner[r]]``
    (less a margin), capped so that no settled row comes to prefer ``j`` (and at 0 when there
    are more columns than rows). Relaxed as shortest paths, at most ``len(rest) + 1`` rounds;
    None when it does not settle (the candidate is not optimal). The other constraints are
    left to :func:`_proved`, which checks every cell."""
    import numpy as np

    n, m = cost.shape
    cols = partner[rest]
    margin = 2.0 * tol
    if settled.any():
        cap = (cost[np.ix_(np.flatnonzero(settled), cols)] - lowest[settled][:, None]).min(axis=0) - margin
    else:
        cap = np.zeros(len(cols))
    if n < m:
        cap = np.minimum(cap, 0.0)
    step = cost[np.ix_(rest, cols)] - cost[rest, cols][:, None] - margin  # row k: the cost of moving off its column
    step[np.arange(len(cols)), np.arange(len(cols))] = np.inf
    values = cap
    for _ in range(len(cols) + 1):
        lowered = np.minimum(values, (values[:, None] + step).min(axis=0))
        if (lowered == values).all():
            v = np.zeros(m)
            v[cols] = values
            return v
        values = lowered
    return None


def _proved(cost: Any, partner: Any, v: Any, tol: float) -> bool:
    """Whether ``partner`` (row -> column, all different) is each row's cheapest cell of
    ``cost - v`` by more than ``tol``, with ``v`` <= 0 on used columns and 0 on the others
    when there are more columns than rows: then it is the unique optimum (see :func:`near_minima`)."""
    import numpy as np

    n, m = cost.shape
    if int(np.bincount(partner, minlength=m).max()) > 1:
        return False
    if n < m:
        used = np.zeros(m, dtype=bool)
        used[partner] = True
        if (v[~used] != 0).any() or (v[used] > 0).any():
            return False
    reduced = cost - v[None, :]
    rows = np.arange(n)
    own = reduced[rows, partner]
    reduced[rows, partner] = np.inf
    return bool(((reduced.min(axis=1) - own) > tol).all())


def _solve_line(
    exp_idx: Sequence[int],
    act_idx: Sequence[int],
    expected: Sequence[ExpectedCall],
    actual: Sequence[ToolCall],
) -> list[tuple[int, int, int]] | None:
    """A window with one expected or one actual call, solved without numpy; None on a tie.

    Why: most real traces leave one call of a tool unpaired by hashing (one wrong argument),
    and importing numpy for that single row costs more than the whole evaluation (and may
    start OpenBLAS threads). The cost of each cell is computed with exactly the float
    operations of :func:`_solve_window`, so when one cell is strictly cheapest it is the
    unique optimum every exact solver returns; a tie goes back to the matrix solver, whose
    tie-breaking then decides as before.
    """
    n, m = len(exp_idx), len(act_idx)
    act_args = [actual[j].args for j in act_idx]
    units_for_empty = sum(0 if a is None else (len(a) or 1) for a in act_args)
    pairs_bound = float(min(n, m) + 1)
    low = pairs_bound
    mid = pairs_bound * low
    big = float(units_for_empty + 1) * mid
    cells: list[tuple[float, int, int, int]] = []
    for row, i in enumerate(exp_idx):
        args = expected[i].args
        for col, a in enumerate(act_args):
            matched = 0 if args is None else _matched_units(args, a)
            if args is None:
                precision = 0
            elif args == {}:
                precision = 0 if a is None else (len(a) or 1)
            else:
                precision = 0 if a is None else len(a)
            not_succeeded = 0.0 if actual[act_idx[col]].succeeded else 1.0
            distance = abs(row * (m / max(n, 1)) - col) / (m + n + 1)
            cost = -float(matched) * big + float(precision) * mid + not_succeeded * low + distance
            cells.append((cost, row, col, matched))
    best = min(cells)
    if sum(1 for cell in cells if cell[0] == best[0]) > 1:
        return None
    return [(exp_idx[best[1]], act_idx[best[2]], best[3])]


def _sparse_minima(
    exp_idx: Sequence[int],
    act_idx: Sequence[int],
    expected: Sequence[ExpectedCall],
    actual: Sequence[ToolCall],
    keys: _Keys | None = None,
) -> list[tuple[int, int, int]] | None:
    """:func:`strict_minima` without numpy, for windows of plain arguments; None: ask the matrix.

    Why: a fresh ``toolscore eval`` spent more importing numpy (about 0.1 s) than solving
    the few windows an ordinary trace has, whose every call has one clearly best partner.
    The cost's levels are lexicographic (see :func:`_solve_window`): a cell matching fewer
    arguments than the row's best is dearer by more than a unit, far above rounding, so
    only the cells with the row's most matched arguments (:func:`_most_matched`) need their
    cost; it is computed with exactly the float operations of the matrix (as in
    :func:`_solve_line`). When each row's cheapest such cell is unique and the rows'
    choices are distinct, that is what :func:`strict_minima` finds in the full matrix.
    Only when there are no more expected than actual calls, every expectation has plain
    arguments, every actual call recorded its arguments and each row's best partner misses
    at most one argument. ``keys``: as in :func:`_solve_window`.
    """
    n, m = len(exp_idx), len(act_idx)
    act_args = [a for a in (actual[j].args for j in act_idx) if a is not None]
    rows = [args for args in (expected[i].args for i in exp_idx) if args and not has_matcher(args)]
    if n > m or len(act_args) < m or len(rows) < n:
        return None
    index: dict[str, dict[Any, set[int]]] = {}
    # The index and the rows read the calls' (name, canonical value) pairs from their keys when
    # given (every call here has arguments, so each actual call has its pairs); the order of
    # a call's pairs changes neither the index nor a row's answer.
    act_pairs = keys.actual_pairs(act_idx) if keys is not None else None
    for col, a in enumerate(act_args):
        pairs = act_pairs[col] if act_pairs is not None else None
        for key, value in pairs if pairs is not None else [(key, canonical(value)) for key, value in a.items()]:
            index.setdefault(key, {}).setdefault(value, set()).add(col)
    row_pairs = keys.expected_pairs(exp_idx) if keys is not None else None
    units_for_empty = sum(len(a) or 1 for a in act_args)
    pairs_bound = float(min(n, m) + 1)
    low = pairs_bound
    mid = pairs_bound * low
    big = float(units_for_empty + 1) * mid
    precision = [float(len(a)) * mid for a in act_args]
    failed = [(0.0 if actual[j].succeeded else 1.0) * low for j in act_idx]
    scale = m / max(n, 1)
    spread = m + n + 1
    chosen: list[tuple[int, int, int]] = []
    taken: set[int] = set()
    nothing: set[int] = set()
    # base + precision + failed per column, once per number of matched arguments: the same
    # float additions in the same order as each cell's cost, shared by the rows at that level.
    heads: dict[int, list[float]] = {}
    for row, args in enumerate(rows):
        pairs = row_pairs[row] if row_pairs is not None else None
        found = _most_matched(pairs if pairs is not None else [(key, canonical(value)) for key, value in args.items()],
                              index, nothing)
        if found is None:
            return None
        most, candidates = found
        head = heads.get(most)
        if head is None:
            base = -float(most) * big
            head = heads[most] = [base + p + f for p, f in zip(precision, failed, strict=True)]
        cols = list(candidates)
        costs = [head[col] + abs(row * scale - col) / spread for col in cols]
        best = min(costs)
        if costs.count(best) > 1:
            return None
        best_col = cols[costs.index(best)]
        if best_col in taken:
            return None
        taken.add(best_col)
        chosen.append((exp_idx[row], act_idx[best_col], most))
    return chosen


def _most_matched(canonical_args: Iterable[tuple[str, Any]], index: dict[str, dict[Any, set[int]]],
                  nothing: set[int]) -> tuple[int, set[int]] | None:
    """The most arguments any column matches, and the columns that match that many.

    ``canonical_args``: a row's (argument name, canonical value) pairs. Found by intersecting the
    columns holding each value (``index``: name -> canonical value -> columns), all of them,
    then all but one: an ordinary row has its partner there. None when the best column
    misses two or more arguments (then the matrix decides)."""
    postings = [index.get(key, {}).get(value, nothing) for key, value in canonical_args]
    every = set.intersection(*postings)
    if every:
        return len(postings), every
    if len(postings) < 2:
        return None
    empty = [k for k, p in enumerate(postings) if not p]
    if len(empty) == 1:  # every other skip keeps the empty posting: only skipping it can find columns
        but_one = set.intersection(*(p for k, p in enumerate(postings) if k != empty[0]))
    elif empty:  # two values nobody holds: every column misses two arguments
        return None
    else:
        but_one = set()
        for skip in range(len(postings)):
            but_one |= set.intersection(*(p for k, p in enumerate(postings) if k != skip))
    return (len(postings) - 1, but_one) if but_one else None


def _matched_units(args: dict[str, Any], act: dict[str, Any] | None) -> int:
    """Matched argument units of one cell, as :func:`_solve_window` counts them."""
    if act is None:
        return 0
    if not args:
        return 1 if not act else 0
    matched = 0
    for key, value in args.items():
        if key not in act:
            continue
        if has_matcher(value):
            matched += 1 if matches(value, act[key]) else 0
        elif {canonical(act[key]): 0}.get(canonical(value), -1) == 0:  # the same dict equality as the codes
            matched += 1
    return matched


POSTING_LIMIT = 32  # an argument value shared by more calls than this does not tell them apart


def _affinity_candidates(
    chunk: Sequence[int],
    remaining: set[int],
    postings: dict[tuple[str, Any], list[int]],
    expected: Sequence[ExpectedCall],
    limit: int,
    expected_keys: Sequence[Any] | None = None,
) -> list[int]:
    """The remaining actual calls sharing the most distinctive argument values with ``chunk``.

    ``expected_keys``: ``canonical(args)`` of the expected calls without a matcher (None for
    the others), when the caller has them; the counts do not depend on the order of a
    call's (name, value) pairs, so the key's frozenset serves as well as the values."""
    hits: dict[int, int] = defaultdict(int)
    for i in chunk:
        args = expected[i].args
        if not args:
            continue
        key_i = expected_keys[i] if expected_keys is not None else None
        if key_i is not None and key_i[0] == "d":  # safe: a key exists only for arguments without a matcher
            pairs: Any = key_i[1]
        else:
            pairs = [(key, canonical(value)) for key, value in args.items() if not has_matcher(value)]
        for pair in pairs:
            for j in postings.get(pair, ()):
                if j in remaining:
                    hits[j] += 1
    ranked = sorted(hits, key=lambda j: (-hits[j], j))
    return sorted(ranked[:limit])


def _argument_pairs(args: dict[str, Any], key: Any) -> Any:
    """The ``(name, canonical(value))`` pairs of an actual call's ``args``.

    ``key`` may be ``canonical(args)`` already computed (None when not): its frozenset holds
    exactly these pairs (in another order, which the index built from them does not
    depend on), so the values are not hashed a second time."""
    if key is not None and key[0] == "d":
        return key[1]
    return [(name, canonical(value)) for name, value in args.items()]


def _by_affinity(
    exp_idx: list[int],
    act_idx: list[int],
    expected: Sequence[ExpectedCall],
    actual: Sequence[ToolCall],
    window: int,
    keys: _Keys | None,
    result: list[tuple[int, int]],
    found: dict[int, int],
) -> tuple[list[int], list[int]]:
    """Phase (A) of :func:`_assign_block`: appends its pairs to ``result`` (their windows'
    matched counts to ``found``), returns what is left.

    The candidates come from the block's :class:`_CodeTable` when numpy is loaded and the
    table covers every expected call that checks arguments; else from an inverted index of
    the (name, canonical value) pairs, as ever. Both count the same hits."""
    table = keys.table(actual) if keys is not None and "numpy" in sys.modules else None
    if table is not None and any(expected[exp_idx[k]].args for k in table.exp_bare):
        table = None  # a matcher's row: its plain values are indexed, not coded
    if table is None:
        postings = _postings(act_idx, actual, keys.actual if keys is not None else None)
    else:
        import numpy as np

        unpaired = np.ones(len(act_idx), dtype=bool)  # per block position of an actual call
    remaining = set(act_idx)
    leftover: list[int] = []
    for start in range(0, len(exp_idx), window):
        chunk = exp_idx[start:start + window]
        if not remaining:
            candidates = []
        elif table is None:
            candidates = _affinity_candidates(chunk, remaining, postings, expected, window,
                                              keys.expected if keys is not None else None)
        else:
            candidates = table.candidates(chunk, unpaired, window)
        if not candidates:
            leftover.extend(chunk)
            continue
        paired = set()
        for e, a, matched in _solve_window(chunk, candidates, expected, actual, keys):
            if matched > 0:
                result.append((e, a))
                found[e] = matched
                paired.add(e)
                remaining.discard(a)
        if table is not None and paired:
            unpaired[table.positions(table.act_block, [a for e, a in result[-len(paired):]])] = False
        leftover.extend(e for e in chunk if e not in paired)
    return leftover, sorted(remaining)


def _postings(act_idx: list[int], actual: Sequence[ToolCall], actual_keys: Sequence[Any] | None) -> dict[Any, list[int]]:
    """The inverted index: (name, canonical value) -> the actual calls holding it, for values
    held by at most :data:`POSTING_LIMIT` calls."""
    postings: dict[tuple[str, Any], list[int]] = defaultdict(list)
    for j in act_idx:
        args = actual[j].args
        if args:
            for pair in _argument_pairs(args, actual_keys[j] if actual_keys is not None else None):
                postings[pair].append(j)
    return {k: v for k, v in postings.items() if len(v) <= POSTING_LIMIT}


def _assign_block(
    exp_idx: list[int],
    act_idx: list[int],
    expected: Sequence[ExpectedCall],
    actual: Sequence[ToolCall],
    window: int,
    actual_keys: Sequence[Any] | None = None,
    expected_keys: Sequence[Any] | None = None,
    counts: dict[int, int] | None = None,
) -> list[tuple[int, int]]:
    """Pair the remaining calls of one tool, window by window, until one side is used up.

    Within one window the assignment is exact. When a tool has more remaining calls than
    a window holds: (A) each window of expected calls is solved against the actual calls
    that share the most distinctive argument values with it (an inverted index; values
    shared by more than POSTING_LIMIT calls are ignored), keeping only pairs that match at
    least one argument; (B) whatever is left is paired in trace order, window by window,
    so every call that can be paired is.

    ``actual_keys``: ``canonical(args)`` of the actual calls, when the caller has them, so
    the index does not hash every value again; ``expected_keys`` the same of the expected
    calls without a matcher (None for the others). With both, the windows read them too.

    ``counts``, when given, receives expected index -> the matched argument units its pair's
    window counted, for the keyed rows of a block whose actual values are plain scalars
    without NaN (see :func:`_put_counts`).
    """
    result: list[tuple[int, int]] = []
    found: dict[int, int] = {}  # expected index -> its pair's matched count in the window that made it
    keys = (_Keys(expected_keys, actual_keys, exp_idx, act_idx)
            if expected_keys is not None and actual_keys is not None else None)
    if len(exp_idx) > window or len(act_idx) > window:
        exp_idx, act_idx = _by_affinity(exp_idx, act_idx, expected, actual, window, keys, result, found)
    while exp_idx and act_idx:
        n, m = len(exp_idx), len(act_idx)
        if n <= window and m <= window:
            for e, a, k in _solve_window(exp_idx, act_idx, expected, actual, keys):
                result.append((e, a))
                found[e] = k
            break
        paired_e: set[int] = set()
        paired_a: set[int] = set()
        chunks = max(1, -(-max(n, m) // window))
        for c in range(chunks):
            e_part = exp_idx[c * n // chunks:(c + 1) * n // chunks]
            a_part = act_idx[c * m // chunks:(c + 1) * m // chunks]
            if not e_part or not a_part:
                continue
            for e, a, k in _solve_window(e_part, a_part, expected, actual, keys):
                result.append((e, a))
                found[e] = k
                paired_e.add(e)
                paired_a.add(a)
        exp_idx = [e for e in exp_idx if e not in paired_e]
        act_idx = [a for a in act_idx if a not in paired_a]
    if counts is not None and keys is not None:
        _put_counts(counts, found, keys)
    return result


def _put_counts(counts: dict[int, int], found: dict[int, int], keys: _Keys) -> None:
    """Copy to ``counts`` the window counts of the pairs whose expected call has a key, when the
    block's table says its actual values are plain scalars without NaN (``exact_counts``).

    Why only keyed rows: a row with a matcher was compared value by value, with ``matches``
    for the matcher. The caller keeps only the rows whose expected arguments are a flat
    dict of plain scalars (see :func:`_plain_values`). Nothing is copied when the table was
    never built (a block solved without numpy's windows)."""
    table = keys.built()
    if table is None or not table.exact_counts:
        return
    if not table.exp_bare:  # every expected call of the block has a dict key: all rows are keyed
        counts.update(found)
        return
    expected_keys = keys.expected
    for e, k in found.items():
        if expected_keys[e] is not None:
            counts[e] = k


def pair_calls(
    expected: Sequence[ExpectedCall],
    actual: Sequence[ToolCall],
    *,
    window: int = WINDOW,
    actual_keys: Sequence[Any] | None = None,
) -> Pairing:
    """The optimal one-to-one pairing of ``actual`` to ``expected`` calls (see module doc).

    ``actual_keys`` may pass ``canonical(call.args)`` of each actual call when the caller
    has computed them already (the evaluation shares them with the loop detector).
    """
    exp_to_act: list[int | None] = [None] * len(expected)
    act_to_exp: list[int | None] = [None] * len(actual)
    exact: set[int] = set()

    # 1. exact matches by hashing (plain-valued checked expectations only)
    # Identical calls are interchangeable for the arguments; prefer the ones that
    # succeeded, so a required call retried until it worked counts as completed.
    # A key held by one call maps to its index; only a key shared by several calls gets the
    # two queues (succeeded first), so a trace of distinct calls builds no deque at all.
    by_key: dict[tuple[str, Any], int | tuple[deque[int], deque[int]]] = {}
    if actual_keys is None:
        actual_keys = [None if call.args is None else _exact_key(call.args) for call in actual]
    for j, call in enumerate(actual):
        if call.args is not None:
            key = (call.tool, actual_keys[j])
            held = by_key.setdefault(key, j)
            if isinstance(held, int):
                if held == j:
                    continue
                queues: tuple[deque[int], deque[int]] = (deque(), deque())
                queues[0 if actual[held].succeeded else 1].append(held)
                held = by_key[key] = queues
            held[0 if call.succeeded else 1].append(j)
    # The keys of the expected calls left unpaired, for the windows (None: no key); an exact
    # pair's key is not kept, so an ordinary trace holds a tenth of them, not all.
    expected_keys: list[Any] = [None] * len(expected)
    plain = _PLAIN_TYPES.issuperset
    nested: list[int] = []  # expected calls with a key whose arguments are not a flat dict of plain scalars
    for i, exp in enumerate(expected):
        args = exp.args
        if args is None:
            continue
        # has_matcher's own first test, inline: a dict of plain scalars holds no matcher
        if not (type(args) is dict and plain(map(type, args.values()))):
            if has_matcher(args):
                continue
            nested.append(i)
        exp_key = canonical(args)
        key = (exp.tool, exp_key)
        found = by_key.pop(key, None)  # a call held alone is taken with its key; queues are put back
        if found is None:
            expected_keys[i] = exp_key
            continue
        if isinstance(found, int):
            j = found
        else:
            by_key[key] = found
            queue = found[0] or found[1]
            if not queue:
                expected_keys[i] = exp_key
                continue
            j = queue.popleft()
        exp_to_act[i] = j
        act_to_exp[j] = i
        exact.add(i)

    # 2. optimal assignment of what remains, per tool
    rest_e: dict[str, list[int]] = defaultdict(list)
    rest_a: dict[str, list[int]] = defaultdict(list)
    for i in [i for i, j in enumerate(exp_to_act) if j is None]:  # the unpaired found in one pass, then grouped
        rest_e[expected[i].tool].append(i)
    for j in [j for j, i in enumerate(act_to_exp) if i is None]:
        tool = actual[j].tool
        if tool in rest_e:
            rest_a[tool].append(j)
    counts: dict[int, int] = {}  # expected index -> matched units its window counted, where that is its credit's
    for tool, e_list in rest_e.items():
        a_list = rest_a.get(tool)
        if not a_list:
            continue
        for i, j in _assign_block(e_list, a_list, expected, actual, window, actual_keys, expected_keys, counts):
            exp_to_act[i] = j
            act_to_exp[j] = i
    for i in nested:  # a value of another type may match by == without an equal canonical form
        counts.pop(i, None)

    # 3. credits, totals and the explained rows
    return assemble_pairing(expected, actual, exp_to_act, act_to_exp, exact, matched=counts)


def assemble_pairing(
    expected: Sequence[ExpectedCall],
    actual: Sequence[ToolCall],
    exp_to_act: Sequence[int | None],
    act_to_exp: Sequence[int | None],
    exact: set[int] | frozenset[int] = frozenset(),
    *,
    notes: Mapping[int, str] | None = None,
    openings: Mapping[int, str] | None = None,
    matched: Mapping[int, int] | None = None,
) -> Pairing:
    """The :class:`Pairing` of a fixed one-to-one assignment: credits, totals, explained rows.

    ``pair_calls`` ends here; a judge's matches come here too, so a judged pairing is
    credited and explained by exactly the same rules as a deterministic one. ``exact`` holds
    the expected indexes paired by identical arguments; ``notes`` maps an expected index to
    a sentence appended to its pair's reason; ``openings`` maps an expected index to the
    words that open its reason instead of "same tool `x`" (for a pair a judge made).
    ``matched`` maps an expected index to the matched units of its pair's credit, known
    already (``pair_calls`` passes its windows' counts where they equal :func:`credit`'s);
    it is used only for a non-empty expectation against recorded arguments.

    The credits and totals are computed here; the explained rows (``pairs``) are a
    :class:`PairRows`, built when first read (see :class:`~toolscore_core.kernel.model.LazyTuple`).
    """
    credits: list[Credit | None] = [None] * len(expected)
    matched_units = expected_total = actual_total = 0
    full: dict[int, Credit] = {}  # _full_credit's instances, without a cached call per pair
    for i, exp in enumerate(expected):
        partner = exp_to_act[i]
        args = exp.args
        if partner is None:
            expected_total += 0 if args is None else (len(args) or 1)  # expected_units(exp)
            continue
        if args is None:
            c = _NO_CREDIT
        elif i in exact:
            units = len(args) or 1
            c = full.get(units) or full.setdefault(units, _full_credit(units))
            credits[i] = c
            matched_units += units
            expected_total += units
            actual_total += units
            continue
        else:
            act_args = actual[partner].args
            k = matched.get(i) if matched and args and act_args is not None else None
            if k is None or act_args is None:
                c = credit(exp, actual[partner])
            else:  # credit() of a non-empty expectation against recorded arguments, its matched units given
                c = _credit_of(k, len(args), len(act_args))
        credits[i] = c
        matched_units += c.matched
        expected_total += c.expected_units
        actual_total += c.actual_units
    plan = _RowPlan(expected, actual, tuple(exp_to_act), tuple(act_to_exp), exact, credits, notes, openings)
    return Pairing(
        expected_to_actual=plan.exp_to_act,
        actual_to_expected=plan.act_to_exp,
        credits=tuple(credits),
        pairs=PairRows(plan),  # type: ignore[arg-type]  # reads as the tuple it builds
        matched_units=matched_units,
        expected_units=expected_total,
        actual_units=actual_total,
        exact_pairs=len(exact),
        exact_indexes=frozenset(exact),
    )


_NO_CREDIT = Credit(0, 0, 0)  # an expectation that checks no arguments
# Kinds of row, in the order assemble_pairing has always listed them before sorting.
_PAIRED, _SWAPPED, _MISSING, _EXTRA = range(4)


class _RowPlan:
    """Which rows a pairing shows and in what order, and how to build each one.

    Rows: every pair, in expected order; a missing expected call shown beside the extra
    call made in its place (the reader sees "expected book_flight, got cancel_booking" on
    one row); the other missing calls; the other extra calls; all sorted by (expected
    index, or else actual index; actual index). The order is found from indexes alone,
    so findings can walk it without building a row."""

    def __init__(self, expected: Sequence[ExpectedCall], actual: Sequence[ToolCall],
                 exp_to_act: tuple[int | None, ...], act_to_exp: tuple[int | None, ...],
                 exact: set[int] | frozenset[int], credits: list[Credit | None],
                 notes: Mapping[int, str] | None, openings: Mapping[int, str] | None) -> None:
        self.expected, self.actual = expected, actual
        self.exp_to_act, self.act_to_exp = exp_to_act, act_to_exp
        self.exact, self.credits, self.notes, self.openings = exact, credits, notes, openings
        self.missing = [i for i, j in enumerate(exp_to_act) if j is None]
        self.extra = [j for j, i in enumerate(act_to_exp) if i is None]
        self.expected_tools = {e.tool for e in expected} if self.extra else set()
        self.swaps = [j for j in self.extra if actual[j].tool not in self.expected_tools][: len(self.missing)]
        self.count = len(exp_to_act) + len(self.extra) - len(self.swaps)  # a swap row shows one missing, one extra
        self._order: list[tuple[int, int, int, int, int]] | None = None
        self._exact_reasons: dict[str, str] = {}  # tool -> the reason of its exact pairs, one string per tool
        self._expected_count: dict[str, int] | None = None

    def order(self) -> list[tuple[int, int, int, int, int]]:
        """``(sort key, sort key, kind, expected index or -1, actual index or -1)`` per row, in order."""
        if self._order is None:
            rows = [(i, j, _PAIRED, i, j) for i, j in enumerate(self.exp_to_act) if j is not None]
            shown = len(self.swaps)
            tail = [(i, j, _SWAPPED, i, j) for i, j in zip(self.missing, self.swaps, strict=False)]
            tail += [(i, -1, _MISSING, i, -1) for i in self.missing[shown:]]
            shown_extra = set(self.swaps)
            tail += [(j, j, _EXTRA, -1, j) for j in self.extra if j not in shown_extra]
            if tail:  # paired rows are in order already; the few others are merged in
                rows += tail
                rows.sort()
            self._order = rows
        return self._order

    def build(self, kind: int, i: int, j: int) -> CallPair:
        """The row of one entry of :meth:`order`."""
        expected, actual = self.expected, self.actual
        if kind == _PAIRED:
            return self._paired(i, j)
        if kind == _SWAPPED:
            return CallPair(expected_index=i, actual_index=j, score=0.0, tool_match=False,
                            reason=f"no call of `{expected[i].tool}` was made; `{actual[j].tool}` was called instead")
        if kind == _MISSING:
            return CallPair(expected_index=i, actual_index=None, score=0.0, tool_match=False,
                            reason=f"expected call to `{expected[i].tool}` never happened")
        tool = actual[j].tool
        if self._expected_count is None:
            self._expected_count = defaultdict(int)
            for e in expected:
                self._expected_count[e.tool] += 1
        why = (f"extra call of `{tool}` (expected {self._expected_count[tool]} time(s))" if tool in self.expected_tools
               else f"`{tool}` was not expected")
        return CallPair(expected_index=None, actual_index=j, score=0.0, tool_match=False, reason=why)

    def _paired(self, i: int, j: int) -> CallPair:
        exp = self.expected[i]
        notes, openings = self.notes, self.openings
        if i in self.exact and exp.args is not None and not openings and not (notes and i in notes):
            # the row _same_tool_pair gives an exact pair, built without its keyword parsing
            reason = self._exact_reasons.get(exp.tool)
            if reason is None:
                reason = self._exact_reasons[exp.tool] = f"same tool `{exp.tool}` with identical arguments"
            return _exact_row(i, j, dict.fromkeys(exp.args, 1.0), reason)
        same = openings.get(i) if openings else None
        pair, _ = _same_tool_pair(i, j, exp, self.actual[j], exact=i in self.exact, same=same)
        if notes and i in notes:
            pair = attrs.evolve(pair, reason=f"{pair.reason}; {notes[i]}")
        return pair

    def build_all(self) -> tuple[CallPair, ...]:
        build = self.build
        return tuple([build(kind, i, j) for _, _, kind, i, j in self.order()])


class PairRows(LazyTuple):
    """``Pairing.pairs``: the explained rows, built on first read, in the order of :class:`_RowPlan`.

    :meth:`outline` and :meth:`row` let the evaluation's findings walk the rows and build
    only the few it shows."""

    __slots__ = ("_plan",)

    def __init__(self, plan: _RowPlan) -> None:
        super().__init__(plan.build_all, plan.count)
        self._plan = plan

    def outline(self) -> list[tuple[int | None, int | None, bool, bool]]:
        """``(expected index, actual index, tool_match, has mismatches)`` of each row, in order.

        A same-tool pair has argument problems (its row's ``mismatches``) when its
        expectation is checked and the actual arguments were not recorded, or its credit
        shows a checked unit not matched or extra arguments."""
        plan = self._plan
        expected, actual, credits = plan.expected, plan.actual, plan.credits
        rows: list[tuple[int | None, int | None, bool, bool]] = []
        append = rows.append
        for _, _, kind, i, j in plan.order():
            if kind != _PAIRED:
                append((None if i < 0 else i, None if j < 0 else j, False, False))
                continue
            c = credits[i]
            assert c is not None
            append((i, j, True, expected[i].args is not None and (
                actual[j].args is None or c.matched != c.expected_units or c.actual_units != c.expected_units)))
        return rows

    def row(self, k: int) -> CallPair:
        """Row ``k`` alone, equal to what the whole tuple holds (the same object once that is built)."""
        if self.built:
            return self.items()[k]
        _, _, kind, i, j = self._plan.order()[k]
        return self._plan.build(kind, i, j)


_ROW_FIELDS = ("expected_index", "actual_index", "score", "tool_match", "argument_scores", "reason", "mismatches")
# Setting CallPair's slots directly is only sound while it has exactly these fields, no
# validator, and no converter but the tuple one on mismatches (given a tuple here).
_ROW_SOUND = (tuple(f.name for f in attrs.fields(CallPair)) == _ROW_FIELDS
              and all(f.validator is None and f.on_setattr is None for f in attrs.fields(CallPair))
              and all(f.converter is None for f in attrs.fields(CallPair) if f.name != "mismatches"))
_ROW_SETTERS = tuple(CallPair.__dict__[name].__set__ for name in _ROW_FIELDS) if _ROW_SOUND else ()


def _exact_row(i: int, j: int, scores: dict[str, float], reason: str) -> CallPair:
    """``CallPair(i, j, 1.0, True, scores, reason, ())``, about twice as fast as its ``__init__``."""
    if not _ROW_SOUND:
        return CallPair(expected_index=i, actual_index=j, score=1.0, tool_match=True, argument_scores=scores,
                        reason=reason)
    s_e, s_a, s_score, s_match, s_scores, s_reason, s_mismatches = _ROW_SETTERS
    row = object.__new__(CallPair)
    s_e(row, i)
    s_a(row, j)
    s_score(row, 1.0)
    s_match(row, True)
    s_scores(row, scores)
    s_reason(row, reason)
    s_mismatches(row, ())
    return row


@functools.lru_cache(maxsize=64)
def _full_credit(units: int) -> Credit:
    """The credit of an exact pair: frozen, so one instance per size serves every pair."""
    return Credit(units, units, units)


def _same_tool_pair(i: int, j: int, exp: ExpectedCall, act: ToolCall, *, exact: bool,
                    same: str | None = None) -> tuple[CallPair, Credit]:
    """The explained row of a same-tool pair and its credit, comparing arguments once.

    ``same`` replaces the opening "same tool `x`" (a judge's pair says who judged it so)."""
    same = same or f"same tool `{exp.tool}`"
    if exp.args is None:
        return CallPair(expected_index=i, actual_index=j, score=1.0, tool_match=True,
                        reason=f"{same}; arguments not checked"), Credit(0, 0, 0)
    if exact:
        units = len(exp.args) or 1
        scores = dict.fromkeys(exp.args, 1.0)
        return CallPair(expected_index=i, actual_index=j, score=1.0, tool_match=True, argument_scores=scores,
                        reason=f"{same} with identical arguments"), _full_credit(units)
    scores, problems = explain_arguments(exp, act)
    if act.args is None:
        c = Credit(0, len(exp.args) or 1, 0)
    elif not exp.args:
        c = Credit(0 if act.args else 1, 1, len(act.args) or 1)
    else:
        c = Credit(sum(1 for v in scores.values() if v == 1.0), len(exp.args), len(act.args))
    denominator = max(c.expected_units, c.actual_units)
    score = c.matched / denominator if denominator else 1.0
    reason = (f"{same}; {c.matched} of {c.expected_units} checked argument(s) match"
              if exp.args else f"{same}; expected no arguments")
    return CallPair(expected_index=i, actual_index=j, score=score, tool_match=True, argument_scores=scores,
                    reason=reason, mismatches=problems), c


__all__ = ["WINDOW", "Credit", "Pairing", "assemble_pairing", "credit", "expected_units", "explain_arguments", "pair_calls", "preview_value"]
