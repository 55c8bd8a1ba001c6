"""Durable, append-only JSON Lines files: write a line so a crash cannot lose it, read back.

A study may run for hours and cost money, so every line it writes must survive a crash the
moment the write returns, and a crash in the middle of a write must never cost the lines
before it. The rules, and what each one answers:

- **One ``write()`` per line on an ``O_APPEND`` descriptor, then ``fsync``.** The kernel
  places every append at the current end of the file, so two processes appending to the
  same file (two studies, or a study and a retry) never overwrite each other, and a line
  is on disk before the caller hears it was written.
- **An advisory lock (``flock``) around each append and around a repair**, so a repair in
  one process can never cut a line another process is appending at that moment. (POSIX
  calls throughout: ``flock``, ``pread``, ``O_APPEND`` semantics.)
- **A torn last line is moved, never deleted.** A crash mid-write leaves a partial last
  line (no newline, or bytes that do not parse, such as the NULs some filesystems leave
  after a power cut). :func:`repair_tail` appends those bytes to a sidecar file
  (``<file>.torn``), fsyncs it, and only then truncates the file to its last complete line:
  a crash between the two steps leaves the bytes in both places, never in neither.
  A last line that parses but lacks its newline (a hand edit) is complete: it only gets
  its newline.
- **Readers stream.** :func:`iter_json_objects` holds one line at a time (plus the one
  before it, to know which line is the last), so a 1 GB file reads in constant memory. A
  torn last line is skipped and reported to a callback; a bad line anywhere else is an
  :class:`InputError` naming the file and the line, because it means the file was
  damaged or edited, and silently skipping it would change the results.

The first half of the module knows nothing about what the lines mean; the second half is
the runs file built on it: :class:`RunWriter`, :func:`read_runs`, and the two questions a
study and its readers ask of a file, :func:`completed_cells` (what resume skips) and
:func:`latest_rows` (one row per cell). The row itself is :mod:`toolscore_core.kernel.runs`.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs

from toolscore_core.kernel import readlimits
from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.files import not_a_file, numbered_lines, symlink_loop
from toolscore_core.kernel.runs import DONE_STATUSES, RunRow, validate_run_row

TORN_SUFFIX = ".torn"
_CHUNK = 64 * 1024
_BOM = b"\xef\xbb\xbf"

@attrs.frozen(slots=True)
class TornLine:
    """A partial last line: where it was, how long, why it is torn and where its bytes went.

    ``moved_to`` is the sidecar file for a repair (:func:`repair_tail`) and ``None`` when a
    reader only skipped the line (:func:`iter_json_objects` never changes a file).
    """

    file: Path
    line: int  # 1-based line number of the torn line
    offset: int  # byte offset where it starts; the repaired file's new size
    size: int  # its length in bytes
    reason: str
    moved_to: Path | None = None

    def describe(self) -> str:
        """One sentence for a person (the CLI prints it once)."""
        where = f"{self.file}, line {self.line}"
        if self.moved_to is None:
            return f"{where}: skipped a torn last line ({self.size} bytes, {self.reason})."
        return (f"{where}: moved a torn last line ({self.size} bytes, {self.reason}) to {self.moved_to}; "
                "the file now ends at its last complete line.")


def sidecar_path(path: str | Path) -> Path:
    """Where torn bytes of ``path`` are kept: the same name with ``.torn`` appended."""
    p = Path(path)
    return p.with_name(p.name + TORN_SUFFIX)


def decode_line(raw: bytes, *, file: Path, number: int) -> Any:
    """Parse one line (bytes, newline optional) as JSON; InputError naming the line otherwise.

    With orjson installed a line it accepts is taken as it reads it (strict JSON, so the
    same values); anything it refuses (a BOM, NaN, a lone surrogate, deep nesting, bad
    UTF-8), and any line with an integer it would turn into a float, goes to the standard
    reader, which decides and words the error.
    """
    fast = readlimits.fast_json()
    if fast and not readlimits.may_hold_long_int(raw):
        try:
            return fast.loads(raw)
        except (fast.JSONDecodeError, RecursionError):
            pass
    if number == 1 and raw.startswith(_BOM):
        raw = raw[len(_BOM):]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"line {number} is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})",
            file=file, location=f"line {number}", hint="Save the file as UTF-8") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"line {number} is not valid JSON ({exc.msg})", file=file,
                         location=f"line {number}, column {exc.colno}",
                         expected="one JSON object per line (JSON Lines)") from None
    except RecursionError:
        raise InputError(f"line {number} is nested too deeply to read", file=file,
                         location=f"line {number}") from None


def _parses(raw: bytes, file: Path, number: int) -> tuple[bool, str]:
    try:
        decode_line(raw, file=file, number=number)
    except InputError as exc:
        return False, why_torn(exc)
    return True, ""


def why_torn(error: InputError, raw: bytes | None = None) -> str:
    """Why a last line that :func:`decode_line` refused is taken as torn, in a few words for
    :class:`TornLine` (with ``raw``, whether it also lacks its newline).

    A line nested past what the parsers can read (over a thousand levels) is said so, not
    "not valid JSON": it may well be valid, and the user should not go looking for a typo."""
    if "UTF-8" in error.message:
        why = "not valid UTF-8"
    elif "nested too deeply" in error.message:
        why = "nested too deeply to read"
    else:
        why = "not valid JSON"
    return why if raw is None or raw.endswith(b"\n") else f"no trailing newline, {why}"


@contextmanager
def _locked(fd: int) -> Iterator[None]:
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


def _write_all(fd: int, data: bytes) -> None:
    """``os.write`` may write less than asked (a full disk, a signal); finish or raise."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _last_line_start(fd: int, size: int) -> int:
    """Offset of the first byte of the last line (a final newline belongs to the line before it)."""
    end = size - 1 if os.pread(fd, 1, size - 1) == b"\n" else size
    position = end
    while position > 0:
        step = min(_CHUNK, position)
        chunk = os.pread(fd, step, position - step)
        newline = chunk.rfind(b"\n")
        if newline >= 0:
            return position - step + newline + 1
        position -= step
    return 0


