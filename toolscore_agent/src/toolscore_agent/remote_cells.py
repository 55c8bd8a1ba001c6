"""A study's cells on an executor whose workers are other processes (``--executor local``, Ray).

The driver keeps everything that must be single: the plan, the output file (it is the only
writer), and the budget's one ledger (the executor's ``shared_budget``, a picklable handle).
Each cell travels as a :class:`CellJob`: the spec, the plan, the cell, the budget handle and
the settings a run needs. :func:`run_cell_job` (module level, so workers import it by
reference) builds the rest in the worker:

- the guard and the provider factory, once per worker process per study (a worker running 50
  cells builds them once), from the spec and the registries of the worker's own plugin
  manager. The server's build check is the driver's, done once before anything was paid;
- a fresh server per run, as in-process (no warm launcher: it is a process of the driver);
- an adapter over the budget that tags every reservation with the cell id and, before the
  cell's first reservation, releases what an earlier attempt of the same cell still holds
  (a task retried after its worker died), at worst case.

The driver calls ``release_owner(cell_id)`` again when the cell's result comes back, ok or
not, so a cell whose worker was killed mid-call leaves no hold behind: it is counted as spent.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import attrs

from toolscore_core import InputError, Reservation, RunRow

# study token -> (guard, provider factory) of this worker process; only the latest study
_BUILT: dict[str, tuple[Any, Any]] = {}


@attrs.frozen
class CellJob:
    """One cell for a worker process: everything it needs, all picklable."""

    token: str  # one per run_study call: the worker's cache key
    plan: Any  # StudyPlan (its spec included)
    cell: Any  # Cell
    budget: Any  # the executor's shared budget handle
    build_check: dict[str, Any] | None
    base_dir: Path | None
    provider_factory: Any = None  # None: the providers registry of the worker


class OwnedBudget:
    """The shared budget as the agent loop sees it, every reservation tagged with one cell."""

    def __init__(self, budget: Any, owner: str) -> None:
        self._budget = budget
        self._owner = owner

    def reserve(self, worst_case_usd: float | None, owner: str | None = None) -> Reservation:
        result: Reservation = self._budget.reserve(worst_case_usd, owner=owner or self._owner)
        return result

    def settle(self, reservation: Reservation, actual_usd: float | None) -> None:
        self._budget.settle(reservation, actual_usd)

    def release_owner(self, owner: str) -> float:
        return float(self._budget.release_owner(owner))

    @property
    def spent_usd(self) -> float:
        return float(self._budget.spent_usd)

    @property
    def remaining_usd(self) -> float | None:
        value: float | None = self._budget.remaining_usd
        return value

    @property
    def has_unknown_costs(self) -> bool:
        return bool(self._budget.has_unknown_costs)

    @property
    def max_usd(self) -> float | None:
        value: float | None = self._budget.max_usd
        return value


class CellFailed:
    """A cell whose run raised (a bad spec, a bug), carried back as a value so the driver
    re-raises the original exception (an InputError stays an InputError, exit 2)."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


def check_factory_picklable(factory: Any, executor_name: str) -> None:
    """An InputError before anything runs when a custom provider factory cannot travel."""
    try:
        pickle.dumps(factory)
    except Exception as exc:
        raise InputError(
            f"the provider_factory {getattr(factory, '__qualname__', factory)!r} cannot be sent to the worker "
            f"processes of executor {executor_name} ({type(exc).__name__}: {exc})",
            expected="a provider factory defined at the top level of an importable module",
            hint="Use an in-process executor (executor='thread') for a factory that cannot be pickled",
        ) from exc


def _built(job: CellJob) -> tuple[Any, Any]:
    found = _BUILT.get(job.token)
    if found is None:
        from toolscore_agent.guards import build_guard
        from toolscore_agent.study import _load_metrics, default_provider_factory

        spec = job.plan.spec
        guard = build_guard(spec.guard, job.base_dir, file=spec.source)
        factory = job.provider_factory or default_provider_factory(spec)
        _load_metrics(None)
        _BUILT.clear()
        found = _BUILT[job.token] = (guard, factory)
    return found


def run_cell_job(job: CellJob) -> RunRow | CellFailed:
    """Run one cell in this (worker) process; its row, or the exception that stops the study."""
    from toolscore_agent.study import _Runner

    try:
        cell_id = job.cell.cell_id
        job.budget.release_owner(cell_id)  # what a dead earlier attempt of this cell held
        guard, factory = _built(job)
        runner = _Runner(job.plan.spec, job.plan, OwnedBudget(job.budget, cell_id), guard, factory,
                         job.build_check, job.base_dir, None)
        return runner.run(job.cell)
    except Exception as exc:
        try:
            pickle.dumps(exc)
        except Exception:
            return CellFailed(RuntimeError(f"{type(exc).__name__}: {exc}"))
        return CellFailed(exc)


__all__ = ["CellFailed", "CellJob", "OwnedBudget", "check_factory_picklable", "run_cell_job"]
