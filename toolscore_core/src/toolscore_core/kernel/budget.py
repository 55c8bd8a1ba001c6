"""A spending cap that is checked before money is spent, not after.

The agent harness asks the budget before every model call: "the next call can cost at most
W dollars; may I?" (:meth:`Budget.reserve`). After the call it reports what the call
actually cost (:meth:`Budget.settle`). A reservation is refused, with
:class:`~toolscore_core.kernel.errors.BudgetStopped` (exit code 3), when

    spent + reserved by calls still in flight + W  >  max_usd

so concurrent runs sharing one budget can never overshoot it together, and a single run can
never start a call that might take it over the cap. A cost equal to the cap is allowed, and
so is an excess under :data:`TOLERANCE_USD`: a hundred calls of $0.01 add up to a little
more than $1.00 in floating point, and must still fit a $1.00 budget.

The rules for what is not known, because "unknown" must never read as "free":

- An unknown actual cost (the provider reported no usage) is settled as the reservation's
  worst case: the conservative reading, since the call may have cost that much. The budget
  then says :attr:`Budget.has_unknown_costs`, so reports can flag the total as a bound.
- An unknown worst case (a model with no price) is refused with an :class:`InputError`
  unless the budget was made with ``allow_unknown_price=True``. When allowed, such a call
  reserves nothing, its cost is unknown, :attr:`has_unknown_costs` becomes true when it is
  settled without a known cost, and the cap cannot be enforced for it.
- ``max_usd=None`` means no cap: every reservation with a known worst case succeeds, and
  spending is still counted.

Owners, for work that may be retried: ``reserve(w, owner=cell_id)`` tags a reservation with
the unit of work it belongs to, and :meth:`Budget.release_owner` settles every reservation of
that owner still open *at its worst case* and returns the dollars it settled. A worker that
died mid-call may have sent the call, so its hold can never be given back as free; settling
any that way marks :attr:`has_unknown_costs`. A study calls it in the driver when a cell's
result comes back, and each cell attempt calls it before its first reservation, so a retried
attempt first settles what its dead predecessor held. ``owner=None`` (the default) tags
nothing, and such reservations behave exactly as before.

This is the whole contract. A budget shared by workers in other processes or on other
machines (a manager-held ledger, a Ray actor) implements the same members:
:meth:`reserve`, :meth:`settle`, :meth:`release_owner`, :attr:`spent_usd`,
:attr:`remaining_usd` and :attr:`has_unknown_costs`; :class:`BudgetLike` spells them out.
One shared across processes must also pickle, since it travels to the workers with each item
(an in-process :class:`Budget` is shared as it is, by threads, and need not).
"""

from __future__ import annotations

import itertools
import math
import threading
import uuid
from typing import Protocol

import attrs

from toolscore_core.kernel.errors import BudgetStopped, InputError

#: Rounding noise of summed float dollars, far below any price: a billionth of a dollar.
TOLERANCE_USD = 1e-9


@attrs.frozen(slots=True)
class Reservation:
    """Permission to make one call that costs at most ``worst_case_usd`` (``None``: unknown).

    Give it back to the budget that issued it with :meth:`Budget.settle`, exactly once.
    ``ledger`` names that budget, so a reservation survives pickling (to a worker process)
    and still cannot be settled against another budget.
    """

    id: int
    worst_case_usd: float | None
    ledger: str


class BudgetLike(Protocol):
    """What the harness needs from a budget: the local :class:`Budget` or a shared one."""

    def reserve(self, worst_case_usd: float | None, owner: str | None = None) -> Reservation: ...

    def settle(self, reservation: Reservation, actual_usd: float | None) -> None: ...

    def release_owner(self, owner: str) -> float: ...

    @property
    def spent_usd(self) -> float: ...

    @property
    def remaining_usd(self) -> float | None: ...

    @property
    def has_unknown_costs(self) -> bool: ...


def _dollars(name: str, value: float | None, *, allow_none: bool = True) -> float | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise InputError(f"{name} is {value!r}", expected="a finite amount of US dollars, 0 or more")
    return float(value)


