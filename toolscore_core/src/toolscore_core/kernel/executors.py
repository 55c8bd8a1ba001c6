"""Executors: the contract for *where* work runs, so callers never care.

Bulk scoring of many trace files and the cells of an agent study are the same shape of
job: one function applied to many independent items. The caller hands an executor that
function and ``(key, item)`` pairs and gets back a :class:`WorkResult` per item *as each
one finishes* (not in input order). Because results stream back to the one process that
called ``run``, that process stays the single writer of the output file, whether the work
ran in-process, in local worker processes (the built-in ``local``) or on a cluster (a Ray
plugin, a third party's engine).

The rules every executor keeps, and every caller may rely on:

- **One result per key, failures are data.** An item whose function raised yields a result
  whose ``error`` is a :class:`WorkError` (type name, message, traceback text); it never
  ends the run. A worker process that dies (killed, segfault, ``os._exit``) yields an error
  result for the item it was running, never a hang and never a crash of the caller.
- **Bounded in flight.** An executor pulls items from the iterable lazily and keeps only
  about two per worker submitted, so memory stays flat on a million trace paths.
- **Closing stops the work.** Closing the result iterator early (``break``, an exception,
  Ctrl-C in the caller) shuts the workers down promptly and reaps them. In the built-in
  ``local`` executor an item stopped this way sees
  :class:`~toolscore_core.kernel.worker_stop.Abandoned` raised where it runs (a
  BaseException, so its ``finally`` blocks and ``with`` exits run: do not swallow it), and
  its worker then exits by itself.
- **Idempotence (callers rely on this).** An item may run more than once: an executor may
  re-run items whose worker died (the built-in one re-runs each item that was in flight when
  a worker died, to find out which item killed it; a Ray executor retries killed tasks). The
  *result* of a key reaches the caller once per ``run``, but the function's side effects may
  happen twice, so functions should be free of side effects or idempotent, and a caller that
  resumes an interrupted run dedupes by key (skips the keys already in its output).
- **The function must be picklable** for executors that leave the process: a module-level
  function (not a lambda, closure or method of a local class) in a module the workers can
  import. Items and return values must be picklable too; pass paths, not file contents.

Settings: an executor is made by :func:`get_executor` with keyword settings, and its factory
receives only the ones it names (see :func:`toolscore_core.kernel.registry.instantiate`).
The kernel's callers offer ``workers`` (how many items run at once; ``None`` means
``os.cpu_count()``), ``address`` (a cluster to attach to) and ``options`` (a dict of
engine-specific options); a plugin may name others.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Iterable, Iterator
from types import TracebackType
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from toolscore_core.kernel.errors import InputError

if TYPE_CHECKING:
    from toolscore_core.kernel.budget import Budget, BudgetLike
    from toolscore_core.kernel.plugins import PluginManager

#: ``WorkError.type`` of an item whose worker process died while running it.
WORKER_DIED = "WorkerDied"

#: What callers pass to :meth:`Executor.run`: ``(key, item)`` pairs.
KeyedItems = Iterable[tuple[Hashable, Any]]


@attrs.frozen
class WorkError:
    """Why one item has no value: what was raised (or that its worker died), as plain text.

    Plain strings rather than the exception object, because an exception raised in another
    process or on another machine may not unpickle in the caller (its class may not even be
    importable there), while its name, message and traceback always travel.
    """

    type: str
    message: str
    traceback_text: str | None = None

    #: ``type`` of an item whose worker process died while running it (also after retries).
    WORKER_DIED: ClassVar[str] = WORKER_DIED

    @classmethod
    def worker_died(cls, message: str) -> WorkError:
        """The error result of an item whose worker died; ``message`` says how (a signal...)."""
        return cls(type=WORKER_DIED, message=message)

    @classmethod
    def from_exception(cls, exc: BaseException) -> WorkError:
        """The error result for ``exc``, with its traceback (and the chain of causes)."""
        import traceback

        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        return cls(type=type(exc).__name__, message=str(exc), traceback_text=text)


@attrs.frozen
class WorkResult:
    """The outcome of one item: its ``key`` and either its ``value`` or an ``error``.

    ``value`` is ``None`` when there is an error (and may also be ``None`` when the
    function returned ``None``: test ``ok``, not the value).
    """

    key: Any
    value: Any = None
    error: WorkError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class Executor:
    """Runs one function over many items and yields each result as it finishes.

    Subclasses set ``name`` (what ``--executor NAME`` and :func:`get_executor` select) and
    implement :meth:`run`; the contract is this module's docstring. ``close`` releases
    whatever the executor holds between runs (a cluster connection); the default has
    nothing to release. An executor is also a context manager that closes itself.
    """

    name: ClassVar[str]
    description: ClassVar[str] = ""
    #: True when :meth:`run` calls the function in this process (threads), so objects of this
    #: process (a study's budget, its guard) are shared as they are. Callers that must share
    #: such an object refuse executors that say False rather than hand each worker a copy.
    in_process: ClassVar[bool] = False

    def shared_budget(self, max_usd: float | None, *, allow_unknown_price: bool = False,
                      spent_usd: float = 0.0) -> BudgetLike:
        """A budget every worker of this executor can use, ``spent_usd`` already counted.

        The cap only holds if every worker reserves in the same ledger, so an executor whose
        workers live elsewhere must hand out a proxy to one (it travels, pickled, with each
        item). The default serves in-process executors with a plain :class:`Budget`, which
        threads share as it is, and refuses the others: a copy per worker would let N
        workers spend the cap N times over. A third party's out-of-process executor that
        does not override this cannot run agent studies.
        """
        if not self.in_process:
            raise InputError(
                f"executor {self.name} cannot share a budget across its workers",
                expected="an executor that runs items in this process, or one that implements shared_budget",
                hint="Use --executor thread (or local) for agent studies",
            )
        return settled_budget(max_usd, allow_unknown_price=allow_unknown_price, spent_usd=spent_usd)

    def run(self, fn: Callable[[Any], Any], items: KeyedItems) -> Iterator[WorkResult]:
        """Apply ``fn`` to each item of the ``(key, item)`` pairs; yield results as they finish."""
        raise NotImplementedError

    def close(self) -> None:
        """Release resources kept between runs (none by default)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def settled_budget(max_usd: float | None, *, allow_unknown_price: bool = False, spent_usd: float = 0.0) -> Budget:
    """A :class:`Budget` that has already spent ``spent_usd`` (what earlier runs of a resumed
    study cost counts against the cap, so resuming never spends the cap twice)."""
    from toolscore_core.kernel.budget import Budget

    budget = Budget(max_usd=max_usd, allow_unknown_price=allow_unknown_price)
    if spent_usd:
        budget.settle(budget.reserve(0.0), spent_usd)
    return budget


