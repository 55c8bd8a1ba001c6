"""``--per-trace`` of a large JSON Lines OTLP source spread over the export's worker processes.

Why: read in the driver alone, such a file is parsed twice and every trace's record is built
in one process (about 0.3 ms a trace), while the workers of the export sit idle. Here the
driver only plans; the workers read the lines:

1. **First pass** (a stretch of the file per task, cut at fixed offsets: the driver does not
   read the file; a worker reads the lines that start in its stretch): each worker parses
   its lines (orjson) and sends back their places in the file and span counts (flat
   arrays) and each trace id's first and last line among them (:data:`ChunkFacts`). The
   driver learns each trace's first and last line, exactly the serial first pass's knowledge.
   Having parsed the lines, the worker also builds the record of every trace it saw and
   writes them to a file in the pool's spill folder (:func:`_built`), with their trace ids,
   in the serial order: for a trace no other stretch holds, that is its record. A trace also
   on the line after the stretch is built ahead, with that line's spans too.
2. **Pieces** (:func:`_pieces`): once every stretch is in, the driver knows the traces seen in
   more than one stretch; a stretch with none of them gives its records as they are; in
   another, such a trace ending there (or one whose record failed) takes the record built
   ahead for it when that is whole (the trace has no span before the stretch before and none
   after this stretch's first line), else is left to a second-pass job, its record put in its
   serial place among the built ones. Jobs that would read the file over :data:`MAX_REREAD`
   times fall back to the plan below.
3. **Plan** (without records built): the traces in the serial order (by the line of their last span, then their
   first span on it) are cut into jobs of about :data:`JOB_TRACES`; a job is the lines from
   the first line of any of its traces to the last, plus the few trace ids that go on past
   its end (another job's), so the worker can tell its own traces from the others there.
4. **Second pass**: the worker decodes its lines as the serial reader does (a long line in
   pieces: :mod:`~toolscore_export.span_pieces`), gives its traces' spans to their readers
   (:class:`_JobTraces`), numbers each span as the serial reader does (its place in the file),
   and sends back the encoded records and their run ids, which the driver checks against the
   trace ids it expected and the run ids already given.

The driver stays the only writer and takes the jobs back in order. Anything unusual gives
the serial path the file instead: a line orjson refuses or that is no export request, a
trace spread so wide that the jobs would read the file over :data:`MAX_REREAD` times, and,
during the second pass, any error in a worker, an unexpected trace or a run id given
already. That path reads the file from its start and goes on from the first record not yet
written, so the records, their order and the error raised are always the serial ones.
"""

from __future__ import annotations

import bisect
import os
from array import array
from collections.abc import Generator, Iterator
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from toolscore_core.kernel.readlimits import max_file_bytes
from toolscore_export.parallel import (
    CHUNK_BYTES,
    Chunk,
    EncodedRecords,
    Workers,
    spill_result,
    taken_back,
)
from toolscore_export.per_trace import (
    decoded_line,
    known_key,
    otel_modules,
    plain_spans,
    trace_run_of,
)
from toolscore_export.record import SourceRef
from toolscore_export.run_ids import GIVEN, RunIds, compact_key, spelled_key
from toolscore_export.run_span import RunSpans
from toolscore_export.sources import OTLP_FORMAT, calls_run

if TYPE_CHECKING:  # imported where read: the plain reader imports the otel adapter, which an export of
    # run rows may not have installed (toolscore-export needs only the kernel)
    from toolscore_export.plain_trace import PlainTrace, PlainTraceReader

MIN_BYTES = 1 << 20  # a smaller source is read in the driver: fewer traces than one job's worth of gain
JOB_TRACES = 64  # traces per second-pass job: ~20 ms of work, a few hundred kB of lines back
JOB_BYTES = 4 << 20  # fewer traces per job when their lines are large
JOB_SPILL_BYTES = 1 << 20  # a job's records this large wait in the spill folder, not in the driver (see job_records)
#: A job reading this many bytes or more is streamed (see _JobTraces): on shorter lines its spans are a few MB
#: at most, and keeping them cost no more CPU (bench/RESULTS.md), where a trace turned down costs a streamed
#: job a second read of its lines.
STREAMED_JOB_BYTES = 1 << 20
MAX_REREAD = 3  # jobs reading more than this many times the file's bytes (traces spread wide): serial
EDGE_MAX_BYTES = 64 << 10  # the longest line read past a stretch's edge (see _edge_spans): a small part of it
#: Lines longer than EDGE_MAX_BYTES on average (a collector batching hundreds of spans a request): a stretch of
#: about this many of them, up to MAX_STRETCH_BYTES (see :func:`stretch_layout`).
LINES_A_STRETCH = 8
MAX_STRETCH_BYTES = 4 << 20
#: The largest source whose records the first pass builds (see :func:`spill_for`).
BUILT_MAX_BYTES = 128 << 20
_BOM = b"\xef\xbb\xbf"
_MASK = (1 << 32) - 1

#: What the first pass learns of a chunk's non-blank lines: their numbers, offsets, ends and span counts
#: (flat arrays), and the first and last of them (indexes among them, ``first << 32 | last``) that hold
#: each trace id. Why this shape: the driver takes it in with a few array copies and one dict update a
#: trace, where a tuple a line cost it ~3 us a line to unpickle and file (it shares the workers' cores).
ChunkFacts = tuple["array[int]", "array[int]", "array[int]", "array[int]", dict[str, int]]


@attrs.frozen
class Stretch:
    """``size`` bytes of a file from ``offset``: the first pass reads the lines that start in them."""

    path: str
    offset: int
    size: int
    sha256: str = ""
    spill: str | None = None  # a folder: the worker also builds the records of the traces it holds whole
    edge: int = EDGE_MAX_BYTES  # the longest line read past each of its edges (see _edge_spans)


def stretch_keys(stretch: Stretch) -> tuple[ChunkFacts, int] | tuple[ChunkFacts, int, Built] | None:
    """First pass over the lines that start in a stretch of the file (in a worker): their
    :data:`ChunkFacts`, lines numbered from 0, and how many lines (blank ones too) start there (and,
    given a spill folder, the records it built: :func:`_built`); None when a line is not what the
    plan can rely on (orjson refuses it, it is no export request, a trace id is bad).

    Why stretches: the driver cuts the file at fixed offsets without reading it (the workers find
    where lines start); cutting it after a newline, as runs files are cut, cost the driver a read
    of every byte, ~2 us a trace, on the cores the workers need. A line belongs to the stretch its
    first byte is in, so the stretches' lines are the file's lines, each once, in order."""
    before = after = b""
    with open(stretch.path, "rb") as handle:
        start = _line_start(handle, stretch.offset)
        end = _line_start(handle, stretch.offset + stretch.size)
        if stretch.spill is not None and end > start:
            before = _line_before(handle, start, stretch.edge)  # the stretch before's last line (see _edge_spans)
            handle.seek(end)
            after = handle.readline(stretch.edge + 1)  # the next stretch's first line
            after = after if len(after) <= stretch.edge else b""
    if end <= start:
        return (array("Q"), array("Q"), array("Q"), array("Q"), {}), 0
    if end - start > max_file_bytes():  # it may hold a line past the kernel's cap: the serial path reads
        return None  # line by line within the cap and names that line, where this would read it whole
    lines, _ = Chunk(path=stretch.path, sha256="", first=0, offset=start, size=end - start, final=False, latest=None,
                     attempts={}).lines()
    parsed = None if stretch.spill is None else StretchTraces(_streamed())
    try:
        facts = _line_facts(lines, start, 0, bom=start == 0, parsed=parsed)
    except _ReadWhole:
        parsed = StretchTraces(_streamed())
        facts = _line_facts(lines, start, 0, bom=start == 0, parsed=parsed, in_pieces=False)
    if facts is None:
        return None
    if parsed is None:
        return facts, len(lines)
    parsed.lines, parsed.numbers, parsed.bom = lines, facts[0], start == 0
    return facts, len(lines), _built(parsed, stretch, _edge_spans(after), set(_edge_spans(before)[1]))


