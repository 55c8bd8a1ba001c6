"""Run rows of large runs files turned into record lines by worker processes, in file order.

Why: a record costs about 55 µs of CPU in one process (parsing, the row check, the record
and its hashes, the encoding), and a large runs file has hundreds of thousands of them; the
work of one row never depends on another once the first pass knows which lines are the
latest rows. So the driver reads the file in chunks of whole lines, workers turn each chunk
into the exact bytes the ``aef`` exporter would write for it, and the driver takes the
results back in submission order. The driver stays the only writer (the output's
crash-safety of :mod:`toolscore_export.export` is unchanged), at most ``2 * workers``
chunks are in flight (memory stays bounded whatever the file's size), and the bytes are
those of the serial path: a worker runs the same functions on the same lines.

A worker that meets a bad line sends the error's fields back; the driver raises it when it
reaches that chunk, so the first bad line in file order is the one reported, as serially
(after a first pass that read cell ids off the lines' heads, a line that is not JSON still
comes first: see :func:`toolscore_export.sources.first_pass_error`).
"""

from __future__ import annotations

import os
import re
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import attrs

from toolscore_core.kernel.worker_stop import run_job

CHUNK_BYTES = 1 << 19  # ~350 rows; 1 MiB cost more worker CPU in 8 of 8 A/B rounds (median ~9%), likely cache effects
AUTO_MIN_BYTES = 16 << 20  # below this (about 10,000 rows) starting workers costs more than it saves
AUTO_MIN_TRACE_FILES = 200  # below this (about 0.1 s of work) starting workers costs more than it saves
AUTO_MIN_PER_TRACE_BYTES = 1 << 20  # OTLP read trace by trace: ~0.1 s of work a MiB
MAX_AUTO_WORKERS = 4


@attrs.frozen
class EncodedRecords:
    """``count`` records already encoded as JSON Lines (what ``aef`` writes for them), in order."""

    data: bytes
    count: int

    def lines(self) -> Iterator[bytes]:
        """Each record's line, without its newline (the encoder escapes every newline in a value)."""
        start = 0
        data = self.data
        while start < len(data):
            end = data.index(b"\n", start)
            yield data[start:end]
            start = end + 1


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def choose_workers(requested: int | None, row_bytes: int, trace_files: int = 0, per_trace_bytes: int = 0) -> int:
    """Worker processes for an export: ``requested`` when given (0 or None: automatic).

    Automatic is one process (no pool) for runs files under :data:`AUTO_MIN_BYTES` in all,
    fewer than :data:`AUTO_MIN_TRACE_FILES` trace files and OTLP sources read trace by
    trace (``per_trace_bytes``, those large enough to be spread) under
    :data:`AUTO_MIN_PER_TRACE_BYTES`, else one worker per usable CPU, at most
    :data:`MAX_AUTO_WORKERS`. Always one process where workers cannot be forked safely
    (:func:`can_fork`).
    """
    if not can_fork():
        return 1
    if requested:
        return max(1, requested)
    if (row_bytes < AUTO_MIN_BYTES and trace_files < AUTO_MIN_TRACE_FILES
            and per_trace_bytes < AUTO_MIN_PER_TRACE_BYTES):
        return 1
    return max(1, min(usable_cpus(), MAX_AUTO_WORKERS))


