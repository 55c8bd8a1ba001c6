"""Read export sources, streaming: run rows (as their records), receipts and trace files (as
:class:`RunInput` s).

Which kind a file is comes from its content, never its name: a first line holding
``run_record_version`` is a runs file of the agent harness, an object (or a first line) of
kind ``toolscore.evaluation`` is an evaluation receipt (``Evaluation.to_dict()``), and
anything else is a trace file read by the installed adapters (an ``mcp record`` session is
one of them, the ``mcp`` adapter).

Runs files are read twice, one line at a time: the first pass learns which line is the
latest row of each cell (the kernel's rule: a retried or resumed cell counts once, by its
last row) and the second builds records. Memory is two 64-bit integers per row (its cell's
hash and its place), and one bit per line when some cell has several rows: never a row or a cell id.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
from array import array
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from stat import S_ISREG
from typing import Any

import attrs

from toolscore_core import InputError
from toolscore_core.kernel.files import numbered_lines
from toolscore_core.kernel.readlimits import MAX_NESTING, deeper_than
from toolscore_export.canonical import ORJSON_WRITES_LEVELS, file_sha256, prepare, read_line
from toolscore_export.parallel import (
    EncodedRecords,
    LineSet,
    Span,
    Workers,
    choose_workers,
    encoded_rows,
    first_pass,
)
from toolscore_export.record import (
    RunInput,
    SourceRef,
    clean_prepared,
    distinct_redacted_id,
    trace_run_input,
)
from toolscore_export.redaction import may_hold_a_secret, shown_text
from toolscore_export.row_check import surely_valid
from toolscore_export.row_record import row_record
from toolscore_export.run_ids import RunIds
from toolscore_export.same_file import SeenPaths

RUN_ROW = "run-row"
TRACE = "trace"
RECEIPT = "receipt"
EVALUATION_KIND = "toolscore.evaluation"
OTLP_FORMAT = "otel"  # the adapter of OTLP trace files: their records name the run's span
_HEAD = 1 << 16


@attrs.define
class SourceStats:
    """What one source gave: its kind, format, hash, size, records, and a skipped torn line."""

    path: str
    kind: str
    sha256: str
    size: int
    format: str | None = None
    records: int = 0
    superseded: int = 0
    torn_line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The source as the manifest lists it; a credential in its path is hidden, as in the records."""
        path = shown_text(self.path)
        return {"path": path, "name": _name(path), "kind": self.kind, "format": self.format,
                "sha256": self.sha256, "bytes": self.size, "records": self.records,
                "superseded_rows": self.superseded, "skipped_torn_line": self.torn_line}


def _name(path: str) -> str:
    """``Path(path).name``: the part after the last slash when that is a name (not empty, not
    ``.``), where the path is parsed only by slashes; any other path is parsed by ``Path``.

    Why: parsing each source's path again cost the manifest about 3 us a trace file.
    """
    tail = path.rpartition("/")[2]
    if _SLASH_ONLY and tail and tail != ".":
        return tail
    return Path(path).name


_SLASH_ONLY = os.sep == "/" and os.altsep is None


def _first_object(path: Path) -> Any:
    """The first non-blank line parsed as JSON, or None when it is not one JSON value."""
    with path.open("rb") as handle:
        for number, raw in numbered_lines(handle, path):
            if raw.strip():
                return _json_of(raw, path, f"line {number}")
    return None


def detect_kind(path: Path) -> str:
    """``run-row``, ``receipt`` or ``trace`` for the file at ``path`` (see the module docstring)."""
    if not path.is_file():
        from toolscore_core.kernel.files import not_a_file

        raise not_a_file(path)
    if path.stat().st_size == 0:
        raise InputError("is empty (0 bytes)", file=path,
                         expected="a runs file, a trace file or an evaluation receipt")
    first = _first_object(path)
    if isinstance(first, dict) and "run_record_version" in first:
        return RUN_ROW
    if isinstance(first, dict) and first.get("kind") == EVALUATION_KIND:
        return RECEIPT
    if (first is None and path.suffix.lower() == ".json" and path.stat().st_size < 64 * 1024 * 1024
            and EVALUATION_KIND.encode() in path.read_bytes()):  # no receipt lacks its kind: no parse needed
        data = _load_json(path)
        items = data if isinstance(data, list) else [data]
        if items and all(isinstance(i, dict) and i.get("kind") == EVALUATION_KIND for i in items):
            return RECEIPT
    return TRACE


def _load_json(path: Path) -> Any:
    return _json_of(path.read_bytes(), path, None)


def _json_of(raw: bytes, path: Path, location: str | None) -> Any:
    """``raw`` parsed as one JSON value (a byte-order mark dropped), or None when it is not one.

    JSON nested deeper than the parser can go (a thousand levels) is an InputError naming
    ``path`` and ``location``: every reader of every kind refuses it (the kernel's trace
    readers at 100 levels), so no kind would read it, and the user is told why at once."""
    import json

    try:
        return json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError):
        return None
    except RecursionError:
        what = f"{location} is" if location else "is"
        raise InputError(f"{what} nested too deeply to read", file=path, location=location,
                         expected=f"at most {ROW_MAX_NESTING} levels in a run row, {MAX_NESTING} in a trace") from None


_RUN_KEY = b"run_record_version"
_KIND_BYTES = EVALUATION_KIND.encode()
SMALL_FILE = 1 << 18  # a source this small is read whole once, up front: kind, hash and trace from one read
CACHE_BYTES = 16 << 20  # small trace files' bytes held from that read until their record is built


def _first_line(raw: bytes) -> tuple[int, bytes] | None:
    """The first non-blank line of ``raw`` (with its newline) and its number, split as iterating
    the file splits it."""
    start = 0
    while start < len(raw):
        end = raw.find(b"\n", start)
        end = len(raw) if end < 0 else end + 1
        if raw[start:end].strip():
            return raw.count(b"\n", 0, start) + 1, raw[start:end]
        start = end
    return None


