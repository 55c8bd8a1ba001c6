"""Stopping worker processes early (an error, Ctrl-C, a reader that needs no more) without
killing one while it talks to its pool.

Why it is careful: the standard pools stop early by SIGTERM, wherever their workers are. A
worker killed while it sends a result holds the result queue's write lock for good and can
leave half a message in the pipe; the pool's own threads then wait for ever on that lock or
that message, and so does the process, at its exit if not before. Measured: a driver closing
a pool while its workers sent results of 16 MB hung every time (``ProcessPoolExecutor``, at
exit) or one time in five (``multiprocessing.Pool``, in ``terminate``).

So a busy worker is asked instead, in three steps that each pool's owner takes:

1. raise the flag its workers share (:func:`stop_flag`, made before they start and handed to
   their initializer), so a worker skips every job it has not started;
2. send each worker :data:`STOP_SIGNAL` (:func:`ask_to_stop`). A worker's handler
   (:func:`listen_for_stop`) raises :class:`Abandoned` only while a job runs in it
   (:func:`run_job`), never while it reads a job or sends a result, so the job ends at its
   next Python instruction and the worker sends back a small None;
3. close the pool as after finished work: each worker takes its sentinel and exits by itself.

Only a job stuck that long in one call of compiled code is then stopped the standard way, by
its owner, after a grace of its choosing: by then the worker is in the job, not in the queues.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterable
from typing import Any

STOP_SIGNAL = signal.SIGURG
"""Why SIGURG: its default action is to ignore it, so a worker still starting (no handler yet)
is not killed by it, which would break a ``ProcessPoolExecutor`` (and make it terminate the
others, mid-send or not); and nothing else sends it to our processes (it tells of a socket's
out-of-band data, which they never ask for). SIGINT is the whole terminal's: workers ignore
it, Ctrl-C is their owner's to handle."""

_flag: Any = None  # the shared stop flag, in a worker (set by listen_for_stop)
_in_job = False  # a job runs in this worker now


class Abandoned(BaseException):
    """Raised in a worker's job when its owner stops early. A BaseException, so a job's own
    ``except Exception`` (a reader falling back to a slower one, an item's error turned into
    data) does not take it for a failure of its input and go on."""


def stop_flag(context: Any) -> Any:
    """A byte an owner and its workers (started from ``context``) share: 1 once it stops early."""
    return context.RawValue("b", 0)


def listen_for_stop(flag: Any) -> None:
    """In a new worker (its initializer): remember ``flag`` and answer :data:`STOP_SIGNAL`."""
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


def run_job(func: Any, *args: Any) -> Any:
    """``func(*args)`` in a worker, or None when its owner has stopped (before or during it).

    The flag is read again after the job is marked running: a stop that came before the mark
    found no job to interrupt, and is seen here instead."""
    global _in_job
    try:
        _in_job = True
        if _flag is not None and _flag.value:
            return None
        return func(*args)
    except Abandoned:
        return None
    finally:
        _in_job = False


def ask_to_stop(processes: Iterable[Any], flag: Any) -> None:
    """Steps 1 and 2 of the module's docstring, for these worker ``processes``."""
    flag.value = 1
    for process in list(processes):
        # a worker still starting ignores the signal, and sees the flag before its first job
        if process.exitcode is None and process.pid is not None:
            with contextlib.suppress(ProcessLookupError):  # it exited since
                os.kill(process.pid, STOP_SIGNAL)


__all__ = ["STOP_SIGNAL", "Abandoned", "ask_to_stop", "listen_for_stop", "run_job", "stop_flag"]
