"""Pairing: optimal (not greedy), one-to-one, explained, stable under surrounding calls."""

from __future__ import annotations

import time

import pytest

from toolscore_core.kernel.model import ExpectedCall, ToolCall
from toolscore_core.scoring.matchers import ANY, Regex
from toolscore_core.scoring.pairing import pair_calls


def E(tool: str, args: dict | None = None) -> ExpectedCall:
    return ExpectedCall(tool=tool, args=args)


def A(tool: str, args: dict | None = None, **kw: object) -> ToolCall:
    return ToolCall(tool=tool, args={} if args is None else args, **kw)  # type: ignore[arg-type]


def test_agentevals_counterexample_is_paired_optimally() -> None:
    # Greedy first-fit gives x:1 the call with x:1,y:2 and loses a match.
    expected = [E("A", {"x": 1}), E("A", {"x": 1, "y": 2})]
    actual = [A("A", {"x": 1, "y": 2}), A("A", {"x": 1})]
    p = pair_calls(expected, actual)
    assert p.expected_to_actual == (1, 0)
    assert p.matched_units == p.expected_units == p.actual_units == 3


def test_matchers_are_paired_optimally_where_first_fit_fails() -> None:
    # First-fit would give ANY the "xyz" call and leave Regex('x.*') with "q".
    expected = [E("f", {"a": ANY}), E("f", {"a": Regex("x.*")})]
    actual = [A("f", {"a": "xyz"}), A("f", {"a": "q"})]
    p = pair_calls(expected, actual)
    assert p.expected_to_actual == (1, 0)
    assert p.matched_units == 2


def test_bfcl_optional_parameter_counterexample() -> None:
    # Answers f(a=1, b=optional 2) and f(a=1, b=2) against f(a=1,b=2), f(a=1).
    expected = [E("f", {"a": 1}), E("f", {"a": 1, "b": 2})]
    actual = [A("f", {"a": 1, "b": 2}), A("f", {"a": 1})]
    p = pair_calls(expected, actual)
    assert p.expected_to_actual == (1, 0)


def test_pairs_only_join_calls_of_the_same_tool_and_explain_themselves() -> None:
    expected = [E("search_flights", {"origin": "SFO", "destination": "NYC"}), E("book_flight", {"flight_id": Regex(r"FL-\d+")})]
    actual = [A("search_flights", {"origin": "SFO", "destination": "BOS"}), A("cancel_booking", {"booking_id": "BK-1"})]
    p = pair_calls(expected, actual)
    assert p.expected_to_actual == (0, None)
    assert p.actual_to_expected == (0, None)
    first, second = p.pairs
    assert first.tool_match and first.argument_scores == {"origin": 1.0, "destination": 0.0}
    assert first.mismatches == ({"argument": "destination", "problem": "mismatch", "expected": "'NYC'", "actual": "'BOS'"},)
    assert "1 of 2" in first.reason
    assert not second.tool_match and (second.expected_index, second.actual_index) == (1, 1)
    assert "`book_flight`" in second.reason and "`cancel_booking`" in second.reason


def test_missing_extra_and_unexpected_arguments_are_listed() -> None:
    p = pair_calls([E("f", {"a": 1, "b": 2})], [A("f", {"a": 1, "c": 3})])
    problems = {m["argument"]: m["problem"] for m in p.pairs[0].mismatches}
    assert problems == {"b": "missing", "c": "unexpected"}
    assert (p.matched_units, p.expected_units, p.actual_units) == (1, 2, 2)


def test_unchecked_and_no_argument_expectations() -> None:
    p = pair_calls([E("f"), E("g", {})], [A("f", {"anything": 1}), A("g", {"x": 1})])
    assert p.expected_to_actual == (0, 1)
    assert (p.matched_units, p.expected_units, p.actual_units) == (0, 1, 1)
    assert "arguments not checked" in p.pairs[0].reason
    p2 = pair_calls([E("g", {})], [A("g", {})])
    assert (p2.matched_units, p2.expected_units, p2.actual_units) == (1, 1, 1)


def test_unrecorded_arguments_match_nothing() -> None:
    p = pair_calls([E("f", {"a": 1})], [ToolCall(tool="f", args=None)])
    assert p.expected_to_actual == (0,)
    assert (p.matched_units, p.expected_units, p.actual_units) == (0, 1, 0)
    assert p.pairs[0].mismatches[0]["problem"] == "not recorded"


def test_identical_calls_prefer_the_one_that_succeeded() -> None:
    expected = [E("deploy", {"env": "prod"})]
    actual = [A("deploy", {"env": "prod"}, is_error=True), A("deploy", {"env": "prod"}, is_error=False)]
    assert pair_calls(expected, actual).expected_to_actual == (1,)


def test_bool_is_not_paired_as_an_int() -> None:
    p = pair_calls([E("f", {"n": 1})], [A("f", {"n": True})])
    assert p.matched_units == 0
    assert p.pairs[0].mismatches[0] == {"argument": "n", "problem": "mismatch", "expected": "1", "actual": "True"}