@attrs.frozen
class Chunk:
    """Whole lines of one runs file (``size`` bytes from ``offset``, the first being line ``first``).

    The worker reads the bytes itself, so only this small description crosses the pipe.
    """

    path: str
    sha256: str
    first: int
    offset: int
    size: int
    final: bool  # holds the file's last non-blank line (a torn one is skipped, as serially)
    latest: tuple[int, ...] | None  # the latest rows' line numbers in this chunk (None: every row)
    attempts: dict[int, int]
    spill: str | None = None  # a folder for the chunk's records (see encode_chunk), else they come back by pipe
    source: int = 0  # the file's place among the export's runs files (the first pass's row places)
    quick: bool = False  # the first pass reads cell ids off the lines' heads where it can (quick_cell)

    def read(self) -> bytes:
        with open(self.path, "rb") as handle:
            handle.seek(self.offset)
            return handle.read(self.size)

    def lines(self) -> tuple[list[bytes], int]:
        """The chunk's lines, each with its newline (only a file's unterminated last line has
        none), and the index of the last non-blank one (-1 if none): where a torn last line of
        the file can be. Both passes read a chunk this way, so they number lines alike.

        Each line is sliced once with its newline (a split, then the newline added back, copied
        every line twice: half again the time, and more memory for the cache to hold)."""
        data = self.read()
        ended: list[bytes] = []
        append, find = ended.append, data.find
        start = 0
        while (end := find(b"\n", start)) >= 0:
            append(data[start:end + 1])
            start = end + 1
        if start < len(data):
            ended.append(data[start:])
        last = len(ended) - 1
        while last >= 0 and ended[last].isspace():  # a line is never empty
            last -= 1
        return ended, last


@attrs.frozen
class LineSet:
    """A set of line numbers as one bit per line: an eighth of a byte per row of the file,
    where a set or sorted list of ints would cost dozens of bytes per latest row."""

    bits: bytearray

    @classmethod
    def of(cls, numbers: Iterable[int]) -> LineSet:
        made = cls(bytearray())
        for n in numbers:
            made.add(n)
        return made

    def add(self, n: int) -> None:
        bits = self.bits
        if n >> 3 >= len(bits):
            bits.extend(bytes(max((n >> 3) + 1 - len(bits), len(bits))))
        bits[n >> 3] |= 1 << (n & 7)

    def has(self, n: int) -> bool:
        return 0 <= n >> 3 < len(self.bits) and bool(self.bits[n >> 3] >> (n & 7) & 1)

    def between(self, lo: int, hi: int) -> tuple[int, ...]:
        """The numbers in ``[lo, hi)``, in order."""
        bits = self.bits
        return tuple(n for n in range(max(lo, 0), min(hi, len(bits) * 8)) if bits[n >> 3] >> (n & 7) & 1)


Span = tuple[int, int, int, int, bool]  # a chunk's first line, offset, size, line count, and whether it is the last


_NON_BLANK = re.compile(rb"[^ \t\n\r\x0b\x0c]").search  # a byte bytes.strip() keeps


def _blank(pieces: list[bytes], block: bytes, cut: int) -> bool:
    """Whether ``pieces`` and ``block[:cut]``, end to end, are whitespace only (``not joined.strip()``),
    found without joining them or copying the block."""
    return all(_NON_BLANK(piece) is None for piece in pieces) and _NON_BLANK(block, 0, cut) is None


def _within(block: bytes, cut: int, limit: int, path: Path, number: int) -> None:
    """InputError for the first of the lines after ``block``'s first newline and up to ``cut`` longer
    than ``limit`` with its newline; ``number``: the number of the line after that first newline."""
    from toolscore_core.kernel.readlimits import line_too_long

    start = block.find(b"\n") + 1
    while start < cut:
        end = block.find(b"\n", start) + 1
        if end - start > limit:
            raise line_too_long(path, number)
        start, number = end, number + 1


