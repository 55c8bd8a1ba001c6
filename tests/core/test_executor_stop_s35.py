"""Closing a ``local`` run early asks its workers to leave their items (none is killed while it
sends a result), and terminates only one that does not leave within the grace.

The recipe of the hang this keeps away: workers sending results of 16 MB when the run is
closed. Terminated mid-send, a worker left the pool's manager thread waiting for the rest of
its message for ever, and the caller's process hung at its exit, every time. As in
``test_executors.py``, each item is a ``functools.partial`` of a standard-library function
(the workers import what they run by reference).
"""

from __future__ import annotations

import functools
import json
import multiprocessing
import operator
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from toolscore_core import get_executor
from toolscore_core.builtin import executors

CALL = operator.methodcaller("__call__")


def long_item(marks: Path, *, deaf: bool = False) -> functools.partial:
    """An item that marks itself under way in ``marks`` (a file named by its worker's pid) and sleeps
    30 s; ``deaf``: with the stop signal blocked first, as a long call of compiled code would be."""
    block = "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGURG})\n" if deaf else ""
    return functools.partial(exec, "import os, signal, time\n" + block
                             + f"open(os.path.join({str(marks)!r}, str(os.getpid())), 'w').close()\n"
                             + "time.sleep(30)")


pytestmark = pytest.mark.skipif(os.name != "posix", reason="workers are asked by a POSIX signal")


def managers() -> set[threading.Thread]:
    """The process pools' manager threads alive in this process."""
    return {t for t in threading.enumerate() if type(t).__name__ == "_ExecutorManagerThread"}


def closed_early(items: list, marks: Path | None = None,
                 workers: int = 2) -> tuple[float, list[multiprocessing.process.BaseProcess]]:
    """Run ``items``, close after the first result (and once every worker has marked an item under
    way in ``marks``): the seconds the close took and the workers."""
    before = set(multiprocessing.active_children())
    results = get_executor("local", workers=workers).run(CALL, items)
    next(results)
    deadline = time.monotonic() + 30
    while marks is not None and len(list(marks.iterdir())) < workers and time.monotonic() < deadline:
        time.sleep(0.01)
    processes = [p for p in multiprocessing.active_children() if p not in before]
    started = time.monotonic()
    results.close()
    return time.monotonic() - started, processes


_SCRIPT = """
import functools, json, multiprocessing, operator, threading, time
from toolscore_core import get_executor

CALL = operator.methodcaller("__call__")
LARGE = functools.partial(bytes, 16_000_000)  # a result of 16 MB: several writes to send

if __name__ == "__main__":
    for _ in range(3):
        results = get_executor("local", workers=2).run(CALL, [(i, LARGE) for i in range(20)])
        next(results)
        processes = multiprocessing.active_children()
        started = time.monotonic()
        results.close()
        managers = [t for t in threading.enumerate() if type(t).__name__ == "_ExecutorManagerThread"]
        print(json.dumps({"seconds": time.monotonic() - started, "managers": len(managers),
                          "exit_codes": [p.exitcode for p in processes if p.exitcode is not None]}), flush=True)
"""


def test_a_run_closed_while_its_workers_send_large_results_ends_and_kills_none(tmp_path):
    """In a process of its own, since the hang it keeps away came at the process's exit."""
    script = tmp_path / "closing.py"
    script.write_text(_SCRIPT, encoding="utf-8")
    try:
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("the process did not end: a worker was killed mid-send")
    assert done.returncode == 0, done.stderr
    closes = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(closes) == 3
    for close in closes:
        assert close["seconds"] < executors.STOP_GRACE_S
        assert close["managers"] == 0  # the pool's manager thread ended: nothing for the exit to wait on
        assert close["exit_codes"] and set(close["exit_codes"]) == {0}  # each worker left by itself


def test_an_item_deaf_to_the_request_is_terminated_after_the_grace(monkeypatch, tmp_path):
    monkeypatch.setattr(executors, "STOP_GRACE_S", 1.0)
    items = [("first", functools.partial(os.getpid))] + [(i, long_item(tmp_path, deaf=True)) for i in range(4)]
    seconds, processes = closed_early(items, tmp_path)
    assert 1.0 <= seconds < 8
    codes = [p.exitcode for p in processes]
    # terminated: by signal (-15), or 255 when the pool's thread reaped it first (the forkserver then
    # reports the status as lost); never 0, which is a worker that left by itself
    assert len(processes) == 2 and all(code is not None and code != 0 for code in codes), codes


def test_items_in_a_long_call_are_left_at_once_and_no_worker_is_killed(tmp_path):
    before = managers()
    items = [("first", functools.partial(os.getpid))] + [(i, long_item(tmp_path)) for i in range(6)]
    seconds, processes = closed_early(items, tmp_path)
    codes = [p.exitcode for p in processes]
    assert seconds < 3, (seconds, codes)  # asked, not waited for (the grace is 5 s, the items 30)
    assert len(processes) == 2 and codes == [0, 0], codes
    assert managers() <= before