def _line_before(handle: Any, start: int, limit: int = EDGE_MAX_BYTES) -> bytes:
    """The line that ends just before offset ``start`` (a line's start), without its newline; empty at the
    file's start, and when it is longer than ``limit``."""
    parts: list[bytes] = []
    at = start - 1  # the previous line's newline
    while at > 0:
        if start - 1 - at > limit:
            return b""  # longer than that: read no further
        size = min(1 << 16, at)
        handle.seek(at - size)
        block = handle.read(size)
        found = block.rfind(b"\n")
        parts.append(block[found + 1:])
        if found >= 0:
            break
        at -= size
    line = b"".join(reversed(parts))
    return line if len(line) <= limit else b""


def _edge_spans(line: bytes) -> tuple[list[Any], list[str]]:
    """The raw spans of the line just after or before a stretch and their trace ids (none when it is blank,
    or anything in it is unusual: the first pass of its own stretch decides what it is).

    Why: a trace whose spans a collector wrote on two lines crosses about every stretch's end; its
    record, built by the stretch that saw its last line too, needs no second-pass job (about 0.4 ms of
    the workers' and the driver's work a stretch: the job's read, parse and record, and its task), and
    the stretch after, which sees it on the line before its own, builds no part of it. A line over
    ``Stretch.edge`` is not read: its parse would no longer be a small part of the stretch's.
    Read by :func:`_line_facts`, as the stretch's own lines are (a line it refuses: no record of a
    crossing trace is built ahead; its job makes it)."""
    parsed: list[tuple[list[Any], list[str]]] = []
    if not line or _line_facts([line], 0, 0, bom=False, parsed=parsed) is None or not parsed:
        return [], []
    return parsed[0]


#: What a worker built in its stretch (see :func:`_built`): the spill file, where the records start in it and
#: their size, the size of the keys after them (a JSON list), each key's record length (0: not built, a
#: second-pass job's), and the key and length of each record built ahead (after the keys; see _edge_spans).
Built = tuple[str, int, int, int, "array[int]", list[tuple[str, int]]]


def _built(parsed: StretchTraces, stretch: Stretch, after: tuple[list[Any], list[str]], before: set[str]) -> Built:
    """The records of the traces seen in a stretch, added to the worker's file in ``stretch.spill``
    (:func:`_spill_file`), with the keys of every trace seen there, in the serial order (by the line of
    the trace's last span in the stretch, then its first span on that line: for a trace with no span in
    a later stretch, the serial order).

    Why: the first pass has parsed the lines already; a trace whole in the stretch (the driver confirms it,
    once it knows every stretch's traces) needs no second read and parse. A trace that is not whole here,
    or whose record fails (the second pass then raises the error, with its places), gets length 0.
    Spans are numbered from the stretch's start: the adapter only compares a trace's spans' numbers, so
    their distance from the file's start changes nothing; their places are spelled for errors only.

    A trace seen here and on the line ``after`` the stretch has no record among the stretch's (length 0:
    it goes on) but one built ahead, with its spans on that line too: the driver takes it when that
    line is the trace's last and the trace has no span before the stretch, else a job makes it. A trace
    also on the line ``before`` the stretch (its keys) gets none either: the driver never takes the
    record of a trace that crosses a stretch's edge from that stretch's own."""
    import orjson

    from toolscore_export.record import record_line
    from toolscore_export.sources import TRACE
    from toolscore_export.trace_batches import current_context

    last = parsed.last
    serial = [key for index, keys in enumerate(parsed.line_keys) for key in dict.fromkeys(keys) if last[key] == index]
    ahead = dict.fromkeys(key for key in after[1] if parsed.holds(key) and key not in before)  # else: never whole
    parsed.add_after(*after)
    context = current_context()
    otel, spans = otel_modules()
    adapter = otel.OtelAdapter()
    source = SourceRef(TRACE, Path(stretch.path).name, stretch.sha256, format=OTLP_FORMAT)
    out: list[bytes] = []
    lengths = array("Q")
    skipped = before.union(ahead)  # traces crossing the stretch's edges: none has its record among these

    def trace_line(key: str) -> bytes:
        if parsed.streamed and key in parsed.readers:
            plain = _plain.result_of(parsed.readers[key])
            if plain is not None:
                return _plain_line(key, plain, adapter, source, record_line)
            return adapter_line(key, parsed.spans_of(key), adapter, otel, spans, source, context, record_line)
        return _trace_line(key, parsed.gathered[key], adapter, otel, spans, source, context, record_line)

    for key in serial:
        try:
            line = b"" if key in skipped else trace_line(key)
        except Exception:  # the second pass builds it again and raises the error, with its places
            line = b""
        out.append(line)
        lengths.append(len(line))
    data = b"".join(out)
    listed = orjson.dumps(serial)
    built_ahead: list[tuple[str, int]] = []
    for key in ahead:
        try:
            line = trace_line(key)
        except Exception:  # its job makes it, and raises the error
            continue
        built_ahead.append((key, len(line)))
        out.append(line)
    assert stretch.spill is not None  # stretch_keys builds only given a spill folder
    name = _spill_file(stretch.spill)
    with open(name, "ab") as spilled:
        offset = spilled.seek(0, os.SEEK_END)
        spilled.write(data)
        spilled.write(listed)
        spilled.write(b"".join(out[len(serial):]))
    return name, offset, len(data), len(listed), lengths, built_ahead


def _spill_file(folder: str) -> str:
    """The file in ``folder`` this worker adds its stretches' records to (the driver removes it once the
    source is exported; a later source's stretches make it again).

    Why one a worker, not one a stretch: making a file took the disk's file system here 50-600 us of CPU
    (up to 4 us a trace), and adding to one costs nothing more than the write; only this process writes
    it, a stretch at a time, so each stretch's bytes are where it found the file's end."""
    return os.path.join(folder, f"built-{os.getpid()}.jsonl")


def _trace_line(key: str, found: list[tuple[Any, int]], adapter: Any, otel: Any, spans: Any, source: SourceRef,
                context: Any, record_line: Any) -> bytes:
    """One trace's record line from its raw spans (and their numbers), as the second pass makes it.

    Read by ``plain_trace`` when the trace has the plain shape and no ``--gold`` scores it (the
    score needs the adapter's Trace), else by the adapter: the same line either way."""
    if context.gold is None and _plain.worth_trying():
        plain = _plain.read(found, key)
        if plain is not None:
            return _plain_line(key, plain, adapter, source, record_line)
    return adapter_line(key, found, adapter, otel, spans, source, context, record_line)


def _plain_line(key: str, plain: PlainTrace, adapter: Any, source: SourceRef, record_line: Any) -> bytes:
    """The record line of a trace the plain reader read (see :func:`_trace_line`)."""
    calls, final_answer, span_id = plain
    made: bytes = record_line(calls_run(calls, final_answer, adapter.name == OTLP_FORMAT, source,
                                        run_id=f"{source.name}#{key}", trace_id=key, span_id=span_id))
    return made


def adapter_line(key: str, found: list[tuple[Any, int]], adapter: Any, otel: Any, spans: Any, source: SourceRef,
                 context: Any, record_line: Any) -> bytes:
    """:func:`_trace_line` by the general path: the adapter decodes every span and makes the Trace
    (what every trace took before ``plain_trace``, and what its tests compare that reader with)."""
    run_spans = RunSpans()
    otlp_span, wanted, add = spans.otlp_span, otel.wanted, run_spans.add
    decoded = []
    for span, span_order in found:
        decoded.append(otlp_span(span, "", span_order, wanted))
        add(span, key)
    line: bytes = record_line(trace_run_of(adapter, key, decoded, run_spans, source, gold=context.gold, pm=context.pm))
    return line


