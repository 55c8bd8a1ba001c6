"""Our assignment solver finds the same minimum total cost as scipy's, on random and tied matrices."""

from __future__ import annotations

import numpy as np
import pytest

from toolscore_core.scoring.assignment import linear_sum_assignment, solve_small

scipy_optimize = pytest.importorskip("scipy.optimize")


@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (5, 8), (8, 5), (20, 20), (37, 60), (60, 37)])
@pytest.mark.parametrize("seed", range(12))
def test_same_optimum_as_scipy(shape, seed):
    rng = np.random.default_rng(seed)
    cost = rng.integers(-50, 50, size=shape).astype(float) * rng.choice([1.0, 1e6], size=shape)
    rows, cols = solve_small(cost)
    ref_rows, ref_cols = scipy_optimize.linear_sum_assignment(cost)
    assert len(rows) == min(shape)
    assert len(set(rows.tolist())) == len(rows) and len(set(cols.tolist())) == len(cols)
    assert list(rows) == sorted(rows)
    assert cost[rows, cols].sum() == pytest.approx(cost[ref_rows, ref_cols].sum())


def test_all_ties_and_empty():
    rows, cols = solve_small(np.zeros((4, 6)))
    assert len(rows) == 4 and len(set(cols.tolist())) == 4
    assert linear_sum_assignment(np.zeros((0, 3)))[0].size == 0


def test_rejects_non_finite_costs():
    with pytest.raises(ValueError, match="finite"):
        solve_small([[0.0, np.inf]])


def test_hard_blocks_fall_back_to_scipy_with_the_same_contract():
    rng = np.random.default_rng(7)
    cost = rng.random((150, 160))  # random costs: many augmenting steps per row
    rows, cols = linear_sum_assignment(cost)
    ref_rows, ref_cols = scipy_optimize.linear_sum_assignment(cost)
    assert cost[rows, cols].sum() == pytest.approx(cost[ref_rows, ref_cols].sum())
    assert rows.dtype == np.int64 and list(rows) == sorted(rows)