def _spans(path: Path, size: int = CHUNK_BYTES, digest: Any = None) -> Iterator[Span]:
    """The file cut into chunks of about ``size`` bytes after a newline; trailing blank lines join the last.

    Only offsets and counts are kept: a chunk's bytes are never joined or copied here (the
    workers read them). ``digest`` (a hashlib object), when given, is fed every byte of the
    file in order, so the file's hash comes with its cut instead of from a read of its own.
    A line longer than the kernel's cap (its newline included) is an InputError, as the
    serial readers' ``numbered_lines`` makes it, raised once the cap and at most one more
    chunk are read: a worker would read, decode and parse it whole.
    """
    from toolscore_core.kernel.readlimits import line_too_long, max_file_bytes

    limit = max_file_bytes()
    held: list[int] | None = None  # first line, offset, size and line count of the chunk not yet given out
    first, offset = 1, 0
    with path.open("rb") as handle:
        rest = b""
        parts: list[bytes] = []  # a line longer than a chunk, gathered across reads
        gathered = 0  # bytes in parts
        while True:
            block = handle.read(size)
            if digest is not None:
                digest.update(block)
            cut = block.rfind(b"\n") + 1 if block else 0
            if block and cut == 0:
                parts.append(block)
                gathered += len(block)
                if len(rest) + gathered > limit:
                    raise line_too_long(path, first)
                continue
            if len(rest) + gathered + (block.find(b"\n") + 1 if cut else 0) > limit:  # the line begun before
                raise line_too_long(path, first)
            if limit < size and cut:  # a cap below a chunk: a line inside the block may pass it too
                _within(block, cut, limit, path, first + 1)
            pieces = [rest, *parts]  # before block[:cut]; neither holds a newline
            length = sum(map(len, pieces)) + cut
            if length:
                lines_in = block.count(b"\n") if block else 1  # only the file's last line can lack a newline
                if held is not None and _blank(pieces, block, cut):  # blank lines only: keep them with the chunk before
                    held[2] += length
                    held[3] += lines_in
                else:
                    if held is not None:
                        yield held[0], held[1], held[2], held[3], False
                    held = [first, offset, length, lines_in]
                first += lines_in
                offset += length
            rest, parts, gathered = block[cut:], [], 0
            if not block:
                break
    if held is not None:
        yield held[0], held[1], held[2], held[3], True


def _chunks_of(spans: Iterable[Span], path: Path, sha256: str, lines: LineSet | None,
               attempts: dict[int, int], spill: str | None = None, source: int = 0,
               quick: bool = False) -> Iterator[Chunk]:
    """The chunks of ``spans``, each told its latest rows (``lines``; None: every row) and their attempts."""
    for first, offset, length, count, final in spans:
        inside = lines.between(first, first + count) if lines is not None else None
        yield Chunk(path=str(path), sha256=sha256, first=first, offset=offset, size=length, final=final,
                    latest=inside, attempts={n: attempts[n] for n in inside or () if n in attempts}, spill=spill,
                    source=source, quick=quick)


def _chunks(path: Path, sha256: str, lines: LineSet | None, attempts: dict[int, int],
            size: int = CHUNK_BYTES) -> Iterator[Chunk]:
    """The file as chunks of about ``size`` bytes cut after a newline (:func:`_spans`)."""
    return _chunks_of(_spans(path, size), path, sha256, lines, attempts)


def encode_chunk(chunk: Chunk) -> tuple[bytes | str, int, int] | dict[str, Any]:
    """``(lines, records, superseded)`` of a chunk, or the fields of the InputError of its first bad line.

    With ``chunk.spill`` the lines are written to a new file in that folder and its name
    comes back instead of the bytes. Why: sending a chunk's records through the pool's
    pipe costs the driver several copies (read, buffer, unpickle) and about a second of CPU
    per 300 MB, on the cores the workers need; reading a file it is told of costs one.
    """
    from toolscore_core import InputError
    from toolscore_core.kernel.jsonl import decode_line
    from toolscore_export.canonical import prepared_bytes
    from toolscore_export.redaction import shown_text
    from toolscore_export.sources import RowTooDeep, _parsed, checked_cell, row_record_of

    path = Path(chunk.path)
    latest = set(chunk.latest) if chunk.latest is not None else None
    out: list[bytes] = []
    superseded = 0
    lines, last = chunk.lines()
    name = shown_text(path.name)  # as the records name it: a credential in it hidden
    try:
        for offset, raw in enumerate(lines):
            if raw.isspace():  # a blank line (a line is never empty: it ends with its newline)
                continue
            number = chunk.first + offset
            try:
                _, text, data = _parsed(number, raw, path, decode_line)
            except RowTooDeep:
                raise
            except InputError:
                if chunk.final and offset == last:
                    break  # a torn last line: the first pass has reported it
                raise
            checked_cell(data, number, path)
            if latest is not None and number not in latest:
                superseded += 1
                continue
            record = row_record_of(data, text, name, chunk.sha256, number, chunk.attempts.get(number, 1))
            out.append(prepared_bytes(record, sort_keys=False))
            out.append(b"\n")
    except InputError as exc:
        return error_fields(exc)
    data = b"".join(out)
    if chunk.spill is None:
        return data, len(out) // 2, superseded
    return spill_result(chunk.spill, data), len(out) // 2, superseded