def test_same_content_gets_the_same_pairing_whatever_surrounds_it() -> None:
    core_e = [E("f", {"a": 1, "b": 2}), E("f", {"a": 1, "b": 3}), E("f", {"a": Regex("z+"), "b": 9})]
    core_a = [A("f", {"a": 1, "b": 3, "c": 0}), A("f", {"a": "zz", "b": 8}), A("f", {"a": 1, "b": 2, "c": 0})]
    alone = pair_calls(core_e, core_a)
    # 3000 other calls around it: other tools, and identical calls of the same tool.
    filler_e = [E("g", {"i": i}) for i in range(1500)] + [E("f", {"a": 1, "b": 2, "c": i}) for i in range(1500)]
    filler_a = [A("g", {"i": i}) for i in range(1500)] + [A("f", {"a": 1, "b": 2, "c": i}) for i in range(1500)]
    big = pair_calls(filler_e + core_e, filler_a + core_a)
    offset = len(filler_e)
    mapped = tuple(None if j is None else j - offset for j in big.expected_to_actual[offset:])
    assert mapped == alone.expected_to_actual
    assert big.credits[offset:] == alone.credits
    assert big.matched_units - alone.matched_units == big.expected_units - alone.expected_units


def test_rows_cover_every_call_once() -> None:
    expected = [E("a"), E("b"), E("c", {"x": 1})]
    actual = [A("c", {"x": 2}), A("d"), A("a"), A("a")]
    p = pair_calls(expected, actual)
    seen_e = sorted(r.expected_index for r in p.pairs if r.expected_index is not None)
    seen_a = sorted(r.actual_index for r in p.pairs if r.actual_index is not None)
    assert seen_e == [0, 1, 2] and seen_a == [0, 1, 2, 3]
    assert any("extra call of `a`" in r.reason for r in p.pairs)


@pytest.mark.slow
def test_ten_thousand_calls_of_one_tool_pair_correctly_and_in_bounded_time() -> None:
    n = 10_000
    expected = [E("t", {"q": f"query {i}", "page": i % 7}) for i in range(n)]
    actual = [A("t", {"q": f"query {i}", "page": (i + 1) % 7}) for i in range(n)]
    start = time.process_time()
    p = pair_calls(expected, actual)
    cpu = time.process_time() - start
    assert p.expected_to_actual == tuple(range(n))  # every call found its own partner
    assert p.matched_units == n and p.expected_units == 2 * n
    assert cpu < 10  # generous: the bench records the real figure (about 1 s)


def _brute_force_best(expected: list[ExpectedCall], actual: list[ToolCall]) -> tuple[int, int]:
    """Best (matched units, -precision units) over every maximum one-to-one same-tool pairing."""
    from itertools import permutations

    from toolscore_core.scoring.pairing import credit

    best_per_tool = []
    for tool in {e.tool for e in expected}:
        e_idx = [i for i, e in enumerate(expected) if e.tool == tool]
        a_idx = [j for j, a in enumerate(actual) if a.tool == tool]
        k = min(len(e_idx), len(a_idx))
        best = (0, 0)
        if k:
            best = (-1, 0)
            for chosen_e in permutations(e_idx, k) if len(e_idx) > len(a_idx) else [tuple(e_idx)]:
                for chosen_a in permutations(a_idx, k):
                    credits = [credit(expected[i], actual[j]) for i, j in zip(chosen_e, chosen_a, strict=True)]
                    best = max(best, (sum(c.matched for c in credits), -sum(c.actual_units for c in credits)))
        best_per_tool.append(best)
    return sum(b[0] for b in best_per_tool), sum(b[1] for b in best_per_tool)


def test_pairing_is_optimal_against_brute_force_on_random_small_cases() -> None:
    import random

    rng = random.Random(2026)
    values = [1, 2, True, "a", "b", None]
    matchers = [ANY, Regex("a|b"), Regex("b")]
    for _ in range(300):
        def args(allow_matchers: bool) -> dict | None:
            if allow_matchers and rng.random() < 0.15:
                return None
            out = {}
            for key in rng.sample(["x", "y", "z"], rng.randint(0, 3)):
                out[key] = rng.choice(matchers) if allow_matchers and rng.random() < 0.3 else rng.choice(values)
            return out

        expected = [E(rng.choice("fg"), args(True)) for _ in range(rng.randint(0, 5))]
        actual = [A(rng.choice("fg"), args(False)) for _ in range(rng.randint(0, 5))]
        p = pair_calls(expected, actual)
        assert (p.matched_units, -p.actual_units) == _brute_force_best(expected, actual), (expected, actual)


def test_small_windows_still_pair_every_call_they_can() -> None:
    # Force many windows and uneven sides: the leftovers go round again until one side is empty.
    expected = [E("t", {"i": i, "k": "x"}) for i in range(0, 90)]
    actual = [A("t", {"i": i, "k": "y"}) for i in range(0, 60)]
    p = pair_calls(expected, actual, window=7)
    assert p.paired_count == 60
    assert p.expected_to_actual[:60] == tuple(range(60))  # each actual call found its own i
    assert p.matched_units == 60


def test_long_misaligned_blocks_are_paired_by_content() -> None:
    # 600 expected, 400 actual calls matching the LAST 400 of them (and one shared value
    # everywhere): beyond one window, positions alone would pair the wrong calls.
    expected = [E("t", {"id": f"order-{i}", "shop": "main", "n": i % 3}) for i in range(600)]
    actual = [A("t", {"id": f"order-{i}", "shop": "main", "n": -1}) for i in range(200, 600)]
    p = pair_calls(expected, actual)
    assert p.paired_count == 400
    assert p.expected_to_actual[200:] == tuple(range(400))
    assert p.expected_to_actual[:200] == (None,) * 200
