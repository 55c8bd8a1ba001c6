"""Fast paths of issue 12, second round: each one gives exactly what the general path gives.

Each test writes the general rule out (or calls the general path) and compares it with the
fast path on random inputs, so a fast path that drifts from its rule fails here.
"""

from __future__ import annotations

import enum
import itertools
import math
import random
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import pytest

from toolscore_core.kernel.model import ExpectedCall, ToolCall
from toolscore_core.scoring import pairing
from toolscore_core.scoring.matchers import ANY, Approx, Regex, canonical, has_matcher, matches


class _Colour(enum.IntEnum):
    RED = 1


class _Text(str):
    pass


NAN = math.nan  # one object: canonical forms holding it compare equal by identity
SCALARS: list[Any] = [0, 1, -1, 2, 1.0, 0.0, 2.5, True, False, None, "", "1", "x", "True", NAN, float("nan"),
                      _Colour.RED, _Text("x"), 10**30]


def _reference_canonical(value: Any) -> Any:
    """canonical() through its general branches only: every dict, at any depth, is handed over
    as a read-only mapping (not a dict), so no value is tagged by the dict fast path."""
    return canonical(_without_dicts(value))


def _without_dicts(value: Any) -> Any:
    if type(value) is dict:
        return MappingProxyType({k: _without_dicts(v) for k, v in value.items()})
    if type(value) is list:
        return [_without_dicts(v) for v in value]
    return value


def _typed(form: Any) -> Any:
    """A form with the type of every leaf spelled out, so ``1``, ``1.0`` and ``True`` differ."""
    if isinstance(form, tuple):
        return ("tuple", tuple(_typed(x) for x in form))
    if isinstance(form, frozenset):
        return ("frozenset", sorted(repr(_typed(x)) for x in form))
    return (type(form).__name__, repr(form))


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if roll < 0.6 or depth > 2:
        return rng.choice(SCALARS)
    if roll < 0.75:
        return {rng.choice("abc"): _value(rng, depth + 1) for _ in range(rng.randrange(3))}
    if roll < 0.9:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(3))]
    return rng.choice([(1, "x"), {1, 2}, b"raw"])


@pytest.mark.parametrize("seed", range(30))
def test_canonical_of_a_dict_is_the_general_form(seed: int) -> None:
    """The dict fast path (scalar values tagged in place) gives the very form of the general branches."""
    rng = random.Random(seed)
    for _ in range(200):
        value = {rng.choice(["q", "page", "x", 1]): _value(rng) for _ in range(rng.randrange(5))}
        fast, reference = canonical(value), _reference_canonical(value)
        assert fast == reference
        assert hash(fast) == hash(reference)
        assert _typed(fast) == _typed(reference)


def _reference_matched(exp: Mapping[str, Any], act: Mapping[str, Any]) -> int:
    return sum(1 for key, value in exp.items() if key in act and matches(value, act[key]))


def _expected_value(rng: random.Random) -> Any:
    roll = rng.random()
    if roll < 0.1:
        return Regex("x|1")
    if roll < 0.15:
        return rng.choice([ANY, Approx(1.0, rel=0.01)])
    return _value(rng)


@pytest.mark.parametrize("seed", range(30))
def test_credit_counts_what_matches_counts(seed: int) -> None:
    """credit()'s inline comparison of same-type scalars counts what a call of matches() per argument counts."""
    rng = random.Random(seed)
    for _ in range(200):
        exp = {k: _expected_value(rng) for k in rng.sample("abcde", rng.randint(1, 5))}
        act = {k: rng.choice([exp[k], _value(rng)]) if k in exp and rng.random() < 0.6 else _value(rng)
               for k in rng.sample("abcdef", rng.randint(0, 6))}
        got = pairing.credit(ExpectedCall(tool="t", args=exp), ToolCall(tool="t", args=act))
        assert got.matched == _reference_matched(exp, act)
        assert (got.expected_units, got.actual_units) == (len(exp), len(act))


