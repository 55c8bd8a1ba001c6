"""Trace files turned into record lines by worker processes, many files per task, in source order.

Why: a trace file costs about half a millisecond of CPU (its parse, the adapter, the record,
its hashes and its encoding) and depends on no other, so an export of thousands of them
spreads over the export's workers (:class:`toolscore_export.parallel.Workers`) as runs files
do. A task is a batch of consecutive trace files (one file per task would cost more in
messages than in work); the worker runs the serial path's functions on each file and sends
back the exact bytes the ``aef`` exporter would write. The driver hands the files out with
the run ids it chose for them, takes the results back in submission order and stays the only
writer; the first error in source order is the one raised, as serially.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from toolscore_export.parallel import EncodedRecords, Workers, error_fields, raise_fields
from toolscore_export.run_ids import RunIds

BATCH_FILES = 64  # trace files per task: ~30 ms of work, a few hundred kB of lines back
BATCH_BYTES = 4 << 20  # fewer files per task when they are large


@attrs.frozen
class TraceContext:
    """What every trace file of an export is read with; a forked worker inherits it (never pickled)."""

    trace_format: str | None
    gold: str | None
    pm: Any


@attrs.frozen
class TraceItem:
    """One trace file of a task: its hash, its bytes when the driver holds them, the run id the
    driver chose, and whether that run id was given already (an error once the file is read)."""

    path: str
    sha256: str
    raw: bytes | None
    run_id: str
    repeated: bool


_CONTEXT: list[TraceContext] = []  # set in each worker by its initializer


def set_context(context: TraceContext | None) -> None:
    """The worker's initializer: remember how trace files are read in this export."""
    _CONTEXT[:] = [context] if context is not None else []


def current_context() -> TraceContext:
    """How this worker reads trace files (set by its initializer)."""
    return _CONTEXT[0]


def trace_record(item: TraceItem, stat: Any, context: TraceContext) -> dict[str, Any]:
    """The record of one trace file, as the serial path builds it (``stat`` gets its format)."""
    from toolscore_export.record import build_record

    return build_record(_trace_run(item, stat, context))


def trace_line(item: TraceItem, stat: Any, context: TraceContext) -> bytes:
    """:func:`trace_record` as its JSON Lines line, written by :func:`~toolscore_export.record.record_line`
    (the bytes ``prepared_bytes`` gives the record, and the newline)."""
    from toolscore_export.record import record_line

    return record_line(_trace_run(item, stat, context))


def _trace_run(item: TraceItem, stat: Any, context: TraceContext) -> Any:
    """The RunInput of one trace file, told its run id."""
    from toolscore_core import InputError
    from toolscore_export.sources import trace_input

    path = Path(item.path)
    run = trace_input(path, item.sha256, stat, trace_format=context.trace_format, gold=context.gold,
                      pm=context.pm, raw=item.raw)
    if item.repeated:
        raise InputError(f"holds run {item.run_id!r} a second time", file=path, hint="Export each run once")
    if run.run_id != item.run_id:
        run = attrs.evolve(run, run_id=item.run_id)
    return run


@attrs.define
class _Format:
    """Where :func:`trace_record` leaves a file's format (the serial path's SourceStats field)."""

    format: str | None = None


def encode_traces(items: list[TraceItem]) -> tuple[bytes, list[str | None]] | dict[str, Any]:
    """``(lines, formats)`` of a batch of trace files, or the fields of the InputError of its first bad file."""
    from toolscore_core import InputError
    context = current_context()
    out: list[bytes] = []
    formats: list[str | None] = []
    try:
        for item in items:
            found = _Format()
            out.append(trace_line(item, found, context))
            formats.append(found.format)
    except InputError as exc:
        return error_fields(exc)
    return b"".join(out), formats


def trace_jobs(files: list[tuple[int, Path, Any]], run_ids: RunIds, held: dict[int, bytes],
               queued: deque[list[Any]]) -> Iterator[list[TraceItem]]:
    """Batches of the trace files ``files`` (place, path, stats), each told its run id.

    The run ids follow the serial rule (a name given twice gets its hash), chosen here in
    source order; ``queued`` gets each batch's stats, for the driver to fill as results come."""
    batch: list[TraceItem] = []
    stats: list[Any] = []
    size = 0
    for index, path, stat in files:
        run_id = path.name if path.name not in run_ids else f"{path.name}@{stat.sha256[:12]}"
        batch.append(TraceItem(str(path), stat.sha256, held.pop(index, None), run_id, run_id in run_ids))
        run_ids.add(run_id)
        stats.append(stat)
        size += stat.size
        if len(batch) >= BATCH_FILES or size >= BATCH_BYTES:
            queued.append(stats)
            yield batch
            batch, stats, size = [], [], 0
    if batch:
        queued.append(stats)
        yield batch


def encoded_traces(files: list[tuple[int, Path, Any]], run_ids: RunIds, held: dict[int, bytes],
                   workers: Workers) -> Iterator[EncodedRecords]:
    """The records of consecutive trace files, encoded by ``workers``, in source order (stats filled)."""
    queued: deque[list[Any]] = deque()
    for result in workers.ordered(encode_traces, trace_jobs(files, run_ids, held, queued)):
        stats = queued.popleft()
        if isinstance(result, dict):
            raise_fields(result)
        data, formats = result
        for stat, fmt in zip(stats, formats, strict=True):
            stat.format = fmt
            stat.records += 1
        yield EncodedRecords(data, len(formats))


__all__ = ["BATCH_FILES", "TraceContext", "TraceItem", "current_context", "encode_traces", "encoded_traces", "set_context",
           "trace_jobs", "trace_line", "trace_record"]
