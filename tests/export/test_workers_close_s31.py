"""A pool whose export went well lets its workers finish and exit (none killed: a worker killed while it
sends a result would hold the result queue's lock, and the pool's terminate then waited forever); an
error or Ctrl-C stops them too, by asking (``toolscore_export.stopping``)."""

from __future__ import annotations

import time

import pytest

from toolscore_export import parallel as par


def test_a_finished_pool_lets_its_workers_exit_and_an_error_stops_them(monkeypatch):
    with par.Workers(2) as workers:
        processes = list(workers._pool._pool)
        assert list(workers.ordered(abs, iter([-1, -2, -3]))) == [1, 2, 3]
        next(workers.ordered(time.sleep, iter([0.05] + [0.3] * 9)))  # busy jobs left in flight, as an early return leaves them
    assert processes and all(p.exitcode == 0 for p in processes), [p.exitcode for p in processes]
    with pytest.raises(RuntimeError), par.Workers(2) as workers:
        processes = list(workers._pool._pool)
        raise RuntimeError("stop")
    assert all(p.exitcode is not None for p in processes)  # stopped (killed, or ended on the pool's sentinel)