class _PlainReader:
    """``plain_trace.plain_trace_calls``, asked less often while traces keep not being plain.

    Why: a trace it turns down is read twice, partly; a source of such traces (each with a chat
    span carrying its messages, say) would pay that on every trace. After :data:`GIVE_UP` refusals
    in a row it is asked one trace in :data:`RETRY_EVERY` (a source can change shape), and
    fully again from the first trace it reads."""

    GIVE_UP = 16
    RETRY_EVERY = 64

    def __init__(self) -> None:
        self.refused = 0
        self._read: Any = None

    def worth_trying(self) -> bool:
        if self.refused < self.GIVE_UP:
            return True
        self.refused += 1
        return self.refused % self.RETRY_EVERY == 0

    def read(self, found: list[tuple[Any, int]], key: str) -> tuple[list[dict[str, Any]], str | None, str | None] | None:
        if self._read is None:
            from toolscore_export.plain_trace import plain_trace_calls

            self._read = plain_trace_calls
        plain: tuple[list[dict[str, Any]], str | None, str | None] | None = self._read(found, key)
        self.refused = 0 if plain is not None else self.refused + 1
        return plain

    def result_of(self, reader: PlainTraceReader | None) -> PlainTrace | None:
        """What a trace's streamed reader made of it (None: not plain), counted as :meth:`read` counts."""
        plain = reader.result() if reader is not None else None
        self.refused = 0 if plain is not None else self.refused + 1
        return plain


_plain = _PlainReader()  # one a process: a worker's traces are one source's


def _streamed() -> bool:
    """Whether a stretch's traces are read span by span as its lines are parsed (see :class:`StretchTraces`):
    when the plain reader reads them (no ``--gold``: its score needs the adapter's Trace) and has not given up
    on this source (then the stretch keeps its spans, and the reader is asked as :class:`_PlainReader` says)."""
    from toolscore_export.trace_batches import current_context

    return current_context().gold is None and _plain.refused < _PlainReader.GIVE_UP


class StretchTraces:
    """A stretch's spans by trace, gathered as :func:`_line_facts` parses each line (it calls :meth:`append`,
    as it would a list's): read at once by a :class:`~toolscore_export.plain_trace.PlainTraceReader` a trace
    when ``streamed``, else kept as they are.

    Why at once: keeping a stretch's decoded lines (some 3.5 MB of small objects for 512 KiB of JSON) until
    its last line is parsed made each of them a cache miss three times: allocated, read and freed cold.
    Read as each line is parsed and let go with it, a trace costs its worker 12-20% less CPU on the bench's
    traces (bench/bench_stretch_reading.py).

    A trace the reader turns down keeps its spans from there on, for the general path (the same spans,
    numbered the same); those it had on earlier lines are read from those lines parsed again
    (:meth:`spans_of`), each line once at most. Once most of a stretch's traces have been turned down (at
    least :data:`_PlainReader.GIVE_UP`), the traces it meets after that keep all their spans, as in a kept
    stretch: a source the reader does not read (spans with events, say) costs about what it did."""

    def __init__(self, streamed: bool) -> None:
        self.streamed = streamed
        self._reader_for: Any = None  # PlainTraceReader.for_trace, imported when a stretch is streamed
        if streamed:
            from toolscore_export.plain_trace import PlainTraceReader

            self._reader_for = PlainTraceReader.for_trace
        self.line_keys: list[list[str]] = []  # each parsed line's spans' trace ids
        self.line_orders: list[int] = []  # each parsed line's first span's number
        self.last: dict[str, int] = {}  # each trace's last parsed line (an index of line_keys)
        self.readers: dict[str, PlainTraceReader | None] = {}  # streamed: None once a trace is turned down
        # each trace's spans: when not streamed, every trace's; streamed, a turned-down trace's from the
        # line it was turned down on (see _kept_from), and all the spans of a trace first seen after
        # most of the stretch's were turned down (it has no reader)
        self.gathered: dict[str, list[tuple[Any, int]]] = {}
        self._kept_from: dict[str, int] = {}  # streamed: a turned-down trace's first line in gathered
        self._refused = 0  # streamed: the traces turned down so far
        self.order = 0
        # set once every line is parsed, for spans_of: the stretch's lines, the index in them of each
        # parsed line, and whether the first is the file's first (its BOM dropped)
        self.lines: list[bytes] = []
        self.numbers: Any = ()
        self.bom = False
        self._lines_of: dict[str, list[int]] | None = None  # for spans_of: each trace's lines
        self._positions: tuple[list[str], dict[str, list[int]]] | None = None  # a line's keys, each's places
        self._again: dict[int, tuple[list[Any], list[str]]] = {}  # for spans_of: the lines parsed again
        self._line = 0  # the index of the line being added (the line after the stretch: one past them)
        self._pieced: set[int] = set()  # the lines added a piece at a time

    def append(self, line: tuple[list[Any], list[str]]) -> None:
        """One parsed line's raw spans and their trace ids."""
        raws, keys = line
        self._line = index = len(self.line_keys)
        self.line_keys.append(keys)
        self.line_orders.append(self.order)
        last = self.last
        for key in keys:
            last[key] = index
        self._add(raws, keys)

    def begin_line(self) -> None:
        """A line given a piece at a time follows (:meth:`add_piece`; see ``span_pieces``)."""
        self._line = index = len(self.line_keys)
        self.line_keys.append([])
        self.line_orders.append(self.order)
        self._pieced.add(index)

    def add_piece(self, raws: list[Any], keys: list[str]) -> None:
        """The next spans of the line begun, and their trace ids: a long line's piece, let go once added.

        A trace turned down here may have spans in the line's earlier pieces, gone by then: :meth:`spans_of`
        parses the line again for those."""
        index = self._line
        self.line_keys[index] += keys
        last = self.last
        for key in keys:
            last[key] = index
        self._add(raws, keys)

    def holds(self, key: str) -> bool:
        """Whether a span of trace ``key`` is on one of the stretch's lines."""
        return key in self.last

    def add_after(self, raws: list[Any], keys: list[str]) -> None:
        """The spans of the line after the stretch, to the traces the stretch holds (see ``_edge_spans``)."""
        self._line = len(self.line_keys)
        self._add(raws, keys, known_only=True)

    def _add(self, raws: list[Any], keys: list[str], *, known_only: bool = False) -> None:
        order = self.order
        if self.streamed:
            readers, gathered = self.readers, self.gathered
            for span, key in zip(raws, keys, strict=True):
                if key in readers:
                    reader = readers[key]
                    if reader is None:
                        gathered[key].append((span, order))
                    elif not reader.add(span, order):
                        self._turned_down(key, raws, keys, order)  # (its spans before, on this line too)
                elif key in gathered:
                    gathered[key].append((span, order))
                elif not known_only:
                    if self._refused >= _PlainReader.GIVE_UP and 2 * self._refused > len(readers):
                        gathered[key] = [(span, order)]  # mostly turned down here: new traces keep their spans
                    else:
                        reader = readers[key] = self._reader_for(key)
                        if reader is None or not reader.add(span, order):  # at its first span
                            readers[key] = None
                            self._refused += 1
                            self._kept_from[key] = self._line
                            gathered[key] = [(span, order)]
                order += 1
        else:
            gathered = self.gathered
            for span, key in zip(raws, keys, strict=True):
                found = gathered.get(key)
                if found is None:
                    if known_only:
                        order += 1
                        continue
                    found = gathered[key] = []
                found.append((span, order))
                order += 1
        self.order = order

    def _turned_down(self, key: str, raws: list[Any], keys: list[str], order: int) -> None:
        """Trace ``key`` is not plain (its span numbered ``order``, on the line, or the piece of a line, of ``raws``
        and ``keys``, said so): its spans there so far, that one included, are kept, and the rest as they come.

        Its spans on the line are found from the line's spans by trace, worked out once a line: a scan of
        the line up to the span, a trace, would grow with the square of a collector's line (hundreds of
        traces, any number of them turned down)."""
        first = self.order  # the number of the first span of raws
        self.readers[key] = None
        self._refused += 1
        self._kept_from[key] = self._line
        if self._positions is None or self._positions[0] is not keys:
            positions: dict[str, list[int]] = {}
            for at, seen in enumerate(keys):
                positions.setdefault(seen, []).append(at)
            self._positions = (keys, positions)
        self.gathered[key] = [(raws[at], first + at) for at in self._positions[1][key] if first + at <= order]

    def spans_of(self, key: str) -> list[tuple[Any, int]]:
        """A turned-down trace's raw spans and their numbers, as a stretch that kept them would hold them:
        those on the lines before it was turned down, and on that line's earlier pieces when it came in
        pieces (parsed again as :func:`_line_facts` parsed them, each line once at most), then those kept
        from there on."""
        if self._lines_of is None:  # each trace's lines, worked out once a stretch (when one is turned down)
            self._lines_of = {}
            for index, keys in enumerate(self.line_keys):
                for seen in dict.fromkeys(keys):
                    self._lines_of.setdefault(seen, []).append(index)
        found: list[tuple[Any, int]] = []
        before, kept = self._kept_from[key], self.gathered[key]
        for index in self._lines_of.get(key, ()):
            if index > before or (index == before and not self._earlier_in_pieces(key, index, kept[0][1])):
                break
            parsed = self._again.get(index)
            if parsed is None:
                number = self.numbers[index]
                again: list[tuple[list[Any], list[str]]] = []
                if _line_facts([self.lines[number]], 0, number, bom=self.bom and number == 0, parsed=again) is None:
                    raise ValueError("a line read before is refused now")  # never: the same bytes, the same reader
                parsed = self._again[index] = again[0]
            raws, keys_again = parsed
            found += [(span, order) for order, (span, at) in enumerate(zip(raws, keys_again, strict=True),
                                                                       self.line_orders[index])
                      if at == key and order < kept[0][1]]
        return found + kept

    def _earlier_in_pieces(self, key: str, index: int, kept_from: int) -> bool:
        """Whether line ``index``, added in pieces, holds a span of ``key`` numbered before ``kept_from``."""
        if index not in self._pieced:
            return False  # a whole line: its spans before the refusal were kept with it
        try:  # (a C scan, no copy: a collector's line holds thousands of keys, and many traces may be turned down)
            self.line_keys[index].index(key, 0, kept_from - self.line_orders[index])
        except ValueError:
            return False
        return True


