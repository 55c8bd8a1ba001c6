"""The statistics of ``toolscore compare`` against scipy.stats and brute-force enumeration."""

from __future__ import annotations

import itertools
import math

import pytest

from toolscore_agent.stats import (
    binomial_test,
    difference_interval,
    pass_hat_k,
    sign_test,
    wilson_interval,
)

stats = pytest.importorskip("scipy.stats")

CASES = [(0, 1), (1, 1), (0, 10), (3, 10), (5, 10), (10, 10), (7, 23), (1, 50), (49, 50), (250, 997)]


@pytest.mark.parametrize(("successes", "trials"), CASES)
def test_wilson_interval_matches_scipy(successes: int, trials: int) -> None:
    expected = stats.binomtest(successes, trials).proportion_ci(0.95, method="wilson")
    low, high = wilson_interval(successes, trials)
    assert low == pytest.approx(expected.low, abs=1e-12)
    assert high == pytest.approx(expected.high, abs=1e-12)


def test_wilson_interval_at_the_edges_is_exact_and_wider_for_fewer_trials() -> None:
    assert wilson_interval(0, 5)[0] == 0.0 and wilson_interval(5, 5)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert wilson_interval(3, 6)[1] - wilson_interval(3, 6)[0] > wilson_interval(30, 60)[1] - wilson_interval(30, 60)[0]


@pytest.mark.parametrize(("successes", "trials"), [*CASES, (2, 3), (0, 30), (12, 30), (15, 30)])
@pytest.mark.parametrize("p", [0.5, 0.3, 0.9])
def test_binomial_test_matches_scipy(successes: int, trials: int, p: float) -> None:
    expected = stats.binomtest(successes, trials, p, alternative="two-sided").pvalue
    assert binomial_test(successes, trials, p) == pytest.approx(expected, rel=1e-9, abs=1e-15)


def test_sign_test_is_exact_mcnemar_on_discordant_pairs() -> None:
    assert sign_test(10, 0) == pytest.approx(2 / 2 ** 10)  # 0.00195: every task one way
    assert sign_test(1, 0) == 1.0  # one task tells nothing
    assert sign_test(0, 0) == 1.0
    assert sign_test(5, 0) == pytest.approx(0.0625)
    assert sign_test(8, 2) == pytest.approx(stats.binomtest(8, 10).pvalue)


def _brute_pass_k(trials: int, passes: int, k: int) -> float:
    """Share of all k-subsets of the task's trials in which every trial passed."""
    outcomes = [True] * passes + [False] * (trials - passes)
    subsets = list(itertools.combinations(range(trials), k))
    return sum(all(outcomes[i] for i in subset) for subset in subsets) / len(subsets)


def test_pass_hat_k_matches_brute_force_enumeration() -> None:
    tasks = [(5, 5), (5, 3), (5, 1), (5, 0), (6, 4)]
    for k in range(1, 6):
        expected = sum(_brute_pass_k(n, c, k) for n, c in tasks) / len(tasks)
        assert pass_hat_k(tasks, k) == pytest.approx(expected, abs=1e-12)
    assert pass_hat_k(tasks, 1) == pytest.approx((5 + 3 + 1 + 0) / 5 / 5 + 4 / 6 / 5)
    assert pass_hat_k(tasks, 6) is None  # a task ran only 5 times: no estimate, not a biased one
    assert pass_hat_k([], 1) is None


def test_pass_hat_k_for_many_repetitions_is_finite_and_matches_the_product_form() -> None:
    n, c, k = 5000, 4000, 300
    expected = math.prod((c - i) / (n - i) for i in range(k))
    assert pass_hat_k([(n, c)], k) == pytest.approx(expected, rel=1e-9)


def test_difference_interval_is_newcombes_hybrid_score() -> None:
    # Newcombe (1998), table II, 56/70 vs 48/80: difference 0.2, method 10 gives 0.0524 to 0.3339
    low, high = difference_interval(48, 80, 56, 70)
    assert (low, high) == (pytest.approx(0.0524, abs=1e-3), pytest.approx(0.3339, abs=1e-3))


def test_bad_counts_are_refused() -> None:
    with pytest.raises(ValueError):
        wilson_interval(3, 2)
    with pytest.raises(ValueError):
        binomial_test(-1, 2)
