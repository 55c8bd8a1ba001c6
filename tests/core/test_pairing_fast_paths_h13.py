"""Fast paths of issue 12, third round: the block's code table gives exactly what the general path gives.

A window's arrays, a chunk's candidates and a block's pairs are built once from the code
table and once call by call (or from the inverted index), on random tie-heavy inputs, and
must agree to the bit; the table must also be used where it claims to be, so the
comparisons are not vacuous.
"""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from toolscore_core.kernel.model import ExpectedCall, ToolCall
from toolscore_core.scoring import pairing
from toolscore_core.scoring.matchers import Regex, canonical, has_matcher

np = pytest.importorskip("numpy")

NAN = math.nan  # one object: canonical forms holding it are equal by identity, as dict keys
VALUES: list[Any] = [0, 1, 1.0, True, False, "x", "1", None, NAN, float("nan"), [1], {"k": 1}, {"k": True}, 10**30]


def _args(rng: random.Random, names: str = "abc", spread: int = 0) -> dict[str, Any]:
    """A few names, values from a small set (ties abound); ``spread`` adds distinctive values."""
    args = {k: rng.choice(VALUES) for k in rng.sample(names, rng.randint(1, len(names)))}
    if spread and rng.random() < 0.8:
        args["q"] = f"v{rng.randrange(spread)}"
    return args


def _calls(rng: random.Random, n: int, m: int, *, spread: int = 0,
           odd_rows: bool = False) -> tuple[list[ExpectedCall], list[ToolCall]]:
    """Expected calls (some with a matcher, unchecked or ``{}`` when ``odd_rows``) and actual
    calls (some unrecorded or without arguments, some failed)."""
    expected = []
    for _ in range(n):
        e_args: dict[str, Any] | None = _args(rng, spread=spread)
        roll = rng.random()
        if odd_rows and roll < 0.1:
            e_args = dict(e_args, a=Regex("x|1"))
        elif odd_rows and roll < 0.2:
            e_args = rng.choice([None, {}])
        expected.append(ExpectedCall(tool="t", args=e_args))
    actual = []
    for _ in range(m):
        a_args = rng.choice([_args(rng, spread=spread), _args(rng, "abcd", spread), {}, None])
        actual.append(ToolCall(tool="t", args=a_args, is_error=rng.random() < 0.2))
    return expected, actual


def _keys(expected: list[ExpectedCall], actual: list[ToolCall]) -> tuple[list[Any], list[Any]]:
    """The keys as pair_calls hands them over (an expected call's only when checked, without a matcher)."""
    exp_keys = [None if e.args is None or has_matcher(e.args) else canonical(e.args) for e in expected]
    return exp_keys, [canonical(c.args) for c in actual]


def _case(seed: int, low: int, high: int, spreads: list[int]) -> tuple[random.Random, list[ExpectedCall],
                                                                      list[ToolCall], list[Any], list[Any]]:
    """Plain calls of ``low`` to ``high`` a side, their keys, and the generator to draw more from."""
    rng = random.Random(seed)
    n, m = rng.randint(low, high), rng.randint(low, high)
    expected, actual = _calls(rng, n, m, spread=rng.choice(spreads))
    return (rng, expected, actual, *_keys(expected, actual))


