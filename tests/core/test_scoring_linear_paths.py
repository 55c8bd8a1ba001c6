"""Scoring work kept linear in the trace (issue 12): each fast path agrees with the plain rule it replaces.

The plain rules are written out here as the slow reference; random traces compare the two.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from toolscore_core.builtin import metrics
from toolscore_core.kernel.model import ToolCall
from toolscore_core.scoring import pairing
from toolscore_core.scoring.evaluation import evaluate


def _reference_retries(calls: list[ToolCall], pairs: list[int | None]) -> dict[int, int]:
    """The retry rule scanned naively: for each failed paired call in expected order, the first
    later spare call of its tool that did not fail, each spare call used once."""
    spare = set(range(len(calls))).difference(j for j in pairs if j is not None)
    found: dict[int, int] = {}
    for i, j in enumerate(pairs):
        if j is None or (calls[j].is_error is not True and not calls[j].denied):
            continue
        for k in range(j + 1, len(calls)):
            c = calls[k]
            if k in spare and c.tool == calls[j].tool and c.is_error is not True and not c.denied:
                spare.discard(k)
                found[i] = k
                break
    return found


def _random_calls(rng: random.Random, n: int) -> list[ToolCall]:
    return [ToolCall(tool=rng.choice("abc"), args={}, is_error=rng.choice([True, False, None]),
                     denied=rng.random() < 0.1) for _ in range(n)]


@pytest.mark.parametrize("seed", range(200))
def test_retry_index_agrees_with_the_naive_scan(seed: int) -> None:
    rng = random.Random(seed)
    calls = _random_calls(rng, rng.randint(0, 40))
    targets = list(range(len(calls)))
    rng.shuffle(targets)
    pairs: list[int | None] = [targets.pop() if targets and rng.random() < 0.7 else None
                               for _ in range(rng.randint(0, len(calls) + 3))]
    spare = set(range(len(calls))).difference(j for j in pairs if j is not None)
    index = metrics._Retries(calls, spare)
    got = {}
    for i, j in enumerate(pairs):
        if j is not None and (calls[j].is_error is True or calls[j].denied):
            k = index.take(calls[j].tool, j)
            if k is not None:
                got[i] = k
    assert got == _reference_retries(calls, pairs)


def test_required_call_recall_with_many_failures_matches_the_reference() -> None:
    """Through evaluate: which expected calls count as retried is what the naive rule says."""
    rng = random.Random(7)
    expected: list[dict[str, Any]] = []
    actual: list[dict[str, Any]] = []
    for i in range(300):
        tool = rng.choice(["a", "b", "c"])
        expected.append({"tool": tool, "args": {"i": i}})
        call: dict[str, Any] = {"tool": tool, "args": {"i": i}, "result": "ok"}
        if rng.random() < 0.3:
            call = {"tool": tool, "args": {"i": i}, "error": "timeout"}
        actual.append(call)
        if rng.random() < 0.2:
            actual.append({"tool": rng.choice(["a", "b", "c"]), "args": {"i": -i}, "result": "retry"})
    evaluation = evaluate(expected, actual)
    details = evaluation.metrics["required_call_recall"]["details"]
    calls = list(evaluation.actual.calls)
    pairs = [pair.actual_index for pair in sorted((p for p in evaluation.pairs if p.tool_match and p.expected_index is not None),
                                                    key=lambda p: p.expected_index or 0)]
    assert len(pairs) == len(expected)
    reference = _reference_retries(calls, list(pairs))
    assert reference, "the case must exercise retries"
    assert details["retried"] == sorted(reference)[:50]


@pytest.mark.parametrize("seed", range(60))
def test_strict_minima_is_the_solvers_assignment(seed: int) -> None:
    """Whenever the shortcut answers, it is exactly what the matrix solvers return."""
    np = pytest.importorskip("numpy")
    from scipy.optimize import linear_sum_assignment as scipy_solver

    from toolscore_core.scoring.assignment import solve_small

    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 12)), int(rng.integers(1, 12))
    if seed % 3 == 0:  # small integers: ties and shared minima are common
        cost = rng.integers(0, 4, size=(n, m)).astype(np.float64)
    else:  # a clear diagonal with noise, as in an ordinary window
        cost = rng.random((n, m)) + 5.0
        for k in range(min(n, m)):
            cost[k, (k * 7 + seed) % m] -= rng.random() * 5
    got = pairing.strict_minima(cost)
    rows, cols = solve_small(cost)
    s_rows, s_cols = scipy_solver(cost)
    if got is not None:
        assert got == (rows.tolist(), cols.tolist()) == (s_rows.tolist(), s_cols.tolist())


def test_strict_minima_refuses_ties_and_shared_partners() -> None:
    np = pytest.importorskip("numpy")
    assert pairing.strict_minima(np.array([[1.0, 1.0], [0.0, 2.0]])) is None  # row 0 has two minima
    assert pairing.strict_minima(np.array([[0.0, 2.0], [0.0, 3.0]])) is None  # both rows want column 0
    assert pairing.strict_minima(np.array([[0.0, 2.0, 3.0], [4.0, 5.0, 1.0]])) == ([0, 1], [0, 2])
    assert pairing.strict_minima(np.array([[3.0, 0.0], [0.0, 3.0], [5.0, 5.0]])) == ([0, 1], [1, 0])


def test_an_ordinary_window_skips_the_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hundreds of calls of one tool, each with one edited argument: solved without the solver."""
    pytest.importorskip("numpy")
    from toolscore_core.scoring import assignment

    solved: list[Any] = []
    real = assignment.linear_sum_assignment
    monkeypatch.setattr(assignment, "linear_sum_assignment", lambda cost: solved.append(cost) or real(cost))
    expected = [{"tool": "t", "args": {"q": f"item {i}", "page": i % 7, "exact": i % 2 == 0}} for i in range(300)]
    actual = [{"tool": "t", "args": {**e["args"], "q": f"item {i} (edited)"}, "result": "ok"}
              for i, e in enumerate(expected)]
    evaluation = evaluate(expected, actual)
    assert [(p.expected_index, p.actual_index) for p in evaluation.pairs] == [(i, i) for i in range(300)]
    assert solved == []