def default_workers() -> int:
    """How many items run at once when nobody said: one per CPU."""
    return os.cpu_count() or 1


def check_workers(workers: int | None) -> int:
    """``workers`` as a positive int (``None`` is :func:`default_workers`); else an InputError."""
    if workers is None:
        return default_workers()
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InputError(
            f"workers must be a whole number of at least 1, not {workers!r}",
            expected="an integer >= 1 (or nothing, for one worker per CPU)",
        )
    return workers


def call_safely(fn: Callable[[Any], Any], item: Any) -> tuple[Any, WorkError | None]:
    """``(fn(item), None)``, or ``(None, WorkError)`` when ``fn`` raised an Exception.

    The one place an item's failure becomes data, shared by in-process runs and by worker
    processes (where turning the exception into text before it is pickled back also saves
    the caller from exceptions that cannot be unpickled). ``KeyboardInterrupt`` and
    ``SystemExit`` are not an item's failure: in the caller's process they propagate and
    stop the run (in a worker process the pool reports a ``SystemExit`` as the item's error).
    """
    try:
        return fn(item), None
    except Exception as exc:
        return None, WorkError.from_exception(exc)


def split_pair(pair: Any) -> tuple[Hashable, Any]:
    """One ``(key, item)`` pair from the caller's iterable, or an InputError saying what it got."""
    if not isinstance(pair, tuple) or len(pair) != 2:
        raise InputError(
            f"an executor was given {type(pair).__name__} {pair!r:.80}",
            expected="(key, item) pairs, e.g. (path, path) or (cell_id, cell)",
        )
    return pair[0], pair[1]


def run_serially(fn: Callable[[Any], Any], items: KeyedItems) -> Iterator[WorkResult]:
    """Run every item here, one after another: the ``workers=1`` path of an executor.

    Same results as a pool (errors are data, one result per key), in input order, with no
    process start-up and tracebacks that point at the caller's own process (a debugger
    works). A crash of the function (``os._exit``, a segfault) is a crash of the caller
    here: that protection is what worker processes are for.
    """
    for pair in items:
        key, item = split_pair(pair)
        value, error = call_safely(fn, item)
        yield WorkResult(key=key, value=value, error=error)


def get_executor(name: str = "local", pm: PluginManager | None = None, **settings: Any) -> Executor:
    """The executor called ``name``, made with the ``settings`` its factory names.

    ``get_executor("local", workers=4)``; ``get_executor("ray", address="10.0.0.5:6379",
    workers=None, options={...})``. Settings given as ``None`` are left out, so the
    executor's own default applies ("unknown" never overrides a default). An unknown name is
    an :class:`~toolscore_core.kernel.errors.UnknownNameError` listing the installed
    executors with a did-you-mean.
    """
    from toolscore_core.kernel.plugins import get_plugin_manager
    from toolscore_core.kernel.registry import collect

    offered = {key: value for key, value in settings.items() if value is not None}
    if "workers" in offered:
        offered["workers"] = check_workers(offered["workers"])
    registry = collect(pm if pm is not None else get_plugin_manager(), "executors")
    executor: Executor = registry.create(name, **offered)
    return executor


__all__ = [
    "WORKER_DIED",
    "Executor",
    "KeyedItems",
    "WorkError",
    "WorkResult",
    "call_safely",
    "check_workers",
    "default_workers",
    "get_executor",
    "run_serially",
    "settled_budget",
    "split_pair",
]