def _same_arrays(got: Any, want: Any) -> None:
    """Equal arrays of equal types, except the table's matched units: int8 (the same counts)."""
    assert len(got) == len(want)
    assert got[0].dtype == np.int8 and want[0].dtype == np.int64
    assert np.array_equal(got[0], want[0])
    for a, b in zip(got[1:], want[1:], strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert np.array_equal(a, b)


@pytest.mark.parametrize("seed", range(60))
def test_window_arrays_from_the_table_are_those_read_call_by_call(seed: int) -> None:
    """Every array of a window (matched units, precision units, failures...) is the general path's."""
    rng, expected, actual, exp_keys, act_keys = _case(seed, 1, 20, [0, 3, 40])
    n, m = len(expected), len(actual)
    rows, cols = list(range(n)), list(range(m))
    table = pairing._CodeTable.build(rows, cols, exp_keys, act_keys, actual)
    assert table is not None
    for _ in range(5):  # sub-windows too: the table is the block's, the window any part of it
        sub_rows = sorted(rng.sample(rows, rng.randint(1, n)))
        sub_cols = sorted(rng.sample(cols, rng.randint(1, m)))
        got = table.window(sub_rows, sub_cols)
        assert got is not None
        _same_arrays(got, pairing._window_inputs(sub_rows, sub_cols, expected, actual, None))


@pytest.mark.parametrize("seed", range(40))
def test_windows_with_the_table_pair_as_windows_without(seed: int) -> None:
    """Whole windows, odd rows included (the table steps aside for them): the same pairs and units."""
    rng = random.Random(seed)
    n, m = rng.randint(2, 24), rng.randint(2, 24)
    expected, actual = _calls(rng, n, m, spread=rng.choice([0, 5, 50]), odd_rows=rng.random() < 0.3)
    keys = pairing._Keys(*_keys(expected, actual))
    rows, cols = list(range(n)), list(range(m))
    assert pairing._solve_window(rows, cols, expected, actual, keys) == pairing._solve_window(rows, cols, expected,
                                                                                             actual)


@pytest.mark.parametrize("seed", range(40))
def test_candidates_from_the_table_are_the_inverted_index(seed: int) -> None:
    """A chunk's candidates, with any calls already taken, are the inverted index's, in order."""
    rng, expected, actual, exp_keys, act_keys = _case(seed, 5, 80, [3, 20, 200])
    n, m = len(expected), len(actual)
    act_block = sorted(rng.sample(range(m), rng.randint(1, m)))
    table = pairing._CodeTable.build(list(range(n)), act_block, exp_keys, act_keys, actual)
    assert table is not None
    postings = pairing._postings(act_block, actual, act_keys)
    for _ in range(5):
        remaining = {j for j in act_block if rng.random() < 0.7}
        unpaired = np.array([j in remaining for j in act_block], dtype=bool)
        chunk = sorted(rng.sample(range(n), rng.randint(1, n)))
        limit = rng.choice([1, 3, 8, 256])
        want = pairing._affinity_candidates(chunk, remaining, postings, expected, limit, exp_keys)
        assert table.candidates(chunk, unpaired, limit) == want


def _solve_counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record which path each window and chunk took (the table's or the general one)."""
    used: list[str] = []
    real_window, real_candidates = pairing._CodeTable.window, pairing._CodeTable.candidates

    def window(self: Any, *args: Any) -> Any:
        got = real_window(self, *args)
        used.append("window" if got is not None else "declined")
        return got

    def candidates(self: Any, *args: Any) -> Any:
        used.append("candidates")
        return real_candidates(self, *args)

    monkeypatch.setattr(pairing._CodeTable, "window", window)
    monkeypatch.setattr(pairing._CodeTable, "candidates", candidates)
    return used


@pytest.mark.parametrize("seed", range(40))
def test_blocks_with_the_table_pair_as_blocks_without(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Long blocks (candidates, windows, leftovers): the same pairs with the table as with none."""
    rng = random.Random(seed)
    n, m = rng.randint(10, 90), rng.randint(10, 90)
    expected, actual = _calls(rng, n, m, spread=rng.choice([5, 30, 120]), odd_rows=rng.random() < 0.2)
    exp_keys, act_keys = _keys(expected, actual)
    window = rng.choice([4, 8, 16, 256])
    rows, cols = list(range(n)), list(range(m))
    used = _solve_counting(monkeypatch)
    fast = pairing._assign_block(rows, cols, expected, actual, window, act_keys, exp_keys)
    monkeypatch.setattr(pairing._CodeTable, "build", classmethod(lambda cls, *args: None))
    assert pairing._assign_block(rows, cols, expected, actual, window, act_keys, exp_keys) == fast
    if not any(e.args is None or has_matcher(e.args) or not e.args for e in expected):
        assert "window" in used  # plain rows only: the table answered
        if max(n, m) > window:
            assert "candidates" in used


def _one_tool_trace(rng: random.Random, n: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The worst case's shape, smaller and with random changes, so ties and leftovers occur."""
    expected, actual = [], []
    for i in range(n):
        args = {"query": f"item {rng.randrange(n)}", "page": rng.randrange(4), "exact": rng.random() < 0.5}
        expected.append({"tool": "s", "args": args})
        changed = dict(args, page=rng.randrange(4)) if rng.random() < 0.7 else dict(args)
        if rng.random() < 0.1:
            changed["query"] = f"other {i}"
        call = {"tool": "s", "args": changed, "result": "ok"}
        if rng.random() < 0.05:
            call.update(is_error=True, error="failed", result=None)
        actual.append(call)
    rng.shuffle(actual)
    return expected, actual


@pytest.mark.parametrize("seed", range(8))
def test_evaluations_with_the_table_are_those_without(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole evaluation of one-tool traces past a window: the same pairing and result."""
    from toolscore_core.scoring.evaluation import evaluate

    expected, actual = _one_tool_trace(random.Random(seed), 600 + 50 * seed)
    used = _solve_counting(monkeypatch)
    fast = evaluate(expected, actual)
    assert "window" in used and "candidates" in used
    monkeypatch.setattr(pairing._CodeTable, "build", classmethod(lambda cls, *args: None))
    slow = evaluate(expected, actual)
    assert fast.pairs == slow.pairs
    assert fast.score == slow.score and fast.metrics == slow.metrics


def test_the_table_declines_blocks_it_cannot_code() -> None:
    """Out of trace order, or an actual key that is no dict's: no table (the general path decides)."""
    expected = [ExpectedCall(tool="t", args={"a": 1}) for _ in range(3)]
    actual = [ToolCall(tool="t", args={"a": 1}) for _ in range(3)]
    exp_keys, act_keys = _keys(expected, actual)
    assert pairing._CodeTable.build([0, 1, 2], [0, 1, 2], exp_keys, act_keys, actual) is not None
    assert pairing._CodeTable.build([0, 2, 1], [0, 1, 2], exp_keys, act_keys, actual) is None
    assert pairing._CodeTable.build([0, 1, 2], [1, 0, 2], exp_keys, act_keys, actual) is None
    assert pairing._CodeTable.build([0, 1, 2], [0, 1, 2], exp_keys, [*act_keys[:2], ("l", ())], actual) is None
    many = [ToolCall(tool="t", args={f"n{k}": 1}) for k in range(pairing.NAME_LIMIT + 1)]
    assert pairing._CodeTable.build([0], list(range(len(many))), exp_keys, _keys([], many)[1], many) is None


def _tiny_matrix(rng: random.Random) -> Any:
    """A small cost matrix with ties (values from a few), at the magnitudes of real windows."""
    n, m = rng.randint(1, 8), rng.randint(1, 8)
    levels = rng.choice([[0.0, 1.0], [0.0, 0.5, 1.0, 2.0], [-3e9, -3e9 + 0.25, 1e8, 1e8 + 1.0 / 3]])
    return np.array([[rng.choice(levels) + rng.choice([0.0, 0.0, 1e-9, rng.random()]) for _ in range(m)]
                     for _ in range(n)])


def _outcome(solve: Any, cost: Any, budget: int | None) -> tuple[list[int], list[int]] | None:
    """The rows and columns a solver gives, or None when it gives up (the step budget)."""
    from toolscore_core.scoring import assignment

    try:
        rows, cols = solve(cost, budget)
    except assignment._TooHard:
        return None
    return list(rows), list(cols)


@pytest.mark.parametrize("seed", range(40))
def test_tiny_blocks_on_lists_solve_as_the_numpy_solver(seed: int) -> None:
    """The list solver gives the numpy solver's rows and columns, and gives up (the step budget) where it does."""
    from toolscore_core.scoring import assignment

    rng = random.Random(seed)
    solved = 0
    for _ in range(50):
        cost = _tiny_matrix(rng)
        side = cost if cost.shape[0] <= cost.shape[1] else cost.T
        budget = rng.choice([None, 1, 2, 3, 8 * side.shape[0] + 16])
        outcome = _outcome(assignment._solve, side, budget)
        assert outcome == _outcome(assignment._solve_lists, side.tolist(), budget)
        solved += outcome is not None
    assert solved > 0


def _most_matched_reference(pairs: list[tuple[str, Any]], index: dict[str, dict[Any, set[int]]]) -> Any:
    """The rule written out: the most arguments any column matches (all, or all but one), and those columns."""
    postings = [index.get(key, {}).get(value, set()) for key, value in pairs]
    columns = set().union(*postings)
    counts = {col: sum(col in p for p in postings) for col in columns}
    best = max(counts.values(), default=0)
    if best < len(postings) - 1 or best == 0:
        return None
    return best, {col for col, c in counts.items() if c == best}


@pytest.mark.parametrize("seed", range(30))
def test_most_matched_is_the_rule(seed: int) -> None:
    """Rows with values nobody holds (one, two, none): the columns matching the most arguments, as counted."""
    rng = random.Random(seed)
    for _ in range(200):
        index: dict[str, dict[Any, set[int]]] = {}
        for name in "abcd":
            for value in range(4):
                if rng.random() < 0.7:
                    index.setdefault(name, {})[value] = set(rng.sample(range(12), rng.randint(1, 6)))
        pairs = [(name, rng.randrange(5)) for name in rng.sample("abcde", rng.randint(1, 5))]
        assert pairing._most_matched(pairs, index, set()) == _most_matched_reference(pairs, index)