def _random_window(rng: random.Random, n: int, m: int) -> tuple[list[Any], list[ToolCall]]:
    from toolscore_core.kernel.model import ExpectedCall
    from toolscore_core.scoring.matchers import Regex

    def args() -> dict[str, Any]:
        return {k: rng.choice([0, 1, "x", True, 1.0]) for k in rng.sample(["a", "b", "c"], rng.randint(1, 3))}

    expected = []
    for _ in range(n):
        e_args: dict[str, Any] | None = args()
        if rng.random() < 0.15:
            e_args = dict(e_args or {}, a=Regex("x|1"))  # a matcher row: the window's per-row path
        elif rng.random() < 0.1:
            e_args = rng.choice([None, {}])
        expected.append(ExpectedCall(tool="t", args=e_args))
    actual = [ToolCall(tool="t", args=rng.choice([args(), args(), {}, None]), is_error=rng.random() < 0.2)
              for _ in range(m)]
    return expected, actual


@pytest.mark.parametrize("seed", range(40))
def test_window_matched_units_are_each_pairs_credit(seed: int) -> None:
    """The window's vectorised counts (all rows at once, or some rows) equal credit() of each pair."""
    pytest.importorskip("numpy")
    rng = random.Random(seed)
    n, m = rng.randint(2, 9), rng.randint(2, 9)
    expected, actual = _random_window(rng, n, m)
    solved = pairing._solve_window(list(range(n)), list(range(m)), expected, actual)
    assert len(solved) == min(n, m)
    for e, a, matched in solved:
        assert matched == pairing.credit(expected[e], actual[a]).matched