def spill_result(folder: str, data: bytes) -> str:
    """Write a worker's result to a new file in the pool's spill ``folder`` and name it: the driver reads it
    when its turn comes (:func:`taken_back`), so the results in flight wait on disk, not in the driver."""
    import tempfile

    with _SPILLING:  # never while the parent watch removes the folder (see _quiet_worker)
        handle, name = tempfile.mkstemp(dir=folder, suffix=".jsonl")
        with open(handle, "wb") as written:
            written.write(data)
    return name


def taken_back(data: bytes | str) -> bytes:
    """A worker's result as it sent it, or read from the file it was written to by :func:`spill_result` (then removed)."""
    if isinstance(data, bytes):
        return data
    path = Path(data)
    read = path.read_bytes()
    path.unlink()
    return read


_SPILLING = threading.Lock()


def _start_worker(parent: int, spill: str, context: Any, stop: Any) -> None:
    """A worker's start: quiet (:func:`_quiet_worker`), listening for the driver's early stop
    (:mod:`toolscore_core.kernel.worker_stop`), told how trace files are read (``context``: inherited
    by the fork, never pickled), its heap padded (``heap_pad``)."""
    from toolscore_core.kernel.worker_stop import listen_for_stop
    from toolscore_export.heap_pad import pad_the_heap
    from toolscore_export.trace_batches import set_context

    _quiet_worker(parent, spill)
    listen_for_stop(stop)
    set_context(context)
    _fewer_collections()
    pad_the_heap()


def _fewer_collections() -> None:
    """A worker's garbage collector: the driver's objects it inherits are frozen (never scanned) and a
    young collection waits for 10,000 new objects, not 700.

    Why: a worker builds thousands of short-lived dicts and lists a trace (decoded JSON, spans,
    records), almost none in a cycle, so the default threshold runs a collection every few
    hundred of them for nothing (~2% of an OTLP trace's work, callgrind); and a full collection
    would walk, and so copy page by page, the heap it shares with the driver since the fork.
    """
    import gc

    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


def _quiet_worker(parent: int, spill: str) -> None:
    """Ctrl-C is the driver's to handle (it stops the pool and removes the partial output), and a
    worker whose driver was killed outright exits at once, silently: its results have nowhere to go.
    Whatever the driver's end, the chunks it left in the ``spill`` folder go with its workers.

    A worker's own errors still reach the driver (the pool sends a job's exception back), so
    its stderr holds only the pool's complaints about a vanished driver, and goes nowhere.
    """
    import signal
    import sys
    import time

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - for the process's lifetime

    def orphaned_clean_up() -> None:
        """Once the driver is gone, remove the chunks it left; no chunk is written after this."""
        import shutil

        if os.getppid() != parent and _SPILLING.acquire(timeout=5):  # held to the end
            shutil.rmtree(spill, ignore_errors=True)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        orphaned_clean_up()
        os._exit(0)

    # a worker can also end on its own when the driver vanishes (a result it cannot send)
    from multiprocessing.util import Finalize

    Finalize(None, orphaned_clean_up, exitpriority=10)
    threading.Thread(target=watch, name="toolscore-export-parent-watch", daemon=True).start()


def can_fork() -> bool:
    """Workers start by ``fork``, which is only safe in a process running no other thread (a
    thread holding a lock at the fork would leave it held in the worker forever); a process
    with threads exports in one process instead."""
    import multiprocessing
    import threading

    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def _context() -> Any:
    import multiprocessing

    return multiprocessing.get_context("fork")


