"""Minimum-cost assignment (the linear sum assignment problem), in numpy.

The pairing of expected to actual calls needs an optimal one-to-one assignment on blocks
of at most a few hundred calls. ``scipy.optimize.linear_sum_assignment`` solves it, but
importing ``scipy.optimize`` costs about a second of start-up on our machines, more than
``toolscore eval`` may spend on a 10,000-call trace in total. This is the classic
shortest-augmenting-path Hungarian algorithm with potentials (O(n² m)), its inner loop
vectorised over the columns: fast for the blocks ordinary traces produce (tiny blocks, where
numpy's call overhead dominates, run the very same steps on Python lists). Blocks full of
near-ties (hundreds of calls of one tool, all a little different) exceed its step budget
and go to scipy.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

#: The numpy solver's budget of augmenting steps per row. Ordinary blocks (most rows have
#: one clearly best partner) need one to three; blocks full of near-ties (hundreds of calls
#: of one tool, every one a little different) need hundreds per row, and go to scipy's C
#: implementation instead, whose import then pays for itself.
STEPS_PER_ROW = 8


class _TooHard(Exception):
    """The block needs more augmenting steps than the numpy solver's budget."""


def linear_sum_assignment(cost: Any) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of a minimum-cost assignment of a rectangular cost matrix.

    Same contract as scipy's: ``min(n, m)`` pairs, rows returned in increasing order.
    """
    matrix = np.asarray(cost, dtype=np.float64)
    if "scipy.optimize" not in sys.modules:  # once scipy is loaded, its C solver is cheaper
        try:
            return solve_small(matrix, max_steps_per_row=STEPS_PER_ROW)
        except _TooHard:
            pass
    from scipy.optimize import linear_sum_assignment as scipy_solver

    rows, cols = scipy_solver(matrix)
    return rows.astype(np.int64), cols.astype(np.int64)


def solve_small(cost: Any, *, max_steps_per_row: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The numpy solver; with ``max_steps_per_row`` it gives up (``_TooHard``) on hard blocks."""
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
        cols, rows = solve_small(matrix.T, max_steps_per_row=max_steps_per_row)
        order = np.argsort(rows)
        return rows[order], cols[order]
    budget = None if max_steps_per_row is None else max_steps_per_row * n + 16
    if n * m <= TINY_CELLS:
        row_list, col_list = _solve_lists(matrix.tolist(), budget)
        return np.array(row_list, dtype=np.int64), np.array(col_list, dtype=np.int64)
    return _solve(matrix, budget)


#: Blocks of at most this many cells are solved on Python lists by :func:`_solve_lists`.
TINY_CELLS = 64


def _solve_lists(cost: list[list[float]], budget: int | None) -> tuple[list[int], list[int]]:
    """:func:`_solve` step for step on Python floats, for tiny blocks (rows <= columns).

    Why: the proved shortcut of the pairing re-solves a handful of rows against a handful
    of columns per window, where each of ``_solve``'s numpy calls costs more than the
    arithmetic it does. Every value is computed by the same IEEE operations in the same
    order (numpy's float64 are Python's floats), ``argmin`` is the first smallest index,
    and the step budget is counted alike, so the answer (and ``_TooHard``) is the same."""
    inf = float("inf")
    n, m = len(cost), len(cost[0])
    steps = 0
    u = [0.0] * (n + 1)
    v = [0.0] * (m + 1)
    owner = [0] * (m + 1)
    way = [0] * (m + 1)
    for row in range(1, n + 1):
        owner[0] = row
        col0 = 0
        min_reduced = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            steps = _step(steps, budget)
            used[col0] = True
            row0 = owner[col0]
            line, u_row = cost[row0 - 1], u[row0]
            col1, delta = 0, inf
            for j in range(1, m + 1):
                if used[j]:
                    continue
                reduced = line[j - 1] - u_row - v[j]
                if reduced < min_reduced[j]:
                    min_reduced[j] = reduced
                    way[j] = col0
                if min_reduced[j] < delta or col1 == 0:
                    col1, delta = j, min_reduced[j]
            for j in range(m + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                elif j:
                    min_reduced[j] -= delta
            col0 = col1
            if owner[col0] == 0:
                break
        _flip(owner, way, col0)
    pairs = sorted((owner[j] - 1, j - 1) for j in range(1, m + 1) if owner[j])
    return [r for r, _ in pairs], [c for _, c in pairs]


def _solve(cost: np.ndarray, budget: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Rows <= columns. Index 0 of the column arrays is a virtual column (1-based rows)."""
    n, m = cost.shape
    steps = 0
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
            steps = _step(steps, budget)
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
        _flip(owner, way, col0)
    assigned = np.nonzero(owner[1:])[0]
    rows = owner[1:][assigned] - 1
    order = np.argsort(rows)
    return rows[order].astype(np.int64), assigned[order].astype(np.int64)


def _flip(owner: Any, way: Any, col0: int) -> None:
    """Flip the augmenting path ending at column ``col0`` back to its start (arrays or lists alike)."""
    while col0:
        col1 = way[col0]
        owner[col0] = owner[col1]
        col0 = col1


def _step(steps: int, budget: int | None) -> int:
    """One more augmenting step, or ``_TooHard`` past the budget."""
    steps += 1
    if budget is not None and steps > budget:
        raise _TooHard
    return steps