def _line_start(handle: Any, at: int) -> int:
    """Where the first line starting at or after offset ``at`` starts: ``at`` when the byte before it is a
    newline (or it is the file's start), else just past the next newline (the file's size if none)."""
    if at == 0:
        return 0
    handle.seek(at - 1)
    position = at - 1
    while block := handle.read(1 << 13):
        found = block.find(b"\n")
        if found >= 0:
            return position + found + 1
        position += len(block)
    return position


def _line_facts(lines: list[bytes], offset: int, first: int, *, bom: bool,
                parsed: list[tuple[list[Any], list[str]]] | StretchTraces | None = None,
                in_pieces: bool = True) -> ChunkFacts | None:
    """The :data:`ChunkFacts` of ``lines`` (each with its newline), the first at ``offset`` and numbered
    ``first`` (a byte-order mark dropped from it when ``bom``: it is the file's first line); each non-blank
    line's raw spans and their trace ids appended to ``parsed`` when given (to build records from).

    Lines whose records are built here are read by the kernel's reader (``readlimits.loads_bytes``:
    orjson only where its value is provably the standard reader's), so a record holds what the
    serial export reads, and a line that reader refuses (nested past its limit) goes to the serial
    path, which says so; orjson alone read 1,000 levels, and an integer past 64 bits as a float.
    Trace ids alone (no records built) are the same texts by either reader.

    A line of ``span_pieces.MIN_LINE_BYTES`` or more is read in pieces (unless ``in_pieces`` is False),
    and given to a :class:`StretchTraces` a piece at a time; when such a line is declined after some of
    its pieces were given, :class:`_ReadWhole` is raised: the stretch is read again, its lines whole."""
    import orjson

    from toolscore_core.kernel.readlimits import loads_bytes
    from toolscore_export.span_pieces import MIN_LINE_BYTES as long_line

    read = orjson.loads if parsed is None else loads_bytes
    _, spans = otel_modules()
    numbers, starts, ends, counts = array("Q"), array("Q"), array("Q"), array("Q")
    bounds: dict[str, int] = {}
    known: dict[str, str] = {}
    try:
        for index, raw in enumerate(lines):
            start, offset = offset, offset + len(raw)
            body = raw.removeprefix(_BOM) if bom and index == 0 else raw
            if not body or body.isspace():
                continue
            pieces: tuple[list[Any], list[str]] | None = None
            fed: list[str] | None = None  # the keys of a line given to parsed a piece at a time
            if len(body) >= long_line and in_pieces:
                if type(parsed) is StretchTraces:
                    fed = _fed_pieces(body, known, spans, parsed)
                else:
                    pieces = _piece_keys(body, known, spans, keep=parsed is not None)
            raws: list[Any]
            if fed is not None:
                raws, keys = [], fed  # (given already)
            elif pieces is not None:
                raws, keys = pieces
            else:
                request = read(body)
                if not spans.is_export_request(request):
                    return None
                plain = plain_spans(request)
                raws = plain if plain is not None else [  # an unusual shape: the adapter's own walk
                    span for _, span in spans.iter_raw_spans(request, f"line {first + index}: $")]
                keys = [known_key(span, known, spans) for span in raws]
            at = len(numbers)
            for key in dict.fromkeys(keys):
                seen = bounds.get(key)
                bounds[key] = (at << 32 if seen is None else seen & ~_MASK) | at
            if parsed is not None and fed is None:
                parsed.append((raws, keys))
            numbers.append(first + index)
            starts.append(start)
            ends.append(offset)
            counts.append(len(keys))
    except _ReadWhole:
        raise
    except Exception:  # the serial path reads the file and words its error
        return None
    return numbers, starts, ends, counts, bounds


class _ReadWhole(Exception):
    """A long line given to a stretch in pieces was declined part way: the stretch is read again whole."""


def _fed_pieces(body: bytes, known: dict[str, str], spans: Any, parsed: StretchTraces) -> list[str] | None:
    """The trace keys of a long line given to ``parsed`` a piece at a time (each piece let go once its spans
    are read); None when the line is to be read whole (declined before any piece was given)."""
    from toolscore_export.span_pieces import Declined, spans_in_pieces

    keys: list[str] = []
    begun = False
    try:
        for piece in spans_in_pieces(body, exact=True):
            piece_keys = [known_key(span, known, spans) for span in piece]
            if not begun:
                parsed.begin_line()
                begun = True
            parsed.add_piece(piece, piece_keys)
            keys += piece_keys
    except Declined:
        if begun:
            raise _ReadWhole from None
        return None
    if not begun:
        parsed.begin_line()  # a line without spans is a line all the same
    return keys


def _piece_keys(body: bytes, known: dict[str, str], spans: Any, *, keep: bool) -> tuple[list[Any], list[str]] | None:
    """``(raws, keys)`` of a long line read in pieces (:mod:`~toolscore_export.span_pieces`): its raw spans
    (only with ``keep``: else none, and each piece is let go once its trace ids are read) and each span's
    trace key; None when the line is to be read whole. ``keep`` reads the kernel's values, for records."""
    from toolscore_export.span_pieces import Declined, spans_in_pieces

    raws: list[Any] = []
    keys: list[str] = []
    try:
        for piece in spans_in_pieces(body, exact=keep):
            keys += [known_key(span, known, spans) for span in piece]
            if keep:
                raws += piece
    except Declined:
        return None
    return raws, keys


@attrs.frozen
class TraceJob:
    """The lines one worker reads for its traces: those ending from line ``start`` to the range's end."""

    path: str
    sha256: str
    first: int  # the range's first line number
    offset: int
    size: int
    order: int  # spans before the range (the serial reader numbers spans across the file)
    start: int  # the first line whose ending traces are this job's
    carried: tuple[str, ...]  # trace ids in the range that end after it (a later job's), each once
    wanted: frozenset[str] | None = None  # when given, the job's traces are these (the rest: built already)
    spill: str | None = None  # the pool's spill folder: records of JOB_SPILL_BYTES or more wait there (see job_records)