def _pool(count: int, initargs: tuple[Any, ...]) -> Any:
    """A fork pool of ``count`` workers whose worker-handler thread sleeps until a worker exits
    or the pool changes state (what ``multiprocessing.pool.ThreadPool`` does too).

    Why: the standard pool's handler also wakes whenever a result waits in the result pipe
    unread, and until the result thread (which needs the GIL) has read all of it, it wakes
    again at once: a busy loop, about 1,000 turns and 20-60 ms of the driver's CPU for an
    export of 2,000 OTLP traces, on the cores the workers need. Nothing it does needs those
    wake-ups: it restarts dead workers (their sentinels still wake it) and stops when told.
    """
    from multiprocessing.pool import Pool

    class _Pool(Pool):
        def _get_sentinels(self) -> list[Any]:
            return handler_sentinels(self, super()._get_sentinels)  # type: ignore[misc]

    return _Pool(count, initializer=_start_worker, initargs=initargs, context=_context())


def handler_sentinels(pool: Any, standard: Any) -> list[Any]:
    """What the pool's worker-handler thread waits on besides the workers: the pool's change
    notifier alone, or ``standard()`` (the standard pool's list) when the pool has none.

    Why the fallback: the notifier is private to the standard library (3.8 and later); should
    a later Python rename it, the pool keeps working, busy loop and all, instead of failing
    to start."""
    reader = getattr(getattr(pool, "_change_notifier", None), "_reader", None)
    return [reader] if reader is not None else list(standard())


class Workers:
    """A pool of worker processes whose results come back in submission order, a few at a time.

    At most ``2 * count`` jobs are in flight, so a large file never sits in memory; closing
    it (or leaving the ``with`` block, by an error or Ctrl-C) stops every worker.
    """

    def __init__(self, count: int, context: Any = None, on_result: Callable[[], None] | None = None) -> None:
        import tempfile

        from toolscore_core.kernel.worker_stop import stop_flag

        self.count = count
        self.on_result = on_result  # told of each result as it comes back (the export's progress)
        self.spill = tempfile.mkdtemp(prefix="toolscore-export-")  # the workers' encoded chunks, each read once
        self._stop = stop_flag(_context())
        try:
            self._pool = _pool(count, (os.getpid(), self.spill, context, self._stop))
        except BaseException:
            os.rmdir(self.spill)
            raise

    def ordered(self, func: Any, jobs: Iterator[Any]) -> Iterator[Any]:
        """``func(job)`` for each job, in the jobs' order."""
        pending: deque[Any] = deque()
        exhausted = False
        while True:
            while not exhausted and len(pending) < 2 * self.count:
                job = next(jobs, None)
                if job is None:
                    exhausted = True
                    break
                pending.append(self._pool.apply_async(run_job, (func, job)))
            if not pending:
                return
            result = pending.popleft().get()
            if self.on_result is not None:
                self.on_result()
            yield result

    def close(self) -> None:
        """Stop every worker, then remove the chunks none has read yet.

        Jobs still in flight (an error, Ctrl-C, or a reader that needed no more results) are
        abandoned, and each worker exits by itself: none is killed while it sends a result,
        which would hang the pool (:mod:`toolscore_export.stopping` says how and why)."""
        import shutil

        from toolscore_export.stopping import stop_early, wind_down

        stop_early(self._pool, self._stop)
        wind_down(self._pool)
        shutil.rmtree(self.spill, ignore_errors=True)

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def error_fields(exc: Any) -> dict[str, Any]:
    """An InputError as the plain fields a worker sends back (see :func:`raise_fields`)."""
    return {"message": exc.message, "file": exc.file, "location": exc.location, "expected": exc.expected,
            "hint": exc.hint}


def raise_fields(result: dict[str, Any]) -> None:
    """Raise, in the driver, the InputError a worker sent back as :func:`error_fields`."""
    from toolscore_core import InputError

    raise InputError(result.pop("message"), **result)