def test_only_the_findings_the_cap_keeps_are_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """60 differing calls: 20 argument-mismatch findings are written out, 40 only counted."""
    from toolscore_core.scoring import evaluation as evaluation_module

    built: list[int] = []
    real = evaluation_module._argument_mismatch

    def counting(call: ToolCall, i: int, j: int, pair: Any) -> Any:
        built.append(j)
        return real(call, i, j, pair)

    monkeypatch.setattr(evaluation_module, "_argument_mismatch", counting)
    expected = [{"tool": "t", "args": {"q": i}} for i in range(60)]
    actual = [{"tool": "t", "args": {"q": i + 1000}, "result": "ok"} for i in range(60)]
    findings = evaluate(expected, actual).findings
    mismatches = [f for f in findings if f.code == "argument-mismatch"]
    cap = evaluation_module.MAX_FINDINGS_PER_CODE
    assert built == list(range(cap))
    assert [f.call_index for f in mismatches[:cap]] == list(range(cap))
    assert mismatches[cap].message == f"… and {60 - cap} more finding(s) like this (argument-mismatch)"
    assert mismatches[cap].details == {"category": "score", "omitted": 60 - cap}
    assert mismatches[0].message == "call 1 t: q: 0 ≠ 1000"


def _plain_window(rng: random.Random, n: int, m: int, *, shuffle: bool = False) -> tuple[list[Any], list[ToolCall]]:
    """Calls beside their own partners, one argument edited at most, as an ordinary window has them
    (``shuffle``: partners anywhere and two edits, so ties and shared choices are common)."""
    from toolscore_core.kernel.model import ExpectedCall

    expected, actual = [], []
    for i in range(max(n, m)):
        args = {"q": f"item {i}", "page": rng.randint(0, 3), "exact": rng.random() < 0.5}
        if rng.random() < 0.3:
            args["extra"] = rng.choice([1, 1.0, "1", [1], {"x": 1}])
        if i < n:
            expected.append(ExpectedCall(tool="t", args=dict(args)))
        if i < m:
            changed = dict(args)
            for key in rng.sample(sorted(changed), rng.randint(0, 2 if shuffle else 1)):
                changed[key] = rng.choice([0, 2, "other", False])
            actual.append(ToolCall(tool="t", args=changed, is_error=rng.random() < 0.1))
    if shuffle:
        rng.shuffle(actual)
    return expected, actual


@pytest.mark.parametrize("seed", range(150))
def test_sparse_minima_agree_with_the_matrix(seed: int) -> None:
    """Whenever the numpy-free window answers, the matrix path (loaded here) gives the same pairs."""
    pytest.importorskip("numpy")
    rng = random.Random(seed)
    n, m = rng.randint(2, 12), rng.randint(2, 14)
    kind = seed % 3
    expected, actual = _random_window(rng, n, m) if kind == 0 else _plain_window(rng, n, m, shuffle=kind == 1)
    sparse = pairing._sparse_minima(list(range(n)), list(range(m)), expected, actual)
    matrix = pairing._solve_window(list(range(n)), list(range(m)), expected, actual)  # numpy is loaded: no shortcut
    if sparse is not None:
        assert sparse == matrix


def test_sparse_minima_answer_ordinary_windows() -> None:
    """The numpy-free path is not vacuous: it answers the windows of the plain case."""
    answered = 0
    for seed in range(40):
        rng = random.Random(seed)
        expected, actual = _plain_window(rng, 8, 9)
        answered += pairing._sparse_minima(list(range(8)), list(range(9)), expected, actual) is not None
    assert answered >= 20