def job_records(job: TraceJob) -> tuple[bytes | str, list[str]] | None:
    """Second pass (in a worker): the encoded records of the job's traces and their trace ids, in the
    serial order; None on any error (the serial path then raises it). Records of
    :data:`JOB_SPILL_BYTES` or more are written to ``job.spill`` and named instead
    (``parallel.taken_back`` reads them).

    Why: the pool takes each result into the driver as soon as a worker sends it, however many wait
    for their turn. A job of a collector's long lines makes megabytes of records (1 GB of 7 MB lines:
    about 6 MB a job), and four of them in flight were a third of the driver's peak memory."""
    try:
        data, keys = _job_records(job)
        if job.spill is not None and len(data) >= JOB_SPILL_BYTES:
            return spill_result(job.spill, data), keys
        return data, keys
    except Exception:  # the serial path reads the file and words its error
        return None


def _job_records(job: TraceJob) -> tuple[bytes, list[str]]:
    """The job's records and their trace ids: read span by span by the plain reader (see :class:`_JobTraces`)
    when its lines are long (:data:`STREAMED_JOB_BYTES`) and the reader reads this source, else with the
    spans kept."""
    if job.size >= STREAMED_JOB_BYTES and _streamed():
        made = _job_read(job, _JobTraces(streamed=True))
        if made is not None:
            return made
    made = _job_read(job, _JobTraces(streamed=False))
    assert made is not None  # (a job that keeps its spans never starts again)
    return made


def _job_read(job: TraceJob, traces: _JobTraces) -> tuple[bytes, list[str]] | None:
    """:func:`_job_records` with ``traces`` keeping its traces' spans; None when a streamed job must be read
    again with its spans kept."""
    from toolscore_export.record import record_line
    from toolscore_export.sources import TRACE
    from toolscore_export.trace_batches import current_context

    context = current_context()
    otel, spans = otel_modules()
    path = Path(job.path)
    carried = set(job.carried)
    try:
        last, ending = _job_lines(job, spans, carried, job.wanted, traces)
        if traces.earlier:  # turned down after their readers took spans: those are read again
            _job_lines(job, spans, carried, frozenset(traces.earlier), _EarlierSpans(traces))
        adapter = otel.OtelAdapter()
        source = SourceRef(TRACE, path.name, job.sha256, format=OTLP_FORMAT)
        out: list[bytes] = []
        keys: list[str] = []
        wanted = job.wanted
        for number, seen_keys in ending:
            for key in seen_keys:
                if last[key] != number or key in carried or (wanted is not None and key not in wanted):
                    continue
                # (an error has no place here: the job gives None, and the serial path words it with its places)
                out.append(traces.line(key, adapter, otel, spans, source, context, record_line))
                keys.append(key)
    except _Again:
        return None
    return b"".join(out), keys


def _job_lines(job: TraceJob, spans: Any, carried: set[str], wanted: frozenset[str] | None,
               traces: _JobTraces | _EarlierSpans) -> tuple[dict[str, int], list[tuple[int, tuple[str, ...]]]]:
    """Read the job's lines, each span of its own traces (not ``carried``; of ``wanted`` when given) given to
    ``traces`` with its number: the line of each trace's last span in the range, and from line ``job.start``
    on, each line's trace ids in first order."""
    from toolscore_export.span_pieces import MIN_LINE_BYTES as long_line

    path = Path(job.path)
    last: dict[str, int] = {}
    ending: list[tuple[int, tuple[str, ...]]] = []
    order = job.order
    lines, _ = Chunk(path=job.path, sha256="", first=job.first, offset=job.offset, size=job.size, final=False,
                     latest=None, attempts={}).lines()
    known: dict[str, str] = {}
    for index, raw in enumerate(lines):
        number = job.first + index
        body = raw.removeprefix(_BOM) if number == 1 else raw
        lines[index] = raw = b""  # a collector's line can be megabytes: each is let go once read
        if not body or body.isspace():
            continue
        line_keys = _job_line(body, order, known, spans, carried, wanted, traces) if len(body) >= long_line else None
        if line_keys is None:
            where, request = decoded_line(path, number, body, spans)
            line_keys = []
            for span_where, span in spans.iter_raw_spans(request, where):
                key = known_key(span, known, spans, span_where)
                if key not in carried and (wanted is None or key in wanted):  # others' spans go with the line
                    traces.take(key, span, order + len(line_keys))
                line_keys.append(key)
            del request
        body = b""
        first_seen = dict.fromkeys(line_keys)
        last.update(dict.fromkeys(first_seen, number))
        order += len(line_keys)
        if number >= job.start:
            ending.append((number, tuple(first_seen)))
    return last, ending


class _Again(Exception):
    """A streamed job cannot go on: it is read again with its spans kept."""


class _JobTraces:
    """A second-pass job's own traces as it reads their spans: each span given at once to its trace's
    :class:`~toolscore_export.plain_trace.PlainTraceReader` (``streamed``), else kept.

    Why streamed: a job on a collector's long lines makes a record of every trace ending on its last
    line, some 2,000 of a 7 MB line, so it kept some 12,000 raw spans (35 MiB of small objects) until
    the last was read; a reader keeps only what the record needs. A trace the reader turns down keeps
    its spans from there on, for the general path; those its reader took before are read again, once
    for all such traces of the job (:class:`_EarlierSpans`). A long line declined after part of it was
    given (see :func:`_job_line`), or a reader that cannot finish, starts the job again with its spans
    kept (:class:`_Again`)."""

    def __init__(self, *, streamed: bool) -> None:
        self.streamed = streamed
        self.gathered: dict[str, list[tuple[Any, int]]] = {}  # streamed: the turned-down traces' spans
        self.readers: dict[str, PlainTraceReader] = {}
        self.earlier: dict[str, int] = {}  # a trace turned down after its reader took spans -> its first kept
        self.before: dict[str, list[tuple[Any, int]]] = {}  # and those spans, read again
        self._reader_for: Any = None
        if streamed:
            from toolscore_export.plain_trace import PlainTraceReader

            self._reader_for = PlainTraceReader.for_trace

    def take(self, key: str, span: Any, order: int) -> None:
        """Span number ``order`` of trace ``key``."""
        found = self.gathered.get(key)
        if found is not None:
            found.append((span, order))
            return
        if not self.streamed:
            self.gathered[key] = [(span, order)]
            return
        reader = self.readers.get(key)
        if reader is None:
            reader = self._reader_for(key)
            if reader is None:  # no trace id: the general path, from this its first span
                self.gathered[key] = [(span, order)]
                return
            self.readers[key] = reader
            if not reader.add(span, order):  # at its first span: nothing taken before
                del self.readers[key]
                _plain.refused += 1
                self.gathered[key] = [(span, order)]
            return
        if not reader.add(span, order):
            del self.readers[key]
            _plain.refused += 1
            self.gathered[key] = [(span, order)]
            self.earlier[key] = order

    def line(self, key: str, adapter: Any, otel: Any, spans: Any, source: SourceRef, context: Any,
             record_line: Any) -> bytes:
        """Trace ``key``'s record line, once all its spans are taken."""
        if not self.streamed:
            return _trace_line(key, self.gathered.pop(key), adapter, otel, spans, source, context, record_line)
        if key in self.gathered:  # turned down: the general path, with every span
            found = self.before.pop(key, []) + self.gathered.pop(key)
            return adapter_line(key, found, adapter, otel, spans, source, context, record_line)
        plain = _plain.result_of(self.readers.pop(key))
        if plain is None:
            raise _Again
        return _plain_line(key, plain, adapter, source, record_line)


class _EarlierSpans:
    """The spans a streamed job's readers took of the traces they turned down later (``traces.earlier``),
    read again: each kept in ``traces.before`` when numbered before the trace's first span kept."""

    streamed = False

    def __init__(self, traces: _JobTraces) -> None:
        self.traces = traces

    def take(self, key: str, span: Any, order: int) -> None:
        if order < self.traces.earlier[key]:
            self.traces.before.setdefault(key, []).append((span, order))


