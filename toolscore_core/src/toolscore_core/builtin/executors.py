"""The built-in executors: ``local`` (worker processes, the default) and ``thread``.

Both keep the contract of :mod:`toolscore_core.kernel.executors`: results stream back as
items finish, at most two items per worker are submitted at a time, an item's exception is an
error result, and closing the result iterator stops the workers.

``local`` runs items in a :class:`concurrent.futures.ProcessPoolExecutor`, so CPU-bound
scoring uses every core and a crashing item cannot take the caller down. ``workers=1`` runs
in the caller's process with no pool at all: no start-up cost for small jobs, and a debugger
and tracebacks that work. The rules the function must follow (it is sent to the workers by
reference, not by value):

- it is defined at module top level (not a lambda, a closure or a nested function);
- its module is importable by a fresh interpreter: a script's functions work only behind
  ``if __name__ == "__main__":``, and a module loaded from a path that is not on
  ``sys.path`` does not work;
- items and return values are picklable (pass a path, return a small row).

Start method: ``forkserver`` where the platform has it, else ``spawn``; never ``fork``.
Measured on a 2-core Linux machine, a pool of 2 workers whose items import the scoring code
gave its first results after 0.19-0.26 s with forkserver and 0.24-0.26 s with spawn (8
workers: 0.75-0.84 s against 0.80-1.02 s); fork was faster still (about 0.1 s for 2) but
copies a process that may hold threads (this pool's own manager thread, a client's reader
threads) and their locks, which can deadlock a worker, and Python is moving its default
away from it for that reason. The forkserver starts one clean server process the first time
and forks each worker from it, so later pools skip the interpreter start; that server stays
for the life of the caller (it is the standard library's, shared by every pool). Before it
forks any worker, the server imports the scoring code and builds the plugin manager
(:mod:`toolscore_core.builtin.worker_preload`): a pool after the first in a process then gives
its first results after about 0.08 s instead of 0.23 s (the first pool pays the same as before,
the server's start-up instead of each worker's). A plugin installed after that server started
is seen by the workers of the next process, not by this one's.

When a worker dies, the standard pool fails every item in flight at once and cannot be used
again. ``local`` then starts a new pool for the items still to come and runs each item that
was in flight once more on its own, in a one-worker pool: the one that dies there gets the
error result (type ``WorkerDied``, with the exit status or signal), the others their values.
This is why a function may run twice for one key (see the idempotence rule in the kernel).

``thread`` runs items in a thread pool: for I/O-bound work (model API calls, MCP servers)
whose function need not be picklable. Threads cannot be killed, so closing its results
cancels the items not started and leaves running ones to finish in the background.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import (
    FIRST_COMPLETED,
    BrokenExecutor,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from concurrent.futures import Executor as FuturesPool
from typing import Any, ClassVar

from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.executors import (
    Executor,
    KeyedItems,
    WorkError,
    WorkResult,
    call_safely,
    check_workers,
    run_serially,
    split_pair,
)
from toolscore_core.kernel.plugins import hookimpl
from toolscore_core.kernel.worker_stop import ask_to_stop, listen_for_stop, run_job, stop_flag

#: Items submitted per worker: one running and one queued keeps every worker busy while
#: results come back, without holding a big input in memory.
IN_FLIGHT_PER_WORKER = 2

#: What the forkserver imports before it forks any worker (see that module).
PRELOAD = "toolscore_core.builtin.worker_preload"

#: Seconds the workers get to leave their items when a run is closed early (they are asked,
#: :mod:`toolscore_core.kernel.worker_stop`), before they are terminated.
STOP_GRACE_S = 5.0

#: Seconds a worker gets to exit after SIGTERM, before SIGKILL.
TERMINATE_GRACE_S = 1.0


def _start_worker(stop: Any) -> None:
    """Worker initializer: Ctrl-C reaches the whole process group; only the caller acts on it
    (and then stops the workers), so a worker prints no traceback of its own. ``stop``: the
    pool's shared flag, for the caller to ask the worker to leave its item."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    listen_for_stop(stop)


class _ProcessPool(ProcessPoolExecutor):
    """A process pool that knows the stop flag its workers share (:func:`_stop` raises it)."""

    stop: Any


def process_context(method: str | None = None) -> Any:
    """The multiprocessing context our worker processes start from: ``forkserver`` where the
    platform has it, else ``spawn`` (or ``method``). The server's preload is set here for
    every caller (pools, the budget ledger), since whichever starts the one server of a
    process first decides what it has imported."""
    import multiprocessing

    if method is None:
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    if method == "forkserver":  # read only when the server starts; __main__ is the default's
        context.set_forkserver_preload(["__main__", PRELOAD])
    return context


def _process_pool(workers: int) -> FuturesPool:
    context = process_context()
    stop = stop_flag(context)
    pool = _ProcessPool(max_workers=workers, mp_context=context, initializer=_start_worker, initargs=(stop,))
    pool.stop = stop
    return pool


def _thread_pool(workers: int) -> FuturesPool:
    return ThreadPoolExecutor(max_workers=workers, thread_name_prefix="toolscore-executor")


