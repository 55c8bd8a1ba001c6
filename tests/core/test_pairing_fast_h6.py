"""Fast paths of issue 12 (pairing, H6): each gives exactly what the general path gives.

The general rule is written out here and compared with the fast path on random inputs
(ties, NaN, duplicates, unicode), down to the type of every leaf and the iteration order of
each frozenset: pairing codes a block's (name, value) pairs in that order.
"""

from __future__ import annotations

import enum
import math
import random
from types import MappingProxyType
from typing import Any

import pytest

from toolscore_core.kernel.model import ExpectedCall, ToolCall
from toolscore_core.scoring import pairing
from toolscore_core.scoring.assignment import linear_sum_assignment
from toolscore_core.scoring.matchers import canonical

np = pytest.importorskip("numpy")


class _Count(enum.IntEnum):
    ONE = 1


class _Text(str):
    pass


NAN = math.nan  # one object: forms holding it are equal by identity
KEYS: list[Any] = ["q", "page", "", "é", "名前", "🙂", "a b", "1", 1, 2.5, True]
FLAT: list[Any] = [0, 1, -1, 10**30, -(10**30), 1.0, 0.0, -0.0, 2.5, math.inf, -math.inf, NAN, float("nan"),
                   True, False, "", "1", "True", "é", "名前", "🙂\u0000", "x" * 40]
OTHER: list[Any] = [None, [1, "x"], {"k": 1}, (1, 2), _Count.ONE, _Text("x"), b"raw"]


def _general(value: dict[Any, Any]) -> Any:
    """canonical() of a dict through its general branch: each value by its own canonical call."""
    return ("d", frozenset([(k, canonical(v)) for k, v in value.items()]))


def _typed(form: Any) -> Any:
    """A form with each leaf's type spelled out (so 1, 1.0 and True differ), frozensets in their
    iteration order."""
    if isinstance(form, tuple):
        return ("tuple", tuple(_typed(x) for x in form))
    if isinstance(form, frozenset):
        return ("frozenset", [_typed(x) for x in form])
    return (type(form).__name__, repr(form))


def _dict(rng: random.Random, others: float) -> dict[Any, Any]:
    return {rng.choice(KEYS): rng.choice(OTHER) if rng.random() < others else rng.choice(FLAT)
            for _ in range(rng.randrange(8))}


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("others", [0.0, 0.1])
def test_canonical_of_a_flat_dict_is_the_general_form(seed: int, others: float) -> None:
    """Plain scalar dicts (zipped in C) and mixed ones give the general branch's form, same order."""
    rng = random.Random(seed)
    for _ in range(300):
        value = _dict(rng, others)
        fast, general = canonical(value), _general(value)
        assert fast == general
        assert hash(fast) == hash(general)
        assert _typed(fast) == _typed(general)
        assert fast == canonical(MappingProxyType(value))  # the Mapping branch agrees as well


def test_canonical_keeps_bool_number_and_string_apart() -> None:
    """The cases the tags exist for, each against its general form."""
    for value in ({"a": True}, {"a": 1}, {"a": 1.0}, {"a": "1"}, {"a": False, "b": 0, "c": 0.0, "d": ""}):
        assert _typed(canonical(value)) == _typed(_general(value))
    assert canonical({"a": True}) != canonical({"a": 1})
    assert canonical({"a": 1}) == canonical({"a": 1.0})
    assert canonical({"a": NAN}) == canonical({"a": NAN})  # one object
    assert canonical({"a": float("nan")}) != canonical({"a": float("nan")})

WINDOW_VALUES: list[Any] = [0, 1, 1.0, True, False, "x", "é", "名前", "🙂", "", NAN, float("nan"), 10**30, -0.0]


def _window_calls(rng: random.Random, n: int, m: int, spread: int) -> tuple[list[ExpectedCall], list[ToolCall]]:
    """Tie-heavy calls of one tool: few names, few values (NaN, unicode, 1 == 1.0 == True),
    duplicates; ``spread`` adds a distinctive value to most calls."""
    def args() -> dict[str, Any]:
        found = {k: rng.choice(WINDOW_VALUES) for k in rng.sample("abcé", rng.randint(1, 4))}
        if spread and rng.random() < 0.8:
            found["q"] = f"v{rng.randrange(spread)}"
        return found
    expected = [ExpectedCall(tool="t", args=args()) for _ in range(n)]
    actual = [ToolCall(tool="t", args=rng.choice([args(), args(), {}, None]), is_error=rng.random() < 0.2)
              for _ in range(m)]
    return expected, actual


def _reference_solve(exp_idx: list[int], act_idx: list[int], inputs: Any) -> list[tuple[int, int, int]]:
    """The window's cost as one expression over int64 counts, and the exact solver alone."""
    matched, checked, act_units, act_units_for_empty, expects_nothing, not_succeeded = inputs
    matched = matched.astype(np.int64)
    n, m = matched.shape
    low = float(min(n, m) + 1)
    mid = low * low
    big = float(int(act_units_for_empty.sum()) + 1) * mid
    precision = np.where(checked[:, None], np.where(expects_nothing[:, None], act_units_for_empty[None, :],
                                                    act_units[None, :]), 0)
    distance = np.abs(np.arange(n)[:, None] * (m / max(n, 1)) - np.arange(m)[None, :]) / (m + n + 1)
    cost = matched * -big + precision.astype(np.float64) * mid + not_succeeded * low + distance
    rows, cols = linear_sum_assignment(cost)
    return [(exp_idx[r], act_idx[c], int(matched[r, c])) for r, c in zip(rows.tolist(), cols.tolist(), strict=True)]


@pytest.mark.parametrize("seed", range(60))
def test_table_windows_count_and_solve_as_the_general_rule(seed: int) -> None:
    """A window of the code table (int8 counts added as bytes) holds the counts read call by call,
    and its assignment is the one-expression cost's, solved by the exact solver."""
    rng = random.Random(seed)
    n, m = rng.randint(2, 40), rng.randint(2, 40)
    expected, actual = _window_calls(rng, n, m, rng.choice([0, 4, 80]))
    exp_keys = [canonical(e.args) for e in expected]
    act_keys = [canonical(c.args) for c in actual]
    table = pairing._CodeTable.build(list(range(n)), list(range(m)), exp_keys, act_keys, actual)
    assert table is not None
    for _ in range(4):
        rows = sorted(rng.sample(range(n), rng.randint(1, n)))
        cols = sorted(rng.sample(range(m), rng.randint(1, m)))
        coded = table.window(rows, cols)
        general = pairing._window_inputs(rows, cols, expected, actual, None)
        assert coded is not None and coded[0].dtype == np.int8
        assert np.array_equal(coded[0], general[0])
        want = _reference_solve(rows, cols, general)
        assert pairing._solve_matrix(rows, cols, coded) == want
        assert pairing._solve_matrix(rows, cols, general) == want


def test_a_count_fits_the_table_s_int8_cells() -> None:
    """A cell counts at most one unit per argument name of the block."""
    assert np.iinfo(np.int8).max >= pairing.NAME_LIMIT