def _job_line(body: bytes, order: int, known: dict[str, str], spans: Any, carried: set[str],
              wanted: frozenset[str] | None, traces: _JobTraces | _EarlierSpans) -> list[str] | None:
    """A long line of a job read in pieces (:mod:`~toolscore_export.span_pieces`), its first span numbered
    ``order``: each span's trace key, the job's own spans given to ``traces``; None when the line is to be
    read whole (nothing given then, when ``traces`` keeps its spans; a streamed job starts again).

    A piece is let go once read: on a collector's long lines most of a line's traces are other jobs'."""
    from toolscore_export.span_pieces import Declined, spans_in_pieces

    keys: list[str] = []
    own: list[tuple[str, Any, int]] = []  # (when traces keeps its spans) given once the line is read
    given = False  # (when streamed) spans of the line given already
    try:
        for piece in spans_in_pieces(body, exact=True):
            for span in piece:
                key = known_key(span, known, spans)
                if key not in carried and (wanted is None or key in wanted):
                    if traces.streamed:
                        given = True
                        traces.take(key, span, order + len(keys))
                    else:
                        own.append((key, span, order + len(keys)))
                keys.append(key)
    except Declined:
        if given:
            raise _Again from None
        return None
    for key, span, at in own:
        traces.take(key, span, at)
    return keys


@attrs.define
class _Lines:
    """The first pass's facts of the source's non-blank lines (flat arrays: a few words a line) and
    each trace's first and last line (``first << 32 | last``, by line index).

    ``compact``: the bounds' keys are ``run_ids.compact_key`` forms (trace ids of 32 hex digits as
    numbers): a planned source's bounds hold every trace of the file (280,000 in 1 GB), and those
    of the traces written become its run ids (:func:`_planned_records`). The records built in the
    first pass (a source of up to :data:`BUILT_MAX_BYTES`) are sorted out by texts."""

    # 4 bytes an item while every value fits (a file under 4 GiB), else 8 (see _extended)
    numbers: array[int] = attrs.field(factory=lambda: array("I"))
    offsets: array[int] = attrs.field(factory=lambda: array("I"))
    ends: array[int] = attrs.field(factory=lambda: array("I"))
    orders: array[int] = attrs.field(factory=lambda: array("I"))  # spans before the line
    bounds: dict[Any, int] = attrs.field(factory=dict)  # trace id (a compact_key when ``compact``) -> bounds
    spans: int = 0
    # what the workers built, each stretch's (its first line index, its Built), and the trace ids seen in
    # more than one stretch (the driver learns it as it adds them: a few, whatever the file's size, when
    # lines are short; kept only when ``track_crossing``, for the built records it sorts out)
    built: list[tuple[int, Built]] = attrs.field(factory=list, eq=False)
    crossing: set[str] = attrs.field(factory=set, eq=False)
    track_crossing: bool = attrs.field(default=True, eq=False)
    compact: bool = attrs.field(default=False, eq=False)

    def extend(self, facts: ChunkFacts, first: int = 0) -> None:
        """Add the next chunk's lines (its :data:`ChunkFacts`, line indexes counted from its first; ``first``
        added to its line numbers)."""
        numbers, starts, ends, counts, found = facts
        base = len(self.numbers)
        self.numbers = _extended(self.numbers, [n + first for n in numbers] if first else numbers.tolist())
        self.offsets = _extended(self.offsets, starts.tolist())
        self.ends = _extended(self.ends, ends.tolist())
        orders = list(accumulate(counts, initial=self.spans))
        self.spans = orders.pop()
        self.orders = _extended(self.orders, orders)
        shift = base << 32 | base
        bounds = self.bounds
        compact = self.compact
        for text, packed in found.items():
            key: Any = compact_key(text) if compact else text
            seen = bounds.get(key)
            if seen is None:
                bounds[key] = packed + shift
            else:
                bounds[key] = (seen & ~_MASK) | ((packed + shift) & _MASK)
                if self.track_crossing:
                    self.crossing.add(text)


def _extended(column: array[int], values: list[int]) -> array[int]:
    """``column`` with ``values`` added: an array of 4-byte items while every value fits, else (from the
    first that does not) of 8-byte ones.

    Why: the first pass keeps four numbers a line of the source (its number, start, end, and the spans
    before it): 280,000 lines in 1 GB of OTLP traces, 8.8 MiB of the driver's peak in 8-byte items."""
    try:
        column.fromlist(values)  # (all or nothing: on an error the array is as it was)
    except OverflowError:
        column = array("Q", column)
        column.fromlist(values)
    return column


def first_pass(path: Path, workers: Workers, sha256: str = "", spill: str | None = None) -> _Lines | None:
    """The lines and traces of ``path``, read by ``workers`` (None: the serial path must read it); with a
    ``spill`` folder, the records the workers built there too (``lines.built``).

    Without one, the traces that cross stretches are not gathered: only the built records' layout
    reads them, and when a line is longer than a stretch every trace crosses one, so on 1 GB of a
    collector's 7 MB lines that set was all 280,000 trace ids, 24 MiB of the driver's peak."""
    lines = _Lines(track_crossing=spill is not None, compact=spill is None)
    size = path.stat().st_size
    step, edge = stretch_layout(path)
    stretches = (Stretch(str(path), offset, min(step, size - offset), sha256, spill, edge)
                 for offset in range(0, size, step))
    number = 1  # the number of the next stretch's first line
    for found in workers.ordered(stretch_keys, stretches):
        if found is None:
            _unlink_built(lines)  # of no use: the serial path reads the file
            return None
        if len(found) == 3:
            lines.built.append((len(lines.numbers), found[2]))
        lines.extend(found[0], number)
        number += found[1]
    return lines