def kind_of_bytes(path: Path, raw: bytes) -> str:
    """:func:`detect_kind` of a non-empty regular file whose bytes ``raw`` are read already.

    The same answer by the same rules, with one short cut: a file whose first line holds no
    backslash and no ``run_record_version``, and whose bytes nowhere hold the receipts' kind,
    is a trace file without a parse (with no escape in it, a key or value the rules look for
    would appear in the bytes as it is). A JSON Lines trace's first line can be megabytes.
    """
    found = _first_line(raw)
    if found is None:
        return TRACE
    number, line = found
    if b"\\" not in line and _RUN_KEY not in line and _KIND_BYTES not in raw:
        return TRACE
    first = _json_of(line, path, f"line {number}")
    if isinstance(first, dict) and "run_record_version" in first:
        return RUN_ROW
    if isinstance(first, dict) and first.get("kind") == EVALUATION_KIND:
        return RECEIPT
    if first is None and path.suffix.lower() == ".json" and len(raw) < 64 * 1024 * 1024 and _KIND_BYTES in raw:
        data = _json_of(raw, path, None)
        items = data if isinstance(data, list) else [data]
        if items and all(isinstance(i, dict) and i.get("kind") == EVALUATION_KIND for i in items):
            return RECEIPT
    return TRACE


def look_at(path: Path, info: os.stat_result | None = None) -> tuple[str, int, bytes | None]:
    """The kind and size of the source at ``path``, and its bytes when it is small (:data:`SMALL_FILE`).

    Why: the export needs a small trace file's kind, its hash and its trace; reading it
    whole once here serves all three. Anything unusual (missing, not a regular file, empty,
    large) goes through :func:`detect_kind`, which words the error or streams the file.
    ``info``: ``os.stat(path)`` when made just before (:meth:`SeenPaths.earlier_info`).
    """
    if info is None:
        try:
            info = os.stat(path)
        except OSError:
            info = None
    if info is None or not S_ISREG(info.st_mode) or not 0 < info.st_size <= SMALL_FILE:
        return detect_kind(path), path.stat().st_size, None
    raw = _read_small(path, info.st_size)
    if not raw:  # emptied since: said as for any empty file
        return detect_kind(path), 0, None
    return kind_of_bytes(path, raw), len(raw), raw


def _read_small(path: Path, size: int) -> bytes:
    """The bytes of the regular file at ``path``, about ``size`` long, to its end: ``path.open("rb").read()``.

    Why: by the file descriptor, without the file and buffer objects ``open`` builds (a
    fifth of the driver's cost per trace file). Any error opening it comes from
    ``path.open`` itself, so it is worded exactly as before.
    """
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        with path.open("rb") as handle:
            return handle.read()
    try:
        raw = os.read(fd, size + 1)
        if not raw:
            return raw
        parts = [raw]
        while part := os.read(fd, max(size, 1 << 16)):  # to the end, as read() goes: a file may grow
            parts.append(part)
    finally:
        os.close(fd)
    return raw if len(parts) == 1 else b"".join(parts)


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)


# --- run rows ---------------------------------------------------------------------------------------


_MAX_SOURCES = 1 << 12  # runs files in one export (their index sits in 12 bits of a row's key)


_LINE_BITS = 32
_HASH_MASK = (1 << 64) - 1


_BUCKET_SHIFT = 60  # the top four bits of a cell's hash pick its bucket


def cell_key(cell: str) -> int:
    """The 64-bit hash a first pass keys a row's cell id by (a worker process, forked, hashes alike)."""
    return hash(cell) & _HASH_MASK


@attrs.define
class CellKeys:
    """The first pass's rows: each one's cell hash and place (its file above its line), in two flat
    arrays per bucket of hashes (sixteen, by their top bits).

    Why buckets: finding the hashes two rows share sorts them, and a sorted list of Python ints
    costs over 40 bytes a row (30 MB for a 1 GB runs file); one bucket at a time, a sixteenth.
    """

    hashes: list[Any] = attrs.field(factory=lambda: [array("Q") for _ in range(16)])
    places: list[Any] = attrs.field(factory=lambda: [array("Q") for _ in range(16)])

    def add(self, cell: str, place: int) -> None:
        key = cell_key(cell)
        self.hashes[key >> _BUCKET_SHIFT].append(key)
        self.places[key >> _BUCKET_SHIFT].append(place)

    def extend(self, other: CellKeys) -> None:
        for mine, theirs in zip(self.hashes + self.places, other.hashes + other.places, strict=True):
            mine.extend(theirs)

    def repeated(self) -> set[int]:
        """The hashes more than one row has."""
        found: set[int] = set()
        for bucket in self.hashes:
            found.update(a for a, b in itertools.pairwise(sorted(bucket)) if a == b)
        return found

    def pairs(self) -> Iterator[tuple[int, int]]:
        """``(hash, place)`` of every row, bucket by bucket."""
        for hashes, places in zip(self.hashes, self.places, strict=True):
            yield from zip(hashes, places, strict=True)


