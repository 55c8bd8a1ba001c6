"""The ``ray`` executor: each item a Ray task, results streamed back as they finish.

Why it is shaped this way (measured behaviour of Ray 2.60, see docs/guide/ray.md):

- **Tasks, not actors.** Items (a shard of trace paths, a study cell) are independent, so
  the scheduler may place each anywhere. A task whose worker is killed is run again by Ray
  (``max_retries``, system failures only); the driver still receives one value per task, so a
  key's result reaches the caller once, as the kernel contract says.
- **Bounded in flight.** At most about two tasks per cluster CPU are submitted at a time and a
  new one goes out as each finishes (``ray.wait`` with ``num_returns=1``): every CPU stays busy
  while the driver holds little memory and a lost node loses little work.
- **Errors are data.** The function's exception is caught on the worker, so it
  exception comes back as text; what Ray itself raises (a worker that died after its retries, a
  lost node or object) becomes a :class:`WorkError` too, ``WorkerDied`` for a dead worker.
- **Ray is imported on first use**, not when the plugin loads: ``toolscore --help`` and
  ``toolscore plugins`` must stay cheap, and a missing Ray is an error only for someone who
  asked for ``--executor ray``.
- **Only what it started is stopped.** Without an address it starts a private local instance
  (``address="local"``, so a stale ``RAY_ADDRESS`` or a cluster file left in the temp dir is
  never joined by accident) and shuts it down on :meth:`close`; a cluster it attached to, or a
  Ray the calling process had already initialised, is left running.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import Any, ClassVar

from toolscore_core import Executor, InputError, WorkError, WorkResult

#: Tasks kept submitted per cluster CPU (one running, one queued).
IN_FLIGHT_PER_CPU = 2

#: Ray's retries of a task whose worker or node died (Ray's own default, said out loud).
MAX_RETRIES = 3

#: Seconds to wait for a TCP answer from a given cluster address before calling it unreachable.
PROBE_TIMEOUT_S = 5.0

#: Environment that keeps Ray quiet and offline; set only where the user has not set it.
QUIET_ENV = {
    "RAY_USAGE_STATS_ENABLED": "0",  # no telemetry upload
    "RAY_COLOR_PREFIX": "0",  # no ANSI colour codes in CI logs
}

#: Environment for a private local instance only (a cluster's settings are its operator's).
#: Ray starts its workers at nice 15 by default, a fit for a shared cluster node but not for a
#: command the user runs in the foreground: beside any other job at normal priority (a CI
#: machine's usual state) the workers got a fraction of a core and a 10,000-trace bulk run took
#: 1.44x the local executor's time; at nice 0, as the local executor's workers run, see
#: bench/RESULTS.md.
LOCAL_ENV = {
    "RAY_worker_niceness": "0",
}

INSTALL_HINT = "pip install 'toolscore[ray]'"


def _run_item(fn: Callable[[Any], Any], item: Any) -> tuple[Any, WorkError | None]:
    """The body of every Ray task: the item's failure comes back as data (text, which always
    unpickles in the driver), never as a raise."""
    try:
        return fn(item), None
    except Exception as exc:
        return None, WorkError.from_exception(exc)


def _workers(workers: int | None) -> int:
    """``workers`` as a positive int (``None``: one per CPU here)."""
    if workers is None:
        return os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InputError(f"workers must be a whole number of at least 1, not {workers!r}",
                         expected="an integer >= 1 (or nothing, for one per CPU)")
    return workers


def _pair(pair: Any) -> tuple[Hashable, Any]:
    if not isinstance(pair, tuple) or len(pair) != 2:
        raise InputError(f"the ray executor was given {type(pair).__name__} {pair!r:.80}",
                         expected="(key, item) pairs")
    return pair[0], pair[1]


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise InputError(
            "the 'ray' executor needs Ray, which is not installed",
            hint=f"install it with: {INSTALL_HINT}",
        ) from exc
    return ray


def _probe(address: str) -> None:
    """Fail fast (exit 2) when a ``HOST:PORT`` address answers nothing: ``ray.init`` would block
    for minutes retrying a dead GCS address."""
    if address == "auto" or "://" in address:
        return
    host, sep, port = address.rpartition(":")
    if not sep or not host or not (port.isascii() and port.isdigit()) or int(port) > 65535:
        raise InputError(
            f"--ray-address {address!r} is not a Ray cluster address",
            expected="auto, ray://HOST:PORT, or HOST:PORT of a head node (e.g. 10.0.0.5:6379)",
        )
    try:
        with socket.create_connection((host, int(port)), timeout=PROBE_TIMEOUT_S):
            pass
    except OSError as exc:
        raise InputError(
            f"no Ray cluster answers at --ray-address {address} ({exc.strerror or exc})",
            hint="start the head node there (ray start --head) or give the right address",
        ) from exc


def _error_of(ray: Any, exc: BaseException) -> WorkError:
    """What Ray raised for a task, as the kernel's error data."""
    errors = ray.exceptions
    died = (errors.WorkerCrashedError, errors.NodeDiedError, errors.RayActorError,
            errors.OutOfMemoryError, errors.LocalRayletDiedError)
    if isinstance(exc, died):
        return WorkError.worker_died(f"{type(exc).__name__}: {str(exc).strip().splitlines()[0]}"
                                     f" (after {MAX_RETRIES} retries)")
    if isinstance(exc, errors.RayTaskError):  # the task body itself raised (outside call_safely)
        cause = exc.cause if isinstance(getattr(exc, "cause", None), BaseException) else exc
        return WorkError(type=type(cause).__name__, message=str(cause), traceback_text=str(exc))
    return WorkError.from_exception(exc)