def _window(rng: random.Random, n: int, m: int) -> tuple[list[ExpectedCall], list[ToolCall]]:
    """A window of one tool: plain rows, matcher rows, unchecked and empty rows, nested values,
    unrecorded and empty actual arguments, failed calls; values drawn from few, so ties abound."""
    small = [0, 1, 1.0, True, "x", "1", None, [1], {"k": 1}, {"k": True}]

    def args() -> dict[str, Any]:
        return {k: rng.choice(small) for k in rng.sample(["a", "b", "c"], rng.randint(1, 3))}

    expected = []
    for _ in range(n):
        e_args: dict[str, Any] | None = args()
        roll = rng.random()
        if roll < 0.15:
            e_args = dict(e_args, a=Regex("x|1"))
        elif roll < 0.25:
            e_args = rng.choice([None, {}])
        expected.append(ExpectedCall(tool="t", args=e_args))
    actual = [ToolCall(tool="t", args=rng.choice([args(), args(), args(), {}, None]), is_error=rng.random() < 0.2)
              for _ in range(m)]
    return expected, actual


def _seeded_window(seed: int, low: int, high: int) -> tuple[random.Random, list[ExpectedCall], list[ToolCall]]:
    """A :func:`_window` of ``low`` to ``high`` calls a side, and the generator to draw more from."""
    rng = random.Random(seed)
    n, m = rng.randint(low, high), rng.randint(low, high)
    return (rng, *_window(rng, n, m))


def _keys(expected: list[ExpectedCall], actual: list[ToolCall]) -> tuple[list[Any], list[Any]]:
    """The keys as evaluate() hands them over: every actual call's canonical(args) (None too),
    the expected calls' only when checked and without a matcher."""
    exp_keys = [None if e.args is None or has_matcher(e.args) else canonical(e.args) for e in expected]
    return exp_keys, [canonical(c.args) for c in actual]


@pytest.mark.parametrize("seed", range(60))
def test_windows_reading_the_keys_solve_as_windows_hashing_the_values(seed: int) -> None:
    """The matrix (and the numpy-free shortcut) built from the calls' keys pair as built from the values."""
    pytest.importorskip("numpy")
    _, expected, actual = _seeded_window(seed, 1, 12)
    keys = pairing._Keys(*_keys(expected, actual))
    assert keys.actual_maps(list(range(len(actual)))) is not None  # the keys are read, not set aside
    _same_with_keys(pairing._solve_window, expected, actual, keys)
    _same_with_keys(pairing._sparse_minima, expected, actual, keys)


def _same_with_keys(solve: Callable[..., Any], expected: list[ExpectedCall], actual: list[ToolCall],
                    keys: Any) -> None:
    """``solve`` on the whole window answers the same with the keys as without them."""
    rows, cols = list(range(len(expected))), list(range(len(actual)))
    assert solve(rows, cols, expected, actual, keys) == solve(rows, cols, expected, actual)


@pytest.mark.parametrize("seed", range(30))
def test_sparse_windows_reading_the_keys_answer_as_hashing_the_values(seed: int) -> None:
    """Plain windows (where the numpy-free shortcut answers): the same answer from the keys."""
    rng = random.Random(seed)
    n, m = rng.randint(2, 10), rng.randint(2, 12)
    expected: list[ExpectedCall] = []
    actual: list[ToolCall] = []
    for i in range(max(n, m)):
        args = {"q": f"item {i}", "page": rng.randint(0, 3), "exact": rng.random() < 0.5}
        if i < n:
            expected.append(ExpectedCall(tool="t", args=dict(args)))
        if i < m:
            changed = dict(args)
            for key in rng.sample(sorted(changed), rng.randint(0, 1)):
                changed[key] = rng.choice([0, 2, "other", False, 1.0])
            actual.append(ToolCall(tool="t", args=changed, is_error=rng.random() < 0.1))
    _same_with_keys(pairing._sparse_minima, expected, actual, pairing._Keys(*_keys(expected, actual)))