@attrs.define
class LatestRows:
    """Which lines are the latest row of their cell, over the runs files of one export.

    Kept small on purpose, since it is the only thing an export holds for every row of a
    very large file: one bit per line of each file (:class:`LineSet`), and the number of
    rows only for the cells that had more than one. The cell ids themselves are not kept
    (a dict of a million of them is over 100 MB); see :func:`latest_lines`. ``every``: no
    cell has two rows, so every row is its cell's latest and no line set is kept at all.
    """

    lines: list[LineSet] = attrs.field(factory=list)  # per source: the latest rows' line numbers
    repeats: dict[int, int] = attrs.field(factory=dict)  # source << 32 | line of a latest row -> rows of its cell
    spans: dict[int, list[Span]] = attrs.field(factory=dict)  # per source read by workers: its chunks
    every: bool = False
    sha256: dict[int, str] = attrs.field(factory=dict)  # per source read by workers: its hash, taken by the cut
    unchecked: bool = False  # the first pass read some cell ids off the lines' heads (see first_pass_error)

    def is_latest(self, index: int, line: int) -> bool:
        """Whether the valid row at ``line`` of source ``index`` is its cell's latest row."""
        return self.every or (index < len(self.lines) and self.lines[index].has(line))

    def attempts(self, index: int, line: int) -> int:
        return self.repeats.get(index << _LINE_BITS | line, 1)

    def by_line(self, index: int) -> tuple[LineSet | None, dict[int, int]]:
        """The latest lines of source ``index`` (None: every row) and the attempts of those with more than one.

        What a worker process needs to decide a row: a line is its cell's latest row exactly
        when its number is in the set.
        """
        if self.every:
            return None, {}
        mask = (1 << _LINE_BITS) - 1
        attempts = {key & mask: count for key, count in self.repeats.items() if key >> _LINE_BITS == index}
        return self.lines[index], attempts


def latest_lines(paths: list[Path], on_torn: Callable[[Any], None], workers: Workers | None = None, *,
                 quick: bool = False) -> LatestRows:
    """The latest row of each cell over ``paths`` in order (a later file's row wins); read by ``workers`` if given.

    How, in bounded memory: each row with a cell id gives two integers, the id's 64-bit hash
    (:func:`cell_key`) and its place (the row's file above its line), in flat arrays. No
    hash shared by two rows (the usual file) means every row is its cell's latest. A hash
    shared by several rows is a retried cell or, rarely, two cells whose hashes collide, so
    those rows are read again for their real ids and grouped by them: the result is exactly
    the serial rule's, keyed by the id.

    ``quick``: the first pass (in workers or here) reads the cell id off the head of each line
    the harness wrote (:func:`quick_cell`) instead of parsing the line; the result then says
    it is ``unchecked``, and :func:`first_pass_error` must be asked before any later error is
    raised.
    """
    if len(paths) >= _MAX_SOURCES:
        raise InputError(f"{len(paths)} runs files are more than one export reads ({_MAX_SOURCES - 1})",
                         hint="Concatenate them first")
    fast = _fast_loads()
    unchecked = quick and fast is not None
    try:
        latest = _read_latest(paths, on_torn, workers, fast, unchecked)
    except Exception:
        first = first_pass_error(paths) if unchecked else None  # a line read off its head may be the first
        if first is not None:
            raise first from None
        raise
    latest.unchecked = unchecked
    return latest


def first_pass_error(paths: list[Path]) -> Exception | None:
    """The error the serial first pass meets over ``paths``, if any: the first line that is not
    JSON (a torn last line is not one).

    Why: a first pass that read cell ids off the lines' heads (:func:`quick_cell`) did not
    parse every line, and the serial first pass raises such a line's error before any other
    error of the export, so each error raised after a quick first pass comes here first.
    An error path only: it parses every line of every runs file.
    """
    from toolscore_core.kernel.jsonl import iter_json_objects

    fast = _fast_loads()
    try:
        for path in paths:
            cells = (_cell_ids(path, fast, lambda torn: None) if fast is not None else
                     iter_json_objects(path, on_torn=lambda torn: None, what="a run row"))
            for _ in cells:
                pass
    except InputError as exc:
        return exc
    return None


def _read_latest(paths: list[Path], on_torn: Callable[[Any], None], workers: Workers | None,
                 fast: Callable[[bytes], Any] | None, quick: bool) -> LatestRows:
    from toolscore_core.kernel.jsonl import iter_json_objects

    keys = CellKeys()
    spans: dict[int, list[Span]] = {}
    hashes: dict[int, str] = {}
    for index, path in enumerate(paths):
        if fast is not None and workers is not None:
            spans[index] = []
            digest = hashlib.sha256()
            for found in first_pass(path, workers, on_torn, spans[index], index, digest, quick=quick):
                keys.extend(found)
            hashes[index] = digest.hexdigest()
            continue
        cells = (_cell_ids(path, fast, on_torn, quick) if fast is not None else
                 ((line, data.get("cell_id")) for line, data in iter_json_objects(path, on_torn=on_torn,
                                                                                    what="a run row")))
        where = index << _LINE_BITS
        for line, cell in cells:
            if isinstance(cell, str):  # anything else: the second pass names the line and what is wrong
                keys.add(cell, where | line)
    latest = _latest_of(paths, keys, spans, fast)
    latest.sha256 = hashes
    return latest


def _latest_of(paths: list[Path], keys: CellKeys, spans: dict[int, list[Span]],
               fast: Callable[[bytes], Any] | None) -> LatestRows:
    """:func:`latest_lines` from the rows' cell hashes and places."""
    repeated = keys.repeated()
    if not repeated:
        return LatestRows(spans=spans, every=True)
    rows = LatestRows(lines=[LineSet(bytearray()) for _ in paths], spans=spans)
    shared: list[int] = []  # rows whose hash another row has too
    line_mask = (1 << _LINE_BITS) - 1
    for key, place in keys.pairs():
        if key in repeated:
            shared.append(place)
        else:
            rows.lines[place >> _LINE_BITS & (_MAX_SOURCES - 1)].add(place & line_mask)
    if shared:
        _group_shared(paths, sorted(shared), rows, fast)
    return rows


def _group_shared(paths: list[Path], places: list[int], rows: LatestRows, fast: Callable[[bytes], Any] | None) -> None:
    """Read the rows at ``places`` (file << 32 | line, sorted) again and group them by their real cell id."""
    from toolscore_core.kernel.jsonl import decode_line

    line_mask = (1 << _LINE_BITS) - 1
    latest: dict[str, int] = {}
    seen: dict[str, int] = {}
    position = 0
    for index, path in enumerate(paths):
        wanted = []
        while position < len(places) and places[position] >> _LINE_BITS == index:
            wanted.append(places[position] & line_mask)
            position += 1
        if not wanted:
            continue
        next_wanted = 0
        with path.open("rb") as handle:
            for number, raw in numbered_lines(handle, path):
                if number != wanted[next_wanted]:
                    continue
                cell = (cell_of(raw, number, path, fast) if fast is not None else
                        decode_line(raw, file=path, number=number).get("cell_id"))
                latest[cell] = index << _LINE_BITS | number  # read in file order: the last one wins
                seen[cell] = seen.get(cell, 0) + 1
                next_wanted += 1
                if next_wanted == len(wanted):
                    break
    for cell, place in latest.items():
        rows.lines[place >> _LINE_BITS].add(place & line_mask)
        if seen[cell] > 1:
            rows.repeats[place] = seen[cell]


