"""Budget owners: reservations tagged with the cell that holds them, released at worst case.

A worker that dies mid-call may have sent the call, so what its cell held is settled as
spent (never freed), and the cap still holds; ``owner=None`` behaves as before.
"""

from __future__ import annotations

import functools
import math
import multiprocessing
import operator
import pickle
import signal
import subprocess
import sys
import time

import pytest

from toolscore_core.kernel.budget import Budget
from toolscore_core.kernel.errors import BudgetStopped, InputError
from toolscore_core.kernel.executors import Executor, get_executor, settled_budget


def test_release_owner_settles_open_reservations_at_their_worst_case() -> None:
    budget = Budget(max_usd=1.0)
    budget.reserve(0.2, owner="cell-a")
    budget.reserve(0.3, owner="cell-a")
    other = budget.reserve(0.1, owner="cell-b")
    assert budget.release_owner("cell-a") == pytest.approx(0.5)
    assert budget.spent_usd == pytest.approx(0.5)
    assert budget.reserved_usd == pytest.approx(0.1)  # cell-b still holds its own
    assert budget.has_unknown_costs
    budget.settle(other, 0.05)
    assert budget.spent_usd == pytest.approx(0.55)


def test_release_owner_is_idempotent_and_skips_what_was_settled() -> None:
    budget = Budget(max_usd=1.0)
    budget.settle(budget.reserve(0.4, owner="cell-a"), 0.01)
    assert budget.release_owner("cell-a") == 0.0  # nothing open: nothing settled, nothing unknown
    assert not budget.has_unknown_costs
    budget.reserve(0.2, owner="cell-a")
    assert budget.release_owner("cell-a") == pytest.approx(0.2)
    assert budget.release_owner("cell-a") == 0.0
    assert budget.release_owner("never-seen") == 0.0
    assert budget.spent_usd == pytest.approx(0.21)


def test_a_released_reservation_cannot_be_settled_again() -> None:
    budget = Budget(max_usd=1.0)
    held = budget.reserve(0.2, owner="cell-a")
    budget.release_owner("cell-a")
    with pytest.raises(ValueError, match="already settled"):
        budget.settle(held, 0.0)
    assert budget.spent_usd == pytest.approx(0.2)


def test_the_cap_still_holds_with_owners() -> None:
    budget = Budget(max_usd=0.5)
    budget.reserve(0.3, owner="cell-a")
    with pytest.raises(BudgetStopped):
        budget.reserve(0.3, owner="cell-b")
    budget.release_owner("cell-a")  # spent now, not freed: still no room
    with pytest.raises(BudgetStopped):
        budget.reserve(0.3, owner="cell-b")
    assert budget.reserve(0.2, owner="cell-b").worst_case_usd == 0.2


def test_an_unknown_price_reservation_released_marks_unknown_costs() -> None:
    budget = Budget(max_usd=1.0, allow_unknown_price=True)
    budget.reserve(None, owner="cell-a")
    assert budget.release_owner("cell-a") == 0.0
    assert budget.has_unknown_costs and budget.spent_usd == 0.0


def test_owner_none_keeps_the_old_behaviour() -> None:
    budget = Budget(max_usd=1.0)
    held = budget.reserve(0.2)
    assert budget.release_owner("None") == 0.0
    assert budget.reserved_usd == pytest.approx(0.2)
    budget.settle(held, 0.1)
    assert budget.spent_usd == pytest.approx(0.1) and not budget.has_unknown_costs


def test_in_process_executors_share_a_plain_settled_budget() -> None:
    thread = get_executor("thread", workers=2)
    budget = thread.shared_budget(1.0, spent_usd=0.25)
    assert isinstance(budget, Budget)
    assert budget.spent_usd == pytest.approx(0.25) and budget.remaining_usd == pytest.approx(0.75)
    assert settled_budget(None).spent_usd == 0.0


def test_an_out_of_process_executor_without_shared_budget_is_refused() -> None:
    class Elsewhere(Executor):
        name = "elsewhere"

    with pytest.raises(InputError, match="executor elsewhere cannot share a budget across its workers"):
        Elsewhere().shared_budget(1.0)


# --- the local executor's ledger: one Budget in a server process, real worker processes -------