def _line_number(fd: int, offset: int) -> int:
    """1-based number of the line starting at ``offset`` (counts newlines before it, in chunks)."""
    count, position = 0, 0
    while position < offset:
        chunk = os.pread(fd, min(_CHUNK, offset - position), position)
        count += chunk.count(b"\n")
        position += len(chunk)
    return count + 1


def repair_tail(fd: int, file: Path, *, check_first: Callable[[Any], str | None] | None = None) -> TornLine | None:
    """Make the file behind ``fd`` end with a complete line; return what was moved, if anything.

    ``check_first`` looks at the first line's parsed value (``None`` when it does not parse)
    and returns a reason to refuse the file (so a study never appends to, or repairs, a file that is not one of its own), or
    ``None``. The caller's descriptor must be open for reading and writing; the lock is taken here.
    """
    with _locked(fd):
        size = os.fstat(fd).st_size
        if size == 0:
            return None
        if check_first is not None:
            _check_first_line(fd, file, size, check_first)
        end = size
        limit = readlimits.max_file_bytes()
        while True:  # the last line that is not blank, as the reader sees it
            start = _last_line_start(fd, end)
            if end - start > limit:  # read whole to judge it: held to the cap every line of a file is
                raise readlimits.line_too_long(file, _line_number(fd, start))
            line = os.pread(fd, end - start, start)
            if line.strip() or start == 0:
                break
            end = start
        if not line.strip():
            return None
        ok, why = _parses(line, file, 1 if start == 0 else 2)  # the number only matters for a BOM
        if ok:
            if os.pread(fd, 1, size - 1) != b"\n":  # complete but for its newline (a hand edit)
                _write_all(fd, b"\n")
                os.fsync(fd)
            return None
        tail = os.pread(fd, size - start, start)  # the torn line and any blank lines after it
        reason = why if line.endswith(b"\n") else f"no trailing newline, {why}"
        number = _line_number(fd, start)  # reads the file once, so only for a real repair
        sidecar = sidecar_path(file)
        new_sidecar = not sidecar.exists()
        side_fd = os.open(sidecar, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            _write_all(side_fd, tail if tail.endswith(b"\n") else tail + b"\n")
            os.fsync(side_fd)
        finally:
            os.close(side_fd)
        if new_sidecar:
            _fsync_directory(sidecar.parent)
        os.ftruncate(fd, start)  # only once the bytes are safe in the sidecar
        os.fsync(fd)
        return TornLine(file=file, line=number, offset=start, size=len(tail), reason=reason, moved_to=sidecar)


def _check_first_line(fd: int, file: Path, size: int, check: Callable[[Any], str | None]) -> None:
    limit = readlimits.max_file_bytes()
    pieces: list[bytes] = []  # the first line in chunks: joined once (adding each to the last copied them all)
    read = 0
    while read < size:
        chunk = os.pread(fd, _CHUNK, read)
        if not chunk:
            break
        newline = chunk.find(b"\n")
        if newline >= 0:
            pieces.append(chunk[: newline + 1])
            break
        pieces.append(chunk)
        read += len(chunk)
        if read > limit:  # a first line no reader would read whole
            raise readlimits.line_too_long(file, 1)
    first = b"".join(pieces)
    if not first.strip():
        return
    try:
        value = decode_line(first, file=file, number=1)
    except InputError:
        if not first.endswith(b"\n"):  # the only line, and torn: the repair will move it
            return
        value = None  # unreadable: judged like a line holding nothing usable
    refusal = check(value)
    if refusal is not None:
        raise InputError(refusal, file=file, location="line 1")


class AppendOnlyFile:
    """An ``O_APPEND`` descriptor that writes whole lines durably; repairs a torn tail on open.

    :param path: the file; created if missing (its directory must exist).
    :param check_first: see :func:`repair_tail`.
    """

    def __init__(self, path: str | Path, *, check_first: Callable[[Any], str | None] | None = None) -> None:
        self.path = Path(path)
        if not self.path.parent.is_dir():
            raise InputError("its directory does not exist", file=self.path, hint="Create the directory first")
        if self.path.is_dir():
            raise InputError("is a directory, not a file", file=self.path)
        created = not self.path.exists()
        try:
            self._fd: int | None = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as exc:
            raise InputError(f"cannot be opened for writing ({exc.strerror})", file=self.path) from None
        try:
            if created:
                _fsync_directory(self.path.parent)
            self.repair: TornLine | None = repair_tail(self._fd, self.path, check_first=check_first)
        except BaseException:
            self.close()
            raise

    def write_line(self, data: bytes) -> None:
        """Append ``data`` (one line, without its newline) and fsync before returning."""
        if self._fd is None:
            raise ValueError(f"{self.path} is closed")
        if b"\n" in data:
            raise ValueError("a JSON Lines line cannot contain a raw newline")
        with _locked(self._fd):
            _write_all(self._fd, data + b"\n")
            os.fsync(self._fd)

    def write_lines(self, lines: Iterable[bytes]) -> None:
        """Append several lines in one ``write`` and one fsync (bulk scoring writes a shard's
        rows at once: an fsync per row would cost more than scoring a small trace). A crash
        keeps a prefix of them, the last one possibly torn, which the next open repairs."""
        if self._fd is None:
            raise ValueError(f"{self.path} is closed")
        batch = list(lines)
        if any(b"\n" in line for line in batch):
            raise ValueError("a JSON Lines line cannot contain a raw newline")
        if not batch:
            return
        with _locked(self._fd):
            _write_all(self._fd, b"".join(line + b"\n" for line in batch))
            os.fsync(self._fd)

    @property
    def closed(self) -> bool:
        return self._fd is None

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)