def _fast_loads() -> Callable[[bytes], Any] | None:
    try:
        import orjson
    except ImportError:
        return None
    loads: Callable[[bytes], Any] = orjson.loads
    return loads


def _cell_ids(path: Path, fast: Callable[[bytes], Any], on_torn: Callable[[Any], None],
              quick: bool = False) -> Iterator[tuple[int, Any]]:
    """``(line, cell_id)`` per non-blank line, like the kernel's reader but parsed by orjson.

    Why: the first pass needs one key of each row, and orjson parses a row in a third of the
    time. Whatever orjson refuses goes to the kernel's own parser, which either reads it
    (NaN, a byte order mark) or names the line; a torn last line is reported as the kernel
    reports it. The cell id is a string either way, so the result cannot differ. ``quick``:
    read it off the head of each line but the last where it can (:func:`quick_cell`).
    """
    from toolscore_core.kernel.jsonl import TornLine, why_torn

    def cell(raw: bytes, number: int) -> Any:
        found = quick_cell(raw) if quick else None
        return found if found is not None else cell_of(raw, number, path, fast)

    held: tuple[int, int, bytes] | None = None
    offset = 0
    with path.open("rb") as handle:
        for number, raw in numbered_lines(handle, path):
            if raw.strip():
                if held is not None:
                    yield held[0], cell(held[2], held[0])
                held = (number, offset, raw)
            offset += len(raw)
    if held is None:
        return
    number, start, raw = held
    try:
        value = cell_of(raw, number, path, fast)  # the last line is parsed: it may be torn
    except InputError as exc:
        on_torn(TornLine(file=path, line=number, offset=start, size=len(raw), reason=why_torn(exc, raw)))
        return
    yield number, value


_ROW_HEAD = b'{"run_record_version":"1","toolscore_version":'
_CELL_KEY = b',"cell_id":"'


def quick_cell(raw: bytes) -> str | None:
    """The cell id of a line the harness's RunWriter wrote, read off the line's head; None when the
    line is not plainly of that shape (it is parsed then).

    Why: a first pass needs one key of each row, and parsing a whole row for it cost about a
    tenth of an export. When the line parses, its ``cell_id`` is exactly this: the id is the
    third key of the top-level object, written without an escape, and no other key of the
    line can be ``cell_id`` (none is spelled so, and no ``\\u`` escape could spell one). Whether
    the line parses at all is not known here: the second pass parses every line, and
    :func:`first_pass_error` keeps the serial order of errors.
    """
    if not raw.startswith(_ROW_HEAD):
        return None
    at = len(_ROW_HEAD)
    if raw.startswith(b"null", at):
        at += 4
    elif raw.startswith(b'"', at):
        end = raw.find(b'"', at + 1)
        if end < 0 or raw.find(b"\\", at, end) >= 0:
            return None
        at = end + 1
    else:
        return None
    if not raw.startswith(_CELL_KEY, at):
        return None
    start = at + len(_CELL_KEY)
    end = raw.find(b'"', start)
    if (end < 0 or raw.find(b"\\", start, end) >= 0 or raw.find(b'"cell_id"', end) >= 0
            or (raw.find(b"\\", end) >= 0 and raw.find(b"\\u", end) >= 0)):
        return None
    try:
        return raw[start:end].decode("utf-8")
    except UnicodeDecodeError:
        return None


def cell_of(raw: bytes, number: int, path: Path, fast: Callable[[bytes], Any]) -> Any:
    """The ``cell_id`` of one raw line (None when it is not an object), parsed by ``fast`` else the kernel."""
    from toolscore_core.kernel.jsonl import decode_line

    try:
        data = fast(raw)
    except ValueError:  # orjson.JSONDecodeError
        data = decode_line(raw, file=path, number=number)
    return data.get("cell_id") if isinstance(data, dict) else None


def _raw_rows(path: Path) -> Iterator[tuple[int, str, Any]]:
    """``(line, text, value)`` per non-blank line, the value parsed into its prepared shape.

    Streams like the kernel's reader and skips a torn last line the same way (the first
    pass has reported it); a bad line anywhere else is an InputError naming the line.
    """
    from toolscore_core.kernel.jsonl import decode_line

    held: tuple[int, bytes] | None = None
    with path.open("rb") as handle:
        for number, raw in numbered_lines(handle, path):
            if not raw.strip():
                continue
            if held is not None:
                yield _parsed(*held, path, decode_line)
            held = (number, raw)
    if held is not None:
        try:
            yield _parsed(*held, path, decode_line)
        except RowTooDeep:
            raise
        except InputError:
            return


#: Levels of arrays and objects a run row may have: as deep as orjson writes, so a row it
#: wrote back byte for byte (nearly every row) is within the limit with no look at all. That
#: is well past the kernel's limit for a document (100), as it must be: a row wraps values
#: the kernel limits (a call's arguments sit four levels in). Why a limit: a row hundreds
#: deep was exported, and its record then broke every walk after it (``export validate``
#: ran out of stack).
ROW_MAX_NESTING = ORJSON_WRITES_LEVELS


class RowTooDeep(InputError):
    """A run row that is JSON, complete, and nested past :data:`ROW_MAX_NESTING`: an error
    wherever it stands, never a torn last line to skip (a torn line does not parse; this did)."""


