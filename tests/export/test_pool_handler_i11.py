"""The export's worker pool: its worker-handler thread sleeps while results wait, and the pool still
gives every result in order and stops when closed (issue 11)."""

from __future__ import annotations

import os
import time
from multiprocessing import pool as mp_pool

import pytest

from toolscore_export import parallel as par

BIG = 8 << 20  # a result large enough to sit in the result pipe for a while


def big_result(n: int) -> bytes:
    return bytes([n]) * BIG


@pytest.fixture(autouse=True)
def forkable(monkeypatch):
    monkeypatch.setattr(par, "can_fork", lambda: True)


def test_large_results_do_not_wake_the_handler_thread(monkeypatch):
    """The standard pool's handler wakes while any result sits unread in the result pipe, again and
    again (a busy loop in the driver); this pool's wakes only when told, a few times in all."""
    wakes = []
    original = mp_pool.Pool._wait_for_updates

    def counted(sentinels, change_notifier, timeout=None):
        wakes.append(len(sentinels))
        return original(sentinels, change_notifier, timeout)

    monkeypatch.setattr(mp_pool.Pool, "_wait_for_updates", staticmethod(counted))
    with par.Workers(2) as workers:
        results = list(workers.ordered(big_result, iter(range(16))))
    assert [r[:1] for r in results] == [bytes([n]) for n in range(16)]
    assert all(len(r) == BIG for r in results)
    assert len(wakes) < 8, wakes


def test_closing_stops_every_worker_promptly():
    workers = par.Workers(2)
    pids = [p.pid for p in workers._pool._pool]
    start = time.monotonic()
    workers.close()
    assert time.monotonic() - start < 5
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def collector_state(_: int) -> tuple[tuple[int, int, int], int]:
    import gc

    return gc.get_threshold(), gc.get_freeze_count()


def test_a_worker_freezes_what_it_inherits_and_collects_less_often():
    import gc

    with par.Workers(2) as workers:
        states = list(workers.ordered(collector_state, iter(range(4))))
    for threshold, frozen in states:
        assert threshold[0] >= 10_000
        assert frozen > 1000  # the driver's objects, inherited by the fork
    assert gc.get_threshold()[0] < 10_000  # the driver's own collector is left as it was



def test_the_handler_waits_on_the_notifier_or_else_on_the_standard_sentinels():
    """With a change notifier, the handler waits on it alone; a pool without one (a later Python
    renaming the private attribute) gets the standard pool's list, so it still starts."""
    from types import SimpleNamespace

    from toolscore_export.parallel import handler_sentinels

    standard = ["result pipe", "notifier"]
    with_notifier = SimpleNamespace(_change_notifier=SimpleNamespace(_reader="notifier"))
    assert handler_sentinels(with_notifier, lambda: standard) == ["notifier"]
    assert handler_sentinels(SimpleNamespace(), lambda: standard) == standard
    assert handler_sentinels(SimpleNamespace(_change_notifier=object()), lambda: standard) == standard
