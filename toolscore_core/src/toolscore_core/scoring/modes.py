"""Order modes: what ``sequence_accuracy`` measures.

``default``
    The longest common subsequence of tool names divided by the longer list's length: a
    graded score (arguments are judged by ``argument_f1``, not here). Both lists empty: 1.

The named modes follow agentevals' trajectory match, ADK's ``EXACT``/``IN_ORDER``/
``ANY_ORDER`` and promptfoo's ``in_order``. Each is a pass/fail test, so
``sequence_accuracy`` becomes 1.0 or 0.0 and carries the mode's share of the score; the
other metrics are unchanged. A call *matches* an expected call when the tool is the same
and, if the expected call checks arguments, it has exactly the expected argument names and
every value satisfies the expected value or matcher (``args`` omitted = any arguments,
``{}`` = no arguments). Unlike agentevals (greedy first-fit), the unordered modes use a
maximum bipartite matching, so the answer never depends on the order calls are listed in.

``strict``     same number of calls, and call *i* matches expected call *i* for every *i*.
``in_order``   the expected calls appear in order as a subsequence; extra calls allowed.
``superset``   every expected call is matched by a distinct actual call, in any order;
               extra calls allowed.
``subset``     every actual call is matched by a distinct expected call ("no tools beyond
               the expected ones"); expected calls may be missing.
``unordered``  superset and subset: the same calls, in any order.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.model import ExpectedCall, ToolCall
from toolscore_core.scoring.matchers import canonical, has_matcher, matches

DEFAULT_MODE = "default"
MODES: tuple[str, ...] = ("default", "strict", "in_order", "unordered", "subset", "superset")
MODE_HELP: dict[str, str] = {
    "default": "LCS of tool names / longer length (graded)",
    "strict": "same calls in the same order, nothing else (pass/fail)",
    "in_order": "expected calls in order, extras allowed (pass/fail)",
    "unordered": "same calls in any order, nothing else (pass/fail)",
    "subset": "no call beyond the expected ones (pass/fail)",
    "superset": "every expected call made, extras allowed (pass/fail)",
}


def check_mode(mode: str | None, *, file: str | None = None, location: str | None = None) -> str:
    """The mode name, validated (None = default); an unknown name is an InputError."""
    if mode is None:
        return DEFAULT_MODE
    if not isinstance(mode, str) or mode not in MODES:
        import difflib

        close = difflib.get_close_matches(str(mode), MODES, n=1, cutoff=0.5)
        raise InputError(
            f"unknown order mode {mode!r}",
            file=file,
            location=location,
            expected=f"one of {', '.join(MODES)}",
            hint=f"Did you mean {close[0]!r}?" if close else None,
        )
    return mode


def call_matches(expected: ExpectedCall, actual: ToolCall) -> bool:
    """Same tool and, when arguments are checked, exactly the expected arguments."""
    if expected.tool != actual.tool:
        return False
    if expected.args is None:
        return True
    if actual.args is None:
        return False
    return matches(expected.args, actual.args)


def lcs_length(a: Sequence[Any], b: Sequence[Any]) -> int:
    """Length of the longest common subsequence, bit-parallel (Hyyrö 2004).

    O(len(a) * len(b) / word size) with Python's big integers: 100k x 100k symbols in a
    few seconds and linear memory, where the textbook table would need 10^10 cells.
    Equal sequences (the common case of a run that did what was expected) are answered by
    one C-level comparison, before any per-symbol loop. Otherwise a greedy walk finds a
    common subsequence (:func:`_greedy_common`); when it is as long as the symbols the two
    share (:func:`_shared_symbols`, which no common subsequence can exceed), it is the
    answer: calls to wrong or unknown tools, missing and extra calls usually end there, in
    linear time. Long inputs are then computed in a band (:func:`_banded_lcs`).
    """
    if len(a) == len(b) and a == b:
        return len(a)
    start = 0
    while start < len(a) and start < len(b) and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a -= 1
        end_b -= 1
    trimmed = start + (len(a) - end_a)
    a, b = a[start:end_a], b[start:end_b]
    if not a or not b:
        return trimmed
    if len(a) < len(b):
        a, b = b, a
    lower = _greedy_common(a, b)
    # a common subsequence as long as a bound above: the LCS (the cheap bound first)
    if lower == _known_symbols(a, b) or lower == _shared_symbols(a, b):
        return trimmed + lower
    banded = _banded_lcs(a, b, lower)
    if banded is not None:
        return trimmed + banded
    masks: dict[Any, int] = defaultdict(int)
    for i, symbol in enumerate(a):
        masks[symbol] |= 1 << i
    full = (1 << len(a)) - 1
    v = full
    for symbol in b:
        u = v & masks.get(symbol, 0)
        v = ((v + u) | (v - u)) & full
    return trimmed + len(a) - v.bit_count()


BAND_SHARE = 8  # the band pays for its per-row bookkeeping when it is this many times narrower than the row
BAND_MIN = 20_000  # below this many symbols the whole row is as cheap as the band's bookkeeping
BAND_BLOCK = 1024  # the fewest bits of a symbol mask block


RESYNC_REACH = 4  # how far the greedy walk looks for the place the two sequences agree again
RESYNC_RUN = 4  # how many symbols must agree there
RESYNC_SHARE = 16  # the walk gives up after len(a) / RESYNC_SHARE searches,
RESYNC_MISSES = 256  # or after len(a) / RESYNC_MISSES that found no agreement: unrelated sequences stay cheap
_RESYNC_STEPS = sorted(((da, db) for da in range(RESYNC_REACH + 1) for db in range(RESYNC_REACH + 1) if da or db),
                       key=lambda step: (max(step), sum(step), step))


def _greedy_common(a: Sequence[Any], b: Sequence[Any]) -> int:
    """The length of a common subsequence found in one greedy walk: a lower bound of the LCS.

    Why: the band of :func:`_banded_lcs` is as narrow as this bound is good; counting the
    symbols equal at the same position is ruined by one inserted call near the start. The
    walk matches equal symbols and, where the sequences differ, skips the fewest symbols
    of either after which ``RESYNC_RUN`` symbols agree (within ``RESYNC_REACH``), and stops
    after a bounded number of such searches; every symbol it counts is matched in order,
    so the count is a common subsequence's length.
    """
    n, m = len(a), len(b)
    i = j = count = 0
    chunk = 64
    searches = n // RESYNC_SHARE + 16
    misses = n // RESYNC_MISSES + 8
    while i < n and j < m:
        step = min(chunk, n - i, m - j)
        if a[i:i + step] == b[j:j + step]:  # long equal runs go by in C
            i, j, count = i + step, j + step, count + step
            continue
        same = _first_difference(a, i, b, j, step)
        i, j, count = i + same, j + same, count + same
        searches -= 1
        if searches < 0:  # what was counted so far is still a common subsequence
            break
        for da, db in _RESYNC_STEPS:
            if a[i + da:i + da + RESYNC_RUN] == b[j + db:j + db + RESYNC_RUN] and i + da < n and j + db < m:
                i, j = i + da, j + db
                break
        else:
            misses -= 1
            if misses < 0:
                break
            i, j = i + 1, j + 1
    return count


SHORT_WALK = 4  # below this many symbols the first difference is found one symbol at a time


def _first_difference(a: Sequence[Any], i: int, b: Sequence[Any], j: int, step: int) -> int:
    """The first offset at which ``a[i:]`` and ``b[j:]`` differ, knowing it is below ``step``.

    Why: a call of a wrong tool every few dozen calls put a difference in nearly every chunk
    of :func:`_greedy_common`, and walking to it one symbol at a time was most of its cost;
    halving the chunk with C-level slice comparisons takes a handful of steps. Symbols are
    compared as the walk and the slices compare them (a symbol equal to itself, as a tool
    name always is, is equal however it is compared)."""
    lo, hi = 0, step  # a[i:i + lo] == b[j:j + lo], and they differ before hi
    while hi - lo > SHORT_WALK:
        mid = (lo + hi) // 2
        if a[i + lo:i + mid] == b[j + lo:j + mid]:
            lo = mid
        else:
            hi = mid
    while a[i + lo] == b[j + lo]:
        lo += 1
    return lo


def _known_symbols(a: Sequence[Any], b: Sequence[Any]) -> int:
    """The symbols of ``b`` that occur in ``a`` at all, or the reverse, whichever are fewer: an
    upper bound of the LCS, looser than :func:`_shared_symbols` but cheaper.

    Why: a call to a tool the other side never names (a wrong or unknown tool) is the usual
    difference, and then this bound is already the LCS; a set membership per symbol costs
    much less than the two counters of :func:`_shared_symbols`."""
    in_a, in_b = set(a), set(b)
    return min(_occurring(b, in_b - in_a, in_a), _occurring(a, in_a - in_b, in_b))


FEW_FOREIGN = 8  # up to this many foreign symbols, counting each is cheaper than a membership test per symbol


def _occurring(seq: Sequence[Any], foreign: set[Any], other: set[Any]) -> int:
    """How many symbols of ``seq`` are in ``other``; ``foreign``: those of its symbols that are not."""
    if not foreign:
        return len(seq)
    if len(foreign) <= FEW_FOREIGN and isinstance(seq, list):
        return len(seq) - sum(seq.count(symbol) for symbol in foreign)
    return sum(map(other.__contains__, seq))


def _shared_symbols(a: Sequence[Any], b: Sequence[Any]) -> int:
    """For each symbol, the fewer of its occurrences in ``a`` and ``b``, summed: an upper bound
    of the LCS (each matched pair uses one occurrence from each side)."""
    counts_b = Counter(b)
    return sum(min(count, counts_b[symbol]) for symbol, count in Counter(a).items())


def _banded_lcs(a: Sequence[Any], b: Sequence[Any], greedy: int) -> int | None:
    """The exact LCS of ``a`` (the longer) and ``b`` computed in a diagonal band; None when
    the band would not be much narrower than ``a``.

    Why: the whole-row algorithm costs len(b) operations on len(a)-bit integers, quadratic:
    a million calls took minutes. Any common subsequence bounds the answer from below
    (``lower``): the symbols equal at the same position, or a greedy walk that steps over
    small insertions (:func:`_greedy_common`), whichever is longer. An alignment with ``L``
    matches skips ``len(a) - L`` symbols of ``a`` and ``len(b) - L`` of ``b``, so an optimal
    one (``L >= lower``) never leaves the diagonals ``-(len(b) - lower) <= i - j <=
    len(a) - lower``. Each row is computed on that band only (``width`` bits): the column
    left of the band holds the value it had one row up, and a column entering the band
    equals its left neighbour; both are lower bounds of the true values, every value is
    then a lower bound, and along the optimal path, which the band contains, every value
    is exact, so the last one is the LCS. Symbol masks are cut in blocks of at least
    ``width`` bits, so each row reads two blocks, not the whole of ``a``.
    """
    n, m = len(a), len(b)
    if n < BAND_MIN:
        return None
    lower = max(sum(1 for x, y in zip(a, b, strict=False) if x == y), greedy)
    low_k, high_k = -(m - lower), n - lower  # the diagonals i - j an optimal path stays within
    width = high_k - low_k + 1
    if width * BAND_SHARE > n:
        return None
    size = max(width, BAND_BLOCK)  # a band fits in two blocks; no tiny blocks when the band is narrow
    blocks: list[dict[Any, int]] = [defaultdict(int) for _ in range(n // size + 2)]
    for i, symbol in enumerate(a):
        blocks[i // size][symbol] |= 1 << (i % size)
    lo = hi = 0  # the band holds columns lo+1 .. hi (bit t is column lo+1+t; column c is a[c-1])
    offset = 0  # the value of column lo
    v = 0
    for j, symbol in enumerate(b, start=1):
        while lo < j + low_k - 1:  # the band's lowest column leaves it: its step joins the offset
            offset += 1 - (v & 1)
            v >>= 1
            lo += 1
        top = min(n, j + high_k)
        if top > hi:  # entering columns equal their left neighbour (step 0: bit 1)
            v |= ((1 << (top - hi)) - 1) << (hi - lo)
            hi = top
        first, start = divmod(lo, size)
        # the band's hi - lo <= width <= size columns start inside block ``first``: two blocks hold them
        mask = blocks[first].get(symbol, 0) | (blocks[first + 1].get(symbol, 0) << size)
        full = (1 << (hi - lo)) - 1
        u = v & (mask >> start) & full
        v = ((v + u) | (v - u)) & full
    return offset + (hi - lo) - v.bit_count()


def _is_subsequence(expected: Sequence[ExpectedCall], actual: Sequence[ToolCall]) -> tuple[bool, int]:
    """Greedy earliest match is optimal for a subsequence test. Returns (ok, matched)."""
    j = 0
    for i, exp in enumerate(expected):
        while j < len(actual) and not call_matches(exp, actual[j]):
            j += 1
        if j == len(actual):
            return False, i
        j += 1
    return True, len(expected)


def max_matching(expected: Sequence[ExpectedCall], actual: Sequence[ToolCall]) -> int:
    """Size of a maximum one-to-one matching under :func:`call_matches`.

    Plain-valued expectations pair with identical calls by counting (always optimal: the
    identical calls are interchangeable); expectations with matchers go through scipy's
    maximum bipartite matching; ``args=None`` expectations take whatever is left of their
    tool. Never materialises an all-pairs relation.
    """
    import numpy as np
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching

    by_tool_e: dict[str, list[ExpectedCall]] = defaultdict(list)
    by_tool_a: dict[str, list[ToolCall]] = defaultdict(list)
    for e in expected:
        by_tool_e[e.tool].append(e)
    for a in actual:
        by_tool_a[a.tool].append(a)
    total = 0
    for tool, exps in by_tool_e.items():
        acts = by_tool_a.get(tool, [])
        if not acts:
            continue
        unchecked = sum(1 for e in exps if e.args is None)
        plain: dict[Any, int] = defaultdict(int)
        with_matchers: list[ExpectedCall] = []
        for e in exps:
            if e.args is None:
                continue
            if has_matcher(e.args):
                with_matchers.append(e)
            else:
                plain[canonical(e.args)] += 1
        pool: dict[Any, list[ToolCall]] = defaultdict(list)
        unrecorded: list[ToolCall] = []
        for a in acts:
            if a.args is None:
                unrecorded.append(a)
            else:
                pool[canonical(a.args)].append(a)
        matched = 0
        for key, count in plain.items():
            available = pool.get(key, [])
            take = min(count, len(available))
            matched += take
            del available[:take]
        remaining = [a for group in pool.values() for a in group] + unrecorded
        if with_matchers and remaining:
            rows: list[int] = []
            cols: list[int] = []
            for r, e in enumerate(with_matchers):
                for c, a in enumerate(remaining):
                    if call_matches(e, a):
                        rows.append(r)
                        cols.append(c)
            if rows:
                graph = csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)),
                                   shape=(len(with_matchers), len(remaining)))
                assignment = maximum_bipartite_matching(graph, perm_type="column")
                matched += int((assignment >= 0).sum())
        total += min(matched + unchecked, len(acts))
    return total


def sequence_score(mode: str, expected: Sequence[ExpectedCall], actual: Sequence[ToolCall]) -> tuple[float, dict[str, Any]]:
    """``sequence_accuracy`` under ``mode`` and the details that explain it."""
    n, m = len(expected), len(actual)
    if n == 0 and m == 0:
        return 1.0, {"mode": mode, "passed": True}
    if mode == DEFAULT_MODE:
        names_e = [e.tool for e in expected]
        names_a = [a.tool for a in actual]
        lcs = lcs_length(names_e, names_a)
        return lcs / max(n, m), {"mode": mode, "lcs": lcs, "expected_calls": n, "actual_calls": m}
    details: dict[str, Any] = {"mode": mode, "expected_calls": n, "actual_calls": m}
    if mode == "strict":
        first_difference = None
        for i in range(min(n, m)):
            if not call_matches(expected[i], actual[i]):
                first_difference = i
                break
        if first_difference is None and n != m:
            first_difference = min(n, m)
        passed = first_difference is None
        details["first_difference"] = first_difference
    elif mode == "in_order":
        passed, found = _is_subsequence(expected, actual)
        details["matched_in_order"] = found
        if not passed:
            details["first_missing"] = found
    else:
        size = max_matching(expected, actual)
        details["matched"] = size
        if mode == "superset":
            passed = size == n
        elif mode == "subset":
            passed = size == m
        else:  # unordered
            passed = size == n == m
    details["passed"] = passed
    return (1.0 if passed else 0.0), details


__all__ = ["DEFAULT_MODE", "MODES", "MODE_HELP", "call_matches", "check_mode", "lcs_length", "max_matching",
           "sequence_score"]