def _parsed(number: int, raw: bytes, path: Path, decode_line: Any) -> tuple[int, str, Any]:
    """``(number, text, value)`` of one run row; an InputError naming the line when it is not
    JSON (the kernel's own error), or a :class:`RowTooDeep`."""
    try:
        text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        data, shallow = read_line(raw, text)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        decode_line(raw, file=path, number=number)  # raises the kernel's own error for the line
        if isinstance(exc, RecursionError):  # the kernel read it (orjson reads 1,024 levels); this parser not
            raise RowTooDeep(f"line {number} is nested too deeply to read", file=path, location=f"line {number}",
                             expected=f"at most {ROW_MAX_NESTING} levels") from None
        raise
    # no more brackets than the limit cannot nest past it: two counts settle the rest
    if (not shallow and text.count("[") + text.count("{") > ROW_MAX_NESTING
            and deeper_than(data, ROW_MAX_NESTING, text)):
        raise RowTooDeep(f"line {number} is nested more than {ROW_MAX_NESTING} levels deep (arrays and objects "
                         "inside each other)", file=path, location=f"line {number}",
                         expected=f"at most {ROW_MAX_NESTING} levels")
    return number, text, data


def records_from_rows(path: Path, index: int, sha256: str, latest: LatestRows,
                      stats: SourceStats) -> Iterator[dict[str, Any]]:
    """The record of the latest row of each cell in ``path``; earlier rows are counted, skipped."""
    name = shown_text(path.name)  # a credential in the file's name hidden, as a trace's record hides it
    for line, text, data in _raw_rows(path):
        checked_cell(data, line, path)
        if not latest.is_latest(index, line):
            stats.superseded += 1
            continue
        yield row_record_of(data, text, name, sha256, line, latest.attempts(index, line))


def checked_cell(data: Any, line: int, path: Path) -> str:
    """The cell id of a parsed row, once the row is known to be a valid run row (else InputError)."""
    if not isinstance(data, dict):
        raise InputError(f"line {line} is not a run row (a JSON object)", file=path, location=f"line {line}")
    if not surely_valid(data):  # the structural fast path; anything unusual gets the real validator
        from toolscore_core import validate_run_row

        validate_run_row(data, file=path, line=line)
    cell: str = data["cell_id"]
    return cell


def row_record_of(data: dict[str, Any], text: str, name: str, sha256: str, line: int, attempts: int) -> dict[str, Any]:
    """The record of a valid latest row (line ``line`` of the file ``name``), redacted first when its
    raw line could hold a credential."""
    if may_hold_a_secret(text):
        from toolscore_core import redact_text

        cell = data["cell_id"]
        data = prepare(data, redact_text)
        if data["cell_id"] != cell:  # two cells whose ids redact alike stay two runs
            data["cell_id"] = distinct_redacted_id(data["cell_id"], sha256, line)
    return row_record(data, name, sha256, line, attempts)


def run_input_from_row(row: dict[str, Any], source: SourceRef, *, attempts: int = 1,
                       prepared: bool = False) -> RunInput:
    """A validated run row (its dict) as a RunInput; ``prepared``: already prepared and redacted."""
    extra = row.get("extra") or {}
    prompt = extra.get("prompt") if isinstance(extra.get("prompt"), str) else None
    status = row["status"]
    # The harness records the whole conversation of a run that ran to its end, so a null
    # final answer there means the model gave no text; a stopped run may have lost it.
    final_known = row.get("final_answer") is not None or status in ("completed", "limit_reached")
    return RunInput(
        run_id=row["cell_id"], source=source, outcome=row["outcome"], task_id=row["task_id"], arm_id=row["arm_id"],
        provider=row.get("provider"), model=row.get("model"), repetition=row["repetition"], study=row.get("study"),
        attempts=attempts, status=status, error=row.get("error"), started_at=row.get("started_at"),
        finished_at=row.get("finished_at"), turns=row.get("turns"), prompt=prompt,
        final_answer=row.get("final_answer"), final_answer_known=final_known, calls=row["calls"],
        usage=row.get("usage"), cost_usd=row.get("cost_usd"), price=row.get("price"), server=row.get("server"),
        evaluation=_row_evaluation(row.get("evaluation")), prepared=prepared,
    )


def _row_evaluation(block: Any) -> dict[str, Any] | None:
    """The verdict part of a row's evaluation block (the evidence stays in the runs file)."""
    if not isinstance(block, dict):
        return None
    keys = ("score", "grade", "verdict", "min_score", "passed_min_score", "required_call_recall",
            "outcome_reasons", "findings")
    return {key: block.get(key) for key in keys}


# --- evaluations (receipts, and traces scored with --gold) ---------------------------------------------


def evaluation_summary(record: dict[str, Any], reasons: list[str] | None = None) -> dict[str, Any]:
    """The verdict part of an ``Evaluation.to_dict()`` record, as a row's block holds it."""
    findings = [{"severity": f.get("severity"), "code": f.get("code"), "message": f.get("message"),
                 "call_index": f.get("call_index"), "tool": f.get("tool")}
                for f in record.get("findings") or [] if isinstance(f, dict)]
    return {"score": record.get("score"), "grade": record.get("grade"), "verdict": record.get("verdict"),
            "min_score": record.get("min_score"), "passed_min_score": record.get("passed"),
            "required_call_recall": record.get("required_call_recall"),
            "outcome_reasons": reasons if reasons is not None else outcome_reasons(record), "findings": findings}


def outcome_reasons(record: dict[str, Any]) -> list[str]:
    """Why an evaluation record fails (empty: it passes)."""
    reasons = []
    passed = record.get("passed")
    if passed is False or (passed is None and record.get("verdict") != "PASS"):
        reasons.append(f"score {record.get('score_percent')}% is below the bar"
                       if passed is False else f"verdict {record.get('verdict')}")
    if record.get("policy_violations"):
        reasons.append("forbidden call(s) requested")
    reasons.extend(str(f.get("message")) for f in record.get("findings") or []
                   if isinstance(f, dict) and f.get("severity") == "error"
                   and (f.get("details") or {}).get("category") == "honesty")
    return reasons