@pytest.mark.parametrize("seed", range(25))
def test_blocks_with_both_keys_pair_as_blocks_without(seed: int) -> None:
    """Long blocks (index, candidates, windows, leftovers) pair the same with the keys as without any."""
    pytest.importorskip("numpy")
    rng, expected, actual = _seeded_window(seed, 10, 60)
    n, m = len(expected), len(actual)
    for e in expected[: n // 2]:  # distinctive values too, so the index finds candidates
        if e.args and not has_matcher(e.args):
            e.args["q"] = f"v{rng.randrange(30)}"
    for c in actual[: m // 2]:
        if c.args is not None:
            c.args["q"] = f"v{rng.randrange(30)}"
    exp_keys, act_keys = _keys(expected, actual)
    window = rng.choice([4, 8, 16, 256])
    plain = pairing._assign_block(list(range(n)), list(range(m)), expected, actual, window)
    assert pairing._assign_block(list(range(n)), list(range(m)), expected, actual, window, act_keys, exp_keys) == plain
    rows = list(range(n))
    assert (pairing._affinity_candidates(rows, set(range(m)), _postings(actual), expected, window, exp_keys)
            == pairing._affinity_candidates(rows, set(range(m)), _postings(actual), expected, window))


def _postings(actual: list[ToolCall]) -> dict[tuple[str, Any], list[int]]:
    postings: dict[tuple[str, Any], list[int]] = {}
    for j, call in enumerate(actual):
        for key, value in (call.args or {}).items():
            postings.setdefault((key, canonical(value)), []).append(j)
    return postings


def _conflicted(rng: random.Random, n: int, m: int) -> Any:
    """A cost matrix like a window's: each row's own column cheapest, except a few rows whose
    own partner failed (dearer) and who prefer a neighbour's; values from a small set, so
    exact ties are common, and sometimes rows with two equal minima."""
    import numpy as np

    cost = np.array([[float(rng.choice([4, 5, 6, 8])) for _ in range(m)] for _ in range(n)])
    for i in range(min(n, m)):
        cost[i, i] = rng.choice([0.0, 0.0, 1.0])
    for _ in range(rng.randint(0, 4)):
        i, j = rng.randrange(n), rng.randrange(m)
        cost[i, j] = rng.choice([0.0, 0.5, 1.0, 2.0, 3.0])
    if rng.random() < 0.5:
        cost += rng.choice([0.0, 1e8, -3e9])  # the magnitudes of real windows
    return cost


def _scipy_answer(cost: Any) -> tuple[list[int], list[int]]:
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(cost)
    return rows.tolist(), cols.tolist()


@pytest.mark.parametrize("seed", range(40))
def test_near_minima_is_scipys_assignment_on_tie_heavy_matrices(seed: int) -> None:
    """Whenever the proved shortcut answers, scipy's solver gives the very same rows and columns;
    on matrices with ties it must refuse rather than choose among equal optima."""
    pytest.importorskip("scipy")
    rng = random.Random(seed)
    answered = 0
    for _ in range(60):
        n, m = rng.randint(1, 14), rng.randint(1, 14)
        cost = _conflicted(rng, n, m) if rng.random() < 0.8 else _small_ints(rng, n, m)
        got = pairing.near_minima(cost.copy())
        if got is not None:
            answered += 1
            assert got == _scipy_answer(cost)
    assert answered > 0


def _small_ints(rng: random.Random, n: int, m: int) -> Any:
    import numpy as np

    return np.array([[float(rng.randint(0, 3)) for _ in range(m)] for _ in range(n)])


def test_near_minima_answers_the_one_tool_worst_case_windows() -> None:
    """The shortcut is not vacuous: the windows of a long one-tool trace with failed calls
    (where strict_minima refuses) are answered, each as scipy answers it."""
    pytest.importorskip("scipy")
    import numpy as np

    costs: list[Any] = []
    real = pairing.strict_minima

    def spy(cost: Any) -> Any:
        found = real(cost)
        if found is None:
            costs.append(np.array(cost))
        return found

    expected = [ExpectedCall(tool="search", args={"query": f"item {i}", "page": i % 7, "exact": i % 2 == 0})
                for i in range(600)]
    actual = [ToolCall(tool="search", args={"query": f"item {i}", "page": (i + 1) % 7, "exact": i % 2 == 0},
                       is_error=i % 100 == 11) for i in range(600)]
    mp = pytest.MonkeyPatch()
    mp.setattr(pairing, "strict_minima", spy)
    try:
        pairing.pair_calls(expected, actual)
    finally:
        mp.undo()
    assert len(costs) >= 2
    for cost in costs:
        assert pairing.near_minima(cost.copy()) == _scipy_answer(cost)


def _unique_optimum(cost: Any) -> tuple[list[int], list[int]] | None:
    """The minimum-cost assignment by trying every one (small matrices), None when two tie."""
    n, m = cost.shape
    if n > m:
        found = _unique_optimum(cost.T)
        if found is None:
            return None
        pairs = sorted(zip(found[1], found[0], strict=True))
        return [r for r, _ in pairs], [c for _, c in pairs]
    totals = sorted((sum(float(cost[i, j]) for i, j in enumerate(cols)), cols)
                    for cols in itertools.permutations(range(m), n))
    if len(totals) > 1 and totals[0][0] == totals[1][0]:
        return None
    return list(range(n)), list(totals[0][1])


@pytest.mark.parametrize("seed", range(20))
def test_near_minima_answers_only_a_unique_optimum(seed: int) -> None:
    """Checked by brute force on small matrices: an answer is the one cheapest assignment, strictly."""
    rng = random.Random(seed)
    answered = 0
    for _ in range(80):
        n, m = rng.randint(1, 6), rng.randint(1, 6)
        cost = _conflicted(rng, n, m) if rng.random() < 0.7 else _small_ints(rng, n, m)
        if rng.random() < 0.5:
            cost = cost - cost.min()  # small magnitudes: every tie is exact
        got = pairing.near_minima(cost.copy())
        if got is not None:
            answered += 1
            assert got == _unique_optimum(cost)
    assert answered > 0


@pytest.mark.parametrize("seed", range(40))
def test_distinct_codes_add_what_the_outer_comparison_adds(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows whose actual calls mostly hold their own value of an argument: the cost matrix
    is bit for bit the one the outer comparison builds, and so are the pairs."""
    np = pytest.importorskip("numpy")
    rng = random.Random(seed)
    n, m = rng.randint(1, 30), rng.randint(1, 30)
    expected, actual = _window(rng, n, m)
    shared = rng.random() < 0.3  # then some actual calls share a value: the outer comparison must decide
    for j, call in enumerate(actual):
        if call.args is not None and rng.random() < 0.9:
            call.args["id"] = f"v{rng.randrange(3) if shared else j}"
    for e in expected:
        if e.args and rng.random() < 0.8:
            e.args["id"] = f"v{rng.randrange(m + 2)}"
    keys = rng.choice([None, pairing._Keys(*_keys(expected, actual))])
    costs: list[Any] = []
    real = pairing.strict_minima
    monkeypatch.setattr(pairing, "strict_minima", lambda cost: costs.append(cost.copy()) or real(cost))
    answers = []
    for scatter in (True, False):
        monkeypatch.setattr(pairing, "SCATTER_DISTINCT", scatter)
        answers.append(pairing._solve_window(list(range(n)), list(range(m)), expected, actual, keys))
    assert answers[0] == answers[1]
    if len(costs) == 2:
        assert np.array_equal(costs[0], costs[1]) and (np.signbit(costs[0]) == np.signbit(costs[1])).all()


def test_distinct_codes_are_scattered_in_the_one_tool_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: the distinctive query of a long one-tool trace takes the scatter."""
    pytest.importorskip("numpy")
    used: list[bool] = []
    real = pairing._add_distinct
    monkeypatch.setattr(pairing, "_add_distinct", lambda *args: used.append(real(*args)) or used[-1])
    expected = [ExpectedCall(tool="s", args={"q": f"item {i}", "page": i % 7}) for i in range(40)]
    actual = [ToolCall(tool="s", args={"q": f"item {i}", "page": (i + 1) % 7}) for i in range(40)]
    pairing._solve_window(list(range(40)), list(range(40)), expected, actual)
    assert True in used and False in used  # the query scattered, the page (shared values) compared


def _differing_trace(rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Expected and actual calls with missing, extra, mismatched, failed and swapped calls, each
    kind from none to past the findings cap."""
    expected: list[dict[str, Any]] = []
    actual: list[dict[str, Any]] = []
    for i in range(rng.randint(0, 90)):
        tool = rng.choice(["a", "b", "c"])
        expected.append({"tool": tool, "args": {"q": i}})
        roll = rng.random()
        if roll < 0.2:
            continue  # missing
        call: dict[str, Any] = {"tool": tool, "args": {"q": i if roll < 0.5 else -i - 1}, "result": "ok"}
        if roll > 0.85:
            call["tool"] = rng.choice(["x", "y"])  # another tool in its place
        if rng.random() < 0.3:
            call.update(is_error=True, error="failed", result=None)
        actual.append(call)
        if rng.random() < 0.15:
            actual.append({"tool": rng.choice(["a", "z"]), "args": {"q": "extra"}, "result": "ok"})
    return expected, actual


@pytest.mark.parametrize("seed", range(12))
def test_findings_past_the_cap_without_builders_are_the_same(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Findings (and their summaries) equal those made when every finding gets its builder."""
    from toolscore_core.scoring import evaluation as evaluation_module
    from toolscore_core.scoring.evaluation import evaluate

    expected, actual = _differing_trace(random.Random(seed))
    made: list[str] = []
    real = evaluation_module._Later

    class Counting(real):  # type: ignore[misc, valid-type]
        def __init__(self, code: str, build: Any) -> None:
            made.append(code)
            super().__init__(code, build)

    monkeypatch.setattr(evaluation_module, "_Later", Counting)
    results = []
    for build_all in (True, False):
        monkeypatch.setattr(evaluation_module, "BUILD_ALL_LATER", build_all)
        made.clear()
        evaluation = evaluate(expected, actual)
        results.append(([f.to_dict() if hasattr(f, "to_dict") else f for f in evaluation.findings],
                        evaluation.findings, len(made)))
    assert results[0][0] == results[1][0] and results[0][1] == results[1][1]
    cap = evaluation_module.MAX_FINDINGS_PER_CODE
    assert results[1][2] <= 4 * (cap + 1)  # at most the cap's builders and one placeholder per code
    if results[0][2] > 4 * (cap + 1):
        assert results[1][2] < results[0][2]


@pytest.mark.parametrize("seed", range(12))
def test_findings_built_later_read_their_own_row(seed: int) -> None:
    """Each kept mismatch and unexpected-call finding is the one its own row (the pair of its
    call, from the built rows) gives: the row getter made at build time points at the right row."""
    from toolscore_core.scoring import evaluation as evaluation_module
    from toolscore_core.scoring.evaluation import evaluate

    expected, actual = _differing_trace(random.Random(seed))
    evaluation = evaluate(expected, actual)
    calls = evaluation.actual.calls
    rows = {p.actual_index: p for p in evaluation.pairs if p.actual_index is not None}
    checked = 0
    for f in evaluation.findings:
        if f.code not in ("argument-mismatch", "unexpected-call") or "omitted" in f.details:
            continue
        j = f.call_index
        assert j is not None
        row = rows[j]
        if f.code == "argument-mismatch":
            assert row.expected_index is not None
            again = evaluation_module._argument_mismatch(calls[j], row.expected_index, j, lambda row=row: row)
        else:
            again = evaluation_module._unexpected_call(calls[j].tool, j, lambda row=row: row)
        assert f == again
        checked += 1
    assert checked > 0 or not evaluation.findings
