"""How the export's worker pool stops early (an error, Ctrl-C) without ever killing a worker
while it talks to the pool.

Why it is careful: the standard pool's ``terminate`` kills its workers with SIGTERM wherever they
are. A worker killed while it sends a result holds the result queue's write lock for good, and
may leave half a message in the pipe; the pool's own threads then wait forever on that lock or
that message, and so does the export, which was only trying to report a bad input and exit 2.
A fresh-clone CI run hung there; a driver that stops while its workers send large results
hangs about one time in five (``tests/export/test_pool_stopping_s35.py`` keeps the recipe).

So the driver never kills a busy worker. It asks instead:

1. it raises a flag the workers share (:func:`stop_flag`, made before the fork), so a worker
   skips every job it has not started;
2. it sends each worker :data:`STOP_SIGNAL`. A worker's handler (:func:`listen_for_stop`)
   raises :class:`Abandoned` only while one of the pool's jobs runs in it (:func:`run_job`),
   never while the worker reads a job or sends a result, so the job ends at its next Python
   instruction and the worker sends back a small None;
3. the pool is closed and wound down as after a finished export: every worker takes its
   sentinel and exits by itself (exit code 0).

Only a job stuck in one long call of compiled code for :data:`GRACE_SECONDS` (none of ours
is) is still stopped the standard way, by ``terminate``: by then its worker is in the job,
not in the pool's queues.
"""

from __future__ import annotations

import contextlib
import os
import signal
from typing import Any

STOP_SIGNAL = signal.SIGUSR1
"""Why SIGUSR1: nothing else sends it to our workers, and SIGINT is the whole terminal's
(the workers ignore it; Ctrl-C is the driver's to handle)."""

GRACE_SECONDS = 10.0
"""How long the driver waits for its workers to leave their jobs before it terminates them."""

_flag: Any = None  # the shared stop flag, in a worker (set by listen_for_stop)
_in_job = False  # a job of the pool's runs in this worker now


class Abandoned(BaseException):
    """Raised in a worker's job when the driver stops early. A BaseException, so a job's own
    ``except Exception`` (a reader falling back to a slower one) does not take it for an error
    of its input and go on."""


def stop_flag(context: Any) -> Any:
    """A byte the driver and its forked workers share: 1 once the driver stops early."""
    return context.RawValue("b", 0)


def listen_for_stop(flag: Any) -> None:
    """In a new worker (its pool initializer): remember ``flag`` and answer :data:`STOP_SIGNAL`."""
    global _flag
    _flag = flag
    signal.signal(STOP_SIGNAL, _on_stop)


def _on_stop(signum: int, frame: Any) -> None:
    """End the job that runs now, if any. Outside a job (the worker waits for one, or sends a
    result) it does nothing: that is pool code, which must run to its end."""
    global _in_job
    if _in_job and _flag is not None and _flag.value:
        _in_job = False  # once: a second signal must not interrupt the handling of the first
        raise Abandoned


def run_job(func: Any, job: Any) -> Any:
    """``func(job)`` in a worker, or None when the driver has stopped (before or during it).

    The flag is read again after the job is marked running: a stop that came before the mark
    found no job to interrupt, and is seen here instead."""
    global _in_job
    try:
        _in_job = True
        if _flag is not None and _flag.value:
            return None
        return func(job)
    except Abandoned:
        return None
    finally:
        _in_job = False


def stop_early(pool: Any, flag: Any) -> None:
    """Tell every worker of ``pool`` to leave its job (steps 1 and 2 of the module's docstring)."""
    flag.value = 1
    for process in list(getattr(pool, "_pool", ())):
        # a worker still starting has no handler yet: SIGUSR1 would end it, before it took any job
        # from the queue, so no lock is held and the pool starts another (which sees the flag)
        if process.exitcode is None and process.pid is not None:
            with contextlib.suppress(ProcessLookupError):  # it exited since
                os.kill(process.pid, STOP_SIGNAL)


def wind_down(pool: Any, grace: float | None = None) -> None:
    """Close ``pool`` and wait for its workers to exit by themselves; terminate only those still
    in a job after ``grace`` seconds (:data:`GRACE_SECONDS`). A second Ctrl-C during the wait
    terminates them at once, and goes on."""
    grace = GRACE_SECONDS if grace is None else grace
    pool.close()
    handler = getattr(pool, "_worker_handler", None)  # the thread that ends once no job is left
    try:
        if handler is not None:  # else a later Python's pool without it: the standard way
            handler.join(grace)
    except KeyboardInterrupt:
        pool.terminate()
        pool.join()
        raise
    if handler is None or handler.is_alive():
        pool.terminate()
    pool.join()