def _receipt_calls(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"id": c.get("id"), "tool": c.get("tool"), "args": c.get("args"), "result": c.get("result"),
             "is_error": c.get("is_error"), "error": c.get("error"), "duration": c.get("duration"),
             "denied": bool(c.get("denied", False))}
            for c in record.get("actual") or [] if isinstance(c, dict)]


def run_input_from_receipt(record: dict[str, Any], run_id: str, source: SourceRef) -> RunInput:
    """An ``Evaluation.to_dict()`` record as a RunInput (``kind`` checked by the caller)."""
    if str(record.get("schema_version")) != "1" or not isinstance(record.get("actual"), list):
        raise InputError("is not a version 1 evaluation receipt", file=source.name,
                         location=f"line {source.line}" if source.line else "$",
                         expected='an object from Evaluation.to_dict() with "schema_version": "1" and "actual"')
    reasons = outcome_reasons(record)
    trace = record.get("trace") or {}
    final = trace.get("final_answer") if isinstance(trace, dict) else None
    return RunInput(run_id=run_id, source=source, outcome="fail" if reasons else "pass",
                    final_answer=final if isinstance(final, str) else None, calls=_receipt_calls(record),
                    evaluation=evaluation_summary(record, reasons))


def receipt_inputs(path: Path, sha256: str, stats: SourceStats) -> Iterator[RunInput]:
    """The receipts of a file: one JSON object or array, or JSON Lines of them."""
    from toolscore_core.kernel.jsonl import iter_json_objects

    first = _first_object(path)
    place = "line {}"  # where a receipt is, said in an error: its line, its index in an array, or the file
    if isinstance(first, dict) and first.get("kind") == EVALUATION_KIND:
        items: Any = iter_json_objects(path, what="an evaluation receipt")
        many = True
    else:
        data = _load_json(path)
        items = enumerate(data if isinstance(data, list) else [data])
        many = isinstance(data, list)
        place = "$[{}]" if many else "$"
    for where, record in items:
        if not isinstance(record, dict) or record.get("kind") != EVALUATION_KIND:
            raise InputError("is not an evaluation receipt", file=path, location=place.format(where),
                             expected='"kind": "toolscore.evaluation"')
        if deeper_than(record, ROW_MAX_NESTING):  # a receipt holds a trace's values as a row does
            raise InputError(f"is nested more than {ROW_MAX_NESTING} levels deep (arrays and objects inside each "
                             "other)", file=path, location=place.format(where),
                             expected=f"at most {ROW_MAX_NESTING} levels")
        run_id = f"{path.name}#{where}" if many else path.name
        line = where if many else None
        yield run_input_from_receipt(record, run_id, SourceRef(RECEIPT, path.name, sha256,
                                                               format=EVALUATION_KIND, line=line))


# --- trace files ----------------------------------------------------------------------------------------


def _read_trace(path: Path, raw: bytes | None, trace_format: str | None, pm: Any) -> tuple[Any, Any]:
    """The trace of a file and the JSON read from it for its run span (None: read it there).

    From ``raw`` (its bytes, read once by :func:`look_at`) when given, else read again when the
    file is small (:data:`SMALL_FILE`): the kernel parses them, and the same parsed values serve
    the run span, unless they came from YAML (the run span reads OTLP/JSON only) or an adapter
    streamed the file itself. Why read a small file's bytes here, not let the kernel open it:
    past the bytes held from the first read (:data:`CACHE_BYTES`, some 2,000 files of 8 KB) the
    run span read and parsed every OTLP file a second time, 6-9% of its record's CPU."""
    from toolscore_core.kernel.files import YAML_SUFFIXES
    from toolscore_core.kernel.traces import load_trace_bytes, load_trace_file

    if raw is None:
        raw = _small_file_bytes(path)
    if raw is None:
        return load_trace_file(path, format=trace_format, pm=pm, allow_empty=True), None
    trace, data = load_trace_bytes(path, raw, format=trace_format, pm=pm, allow_empty=True)
    as_json = path.suffix.lower() not in YAML_SUFFIXES and raw.removeprefix(b"\xef\xbb\xbf").lstrip().startswith(
        (b"{", b"["))
    return trace, data if as_json and data is not None else None


def _small_file_bytes(path: Path) -> bytes | None:
    """The bytes of ``path`` when it is a regular file of 1 to :data:`SMALL_FILE` bytes, else None (the
    kernel's reader then opens it, and words any error)."""
    try:
        info = os.stat(path)
        if not S_ISREG(info.st_mode) or not 0 < info.st_size <= SMALL_FILE:
            return None
        return _read_small(path, info.st_size) or None
    except OSError:
        return None


def trace_input(path: Path, sha256: str, stats: SourceStats, *, trace_format: str | None, gold: str | None,
                pm: Any, raw: bytes | None = None) -> RunInput:
    """A trace file of any installed adapter format as a RunInput; scored when ``gold`` is given.

    ``raw``: the file's bytes when read already (the file is then neither opened nor parsed again)."""
    trace, data = _read_trace(path, raw, trace_format, pm)
    stats.format = trace.source_format
    calls = trace_calls(trace)
    meta = trace.metadata or {}
    trace_id = meta.get("trace_id") if isinstance(meta.get("trace_id"), str) else None
    span_id = None
    if trace.source_format == OTLP_FORMAT:
        from toolscore_export.run_span import as_requests, run_span_id

        known = trace_id or next((c["trace_id"] for c in calls if isinstance(c["trace_id"], str)), None)
        span_id = run_span_id(path, known, as_requests(data) if data is not None else None)
    return trace_run(trace, calls, SourceRef(TRACE, path.name, sha256, format=trace.source_format), gold=gold,
                     pm=pm, run_id=path.name, trace_id=trace_id, span_id=span_id)