def cell_ids(chunk: Chunk) -> tuple[Any, Any] | dict[str, Any]:
    """The first pass over a chunk: the cell hash and place of each row with a cell id (a
    :class:`~toolscore_export.sources.CellKeys`), and a torn last line (or None).

    The same rule as the serial first pass (orjson, else the kernel's parser, which names a
    bad line); a bad last line of the file is handed back as the serial pass reports it. The
    worker hashes the ids (a forked process hashes a string as its driver does), so flat arrays
    cross the pipe, not a tuple and a string per row for the driver to unpickle and hash.
    """
    from toolscore_core import InputError
    from toolscore_core.kernel.jsonl import TornLine, why_torn
    from toolscore_export.sources import CellKeys, _fast_loads, cell_of, quick_cell

    fast = _fast_loads()
    assert fast is not None  # the pool reads the first pass only where orjson is installed
    path = Path(chunk.path)
    keys = CellKeys()
    where = chunk.source << 32
    lines, last = chunk.lines()
    offset = chunk.offset
    try:
        for index, raw in enumerate(lines):
            start, offset = offset, offset + len(raw)
            if raw.isspace():  # a blank line (never empty: see Chunk.lines)
                continue
            number = chunk.first + index
            if chunk.quick and not (chunk.final and index == last):  # a last line is parsed: it may be torn
                cell = quick_cell(raw)
                if cell is not None:
                    keys.add(cell, where | number)
                    continue
            try:
                cell = cell_of(raw, number, path, fast)
            except InputError as exc:
                if chunk.final and index == last:  # worded as the serial first pass words it
                    return keys, TornLine(file=path, line=number, offset=start, size=len(raw),
                                          reason=why_torn(exc, raw))
                raise
            if isinstance(cell, str):  # anything else: the second pass names the line and what is wrong
                keys.add(cell, where | number)
    except InputError as exc:
        return error_fields(exc)
    return keys, None


def first_pass(path: Path, workers: Workers, on_torn: Any, spans: list[Span] | None = None,
               source: int = 0, digest: Any = None, *, quick: bool = False) -> Iterator[Any]:
    """The cell hashes and places of the rows of ``path`` (its place ``source`` among the runs files),
    a chunk at a time in order, read by ``workers`` (see :func:`cell_ids`).

    ``spans`` gets the chunks the file was cut into, so the second pass
    (:func:`encoded_rows`) need not read the whole file again to cut it the same way;
    ``digest`` (a hashlib object) gets the file's bytes as the cut reads them.
    """
    def cut() -> Iterator[Span]:
        for span in _spans(path, CHUNK_BYTES, digest):
            if spans is not None:
                spans.append(span)
            yield span

    chunks = _chunks_of(cut(), path, "", LineSet(bytearray()), {}, source=source, quick=quick)
    for result in workers.ordered(cell_ids, chunks):
        if isinstance(result, dict):
            raise_fields(result)
        keys, torn = result
        yield keys
        if torn is not None:
            on_torn(torn)


def encoded_rows(path: Path, sha256: str, lines: LineSet | None, attempts: dict[int, int], workers: Workers,
                 stats: Any, spans: list[Span] | None = None) -> Iterator[EncodedRecords]:
    """The records of one runs file, encoded by ``workers``, in file order (``stats`` counted).

    ``spans``: the file's chunks as the first pass cut it (else the file is cut again)."""
    cut = spans if spans is not None else _spans(path, CHUNK_BYTES)
    for result in workers.ordered(encode_chunk, _chunks_of(cut, path, sha256, lines, attempts, workers.spill)):
        if isinstance(result, dict):
            raise_fields(result)
        data, count, superseded = result
        data = taken_back(data)  # from the spill folder: read once, then gone
        stats.superseded += superseded
        if count:
            yield EncodedRecords(data, count)


__all__ = ["AUTO_MIN_BYTES", "AUTO_MIN_PER_TRACE_BYTES", "AUTO_MIN_TRACE_FILES", "CHUNK_BYTES", "EncodedRecords", "LineSet", "Workers", "cell_ids",
           "choose_workers", "encode_chunk", "encoded_rows", "error_fields", "first_pass", "raise_fields"]