# Worker processes import what they run by reference, and this module is not importable by a
# fresh interpreter (pytest's importlib mode), so each item is a standard-library call: a
# bound method of the shared budget (it pickles) wrapped in a partial.
CALL = operator.methodcaller("__call__")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _gone_within(pids: set[int], timeout: float = 10.0) -> bool:
    end = time.monotonic() + timeout
    while any(_alive(p) for p in pids) and time.monotonic() < end:
        time.sleep(0.02)
    return not any(_alive(p) for p in pids)


def test_worker_processes_reserving_at_once_never_pass_the_cap() -> None:
    with get_executor("local", workers=2) as executor:
        shared = executor.shared_budget(1.0)
        items = [(i, functools.partial(shared.reserve, 0.3, f"cell-{i}")) for i in range(12)]
        results = list(executor.run(CALL, items))
        granted = [r.value for r in results if r.ok]
        refused = [r.error for r in results if not r.ok]
        assert len(granted) == 3 and len(refused) == 9
        assert {e.type for e in refused if e is not None} == {"BudgetStopped"}
        assert len({r.id for r in granted}) == 3  # one ledger hands out the ids
        assert math.fsum(r.worst_case_usd for r in granted) <= 1.0
        assert shared.reserved_usd == pytest.approx(0.9)
        for result in results:
            if result.ok:
                shared.settle(result.value, 0.1)
        assert shared.spent_usd == pytest.approx(0.3) and shared.remaining_usd == pytest.approx(0.7)


def test_the_shared_budget_pickles_starts_settled_and_its_server_is_gone_after_close() -> None:
    before = {p.pid for p in multiprocessing.active_children()}
    executor = get_executor("local", workers=2)
    shared = executor.shared_budget(0.5, spent_usd=0.2)
    servers = {p.pid for p in multiprocessing.active_children()} - before
    assert len(servers) == 1
    copy = pickle.loads(pickle.dumps(shared))
    assert copy.spent_usd == pytest.approx(0.2) and copy.max_usd == 0.5
    copy.reserve(0.3, owner="cell-a")
    assert shared.remaining_usd == pytest.approx(0.0)  # the copy reserved in the same ledger
    with pytest.raises(BudgetStopped):
        shared.reserve(0.01)
    with pytest.raises(InputError, match="cost is unknown"):
        shared.reserve(None)  # the server's InputError comes back as itself
    executor.close()
    assert _gone_within({pid for pid in servers if pid is not None})


def test_a_worker_killed_mid_cell_has_its_hold_released_at_worst_case() -> None:
    with get_executor("local", workers=2) as executor:
        shared = executor.shared_budget(1.0)
        script = ("import os, pickle, signal, sys\n"
                  "budget = pickle.loads(bytes.fromhex(sys.argv[1]))\n"
                  "budget.release_owner('cell-a')\n"
                  "budget.reserve(0.4, owner='cell-a')\n"
                  "os.kill(os.getpid(), signal.SIGKILL)\n")
        worker = subprocess.run([sys.executable, "-c", script, pickle.dumps(shared).hex()],
                                capture_output=True, text=True, timeout=60)
        assert worker.returncode == -signal.SIGKILL, worker.stderr
        assert shared.reserved_usd == pytest.approx(0.4)  # the dead worker's hold is still there
        assert shared.release_owner("cell-a") == pytest.approx(0.4)
        assert shared.spent_usd == pytest.approx(0.4) and shared.has_unknown_costs
        assert shared.release_owner("cell-a") == 0.0
        assert shared.remaining_usd == pytest.approx(0.6)


def test_the_ledger_server_exits_when_its_driver_is_killed() -> None:
    script = ("import multiprocessing, time\n"
              "from toolscore_core import get_executor\n"
              "executor = get_executor('local', workers=2)\n"
              "executor.shared_budget(1.0)\n"
              "print(' '.join(str(p.pid) for p in multiprocessing.active_children()), flush=True)\n"
              "time.sleep(60)\n")
    driver = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert driver.stdout is not None
        servers = {int(pid) for pid in driver.stdout.readline().split()}
        assert len(servers) == 1 and all(_alive(pid) for pid in servers)
    finally:
        driver.kill()
        driver.wait(10)
    assert _gone_within(servers)  # never calls close: the server notices on its own
