"""Minimum-cost assignment (the linear sum assignment problem), in numpy.

The pairing of expected to actual calls needs an optimal one-to-one assignment on blocks
of at most a few hundred calls. ``scipy.optimize.linear_sum_assignment`` solves it, but
importing ``scipy.optimize`` costs about a second of start-up on our machines, more than
``toolscore eval`` may spend on a 10,000-call trace in total. This is the classic
shortest-augmenting-path Hungarian algorithm with potentials (O(n² m)), its inner loop
vectorised over the columns: fast for the small blocks most traces produce. Large dense
blocks (hundreds of calls of one tool, all different) still go to scipy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: Up to this many rows (of the smaller side) the numpy solver below is used; larger,
#: dense blocks go to scipy's C implementation, whose import then pays for itself (the
#: Python-level loop of this solver grows as n² iterations).
NUMPY_SOLVER_LIMIT = 96


def linear_sum_assignment(cost: Any) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of a minimum-cost assignment of a rectangular cost matrix.

    Same contract as scipy's: ``min(n, m)`` pairs, rows returned in increasing order.
    """
    matrix = np.asarray(cost, dtype=np.float64)
    if matrix.ndim == 2 and min(matrix.shape) > NUMPY_SOLVER_LIMIT:
        from scipy.optimize import linear_sum_assignment as scipy_solver

        rows, cols = scipy_solver(matrix)
        return rows.astype(np.int64), cols.astype(np.int64)
    return solve_small(matrix)


def solve_small(cost: Any) -> tuple[np.ndarray, np.ndarray]:
    """The numpy solver, for any size (used directly by the tests)."""
    matrix = np.asarray(cost, dtype=np.float64)
    if matrix.ndim != 2:
        raise ValueError("the cost matrix must be two-dimensional")
    if not np.isfinite(matrix).all():
        raise ValueError("the cost matrix must hold finite numbers")
    n, m = matrix.shape
    if n == 0 or m == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    if n > m:
        cols, rows = solve_small(matrix.T)
        order = np.argsort(rows)
        return rows[order], cols[order]
    return _solve(matrix)


def _solve(cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows <= columns. Index 0 of the column arrays is a virtual column (1-based rows)."""
    n, m = cost.shape
    u = np.zeros(n + 1)
    v = np.zeros(m + 1)
    owner = np.zeros(m + 1, dtype=np.int64)  # owner[j]: the row (1-based) holding column j
    way = np.zeros(m + 1, dtype=np.int64)
    for row in range(1, n + 1):
        owner[0] = row
        col0 = 0
        min_reduced = np.full(m + 1, np.inf)
        used = np.zeros(m + 1, dtype=bool)
        while True:
            used[col0] = True
            row0 = owner[col0]
            free = ~used
            free[0] = False
            reduced = cost[row0 - 1] - u[row0] - v[1:]
            better = free[1:] & (reduced < min_reduced[1:])
            min_reduced[1:][better] = reduced[better]
            way[1:][better] = col0
            candidates = np.where(free[1:], min_reduced[1:], np.inf)
            col1 = int(np.argmin(candidates)) + 1
            delta = candidates[col1 - 1]
            u[owner[used]] += delta
            v[used] -= delta
            min_reduced[free] -= delta
            col0 = col1
            if owner[col0] == 0:
                break
        while col0:  # flip the augmenting path back to the start
            col1 = way[col0]
            owner[col0] = owner[col1]
            col0 = col1
    assigned = np.nonzero(owner[1:])[0]
    rows = owner[1:][assigned] - 1
    order = np.argsort(rows)
    return rows[order].astype(np.int64), assigned[order].astype(np.int64)