def trace_calls(trace: Any) -> list[dict[str, Any]]:
    """The calls of a Trace as a RunInput holds them."""
    calls = []
    for call in trace.calls:
        meta = call.metadata or {}
        calls.append({"id": call.id, "tool": call.tool, "provider_name": meta.get("provider_name"),
                      "args": call.args, "result": call.result, "structured": call.structured_result,
                      "is_error": call.is_error, "error": call.error, "duration": call.duration,
                      "denied": call.denied, "deny_reason": call.denied_reason,
                      "span_id": meta.get("span_id"), "trace_id": meta.get("trace_id")})
    return calls


def trace_run(trace: Any, calls: list[dict[str, Any]], source: SourceRef, *, gold: str | None, pm: Any, run_id: str,
              trace_id: str | None, span_id: str | None) -> RunInput:
    """The RunInput of one trace (scored against ``gold`` when given); ``span_id``: its run span (OTLP only)."""
    evaluation = None
    outcome = "unknown"
    if gold is not None:  # the import only then: an import statement costs a lookup on every trace
        from toolscore_core import evaluate

        record = evaluate(Path(gold), trace, plugin_manager=pm).to_dict()
        reasons = outcome_reasons(record)
        evaluation = evaluation_summary(record, reasons)
        outcome = "fail" if reasons else "pass"
    task_id = Path(gold).stem if gold is not None else None
    return calls_run(calls, trace.final_answer, trace.source_format == OTLP_FORMAT, source, run_id=run_id,
                     trace_id=trace_id, span_id=span_id, outcome=outcome, task_id=task_id, evaluation=evaluation)


def calls_run(calls: list[dict[str, Any]], final_answer: str | None, span_source: bool, source: SourceRef, *,
              run_id: str, trace_id: str | None, span_id: str | None, outcome: str = "unknown",
              task_id: str | None = None, evaluation: dict[str, Any] | None = None) -> RunInput:
    """The RunInput of a trace's calls (:func:`trace_calls`' dicts) and answer, scored or not: the
    part of :func:`trace_run` after the Trace, for a reader that makes none (``plain_trace``)."""
    # The run's other redacted values (arm, study, error, prompt, usage, price, server) are
    # unknown here: these are the strings of its _redactable values.
    prepared = clean_prepared(calls, [run_id, task_id, source.name, final_answer, evaluation])
    return trace_run_input(run_id, source, outcome, task_id, final_answer, calls, evaluation, trace_id,
                           span_source, span_id, prepared)


# --- all sources ----------------------------------------------------------------------------------------


