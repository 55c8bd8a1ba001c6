"""The ``example-in-order`` executor: every item in the calling process, in input order."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, ClassVar

from toolscore_core import Executor, WorkError, WorkResult


class InOrderExecutor(Executor):
    """Runs every item in the calling process, in input order: the smallest executor there is.

    It shows the contract a real one (a cluster, a queue) keeps: one :class:`WorkResult` per
    key, an item's exception is a result with a :class:`WorkError`, never the end of the run.
    """

    name: ClassVar[str] = "example-in-order"
    description: ClassVar[str] = "runs items one by one in this process (examples/third_party_plugin)"
    in_process: ClassVar[bool] = True  # so a study may run its cells here, sharing its budget

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers  # accepted, and ignored: there is one worker, this process

    def run(self, fn: Callable[[Any], Any], items: Iterable[tuple[Any, Any]]) -> Iterator[WorkResult]:
        for key, item in items:
            try:
                yield WorkResult(key=key, value=fn(item))
            except Exception as exc:
                yield WorkResult(key=key, error=WorkError.from_exception(exc))