def _fsync_directory(directory: Path) -> None:
    """Make a new file's directory entry durable too (a no-op where directories cannot be opened)."""
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory descriptors
        return
    try:
        os.fsync(dir_fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(dir_fd)


def iter_json_objects(path: str | Path, *, on_torn: Callable[[TornLine], None] | None = None,
                      what: str = "a JSON object") -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, object)`` for each non-blank line, streaming.

    A last line that does not decode or parse is torn: skipped and passed to ``on_torn``.
    Any other bad line, or a line that is valid JSON but not an object, is an InputError.
    ``what`` names the expected object in that error (e.g. "a run row").
    """
    file = Path(path)
    try:
        handle = file.open("rb")
    except FileNotFoundError:  # or a link to a missing file: said so
        raise not_a_file(file) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", file=file) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise symlink_loop(file) from None
        raise InputError(f"cannot be read ({exc.strerror})", file=file) from None
    with handle:
        held: tuple[int, int, bytes] | None = None  # (number, offset, raw) of the line before
        offset = 0
        for number, raw in numbered_lines(handle, file):
            if raw.strip():
                if held is not None:
                    yield _object(held[2], file, held[0], what)
                held = (number, offset, raw)
            offset += len(raw)
        if held is None:
            return
        number, start, raw = held
        try:
            value = decode_line(raw, file=file, number=number)
        except InputError as exc:
            if on_torn is not None:
                on_torn(TornLine(file=file, line=number, offset=start, size=len(raw), reason=why_torn(exc, raw)))
            return
        yield _checked(value, file, number, what)


def _object(raw: bytes, file: Path, number: int, what: str) -> tuple[int, dict[str, Any]]:
    return _checked(decode_line(raw, file=file, number=number), file, number, what)


def _checked(value: Any, file: Path, number: int, what: str) -> tuple[int, dict[str, Any]]:
    if not isinstance(value, dict):
        kind = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(type(value), "a number")
        raise InputError(f"line {number} is {kind}, not {what}", file=file, location=f"line {number}",
                         expected=f"{what} (a JSON object) on every line")
    return number, value


# --- the runs file ------------------------------------------------------------------------------------------


def _first_line_is_runs(value: Any) -> str | None:
    if isinstance(value, dict) and "run_record_version" in value:
        return None
    return "is not a run file (its first line is not a run row), so no row is appended to it"


class RunWriter:
    """Appends run rows to a JSONL file, one per line, each on disk before ``write`` returns.

    Opening (the constructor) repairs a torn last line left by a crash: its bytes go to
    ``<file>.torn`` and the file ends at its last complete line; :attr:`repair` says what
    was moved (None: nothing), for the caller to report. The file is opened for appending
    only, so another study writing to it at the same time never loses a line. A file whose
    first line is not a run row is refused before anything is written.

    Use it as a context manager, or call :meth:`close`.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._file = AppendOnlyFile(self.path, check_first=_first_line_is_runs)
        self.repair: TornLine | None = self._file.repair
        self.rows_written = 0

    def write(self, row: RunRow | Mapping[str, Any]) -> None:
        """Validate ``row`` (a RunRow or its dict) and append it durably."""
        data = (row if isinstance(row, RunRow) else RunRow.from_dict(dict(row))).to_dict()
        validate_run_row(data)  # a row that would not read back is never written
        try:
            line = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        except (TypeError, ValueError) as exc:
            raise InputError(f"run row {data['cell_id']!r} cannot be written as JSON ({exc})",
                             expected="JSON values only (no NaN, infinity or Python objects)") from None
        self._file.write_line(line.encode("utf-8"))
        self.rows_written += 1

    def close(self) -> None:
        self._file.close()

    @property
    def closed(self) -> bool:
        return self._file.closed

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def read_runs(path: str | Path, *, on_torn: Callable[[TornLine], None] | None = None) -> Iterator[RunRow]:
    """Stream the rows of a runs file, one line in memory at a time.

    An empty file has no rows. A torn last line (a crash mid-write, or a writer still busy)
    is skipped and passed to ``on_torn``; a bad line anywhere else, invalid UTF-8, or a
    line that is not a run row object is an InputError naming the file and the line.
    """
    file = Path(path)
    for number, data in iter_json_objects(file, on_torn=on_torn, what="a run row"):
        yield RunRow.from_dict(data, file=file, line=number)