def stretch_layout(path: Path) -> tuple[int, int]:
    """The size of the first pass's stretches of ``path`` and the longest line read past each edge
    (``Stretch.edge``): :data:`CHUNK_BYTES` and :data:`EDGE_MAX_BYTES` for lines of up to that on
    average (the first MiB tells), else :data:`LINES_A_STRETCH` lines a stretch, up to
    :data:`MAX_STRETCH_BYTES`, and lines up to half a stretch read past its edges.

    Why: a line belongs to the stretch it starts in, so lines as long as a stretch (a collector's
    request of 500 spans is about 1.7 MB) made each stretch a line, each trace cross an edge
    (its spans are on two lines), no edge line short enough to read, and every trace a job of
    the second pass, which read the file twice more (20,000 traces, 67 MB, 100 traces a line:
    134 jobs, 95 MB read again). A stretch of several lines is crossed by its edge traces
    alone, and those are built ahead from the line past its end. A stretch whose spans are kept
    (see :class:`StretchTraces`) holds its parsed lines while it builds their records, about 5.5
    times their size: 22 MB for a stretch at the bound, and as much again for its two edge lines
    at most; read as they are parsed, a line's parse goes before the next is read."""
    with path.open("rb") as handle:
        head = handle.read(1 << 20)
    typical = len(head) // max(1, head.count(b"\n"))
    if typical <= EDGE_MAX_BYTES:
        return CHUNK_BYTES, EDGE_MAX_BYTES
    step = min(MAX_STRETCH_BYTES, LINES_A_STRETCH * typical)
    return step, max(EDGE_MAX_BYTES, step // 2)


@attrs.frozen
class Plan:
    """The jobs' cuts: the last line index of each job, the first line index it reads, and what it carries."""

    cuts: list[int]
    starts: list[int]
    carried: list[tuple[Any, ...]]  # a tuple, not a set: see :func:`plan`; its keys as the bounds hold them
    counts: list[int]  # the traces of each job


def plan(lines: _Lines, file_size: int) -> Plan | None:
    """Jobs of about :data:`JOB_TRACES` traces each, in the serial order; None when they would read
    the file over :data:`MAX_REREAD` times (the serial path is then cheaper).

    What each job carries (the traces it sees that end after it) is kept as a tuple until the job
    makes a set of it: when lines are long, nearly every trace crosses a job's end, and the sets
    of a 1 GB source (a few hundred entries each, in tables of 2,048 slots, and their frozen
    copies beside them while they were made) were ~30 MB of the driver's peak memory."""
    count = len(lines.numbers)
    ending = array("Q", bytes(8 * count))  # traces whose last span is on each line
    reach = array("Q", range(count))  # the first line of the traces ending on each line
    for packed in lines.bounds.values():
        first, last = packed >> 32, packed & _MASK
        ending[last] += 1
        if first < reach[last]:
            reach[last] = first
    cuts: list[int] = []
    starts: list[int] = []
    counts: list[int] = []
    read = 0
    traces, low = 0, count
    ends, offsets, last_line = lines.ends, lines.offsets, count - 1
    for index, (ended, reached) in enumerate(zip(ending, reach, strict=True)):
        traces += ended
        if reached < low:
            low = reached
        if traces and (traces >= JOB_TRACES or ends[index] - offsets[low] >= JOB_BYTES or index == last_line):
            cuts.append(index)
            starts.append(low)
            counts.append(traces)
            read += ends[index] - offsets[low]
            traces, low = 0, count
    if read > MAX_REREAD * max(file_size, 1):
        return None
    carried: list[list[Any]] = [[] for _ in cuts]
    for key, packed in lines.bounds.items():  # (each trace once: no job lists it twice)
        first, last = packed >> 32, packed & _MASK
        job = bisect.bisect_left(cuts, first)
        while job < len(cuts) and cuts[job] < last:  # the trace goes on past this job's last line
            carried[job].append(key)  # (spelled as text by its job: on long lines nearly every trace is carried)
            job += 1
    return Plan(cuts, starts, [tuple(c) for c in carried], counts)


def _jobs(path: Path, sha256: str, lines: _Lines, cuts: Plan, spill: str | None) -> Iterator[TraceJob]:
    previous = -1
    for cut, low, carried in zip(cuts.cuts, cuts.starts, cuts.carried, strict=True):
        yield TraceJob(path=str(path), sha256=sha256, first=lines.numbers[low], offset=lines.offsets[low],
                       size=lines.ends[cut] - lines.offsets[low], order=lines.orders[low],
                       start=lines.numbers[previous + 1], carried=tuple(map(spelled_key, carried)), spill=spill)
        previous = cut


def pooled_records(path: Path, sha256: str, workers: Workers,
                   run_ids: RunIds) -> Generator[EncodedRecords, None, int | None]:
    """The records of an OTLP JSON Lines source, one per trace, encoded by ``workers`` in the serial order.

    Returns None when every record was given, else how many were (the serial path goes on
    from there: see the module docstring). ``run_ids`` gets the run id of each record given.
    """
    lines = first_pass(path, workers, sha256, spill_for(path, workers))
    try:
        pieces = _pieces(path, sha256, lines) if lines is not None and lines.built else None
        if lines is not None and pieces is not None:
            return (yield from _built_records(path, workers, run_ids, lines, pieces))
        cuts = plan(lines, path.stat().st_size) if lines is not None else None
        if lines is None or cuts is None:
            return 0
        return (yield from _planned_records(path, sha256, workers, run_ids, lines, cuts))
    finally:
        if lines is not None:
            _unlink_built(lines)


def _unlink_built(lines: _Lines) -> None:
    """Remove the workers' spill files of a source (each holds the records of many stretches)."""
    for name in {built[0] for _, built in lines.built}:
        Path(name).unlink(missing_ok=True)


def spill_for(path: Path, workers: Workers) -> str | None:
    """Where the first pass writes the records it builds, or None: it builds none for a source over
    :data:`BUILT_MAX_BYTES` (the planned second pass reads it instead).

    Why a bound: built records wait in the spill folder until the whole first pass is in
    (about 0.75 times the source's size), and that folder is the system's temporary one,
    often a RAM disk: a 10 GB source would hold 7.5 GB there. The planned jobs keep only
    the few results in flight. The gain of building is the second parse it saves: at 73 MB
    of traces (20,000) the workers' CPU is about 15 us a trace (a tenth) less, and the wall
    time too, though the writing after the first pass no longer overlaps the workers. So the
    bound is set past that size, where the folder holds under 100 MB at its fullest.

    Nor does it build any for a source whose first line is longer than a stretch reads past its
    edges (:func:`_past_every_edge`).
    """
    if path.stat().st_size > BUILT_MAX_BYTES or _past_every_edge(path):
        return None
    return getattr(workers, "spill", None)


def _past_every_edge(path: Path) -> bool:
    """Whether the first line of ``path`` is longer than any stretch reads past its edges (half of
    :data:`MAX_STRETCH_BYTES`; see :func:`stretch_layout`).

    Why: a collector writes a trace's spans over two requests or more, so on such lines nearly every
    trace crosses a stretch's edge, no record can be built ahead with the line past it, and the
    records the first pass built were all made again by second-pass jobs: 106 MB of 7 MB lines read
    at 3,900 records/s, where the planned pass, reading the trace ids alone first, reads 6,300
    (bench/RESULTS.md). A collector's requests are about the same size from line to line."""
    edge = MAX_STRETCH_BYTES // 2
    with path.open("rb") as handle:
        return len(handle.readline(edge + 1)) > edge


def _planned_records(path: Path, sha256: str, workers: Workers, run_ids: RunIds, lines: _Lines,
                     cuts: Plan) -> Generator[EncodedRecords, None, int | None]:
    """:func:`pooled_records` by second-pass jobs alone (the first pass built no record, or traces spread
    so wide that a job a stretch would read the file over :data:`MAX_REREAD` times).

    The source's bounds are its run ids (``run_ids.RunIds.add_traces``): a trace's bound is marked
    ``GIVEN`` as its record is written, so the run ids take no memory of their own (they were a set of
    280,000 texts on 1 GB, 35 MB beside the bounds)."""
    done = 0
    prefix = f"{path.name}#"
    previous = -1
    run_ids.add_traces(prefix, lines.bounds, compact=lines.compact)
    results = workers.ordered(job_records, _jobs(path, sha256, lines, cuts, getattr(workers, "spill", None)))
    for cut, count, result in zip(cuts.cuts, cuts.counts, results, strict=True):
        if result is None:
            return done
        data, keys = taken_back(result[0]), result[1]
        if not run_ids.isdisjoint(prefix + key for key in keys):
            return done
        if not _taken(lines.bounds, [compact_key(key) for key in keys] if lines.compact else keys, count, previous,
                      cut):
            return done
        done += len(keys)
        previous = cut
        yield EncodedRecords(data, len(keys))
    return None


@attrs.frozen
class _Spilled:
    """A stretch's records, in the worker's spill file ``name`` (``size`` bytes from ``offset``; then its
    key list, ``keys`` bytes), for its lines ``low`` to ``high`` (indexes); with ``job`` when some are a
    second-pass job's."""

    name: str
    offset: int
    size: int
    keys: int
    low: int
    high: int
    job: TraceJob | None = None
    wanted: list[str] | None = None  # the job's keys, in the order it must give them


def _pieces(path: Path, sha256: str, lines: _Lines) -> list[_Spilled] | None:
    """Every trace's record in the serial order, a stretch at a time: the records the workers built
    (each of a trace whole in its stretch) and a second-pass job for the rest (see :func:`_layout`);
    None when the jobs would read the file over :data:`MAX_REREAD` times.

    Why in this order: the traces ending in a stretch are those in its key list (every trace seen there,
    serially ordered among themselves) that are not seen in a later stretch, and a stretch's lines all
    come before the next one's; so the stretches' lists, each less its traces that go on, are the serial
    order. Why no key list is kept: a stretch's is read again when its records are (the file's keys
    would be tens of MB in the driver)."""
    pieces: list[_Spilled] = []
    reread = 0
    built = lines.built
    for index, (low, (name, offset, size, keys, lengths, _)) in enumerate(built):
        high = built[index + 1][0] if index + 1 < len(built) else len(lines.numbers)
        with open(name, "rb") as spilled:
            layout = _layout(_spilled_keys(spilled, offset + size, keys), lengths, low, high, lines,
                             (name, offset), _ahead(lines, index))
        wanted = layout[2] if layout is not None else []
        job = _job_of(path, sha256, lines, wanted) if wanted else None
        reread += job.size if job else 0
        if reread > MAX_REREAD * max(path.stat().st_size, 1):
            return None
        pieces.append(_Spilled(name, offset, size, keys, low, high, job, wanted or None))
    return pieces


#: Where built records are: a spill file, the start and end of their bytes in it, and how many they are.
Place = tuple[str, int, int, int]
#: A stretch's traces that end in it, in the serial order: their keys, their built records (the :data:`Place`
#: of each run of them) and None for each of a second-pass job's, and the job's keys; None in place of all
#: when every trace of the stretch is whole and built.
Layout = tuple[list[str], list[Place | None], list[str]] | None


def _layout(keys: list[str], lengths: array[int], low: int, high: int, lines: _Lines, spilled: tuple[str, int],
            ahead: dict[str, Place]) -> Layout:
    """The :data:`Layout` of a stretch's traces (``keys``, their records' ``lengths`` from offset ``spilled[1]``
    of spill file ``spilled[0]``; its lines ``low`` to ``high``): a trace seen in an earlier stretch, or whose
    record failed, has the record the stretch before built ahead for it (``ahead``), else is the job's."""
    crossing = lines.crossing
    if crossing.isdisjoint(keys) and 0 not in lengths:
        return None
    bounds = lines.bounds
    name, at = spilled
    ending: list[str] = []
    places: list[Place | None] = []
    wanted: list[str] = []
    for key, length in zip(keys, lengths, strict=True):
        if key in crossing and not low <= bounds[key] & _MASK < high:
            pass  # it ends in a later stretch
        elif length and key not in crossing:
            ending.append(key)
            if places and (last := places[-1]) is not None and last[2] == at:  # one slice for a run of them
                places[-1] = (name, last[1], at + length, last[3] + 1)
            else:
                places.append((name, at, at + length, 1))
        else:
            ending.append(key)
            places.append(ahead.get(key))
            if key not in ahead:
                wanted.append(key)
        at += length
    return ending, places, wanted


def _ahead(lines: _Lines, index: int) -> dict[str, Place]:
    """The records stretch ``index - 1`` built ahead (see :func:`_built`) that are whole: each of a trace with
    no span before that stretch and none after the line after it (the first of stretch ``index``)."""
    if not index:
        return {}
    low, (name, offset, size, keys, _, built) = lines.built[index - 1]
    high = lines.built[index][0]  # the index of the line after the stretch, if it is not blank
    at = offset + size + keys
    found: dict[str, Place] = {}
    for key, length in built:
        packed = lines.bounds.get(key)
        if packed is not None and low <= packed >> 32 and packed & _MASK == high:
            found[key] = (name, at, at + length, 1)
        at += length
    return found


def _job_of(path: Path, sha256: str, lines: _Lines, keys: list[str]) -> TraceJob:
    """The second-pass job that makes the records of ``keys`` (every line from their first span to their last)."""
    packed = [lines.bounds[key] for key in keys]
    low, high = min(p >> 32 for p in packed), max(p & _MASK for p in packed)
    return TraceJob(path=str(path), sha256=sha256, first=lines.numbers[low], offset=lines.offsets[low],
                    size=lines.ends[high] - lines.offsets[low], order=lines.orders[low], start=lines.numbers[low],
                    carried=(), wanted=frozenset(keys))


def _built_records(path: Path, workers: Workers, run_ids: RunIds, lines: _Lines,
                   pieces: list[_Spilled]) -> Generator[EncodedRecords, None, int | None]:
    """:func:`pooled_records` from the records the first pass built, and second-pass jobs for the rest."""
    done = 0
    prefix = f"{path.name}#"
    results = workers.ordered(job_records, (piece.job for piece in pieces if piece.job is not None))
    for index, piece in enumerate(pieces):
        with open(piece.name, "rb") as spilled:
            keys = _spilled_keys(spilled, piece.offset + piece.size, piece.keys)
            layout = _layout(keys, lines.built[index][1][4], piece.low, piece.high, lines, (piece.name, piece.offset),
                             _ahead(lines, index))
            if layout is None:
                blocks: list[EncodedRecords] | None = [
                    EncodedRecords(_read_at(spilled, piece.offset, piece.size), len(keys))]
            else:
                keys = layout[0]
                blocks = _mixed(spilled, layout[1], piece, next(results) if piece.job is not None else None)
        if blocks is None:
            return done
        ids = [prefix + key for key in keys]
        if not run_ids.isdisjoint(ids):
            return done
        run_ids.update(ids)
        _forget(lines.bounds, keys)
        done += len(keys)
        yield from blocks
    return None


def _spilled_keys(spilled: Any, offset: int, size: int) -> list[str]:
    """A stretch's key list: ``size`` bytes of a worker's spill file from ``offset``."""
    import orjson

    keys: list[str] = orjson.loads(_read_at(spilled, offset, size))
    return keys


def _read_at(handle: Any, offset: int, size: int) -> bytes:
    """``size`` bytes of an open file from ``offset``.

    Why records are read a piece at a time, never the whole spill file then sliced: each slice and each
    join of them is another copy of every record (about 2 us a trace in the driver); read so, the
    bytes are copied once, and the blocks are written as they are."""
    handle.seek(offset)
    data: bytes = handle.read(size)
    return data


def _forget(bounds: dict[str, int], keys: list[str]) -> None:
    """Drop the bounds of traces whose records are given: no later stretch asks for them, and the driver's
    memory then holds each trace's run id or its bounds, not both (as the planned jobs' :func:`_taken`)."""
    pop = bounds.pop
    for key in keys:
        pop(key, None)


def _mixed(spilled: Any, places: list[Place | None], piece: _Spilled,
           result: tuple[bytes, list[str]] | None) -> list[EncodedRecords] | None:
    """A stretch's records, the built ones (their ``places``: in the ``spilled`` file, its own, or another
    worker's for a record built ahead) and its job's ``result`` interleaved in the serial order (None: the
    job failed, or gave other traces than the ones asked)."""
    made: list[bytes] = []
    if piece.job is not None:
        if result is None or result[1] != piece.wanted:
            return None
        made = [line + b"\n" for line in EncodedRecords(result[0], len(result[1])).lines()]
    taken = iter(made)
    return [EncodedRecords(next(taken), 1) if place is None else EncodedRecords(_place_bytes(spilled, place), place[3])
            for place in places]


def _place_bytes(spilled: Any, place: Place) -> bytes:
    """The bytes at ``place``: in the open file ``spilled`` when it is that file, else in the one it names."""
    if place[0] == spilled.name:
        return _read_at(spilled, place[1], place[2] - place[1])
    with open(place[0], "rb") as other:
        return _read_at(other, place[1], place[2] - place[1])


def _taken(bounds: dict[Any, int], keys: list[Any], count: int, previous: int, cut: int) -> bool:
    """Whether ``keys`` are exactly the ``count`` traces the first pass saw end after line ``previous``,
    up to ``cut``, none given before; if so, each is marked given (``run_ids.GIVEN``) in ``bounds``.
    On False nothing is marked: the serial path goes on from the records given, and the bounds
    still say which those are (they are the source's run ids)."""
    if len(keys) != count:
        return False
    get = bounds.get
    for key in keys:
        packed = get(key)
        if packed is None or packed == GIVEN or not previous < packed & _MASK <= cut:
            return False
    if len(set(keys)) != count:  # a trace given twice
        return False
    for key in keys:
        bounds[key] = GIVEN
    return True


__all__ = ["BUILT_MAX_BYTES", "JOB_TRACES", "MIN_BYTES", "Stretch", "TraceJob", "first_pass", "job_records", "plan",
           "pooled_records", "stretch_keys"]
