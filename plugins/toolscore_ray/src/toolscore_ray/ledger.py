"""A study's one budget on a Ray cluster: a :class:`Budget` inside one actor, and a handle.

Cells of a study run as Ray tasks on any node, and every model call first reserves its
worst case in the study's budget. A copy of the budget per task would let N tasks spend the
cap N times over, so the budget lives in exactly one actor, :class:`BudgetLedger`, and every
task gets a :class:`RayBudget`: a small picklable handle whose ``reserve``, ``settle`` and
``release_owner`` are calls on that actor. The actor runs its calls one at a time, in the
order they arrive, so the cap holds across the cluster exactly as it holds across threads.

Why it is careful:

- **The kernel's own Budget does the accounting.** The actor holds a plain
  :class:`~toolscore_core.kernel.budget.Budget` (with what earlier invocations spent already
  settled), so reservation ids, owners, unknown prices and the ``BudgetStopped`` refusal are
  the same code the thread and local executors use. An exception raised in the actor comes
  back as a value and is raised again in the caller with its own type: a refusal is still a
  ``BudgetStopped`` in the cell, not a Ray error.
- **It fails closed.** The actor is not restarted (``max_restarts=0``): a ledger that came back
  empty would have forgotten what was reserved and spent. If it dies, every later call raises,
  the cell that made it fails, and the study stops; nothing more is paid.
- **It lives with the driver.** It is pinned to the driver's node (the node whose process owns
  the output file) and needs no CPU, so it never waits behind the cells it serves.
- **About a millisecond per call** (measured round trip from a task), against model calls of
  seconds: the ledger is not the bottleneck, and no call is made without its answer.
"""

from __future__ import annotations

from typing import Any, ClassVar

from toolscore_core import Budget, Reservation, ToolscoreError


def settled(max_usd: float | None, allow_unknown_price: bool, spent_usd: float) -> Budget:
    """A budget that has already spent ``spent_usd`` (what the rows of earlier invocations cost);
    a bad ``max_usd`` is an InputError here."""
    budget = Budget(max_usd=max_usd, allow_unknown_price=allow_unknown_price)
    if spent_usd > 0:
        budget.settle(budget.reserve(0.0), spent_usd)
    return budget


class LedgerLost(ToolscoreError):
    """The budget actor is gone, so no model call can be checked against ``max_usd``: the study
    stops (exit 1, a run could not finish), keeping every row already written."""

    exit_code: ClassVar[int] = 1  # type: ignore[misc]


class BudgetLedger:
    """The actor's body (made a Ray actor by :func:`start_ledger`): one budget, calls in order."""

    def __init__(self, max_usd: float | None, allow_unknown_price: bool, spent_usd: float) -> None:
        self._budget = settled(max_usd, allow_unknown_price, spent_usd)

    def call(self, method: str, args: tuple[Any, ...]) -> tuple[Any, BaseException | None]:
        """``method(*args)`` on the budget; its exception returned, not raised (see the module docstring)."""
        try:
            return getattr(self._budget, method)(*args), None
        except Exception as exc:
            return None, exc

    def state(self) -> tuple[float, float | None, bool, float | None, float]:
        budget = self._budget
        return (budget.spent_usd, budget.remaining_usd, budget.has_unknown_costs, budget.max_usd,
                budget.reserved_usd)


class RayBudget:
    """The handle every cell uses: a :class:`~toolscore_core.kernel.budget.BudgetLike` whose
    members ask the one :class:`BudgetLedger` actor. Pickles as the actor's handle."""

    def __init__(self, actor: Any) -> None:
        self._actor = actor

    def _ask(self, call: Any) -> Any:
        """``ray.get`` of one call on the actor; a dead actor is :class:`LedgerLost`."""
        import ray

        try:
            return ray.get(call)
        except ray.exceptions.RayActorError as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            raise LedgerLost(
                f"the study's budget ledger (the Ray actor BudgetLedger) is gone ({type(exc).__name__}: {first}); "
                "no model call can be checked against max_usd any more, so the study stopped. The rows "
                "already written are kept: run the same command again to resume"
            ) from None

    def _call(self, method: str, *args: Any) -> Any:
        value, error = self._ask(self._actor.call.remote(method, args))
        if error is not None:
            raise error
        return value

    def reserve(self, worst_case_usd: float | None, owner: str | None = None) -> Reservation:
        result: Reservation = self._call("reserve", worst_case_usd, owner)
        return result

    def settle(self, reservation: Reservation, actual_usd: float | None) -> None:
        self._call("settle", reservation, actual_usd)

    def release_owner(self, owner: str) -> float:
        return float(self._call("release_owner", owner))

    def _state(self) -> tuple[float, float | None, bool, float | None, float]:
        state: tuple[float, float | None, bool, float | None, float] = self._ask(self._actor.state.remote())
        return state

    @property
    def spent_usd(self) -> float:
        return self._state()[0]

    @property
    def remaining_usd(self) -> float | None:
        return self._state()[1]

    @property
    def has_unknown_costs(self) -> bool:
        return self._state()[2]

    @property
    def max_usd(self) -> float | None:
        return self._state()[3]

    @property
    def reserved_usd(self) -> float:
        return self._state()[4]

    def __repr__(self) -> str:
        return f"RayBudget({self._actor!r})"


def start_ledger(ray: Any, max_usd: float | None, *, allow_unknown_price: bool, spent_usd: float) -> tuple[Any, RayBudget]:
    """Start the ledger actor on this (the driver's) node; the actor and the handle to it."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    here = ray.get_runtime_context().get_node_id()
    actor_class = ray.remote(num_cpus=0, max_restarts=0, max_concurrency=1)(BudgetLedger)
    actor = actor_class.options(
        scheduling_strategy=NodeAffinitySchedulingStrategy(here, soft=False),
    ).remote(max_usd, allow_unknown_price, spent_usd)
    budget = RayBudget(actor)
    budget.spent_usd  # noqa: B018 - waits until the actor is up, so a failure to start is raised here
    return actor, budget


__all__ = ["BudgetLedger", "LedgerLost", "RayBudget", "settled", "start_ledger"]