def _worker_processes(pool: FuturesPool) -> list[Any]:
    """The pool's live process objects (``[]`` for a thread pool).

    The standard pool has no public way to stop its workers before Python 3.14, so this reads
    its process table; without one, shutdown still works, only less promptly.
    """
    table = getattr(pool, "_processes", None)
    return list(table.values()) if isinstance(table, dict) else []


def _stop(pool: FuturesPool, *, force: bool) -> None:
    """Shut ``pool`` down; with ``force``, stop the items still running first (threads cannot
    be stopped: with ``force`` a thread pool is left to finish on its own).

    Why workers are asked before they are terminated: one terminated while it sends a result
    of a few megabytes leaves the pool's manager thread waiting for the rest of it for ever,
    and the caller's process then hangs at its exit (every time, with results of 16 MB).
    Asked (:mod:`toolscore_core.kernel.worker_stop`), each leaves its item and exits by
    itself; only one still busy after :data:`STOP_GRACE_S` is terminated, then killed."""
    processes = _worker_processes(pool)
    manager = getattr(pool, "_executor_manager_thread", None)  # the shutdown below forgets it
    if force and isinstance(pool, _ProcessPool):
        ask_to_stop(processes, pool.stop)
    pool.shutdown(wait=False, cancel_futures=True)
    if force and isinstance(pool, ThreadPoolExecutor):
        return
    if force:
        # the manager thread ends once every worker has left its item and exited; waiting on it,
        # not on the workers, leaves it the only reader of their exit statuses (two readers race,
        # and the loser records a forkserver worker's status as lost: 255)
        deadline = time.monotonic() + STOP_GRACE_S
        if manager is not None:
            manager.join(STOP_GRACE_S)
        for process in processes:
            process.join(max(0.0, deadline - time.monotonic()))
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join(TERMINATE_GRACE_S)
            if process.is_alive():
                process.kill()
                process.join(TERMINATE_GRACE_S)
    pool.shutdown(wait=True)  # reaps what is left
    if manager is not None:
        manager.join(STOP_GRACE_S)  # ended with its workers, so the caller's exit does not wait on it


def _death_of(processes: list[Any]) -> str:
    """How the worker of a one-worker pool ended, in words, after its pool was shut down."""
    codes = [p.exitcode for p in processes if p.exitcode is not None]
    if not codes:
        return "the worker process died"
    code = codes[0]
    if code < 0:
        try:
            return f"the worker process was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"the worker process was killed by signal {-code}"
    if code == 255:  # also what the forkserver start method reports when it lost the real status
        return "the worker process exited with status 255 (or its exit status was lost)"
    return f"the worker process exited with status {code}"


def _unguarded_script_hint(processes: list[Any]) -> str:
    """A hint for the commonest way a script's workers die at once: the script starts its work
    at import, so each worker, importing it again while starting, exits with status 1 (the
    standard library's RuntimeError about the bootstrapping phase); "" when that cannot be it.

    Status 255 counts too: the forkserver start method reports it when it lost a worker's real
    status, which happened to that very exit on a loaded CI machine, and the hint is worded as a
    condition. Only for a ``.py`` main module: a console script (``toolscore``) is no user's
    script to guard.
    """
    path = getattr(sys.modules.get("__main__"), "__file__", None)
    if not isinstance(path, str) or not path.endswith(".py") or not any(p.exitcode in (1, 255) for p in processes):
        return ""
    return (f"; if {os.path.basename(path)} starts this work when it is imported, put that under "
            f"`if __name__ == \"__main__\":` (each worker process imports it again)")


def _submit(pool: FuturesPool, fn: Callable[[Any], Any], item: Any) -> Future[Any]:
    """``call_safely(fn, item)`` in ``pool``; in a worker process, as a job it can be asked to
    leave (:func:`run_job`: the future then holds None, which no one reads: it was stopped)."""
    if isinstance(pool, _ProcessPool):
        return pool.submit(run_job, call_safely, fn, item)
    return pool.submit(call_safely, fn, item)