def _paths(paths: str | Path | Iterable[str | Path]) -> list[Path]:
    return [Path(paths)] if isinstance(paths, (str, Path)) else [Path(p) for p in paths]


def latest_rows(paths: str | Path | Iterable[str | Path], *,
                on_torn: Callable[[TornLine], None] | None = None) -> dict[str, RunRow]:
    """The last row of each cell across ``paths`` (read in the order given), by cell id.

    A retried or resumed cell appears once, as its latest row; the dict is ordered by where
    each winning row was written.
    """
    latest: dict[str, RunRow] = {}
    for path in _paths(paths):
        for row in read_runs(path, on_torn=on_torn):
            latest.pop(row.cell_id, None)
            latest[row.cell_id] = row
    return latest


def completed_cells(paths: str | Path | Iterable[str | Path], *,
                    on_torn: Callable[[TornLine], None] | None = None) -> set[str]:
    """Cell ids a resumed study skips: those whose latest row is done (completed or limit_reached).

    A file that does not exist yet holds no finished cell (a first run resumes from nothing).
    Keeps only cell ids and statuses, not whole rows.
    """
    status: dict[str, str] = {}
    for path in _paths(paths):
        if not path.exists():
            continue
        for row in read_runs(path, on_torn=on_torn):
            status[row.cell_id] = row.status
    return {cell for cell, last in status.items() if last in DONE_STATUSES}


__all__ = [
    "TORN_SUFFIX",
    "AppendOnlyFile",
    "RunWriter",
    "TornLine",
    "completed_cells",
    "decode_line",
    "iter_json_objects",
    "latest_rows",
    "read_runs",
    "repair_tail",
    "sidecar_path",
    "why_torn",
]