@attrs.define
class Sources:
    """The sources of one export, read in the order given; :attr:`stats` fills in as they are read."""

    paths: list[Path]
    trace_format: str | None = None
    gold: str | None = None
    pm: Any = None
    on_torn: Callable[[Any], None] | None = None
    workers: int | None = None  # processes for runs files (None or 0: automatic, 1: none)
    per_trace: bool = False  # one run per trace id of an OTLP source (see per_trace)
    stats: list[SourceStats] = attrs.field(factory=list)
    # each path's os.stat made by the caller just before (None: none made; see SeenPaths.earlier_info)
    stat_results: list[os.stat_result | None] | None = None
    on_result: Callable[[], None] | None = None  # called as each worker's result comes back (progress)
    _held: dict[int, bytes] = attrs.field(factory=dict, init=False)  # small trace files' bytes, by source place

    def __iter__(self) -> Iterator[RunInput | dict[str, Any] | EncodedRecords]:
        """Each run as a RunInput, except run rows: each its record, or (read by workers) blocks of
        encoded records."""
        seen = SeenPaths()
        kinds, sizes, hashes = [], [], []
        self._held, held = {}, 0
        given = self.stat_results
        known = given if given is not None and len(given) == len(self.paths) else [None] * len(self.paths)
        for index, path in enumerate(self.paths):
            twin, info = seen.earlier_info(path, known[index])
            if twin is not None:
                raise InputError(f"is given twice (also as {twin})", file=path, hint="Name each source file once")
            kind, size, raw = look_at(path, info)
            kinds.append(kind)
            sizes.append(size)
            hashes.append(hashlib.sha256(raw).hexdigest() if raw is not None else None)
            if raw is not None and kind == TRACE and held + size <= CACHE_BYTES:
                self._held[index] = raw  # memory stays bounded: past the budget a trace file is read again
                held += size
        row_paths = [p for p, k in zip(self.paths, kinds, strict=True) if k == RUN_ROW]
        pooled_traces = 0 if self.per_trace else kinds.count(TRACE)  # --per-trace sources: see per_trace_pool
        count = choose_workers(self.workers, sum(n for n, k in zip(sizes, kinds, strict=True) if k == RUN_ROW),
                               pooled_traces, self._per_trace_bytes(kinds, sizes))
        # runs files the workers' first pass reads are hashed as the driver cuts them (latest_lines)
        cut_hashes = count > 1 and bool(row_paths) and _fast_loads() is not None
        self.stats = [SourceStats(path=str(p), kind=k, sha256="" if cut_hashes and k == RUN_ROW else h or file_sha256(p),
                                  size=n, format=RUN_ROW if k == RUN_ROW else EVALUATION_KIND if k == RECEIPT else None)
                      for p, k, n, h in zip(self.paths, kinds, sizes, hashes, strict=True)]

        def torn(line: Any) -> None:
            for stat in self.stats:
                if Path(stat.path) == line.file:
                    stat.torn_line = line.line
            if self.on_torn is not None:
                self.on_torn(line)

        with contextlib.ExitStack() as stack:
            workers = None
            if count > 1 and (row_paths or pooled_traces or self._per_trace_bytes(kinds, sizes)):
                from toolscore_export.trace_batches import TraceContext

                if self._per_trace_bytes(kinds, sizes):
                    _import_trace_readers()

                workers = stack.enter_context(Workers(count, TraceContext(self.trace_format, self.gold, self.pm),
                                                      on_result=self.on_result))
            yield from self._runs(kinds, row_paths, torn, workers)

    def _per_trace_bytes(self, kinds: list[str], sizes: list[int]) -> int:
        """The bytes of the trace sources workers read trace by trace (:mod:`toolscore_export.per_trace_pool`)."""
        if not self.per_trace:
            return 0
        from toolscore_export.per_trace_pool import MIN_BYTES

        return sum(n for n, k in zip(sizes, kinds, strict=True) if k == TRACE and n >= MIN_BYTES)

    def _runs(self, kinds: list[str], row_paths: list[Path], torn: Callable[[Any], None],
              workers: Workers | None) -> Iterator[RunInput | dict[str, Any] | EncodedRecords]:
        latest = latest_lines(row_paths, torn, workers, quick=True) if row_paths else LatestRows()
        for path, stat in zip(self.paths, self.stats, strict=True):
            if not stat.sha256:  # a runs file hashed by its cut
                stat.sha256 = latest.sha256.get(row_paths.index(path)) or file_sha256(path)
        try:
            yield from self._records(kinds, row_paths, workers, latest)
        except Exception:
            first = first_pass_error(row_paths) if latest.unchecked else None
            if first is not None:  # the serial first pass's error comes before any other
                raise first from None
            raise

    def _records(self, kinds: list[str], row_paths: list[Path], workers: Workers | None,
                 latest: LatestRows) -> Iterator[RunInput | dict[str, Any] | EncodedRecords]:
        run_ids = RunIds()
        traces: list[tuple[int, Path, SourceStats]] = []  # consecutive trace files, for the workers
        for index, (path, kind, stat) in enumerate(zip(self.paths, kinds, self.stats, strict=True)):
            if kind == TRACE and workers is not None and not self.per_trace:
                traces.append((index, path, stat))
                continue
            if traces:
                yield from self._traces(traces, run_ids, workers)
                traces = []
            if kind == RUN_ROW and workers is not None:
                index = row_paths.index(path)
                lines, attempts = latest.by_line(index)
                for block in encoded_rows(path, stat.sha256, lines, attempts, workers, stat, latest.spans.get(index)):
                    stat.records += block.count
                    yield block
                continue
            if kind == RUN_ROW:  # unique already: one record per cell
                for record in records_from_rows(path, row_paths.index(path), stat.sha256, latest, stat):
                    stat.records += 1
                    yield record
                continue
            items: Iterator[RunInput]
            if kind == RECEIPT:
                items = receipt_inputs(path, stat.sha256, stat)
            elif self.per_trace:
                from toolscore_export.per_trace import per_trace_inputs

                done = 0
                if workers is not None:
                    given = yield from self._per_trace_pooled(path, stat, index, run_ids, workers)
                    if given is None:
                        continue
                    done = given
                items = iter(per_trace_inputs(path, stat.sha256, stat, trace_format=self.trace_format,
                                              gold=self.gold, pm=self.pm, raw=self._held.pop(index, None)))
                for _ in range(done):  # given by the workers already: the serial path goes on after them
                    next(items, None)
            else:
                items = iter([trace_input(path, stat.sha256, stat, trace_format=self.trace_format, gold=self.gold,
                                          pm=self.pm, raw=self._held.pop(index, None))])
            for item in items:
                if item.run_id in run_ids:  # two trace files of the same name, in two folders
                    item = attrs.evolve(item, run_id=f"{item.run_id}@{stat.sha256[:12]}")
                if item.run_id in run_ids:
                    raise InputError(f"holds run {item.run_id!r} a second time", file=path,
                                     hint="Export each run once")
                run_ids.add(item.run_id)
                stat.records += 1
                yield item
        if traces:
            yield from self._traces(traces, run_ids, workers)

    def _per_trace_pooled(self, path: Path, stat: SourceStats, index: int, run_ids: RunIds,
                          workers: Workers) -> Generator[EncodedRecords, None, int | None]:
        """A large JSON Lines OTLP source's records by the workers; returns how many they gave when the
        serial path must go on from there (0: the whole source), None when they gave them all
        (:mod:`toolscore_export.per_trace_pool`)."""
        from toolscore_export.per_trace import is_line_source
        from toolscore_export.per_trace_pool import MIN_BYTES, pooled_records

        if stat.size < MIN_BYTES or not is_line_source(path, self._held.get(index), self.trace_format):
            return 0
        stat.format = OTLP_FORMAT
        pooled = pooled_records(path, stat.sha256, workers, run_ids)
        while True:
            try:
                block = next(pooled)
            except StopIteration as stop:
                return stop.value
            stat.records += block.count
            yield block

    def _traces(self, files: list[tuple[int, Path, SourceStats]], run_ids: RunIds,
                workers: Workers | None) -> Iterator[EncodedRecords]:
        """Consecutive trace files read by the workers, a batch of files per task (see trace_batches)."""
        from toolscore_export.trace_batches import encoded_traces

        assert workers is not None  # only gathered when there are workers
        yield from encoded_traces(files, run_ids, self._held, workers)


def _import_trace_readers() -> None:
    """Import what the workers read OTLP traces with before they are forked, so they share it.

    Why: imported in each worker instead, the adapters' span readers and the record builder were
    about 2.5 MiB of each worker's own memory (1 GB of OTLP traces: 15 MiB of each worker's PSS).
    Without the otel adapter nothing is imported here: reading the source says so, as ever."""
    from toolscore_core.kernel import readlimits  # noqa: F401 (imported to be shared)
    from toolscore_export.per_trace import otel_modules

    try:
        otel_modules()
        from toolscore_export import per_trace_pool, plain_trace  # noqa: F401
    except (ImportError, InputError):
        return


__all__ = ["RECEIPT", "RUN_ROW", "TRACE", "LatestRows", "SourceStats", "Sources", "detect_kind", "evaluation_summary",
           "latest_lines", "outcome_reasons", "run_input_from_receipt", "run_input_from_row"]