class _Stream:
    """One run: feeds a pool from the input, quarantines the items of a pool that broke, and
    yields results in the order they finish. Single-use; :meth:`results` is the generator."""

    def __init__(self, fn: Callable[[Any], Any], items: KeyedItems, workers: int,
                 make_pool: Callable[[int], FuturesPool]) -> None:
        self.fn = fn
        self.source = iter(items)
        self.limit = IN_FLIGHT_PER_WORKER * workers
        self.workers = workers
        self.make_pool = make_pool
        self.pool: FuturesPool  # made when the results are first asked for, not before
        self.solo: FuturesPool | None = None  # one worker: re-runs suspects one at a time
        self.solo_processes: list[Any] = []
        self.suspects: deque[tuple[Hashable, Any]] = deque()
        # future -> (key, item, the pool it was submitted to)
        self.flight: dict[Future[Any], tuple[Hashable, Any, FuturesPool]] = {}
        self.exhausted = False

    def results(self) -> Iterator[WorkResult]:
        self.pool = self.make_pool(self.workers)
        try:
            while True:
                self._fill()
                if not self.flight:
                    return
                done, _ = wait(self.flight, return_when=FIRST_COMPLETED)
                for future in done:
                    result = self._settle(future)
                    if result is not None:
                        yield result
        finally:
            running = bool(self.flight)
            self.flight.clear()
            try:
                _stop(self.pool, force=running)
            finally:
                if self.solo is not None:
                    _stop(self.solo, force=running)

    def _fill(self) -> None:
        """Submit input until ``limit`` items are in the main pool, and one suspect to solo."""
        while not self.exhausted and self._main_in_flight() < self.limit \
                and len(self.suspects) < self.limit:
            try:
                pair = next(self.source)
            except StopIteration:
                self.exhausted = True
                break
            key, item = split_pair(pair)
            self._submit_main(key, item)
        if self.suspects and not any(pool is self.solo for _, _, pool in self.flight.values()):
            key, item = self.suspects.popleft()
            if self.solo is None:
                self.solo = self.make_pool(1)
            future = _submit(self.solo, self.fn, item)
            self.solo_processes = _worker_processes(self.solo)
            self.flight[future] = (key, item, self.solo)

    def _main_in_flight(self) -> int:
        return sum(1 for _, _, pool in self.flight.values() if pool is not self.solo)

    def _submit_main(self, key: Hashable, item: Any) -> None:
        try:
            future = _submit(self.pool, self.fn, item)
        except BrokenExecutor:  # broke before we saw its failed futures
            self._replace_main()
            future = _submit(self.pool, self.fn, item)
        self.flight[future] = (key, item, self.pool)

    def _replace_main(self) -> None:
        _stop(self.pool, force=True)
        self.pool = self.make_pool(self.workers)

    def _settle(self, future: Future[Any]) -> WorkResult | None:
        """The result of a finished future, or None when its item goes to quarantine."""
        key, item, origin = self.flight.pop(future)
        exc = future.exception()
        if isinstance(exc, BrokenExecutor):
            if origin is self.solo:  # alone in its pool: this item is what killed the worker
                processes = self.solo_processes
                _stop(origin, force=True)
                self.solo = None
                message = (f"{_death_of(processes)} while running this item, also when run alone"
                           f"{_unguarded_script_hint(processes)}")
                return WorkResult(key=key, error=WorkError.worker_died(message))
            if origin is self.pool:
                self._replace_main()
            self.suspects.append((key, item))
            return None
        if exc is not None:  # the pool could not send the item or its value (pickling)
            return WorkResult(key=key, error=WorkError.from_exception(exc))
        value, error = future.result()
        return WorkResult(key=key, value=value, error=error)


class LocalExecutor(Executor):
    """Worker processes on this machine (``workers=1``: in this process, no pool)."""

    name: ClassVar[str] = "local"
    description: ClassVar[str] = "worker processes on this machine (the default)"

    def __init__(self, workers: int | None = None) -> None:
        self.workers = check_workers(workers)
        self._ledgers: list[Any] = []

    def shared_budget(self, max_usd: float | None, *, allow_unknown_price: bool = False,
                      spent_usd: float = 0.0) -> Any:
        """A handle to one budget held by a server process this executor starts (see
        :mod:`toolscore_core.builtin.ledger`); every worker reserves in it. Stopped by ``close``."""
        from toolscore_core.builtin.ledger import LedgerServer

        server = LedgerServer(max_usd, allow_unknown_price=allow_unknown_price, spent_usd=spent_usd)
        self._ledgers.append(server)
        return server.budget

    def close(self) -> None:
        """Stop the ledger servers this executor started (their budgets stop working)."""
        while self._ledgers:
            self._ledgers.pop().close()

    def run(self, fn: Callable[[Any], Any], items: KeyedItems) -> Iterator[WorkResult]:
        if self.workers == 1:
            return run_serially(fn, items)
        _check_picklable(fn)
        return _Stream(fn, items, self.workers, _process_pool).results()


class ThreadExecutor(Executor):
    """Threads in this process, for I/O-bound functions (``workers=1``: no pool)."""

    name: ClassVar[str] = "thread"
    in_process: ClassVar[bool] = True
    description: ClassVar[str] = "threads in this process, for I/O-bound work"

    def __init__(self, workers: int | None = None) -> None:
        self.workers = check_workers(workers)

    def run(self, fn: Callable[[Any], Any], items: KeyedItems) -> Iterator[WorkResult]:
        if self.workers == 1:
            return run_serially(fn, items)
        return _Stream(fn, items, self.workers, _thread_pool).results()


def _check_picklable(fn: Callable[[Any], Any]) -> None:
    """Fail before any worker starts when ``fn`` cannot be sent to one."""
    try:
        pickle.dumps(fn)
    except Exception as exc:
        raise InputError(
            f"the function {getattr(fn, '__qualname__', fn)!r} cannot be sent to worker "
            f"processes ({type(exc).__name__}: {exc})",
            expected="a function defined at the top level of an importable module",
            hint="move it out of the enclosing function or class, or use workers=1 "
                 "(runs in this process) or the 'thread' executor",
        ) from exc


@hookimpl
def toolscore_register_executors() -> list[type[Executor]]:
    return [LocalExecutor, ThreadExecutor]
