"""Fast path of issue 12, fourth round: a pair's credit taken from its window's matched count.

``pair_calls`` hands ``assemble_pairing`` the matched units each window counted, for the
pairs whose expected arguments are a flat dict of plain scalars in a block whose actual
values are plain scalars without NaN. Every credit must still be exactly what
:func:`credit` gives the pair, on random tie-heavy blocks (NaN shared by identity, 1, 1.0
and True, nested values, missing and unrecorded arguments, matchers, values of a type
that equals anything); and the counts must be given where they claim to be, so the
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

np = pytest.importorskip("numpy")  # the counts come from blocks solved with numpy's windows

NAN = math.nan  # one object, as JSON parsing gives every NaN: equal to itself as a dict key
PLAIN: list[Any] = [0, 1, 1.0, True, False, "x", "1", None, 0.0, -0.0, 2.5, 10**30]
ODD: list[Any] = [NAN, float("nan"), [1], {"k": 1}, {"k": True}, (1,)]


class Loose:
    """A value equal to anything: ``matches`` compares it with ``==``, its canonical form equals nothing."""

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return 0


def _args(rng: random.Random, values: list[Any], spread: int) -> dict[str, Any]:
    """A few names with values from a small set (ties abound), often one distinctive value."""
    args = {k: rng.choice(values) for k in rng.sample("abc", rng.randint(1, 3))}
    if spread and rng.random() < 0.8:
        args["q"] = f"v{rng.randrange(spread)}"
    return args


def _calls(rng: random.Random, n: int, m: int, *, odd: bool,
           odd_rows: bool) -> tuple[list[ExpectedCall], list[ToolCall]]:
    """One tool's calls; ``odd`` mixes in NaN and nested values, ``odd_rows`` matchers,
    unchecked and ``{}`` expectations and values equal to anything."""
    values = PLAIN + ODD if odd else PLAIN
    spread = rng.choice([0, 5, 40, 200])
    expected = []
    for _ in range(n):
        e_args: dict[str, Any] | None = _args(rng, values, spread)
        roll = rng.random()
        if odd_rows and roll < 0.1:
            e_args = dict(e_args, a=Regex("x|1"))
        elif odd_rows and roll < 0.2:
            e_args = rng.choice([None, {}])
        elif odd_rows and roll < 0.3:
            e_args = dict(e_args, b=Loose())
        expected.append(ExpectedCall(tool="t", args=e_args))
    actual = []
    for _ in range(m):
        a_args = rng.choice([_args(rng, values, spread), _args(rng, values, spread), {}, None])
        actual.append(ToolCall(tool="t", args=a_args, is_error=rng.random() < 0.2))
    return expected, actual


def _assert_credits_are_credit(expected: list[ExpectedCall], actual: list[ToolCall], window: int) -> None:
    """pair_calls' credits and totals against credit() of each pair and the general assembly."""
    got = pairing.pair_calls(expected, actual, window=window)
    general = pairing.assemble_pairing(expected, actual, list(got.expected_to_actual),
                                       list(got.actual_to_expected), set(got.exact_indexes))
    for i, j in enumerate(got.expected_to_actual):
        if j is None or i in got.exact_indexes:  # an exact pair is credited in full (paired by hashing)
            continue
        want = pairing.credit(expected[i], actual[j])
        assert got.credits[i] == want, (i, j, expected[i].args, actual[j].args)
    assert got.credits == general.credits
    assert (got.matched_units, got.expected_units, got.actual_units) == (
        general.matched_units, general.expected_units, general.actual_units)


@pytest.mark.parametrize("seed", range(80))
def test_every_credit_is_what_credit_gives_the_pair(seed: int) -> None:
    """Random one-tool blocks, plain or odd, small windows (candidates, windows, leftovers)."""
    rng = random.Random(seed)
    expected, actual = _calls(rng, rng.randint(1, 90), rng.randint(1, 90), odd=seed % 2 == 1,
                              odd_rows=seed % 4 >= 2)
    _assert_credits_are_credit(expected, actual, rng.choice([4, 8, 16, 256]))


