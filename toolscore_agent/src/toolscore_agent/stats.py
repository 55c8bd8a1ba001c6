"""The statistics ``toolscore compare`` reports, in pure Python (no scipy at import or ever).

Why these and not others: a study has few tasks (often 5 to 50) and few repetitions, so
the normal approximations people reach for are wrong exactly where users need them.

- **Wilson score interval** for a pass rate: stays inside [0, 1] and keeps its coverage at
  0 of n and n of n, where the textbook ``p ± z·sqrt(p(1-p)/n)`` collapses to a point.
- **Exact two-sided binomial test**, the "minlike" rule (sum the probabilities of every
  outcome no more likely than the one seen, as ``scipy.stats.binomtest`` does). With
  ``p = 0.5`` on the tasks where two arms disagree it is the exact McNemar test, also
  called the sign test: :func:`sign_test`.
- **pass^k** as tau-bench defines it: per task with ``n`` trials and ``c`` passes,
  ``C(c, k) / C(n, k)`` (the chance that k trials drawn without replacement all pass, an
  unbiased estimate of p^k), averaged over tasks.
- **Newcombe's hybrid score interval** for a difference of two pass rates, built from the
  two Wilson intervals (method 10 of Newcombe 1998). It treats the arms as independent,
  which for paired tasks makes it conservative; the decision is the sign test's.

Probabilities are summed in exact integer arithmetic where ``p = 0.5`` (the sign test), so
a p-value never drifts with the number of tasks.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction
from statistics import NormalDist

CONFIDENCE = 0.95
_EXACT_UP_TO = 200
_RELATIVE = 1 + 1e-7  # scipy's tolerance for "as likely as the observed outcome"


def z_value(confidence: float = CONFIDENCE) -> float:
    """The two-sided normal quantile for ``confidence`` (1.959964 for 95 %)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence!r}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson_interval(successes: int, trials: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The Wilson score interval of ``successes / trials``; (0.0, 1.0) when there are no trials."""
    _check_counts(successes, trials)
    if trials == 0:
        return 0.0, 1.0
    z = z_value(confidence)
    p = successes / trials
    z2n = z * z / trials
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(p * (1 - p) / trials + z2n / (4 * trials)) / (1 + z2n)
    low, high = max(0.0, centre - half), min(1.0, centre + half)
    # exact ends where the data pins them (floating error would give 1e-17 instead of 0)
    return (0.0 if successes == 0 else low), (1.0 if successes == trials else high)


def binomial_test(successes: int, trials: int, p: float = 0.5) -> float:
    """Exact two-sided p-value of ``successes`` in ``trials`` under success probability ``p``.

    Every outcome at most as likely as the observed one counts (scipy's two-sided rule).
    1.0 when there are no trials (no evidence either way).
    """
    _check_counts(successes, trials)
    if not 0 <= p <= 1:
        raise ValueError(f"p must be between 0 and 1, not {p!r}")
    if trials == 0:
        return 1.0
    if p == 0.5:
        return float(_half_test(successes, trials))
    pmf = [math.comb(trials, i) * p ** i * (1 - p) ** (trials - i) for i in range(trials + 1)]
    observed = pmf[successes] * _RELATIVE
    return min(1.0, math.fsum(value for value in pmf if value <= observed))


def _half_test(successes: int, trials: int) -> Fraction:
    """The p = 0.5 case exactly: the distribution is symmetric, so both tails are equal."""
    low = min(successes, trials - successes)
    if 2 * low == trials:
        return Fraction(1)
    tail = sum(math.comb(trials, i) for i in range(low + 1))
    return min(Fraction(1), Fraction(2 * tail, 2 ** trials))


def sign_test(wins: int, losses: int) -> float:
    """Exact McNemar / sign test on the discordant pairs: ``wins`` for one side, ``losses``
    for the other (ties are not evidence and are not passed in). 1.0 with no discordance."""
    return binomial_test(wins, wins + losses, 0.5)


def pass_hat_k(tasks: Iterable[tuple[int, int]], k: int) -> float | None:
    """tau-bench's pass^k: the mean over tasks of ``C(c, k) / C(n, k)`` for ``(n, c)`` =
    (trials, passes) of each task. None when there is no task, or a task has fewer than
    ``k`` trials (its estimate does not exist, and dropping it would bias the mean)."""
    if k < 1:
        raise ValueError(f"k must be at least 1, not {k!r}")
    values: list[float] = []
    for trials, passes in tasks:
        _check_counts(passes, trials)
        if trials < k:
            return None
        values.append(_ratio_of_combinations(passes, trials, k))
    return math.fsum(values) / len(values) if values else None


def _ratio_of_combinations(passes: int, trials: int, k: int) -> float:
    """``C(passes, k) / C(trials, k)``: exact for small studies, through log-gamma for large
    ones (thousands of repetitions would make the binomials enormous integers)."""
    if passes < k:
        return 0.0
    if passes == trials:
        return 1.0
    if trials <= _EXACT_UP_TO:
        return math.comb(passes, k) / math.comb(trials, k)
    return math.exp(math.lgamma(passes + 1) - math.lgamma(passes - k + 1)
                    - math.lgamma(trials + 1) + math.lgamma(trials - k + 1))


def difference_interval(successes_a: int, trials_a: int, successes_b: int, trials_b: int,
                        confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Newcombe's hybrid score interval for ``rate_b - rate_a`` (method 10 of Newcombe 1998)."""
    p_a = successes_a / trials_a if trials_a else 0.0
    p_b = successes_b / trials_b if trials_b else 0.0
    low_a, high_a = wilson_interval(successes_a, trials_a, confidence)
    low_b, high_b = wilson_interval(successes_b, trials_b, confidence)
    difference = p_b - p_a
    low = difference - math.sqrt((p_b - low_b) ** 2 + (high_a - p_a) ** 2)
    high = difference + math.sqrt((high_b - p_b) ** 2 + (p_a - low_a) ** 2)
    return max(-1.0, low), min(1.0, high)


def _check_counts(successes: int, trials: int) -> None:
    for name, value in (("successes", successes), ("trials", trials)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a whole number of at least 0, not {value!r}")
    if successes > trials:
        raise ValueError(f"successes ({successes}) cannot exceed trials ({trials})")


__all__ = [
    "CONFIDENCE",
    "binomial_test",
    "difference_interval",
    "pass_hat_k",
    "sign_test",
    "wilson_interval",
    "z_value",
]
