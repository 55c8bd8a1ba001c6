"""The run ids one export has given, so that no run is written twice: texts, and the trace ids of
the OTLP sources read one run a trace, kept as the driver keeps them while it reads such a source.

Why not one set of texts: a 1 GB OTLP source of 280,000 traces gives 280,000 run ids
(``traces.jsonl#<32 hex digits>``), about 35 MB of strings and set in the driver, beside the
first pass's bounds of the same traces (see ``per_trace_pool``): together they took the driver
over 100 MB. Such a source's run ids are its file's name, ``#`` and a trace id, and its bounds
are already a dict of its trace ids (each 32 hex digits kept as the 128-bit number they spell);
marking a trace's bound :data:`GIVEN` once its record is written makes that dict the source's
run ids too, at no cost a run.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: The bound of a trace whose record is written (a bound is ``first << 32 | last``, never negative).
GIVEN = -1

_HEX = "0123456789abcdef"


def compact_key(key: str) -> str | int:
    """A trace id as a driver's bounds hold it: 32 lowercase hex digits as the number they spell
    (an int of 48 bytes, where the text takes 88), any other text as it is. No text of the one
    kind equals one of the other, so two trace ids are equal exactly when their compact forms are."""
    if len(key) == 32 and not key.strip(_HEX):
        return int(key, 16)
    return key


def spelled_key(key: str | int) -> str:
    """The text of a :func:`compact_key`."""
    return key if isinstance(key, str) else f"{key:032x}"


class RunIds:
    """Run ids given so far: :meth:`add` and :meth:`update` take texts; :meth:`add_traces` takes an OTLP
    source's bounds, whose :data:`GIVEN` traces are its runs ``prefix + trace id``."""

    def __init__(self) -> None:
        self._texts: set[str] = set()
        self._traces: list[tuple[str, dict[Any, int], bool]] = []

    def add(self, run_id: str) -> None:
        self._texts.add(run_id)

    def update(self, run_ids: Iterable[str]) -> None:
        self._texts.update(run_ids)

    def add_traces(self, prefix: str, bounds: dict[Any, int], *, compact: bool) -> None:
        """Count as given each trace of ``bounds`` marked :data:`GIVEN`, now and as they are marked
        (``compact``: its keys are :func:`compact_key` forms)."""
        self._traces.append((prefix, bounds, compact))

    def __contains__(self, run_id: object) -> bool:
        if run_id in self._texts:
            return True
        if not isinstance(run_id, str):
            return False
        for prefix, bounds, compact in self._traces:
            if run_id.startswith(prefix):
                key = run_id[len(prefix):]
                if bounds.get(compact_key(key) if compact else key) == GIVEN:
                    return True
        return False

    def isdisjoint(self, run_ids: Iterable[str]) -> bool:
        return not any(run_id in self for run_id in run_ids)


__all__ = ["GIVEN", "RunIds", "compact_key", "spelled_key"]
