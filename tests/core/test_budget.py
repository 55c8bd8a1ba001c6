"""The budget: reservations checked before a call, settled after, safe across threads."""

from __future__ import annotations

import pickle
import threading

import pytest

import toolscore_core
from toolscore_core.kernel.budget import Budget, BudgetLike, Reservation
from toolscore_core.kernel.errors import BudgetStopped, InputError


def test_a_reservation_within_the_cap_is_granted_and_held() -> None:
    budget = Budget(max_usd=0.05)
    reservation = budget.reserve(0.02)
    assert reservation.worst_case_usd == 0.02
    assert budget.reserved_usd == pytest.approx(0.02)
    assert budget.remaining_usd == pytest.approx(0.03)
    assert budget.spent_usd == 0.0


def test_settling_replaces_the_worst_case_by_the_actual_cost() -> None:
    budget = Budget(max_usd=0.05)
    budget.settle(budget.reserve(0.02), 0.004)
    assert budget.spent_usd == pytest.approx(0.004)
    assert budget.reserved_usd == 0.0
    assert budget.remaining_usd == pytest.approx(0.046)
    assert not budget.has_unknown_costs


def test_spent_plus_reserved_plus_next_over_the_cap_stops_with_exit_code_3() -> None:
    budget = Budget(max_usd=0.05)
    budget.settle(budget.reserve(0.02), 0.02)
    held = budget.reserve(0.02)
    with pytest.raises(BudgetStopped) as caught:
        budget.reserve(0.02)  # 0.02 spent + 0.02 reserved + 0.02 > 0.05
    stopped = caught.value
    assert stopped.exit_code == 3
    assert stopped.spent_usd == pytest.approx(0.02)
    assert stopped.limit_usd == 0.05
    assert stopped.next_call_usd == 0.02
    assert "$0.0200" in str(stopped) and "max_usd" in str(stopped)
    # the refused reservation holds nothing; settling the held one frees room again
    assert budget.reserved_usd == pytest.approx(0.02)
    budget.settle(held, 0.0)
    assert budget.reserve(0.02).worst_case_usd == 0.02


def test_a_cost_equal_to_the_cap_is_allowed() -> None:
    budget = Budget(max_usd=1.0)
    budget.settle(budget.reserve(0.5), 0.5)
    assert budget.reserve(0.5).worst_case_usd == 0.5
    assert budget.remaining_usd == 0.0
    with pytest.raises(BudgetStopped):
        budget.reserve(0.0001)


def test_free_calls_pass_a_zero_budget() -> None:
    budget = Budget(max_usd=0.0)
    budget.settle(budget.reserve(0.0), 0.0)
    assert budget.spent_usd == 0.0


def test_an_unknown_actual_cost_keeps_the_worst_case_as_spent() -> None:
    budget = Budget(max_usd=1.0)
    budget.settle(budget.reserve(0.3), None)
    assert budget.spent_usd == pytest.approx(0.3)
    assert budget.has_unknown_costs


def test_an_unknown_price_is_refused_unless_allowed() -> None:
    with pytest.raises(InputError) as caught:
        Budget(max_usd=1.0).reserve(None)
    assert "allow_unknown_price" in str(caught.value)
    with pytest.raises(InputError):
        Budget(max_usd=None).reserve(None)  # no cap: the cost would still be unknown


def test_an_allowed_unknown_price_reserves_nothing_and_is_flagged() -> None:
    budget = Budget(max_usd=0.01, allow_unknown_price=True)
    reservation = budget.reserve(None)
    assert reservation.worst_case_usd is None
    assert budget.reserved_usd == 0.0
    budget.settle(reservation, None)
    assert budget.spent_usd == 0.0  # nothing known was spent ...
    assert budget.has_unknown_costs  # ... and the total says it is incomplete


def test_without_a_cap_everything_known_is_granted_and_counted() -> None:
    budget = Budget()
    assert budget.max_usd is None and budget.remaining_usd is None
    budget.settle(budget.reserve(1_000.0), 12.5)
    assert budget.spent_usd == 12.5


def test_an_actual_cost_over_the_worst_case_is_counted_and_remaining_stays_at_zero() -> None:
    budget = Budget(max_usd=0.01)
    budget.settle(budget.reserve(0.01), 0.03)  # the estimate was too low
    assert budget.spent_usd == pytest.approx(0.03)
    assert budget.remaining_usd == 0.0
    with pytest.raises(BudgetStopped):
        budget.reserve(0.0001)


def test_a_reservation_settles_once_and_only_against_its_own_budget() -> None:
    first, second = Budget(max_usd=1.0), Budget(max_usd=1.0)
    reservation = first.reserve(0.1)
    with pytest.raises(ValueError, match="another budget"):
        second.settle(reservation, 0.1)
    first.settle(reservation, 0.1)
    with pytest.raises(ValueError, match="already settled"):
        first.settle(reservation, 0.1)
    assert first.spent_usd == pytest.approx(0.1)


def test_a_reservation_survives_pickling_to_a_worker_and_back() -> None:
    budget = Budget(max_usd=1.0)
    reservation = budget.reserve(0.2)
    returned = pickle.loads(pickle.dumps(reservation))
    assert isinstance(returned, Reservation) and returned == reservation
    budget.settle(returned, 0.1)
    assert budget.spent_usd == pytest.approx(0.1)


@pytest.mark.parametrize("bad", [-0.01, float("nan"), float("inf"), "0.1", True])
def test_amounts_must_be_finite_non_negative_dollars(bad: object) -> None:
    with pytest.raises(InputError, match="max_usd"):
        Budget(max_usd=bad)  # type: ignore[arg-type]
    budget = Budget(max_usd=1.0)
    with pytest.raises(InputError, match="worst_case_usd"):
        budget.reserve(bad)  # type: ignore[arg-type]
    reservation = budget.reserve(0.1)
    with pytest.raises(InputError, match="actual_usd"):
        budget.settle(reservation, bad)  # type: ignore[arg-type]


def test_threads_sharing_a_budget_never_reserve_past_the_cap() -> None:
    budget = Budget(max_usd=1.0)
    granted: list[Reservation] = []
    refused = 0
    lock = threading.Lock()
    start = threading.Barrier(8)

    def worker() -> None:
        nonlocal refused
        start.wait()
        for _ in range(50):
            try:
                reservation = budget.reserve(0.01)
            except BudgetStopped:
                with lock:
                    refused += 1
            else:
                with lock:
                    granted.append(reservation)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # 400 attempts at $0.01 against $1.00: exactly 100 fit, float rounding of the sum aside
    assert len(granted) == 100
    assert refused == 400 - len(granted)
    assert len({r.id for r in granted}) == len(granted)
    assert budget.reserved_usd == pytest.approx(1.0)
    for reservation in granted:
        budget.settle(reservation, None)
    assert budget.spent_usd == pytest.approx(0.01 * len(granted))
    assert budget.has_unknown_costs


def test_budget_is_public_kernel_api_and_satisfies_its_protocol() -> None:
    assert {"Budget", "BudgetLike", "Reservation"} <= set(toolscore_core.__all__)
    assert toolscore_core.Budget is Budget
    shared: BudgetLike = Budget(max_usd=2.0)  # mypy checks the structural match
    assert shared.remaining_usd == 2.0
    assert "max_usd=2.0" in repr(shared)