def test_an_ordinary_trace_over_a_window_does_not_import_numpy(tmp_path: Any) -> None:
    """300 calls of one tool, each with an edited argument: paired by the numpy-free window."""
    import json
    import subprocess
    import sys
    import textwrap

    expected = [{"tool": "t", "args": {"q": f"item {i}", "page": i % 7, "exact": i % 2 == 0}} for i in range(300)]
    actual = [{"tool": "t", "args": {**e["args"], "q": f"item {i} (edited)"}, "result": "ok"}
              for i, e in enumerate(expected)]
    (tmp_path / "case.json").write_text(json.dumps([expected, actual]))
    script = textwrap.dedent(f"""
        import json, sys
        from toolscore_core.scoring.evaluation import evaluate
        expected, actual = json.load(open({str(tmp_path / 'case.json')!r}))
        pairs = [(p.expected_index, p.actual_index) for p in evaluate(expected, actual).pairs]
        print(json.dumps({{"numpy": "numpy" in sys.modules, "diagonal": pairs == [(i, i) for i in range(300)]}}))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"numpy": False, "diagonal": True}


def _whole_row_lcs(a: list[int], b: list[int]) -> int:
    """The textbook table, the reference every LCS path must agree with."""
    row = [0] * (len(b) + 1)
    for x in a:
        diagonal = 0
        for k, y in enumerate(b, start=1):
            diagonal, row[k] = row[k], diagonal + 1 if x == y else max(row[k], row[k - 1])
    return row[-1]


def _edited(rng: random.Random, a: list[int], alphabet: int) -> list[int]:
    b = list(a)
    for _ in range(rng.randint(0, 8)):
        k = rng.randrange(len(b) + 1)
        op = rng.random()
        if op < 0.3 and b:
            b.pop(min(k, len(b) - 1))
        elif op < 0.6:
            b.insert(k, rng.randrange(alphabet + 1))
        elif b:
            b[min(k, len(b) - 1)] = rng.randrange(alphabet + 1)
    return b


@pytest.mark.parametrize("seed", range(300))
def test_banded_lcs_is_the_exact_lcs(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the band allowed at any size, every answer it gives is the table's."""
    from toolscore_core.scoring import modes

    monkeypatch.setattr(modes, "BAND_MIN", 0)
    monkeypatch.setattr(modes, "BAND_SHARE", 1)
    rng = random.Random(seed)
    alphabet = rng.randint(1, 5)
    a = [rng.randrange(alphabet) for _ in range(rng.randint(1, 70))]
    b = _edited(rng, a, alphabet) if seed % 5 else [rng.randrange(alphabet) for _ in range(rng.randint(1, 70))]
    longer, shorter = (a, b) if len(a) >= len(b) else (b, a)
    banded = modes._banded_lcs(longer, shorter, modes._greedy_common(longer, shorter))
    if banded is not None:
        assert banded == _whole_row_lcs(longer, shorter)
    assert modes.lcs_length(a, b) == _whole_row_lcs(a, b)


def test_long_near_equal_sequences_take_the_band(monkeypatch: pytest.MonkeyPatch) -> None:
    """40k tool names, every 50th different, one call inserted early and one dropped late: the
    greedy bound steps over the shift, so the band answers, and it is the whole-row answer."""
    from toolscore_core.scoring import modes

    expected = [f"tool_{i % 20}" for i in range(40_000)]
    actual = ["other" if i % 50 == 7 else name for i, name in enumerate(expected)]
    actual.insert(1000, "extra")
    del actual[30_000]
    banded = modes._banded_lcs(actual, expected, modes._greedy_common(actual, expected))
    assert banded is not None
    monkeypatch.setattr(modes, "_banded_lcs", lambda a, b: None)
    assert modes.lcs_length(expected, actual) == banded


@pytest.mark.parametrize("seed", range(200))
def test_greedy_walk_is_a_common_subsequence_length(seed: int) -> None:
    """The band's lower bound never exceeds the LCS (a bound above it would cut the optimal path off)."""
    from toolscore_core.scoring import modes

    rng = random.Random(seed)
    alphabet = rng.randint(1, 4)
    a = [rng.randrange(alphabet) for _ in range(rng.randint(0, 90))]
    b = _edited(rng, a, alphabet) if seed % 3 else [rng.randrange(alphabet) for _ in range(rng.randint(0, 90))]
    assert modes._greedy_common(a, b) <= _whole_row_lcs(a, b)


@pytest.mark.parametrize("through_files", [False, True])
def test_no_collector_pass_while_reading_and_scoring(through_files: bool, tmp_path: Any) -> None:
    """30k calls read and scored: the cyclic collector does not run meanwhile (it found nothing
    to free and its passes grew with the heap); it is back on afterwards, where its one
    pending pass may run as soon as it is."""
    import gc
    import json

    from toolscore_core.scoring.evaluation import evaluate_trace

    expected = [{"tool": f"t{i % 7}", "args": {"q": i}} for i in range(30_000)]
    actual = [{"tool": f"t{i % 7}", "args": {"q": i}, "result": "ok"} for i in range(30_000)]
    if through_files:
        (tmp_path / "gold.json").write_text(json.dumps(expected))
        (tmp_path / "trace.json").write_text(json.dumps(actual))
    passes: list[int] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            passes.append(info["generation"])

    gc.collect()
    gc.callbacks.append(count)
    try:
        if through_files:
            result = evaluate_trace(tmp_path / "gold.json", tmp_path / "trace.json")
        else:
            result = evaluate(expected, actual)
    finally:
        gc.callbacks.remove(count)
    assert result.score == 1.0
    assert len(passes) <= 1, passes  # reading alone made dozens when the collector was on
    assert gc.isenabled()


def test_a_greedy_walk_as_long_as_the_shared_symbols_is_the_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Calls replaced by an unknown tool, one missing, one extra: the bounds meet, no DP runs."""
    from toolscore_core.scoring import modes

    expected = [f"tool_{i % 20}" for i in range(40_000)]
    actual = ["other" if i % 50 == 7 else name for i, name in enumerate(expected)]
    actual.insert(1000, "extra")
    del actual[30_000]
    whole = modes.lcs_length(expected[:3000], actual[:3000])  # below the band: the whole row as reference
    original = modes._banded_lcs

    def no_band(a: Any, b: Any, greedy: int) -> int | None:
        raise AssertionError("the bounds should have met")

    monkeypatch.setattr(modes, "_banded_lcs", no_band)
    assert modes.lcs_length(expected, actual) == 40_000 - 800 - 1
    monkeypatch.setattr(modes, "_banded_lcs", original)
    assert whole == _whole_row_lcs([hash(x) for x in expected[:3000]], [hash(x) for x in actual[:3000]])


@pytest.mark.parametrize("seed", range(100))
def test_shared_symbols_bound_the_lcs(seed: int) -> None:
    from toolscore_core.scoring import modes

    rng = random.Random(seed)
    a = [rng.randrange(4) for _ in range(rng.randint(0, 50))]
    b = _edited(rng, a, 4) if seed % 2 else [rng.randrange(5) for _ in range(rng.randint(0, 50))]
    assert modes._greedy_common(a, b) <= _whole_row_lcs(a, b) <= modes._shared_symbols(a, b)


def test_band_across_many_blocks_with_existing_tools_swapped(monkeypatch: pytest.MonkeyPatch) -> None:
    """30k calls, some swapped for other known tools, some inserted and dropped: the bounds do
    not meet, the band runs over many mask blocks, and it gives the whole-row answer."""
    from toolscore_core.scoring import modes

    rng = random.Random(3)
    expected = [f"t{i % 20}" for i in range(30_000)]
    actual = list(expected)
    for i in range(7, len(actual), 397):
        actual[i] = f"t{rng.randrange(20)}"
    for _ in range(30):
        actual.insert(rng.randrange(len(actual)), f"t{rng.randrange(20)}")
        del actual[rng.randrange(len(actual))]
    greedy = modes._greedy_common(expected, actual)
    assert greedy < modes._shared_symbols(expected, actual)
    banded = modes._banded_lcs(expected, actual, greedy)
    assert banded is not None
    monkeypatch.setattr(modes, "_banded_lcs", lambda a, b, g: None)
    monkeypatch.setattr(modes, "_greedy_common", lambda a, b: 0)
    assert modes.lcs_length(expected, actual) == banded