def _counts(expected: list[ExpectedCall], actual: list[ToolCall], window: int) -> dict[int, int]:
    """The counts one block gives, with the keys as pair_calls hands them over."""
    exp_keys = [None if e.args is None or has_matcher(e.args) else canonical(e.args) for e in expected]
    act_keys = [None if c.args is None else canonical(c.args) for c in actual]
    counts: dict[int, int] = {}
    pairs = pairing._assign_block(list(range(len(expected))), list(range(len(actual))), expected, actual,
                                  window, act_keys, exp_keys, counts)
    partner = dict(pairs)
    for i, k in counts.items():  # each count is the pair's credit's
        assert k == pairing.credit(expected[i], actual[partner[i]]).matched
    return counts


@pytest.mark.parametrize("seed", range(30))
def test_plain_blocks_give_their_counts(seed: int) -> None:
    """Plain values without NaN: every pair of a keyed row gets its count (the fast path runs)."""
    rng = random.Random(seed)
    expected, actual = _calls(rng, rng.randint(2, 60), rng.randint(2, 60), odd=False, odd_rows=False)
    window = rng.choice([4, 8, 256])
    counts = _counts(expected, actual, window)
    pairs = pairing._assign_block(list(range(len(expected))), list(range(len(actual))), expected, actual, window)
    assert sorted(counts) == sorted(i for i, _ in pairs)


def test_a_shared_nan_gives_no_counts_and_no_credit() -> None:
    """NaN is one object in both calls: the same code, but ``matches`` says they differ."""
    expected = [ExpectedCall(tool="t", args={"a": NAN, "q": f"v{i}"}) for i in range(12)]
    actual = [ToolCall(tool="t", args={"a": NAN, "q": f"v{i}", "z": 0}) for i in range(12)]  # not identical
    assert _counts(expected, actual, 4) == {}
    _assert_credits_are_credit(expected, actual, 4)
    assert pairing.pair_calls(expected, actual, window=4).matched_units == 12  # "q" only


def test_numbers_and_bools_are_kept_apart_or_together_as_matches_does() -> None:
    """1 and 1.0 match, True does not: the counts say the same as credit()."""
    expected = [ExpectedCall(tool="t", args={"a": 1, "b": True, "q": f"v{i}"}) for i in range(10)]
    actual = [ToolCall(tool="t", args={"a": 1.0 if i % 2 else True, "b": 1, "q": f"v{i}"}) for i in range(10)]
    assert len(_counts(expected, actual, 4)) == 10
    _assert_credits_are_credit(expected, actual, 4)


def test_a_value_equal_to_anything_is_credited_by_matches() -> None:
    """An expected value whose ``==`` says yes to everything: its row's count (0 for it) is not used."""
    expected = [ExpectedCall(tool="t", args={"a": Loose(), "q": f"v{i}"}) for i in range(10)]
    actual = [ToolCall(tool="t", args={"a": i, "q": f"v{i}"}) for i in range(10)]
    got = pairing.pair_calls(expected, actual, window=4)
    assert got.matched_units == 20
    _assert_credits_are_credit(expected, actual, 4)


def test_a_matcher_row_with_a_value_equal_to_anything_is_credited_by_matches() -> None:
    """A row with a matcher has no key; its plain values were compared by canonical form in the window."""
    expected = [ExpectedCall(tool="t", args={"a": Loose(), "r": Regex("x"), "q": f"v{i}"}) for i in range(10)]
    expected += [ExpectedCall(tool="t", args={"q": f"w{i}"}) for i in range(10)]
    actual = [ToolCall(tool="t", args={"a": i, "r": "x", "q": f"v{i}"}) for i in range(10)]
    actual += [ToolCall(tool="t", args={"q": f"w{i}", "z": 1}) for i in range(10)]
    got = pairing.pair_calls(expected, actual, window=4)
    assert got.matched_units == 40
    _assert_credits_are_credit(expected, actual, 4)