class Budget:
    """A cap in US dollars (``max_usd``; ``None`` for no cap), safe to share between threads.

    ``Budget(max_usd=0.05)``: every reservation is checked against what was spent and what
    calls in flight have reserved. See the module documentation for the rules on unknown
    costs.
    """

    def __init__(self, max_usd: float | None = None, allow_unknown_price: bool = False) -> None:
        self._max_usd = _dollars("budget max_usd", max_usd)
        self._allow_unknown_price = bool(allow_unknown_price)
        self._lock = threading.Lock()
        self._ledger = uuid.uuid4().hex
        self._ids = itertools.count(1)
        self._open: dict[int, Reservation] = {}
        self._owners: dict[int, str] = {}  # reservation id -> owner, for tagged reservations only
        self._spent = 0.0
        self._has_unknown_costs = False

    @property
    def max_usd(self) -> float | None:
        return self._max_usd

    @property
    def allow_unknown_price(self) -> bool:
        return self._allow_unknown_price

    @property
    def spent_usd(self) -> float:
        """Dollars settled so far (unknown costs counted at their worst case)."""
        with self._lock:
            return self._spent

    @property
    def reserved_usd(self) -> float:
        """Dollars held by reservations not settled yet."""
        with self._lock:
            return self._reserved()

    @property
    def remaining_usd(self) -> float | None:
        """What a new reservation may still take: cap minus spent minus reserved, never
        below 0 (``spent_usd`` shows an overrun). ``None`` when there is no cap."""
        with self._lock:
            if self._max_usd is None:
                return None
            return max(0.0, self._max_usd - self._spent - self._reserved())

    @property
    def has_unknown_costs(self) -> bool:
        """True once any settled call had an unknown cost: the spent total is then a bound
        (or, for calls with no price, incomplete), not an exact bill."""
        with self._lock:
            return self._has_unknown_costs

    def _reserved(self) -> float:
        return math.fsum(r.worst_case_usd for r in self._open.values() if r.worst_case_usd is not None)

    def reserve(self, worst_case_usd: float | None, owner: str | None = None) -> Reservation:
        """Hold ``worst_case_usd`` for the next call, or refuse it.

        ``owner`` (a cell id) tags the reservation for :meth:`release_owner`. Raises :class:`BudgetStopped` when spent + reserved + this worst case would exceed
        ``max_usd``, and :class:`InputError` for an unknown worst case (``None``) unless the
        budget allows unknown prices.
        """
        worst = _dollars("worst_case_usd", worst_case_usd)
        if worst is None and not self._allow_unknown_price:
            raise InputError(
                "the next call's cost is unknown (the model has no price), so the budget cannot be enforced",
                expected="a price for the model (the price table or pricing in the spec)",
                hint="Add pricing for the model, or allow it with budget.allow_unknown_price: true "
                "(--allow-unknown-price); its cost is then reported as unknown",
            )
        with self._lock:
            if worst is not None and self._max_usd is not None:
                committed = self._spent + self._reserved()
                if committed + worst > self._max_usd + TOLERANCE_USD:
                    raise BudgetStopped(
                        f"budget stopped: the next call could cost up to ${worst:.4f}, and "
                        f"${committed:.4f} is already spent or reserved of max_usd ${self._max_usd:g}",
                        spent_usd=self._spent,
                        limit_usd=self._max_usd,
                        next_call_usd=worst,
                    )
            reservation = Reservation(next(self._ids), worst, self._ledger)
            self._open[reservation.id] = reservation
            if owner is not None:
                self._owners[reservation.id] = owner
            return reservation

    def release_owner(self, owner: str) -> float:
        """Settle every still-open reservation of ``owner`` at its worst case; the dollars settled.

        For a unit of work whose worker may have died mid-call: the call may have been sent
        and paid, so the hold is spent, never freed, and the budget then says
        :attr:`has_unknown_costs`. Calling it again (or for an owner holding nothing) settles
        nothing and returns ``0.0``; reservations the work settled itself are untouched.
        """
        with self._lock:
            ids = [rid for rid, who in self._owners.items() if who == owner]
            settled = 0.0
            for rid in ids:
                del self._owners[rid]
                reservation = self._open.pop(rid)
                if reservation.worst_case_usd is not None:
                    settled += reservation.worst_case_usd
            if ids:
                self._spent += settled
                self._has_unknown_costs = True
            return settled

    def settle(self, reservation: Reservation, actual_usd: float | None) -> None:
        """Replace a reservation by what the call cost (``None``: unknown).

        An unknown cost is counted as the reservation's worst case and marks the budget as
        having unknown costs. A call that was never sent is settled with ``0.0``. Settling
        twice, or settling another budget's reservation, is a ``ValueError``: either would
        make the totals wrong without anyone noticing.
        """
        actual = _dollars("actual_usd", actual_usd)
        with self._lock:
            if reservation.ledger != self._ledger:
                raise ValueError(f"reservation {reservation.id} belongs to another budget")
            if self._open.pop(reservation.id, None) is None:
                raise ValueError(f"reservation {reservation.id} was already settled")
            self._owners.pop(reservation.id, None)
            if actual is None:
                self._has_unknown_costs = True
                if reservation.worst_case_usd is not None:
                    self._spent += reservation.worst_case_usd
            else:
                self._spent += actual

    def __repr__(self) -> str:
        with self._lock:
            return (
                f"Budget(max_usd={self._max_usd!r}, spent_usd={self._spent:.6f}, "
                f"reserved_usd={self._reserved():.6f}, has_unknown_costs={self._has_unknown_costs})"
            )


__all__ = ["TOLERANCE_USD", "Budget", "BudgetLike", "Reservation"]