class RayExecutor(Executor):
    """Ray tasks on a cluster (``address``) or on a private local Ray instance."""

    name: ClassVar[str] = "ray"
    description: ClassVar[str] = "Ray tasks on a cluster (--ray-address) or a local Ray instance"
    #: Items leave this process: functions, items and values must pickle.
    in_process: ClassVar[bool] = False

    def __init__(self, workers: int | None = None, address: str | None = None,
                 options: Mapping[str, Any] | None = None) -> None:
        self.workers = _workers(workers)
        if address is not None:  # a dead address is bad input before any output file is opened
            _probe(address)
        self.address = address
        self.options = dict(options or {})
        self._started = False  # we started the Ray instance, so close() shuts it down
        self._ray: Any = None
        self._ledgers: list[Any] = []  # budget actors this executor started

    # --- connection ---------------------------------------------------------------------------

    def connect(self) -> Any:
        """The ``ray`` module, initialised: attach to ``address`` or start a local instance."""
        if self._ray is not None:
            return self._ray
        for key, value in QUIET_ENV.items():
            os.environ.setdefault(key, value)
        ray = _import_ray()
        if not ray.is_initialized():
            settings: dict[str, Any] = {"include_dashboard": False, "logging_level": "WARNING",
                                        "log_to_driver": False}
            if self.address is None:
                for key, value in LOCAL_ENV.items():  # read by the raylet ray.init starts here
                    os.environ.setdefault(key, value)
                settings.update(address="local", num_cpus=self.workers)
            else:
                settings["address"] = self.address
            settings.update(self.options)
            try:
                ray.init(**settings)
            except (ConnectionError, TimeoutError) as exc:
                raise InputError(f"could not connect to the Ray cluster at {self.address}: {exc}",
                                 hint="check --ray-address and that RAY_AUTH_MODE matches the cluster's") from exc
            self._started = self.address is None
        self._ray = ray
        return ray

    def cluster_cpus(self) -> int:
        """CPUs the cluster has now (at least 1)."""
        ray = self.connect()
        return max(1, int(ray.cluster_resources().get("CPU", 0)))

    def shared_budget(self, max_usd: float | None, *, allow_unknown_price: bool = False,
                      spent_usd: float = 0.0) -> Any:
        """A handle to one budget held by a ledger actor on this node (see :mod:`toolscore_ray.ledger`);
        every task reserves in it. Stopped by :meth:`close`."""
        from toolscore_ray.ledger import settled, start_ledger

        settled(max_usd, allow_unknown_price, spent_usd)  # bad input is raised here, before Ray starts
        actor, budget = start_ledger(self.connect(), max_usd, allow_unknown_price=allow_unknown_price,
                                     spent_usd=spent_usd)
        self._ledgers.append(actor)
        return budget

    def close(self) -> None:
        """Stop the ledger actors this executor started, and the local Ray instance it started;
        leave any other cluster running."""
        while self._ledgers and self._ray is not None:
            with contextlib.suppress(Exception):  # already gone with its node: nothing to stop
                self._ray.kill(self._ledgers.pop())
        self._ledgers.clear()
        if self._ray is not None and self._started:
            self._ray.shutdown()
        self._ray, self._started = None, False

    # --- work ---------------------------------------------------------------------------------

    def run(self, fn: Callable[[Any], Any], items: Iterable[tuple[Hashable, Any]]) -> Iterator[WorkResult]:
        ray = self.connect()
        limit = IN_FLIGHT_PER_CPU * self.cluster_cpus()
        task = ray.remote(max_retries=MAX_RETRIES)(_run_item)
        fn_ref = ray.put(fn)  # shipped once, not with every task
        return _stream(ray, task, fn_ref, iter(items), limit)


def _stream(ray: Any, task: Any, fn_ref: Any, source: Iterator[Any], limit: int) -> Iterator[WorkResult]:
    """Keep ``limit`` tasks in flight; yield each result as its task ends; cancel on close."""
    flight: dict[Any, Hashable] = {}
    exhausted = False
    try:
        while True:
            while not exhausted and len(flight) < limit:
                try:
                    pair = next(source)
                except StopIteration:
                    exhausted = True
                    break
                key, item = _pair(pair)
                flight[task.remote(fn_ref, item)] = key
            if not flight:
                return
            ready, _ = ray.wait(list(flight), num_returns=1)
            for ref in ready:
                key = flight.pop(ref)
                try:
                    value, error = ray.get(ref)
                except ray.exceptions.RayError as exc:
                    yield WorkResult(key=key, error=_error_of(ray, exc))
                    continue
                yield WorkResult(key=key, value=value, error=error)
    finally:
        for ref in flight:  # closed early: stop what is still running
            with contextlib.suppress(Exception):  # already finished or gone: nothing to stop
                ray.cancel(ref, force=True)


__all__ = ["INSTALL_HINT", "RayExecutor"]
