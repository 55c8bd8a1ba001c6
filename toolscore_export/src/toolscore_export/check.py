"""``toolscore export validate FILE``: check a whole records file and its manifest.

Unreadable input (no such file, not a file) is an :class:`InputError` (exit 2). Anything
that shows the file or its manifest changed since export is a :class:`Problem`, and every
one is reported, each naming the line (or the manifest key) so a person can look at it:
a line that is not JSON, a record that fails :func:`validate_record`, a run id seen twice,
a manifest that is missing, edited, or does not match the file's bytes or record count.
The file is read one line at a time; a large one by worker processes, a chunk of lines each,
with the same report (:func:`_pooled`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import attrs

from toolscore_export.manifest import (
    MANIFEST_HASH_KEY,
    MANIFEST_SCHEMA,
    manifest_hash,
    manifest_path,
)

MAX_PROBLEMS = 50


@attrs.frozen
class Problem:
    """One sign of tampering: where (``line 3, $.run_id`` or ``manifest, $.output.sha256``) and what."""

    where: str
    message: str

    def describe(self) -> str:
        return f"{self.where}: {self.message}"


@attrs.frozen
class FileCheck:
    """The result of checking one records file: lines read, records valid, and every problem."""

    file: Path
    records: int
    problems: tuple[Problem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


#: A records file this large is checked by worker processes (about 1,400 records: 0.3 s of work).
POOL_MIN_BYTES = 4 << 20
#: Bytes of whole lines a worker checks at a time (about 350 records).
CHUNK_BYTES = 1 << 20

#: One line's verdict: its number, its problems and, when it holds a valid record, the run id.
LineVerdict = tuple[int, list[Problem], str | None]


def check_file(path: str | Path, *, require_manifest: bool = True,
               on_progress: Callable[[int], None] | None = None, workers: int | None = None) -> FileCheck:
    """Check every line of the records file at ``path`` and its manifest (see the module docstring).

    ``on_progress`` is called with the lines checked so far. ``workers``: processes that check
    lines (None or 0: one per CPU, at most four, for a file of :data:`POOL_MIN_BYTES` or more;
    1: this process only); the result is the same either way."""
    from toolscore_core import InputError
    from toolscore_core.kernel.files import not_a_file

    file = Path(path)
    if not file.is_file():
        raise not_a_file(file)
    tell = on_progress if on_progress is not None else _ignore
    digest = hashlib.sha256()
    tally = _Tally()
    number = 0
    try:
        count = _workers_for(workers, file.stat().st_size)
        verdicts = _serial(file, digest) if count == 1 else _pooled(file, digest, count)
        try:
            for number, problems, run_id in verdicts:
                tell(number - 1)
                if tally.add(number, problems, run_id):
                    if count > 1:  # the pool hashed the file ahead of the check: hash what the check read
                        digest = _digest_through(file, number)
                    break
        finally:
            verdicts.close()  # a pool stops at once
    except OSError as exc:
        raise InputError(f"cannot be read ({exc.strerror})", file=file) from None
    tell(number)
    problems = tally.problems + _manifest_problems(file, digest.hexdigest(), tally.records, require_manifest)
    return FileCheck(file=file, records=tally.records, problems=tuple(problems))


def line_verdict(number: int, raw: bytes) -> LineVerdict:
    """The verdict of line ``number`` (``raw``: its bytes, with its newline when it has one), by
    itself: what one line can tell (not JSON, cut, a failed schema or hash)."""
    from toolscore_core import InputError
    from toolscore_export.canonical import NOT_ORJSON_LINE, orjson_line
    from toolscore_export.validate import _validate

    if not raw.strip():
        return number, [Problem(f"line {number}", "is blank (a records file has one record per line)")], None
    try:
        text = raw.decode("utf-8")
        record = orjson_line(raw)  # the lines an export writes: read at a third of the cost, known prepared
        prepared = record is not NOT_ORJSON_LINE
        if not prepared:
            record = json.loads(text)
    except (UnicodeDecodeError, ValueError) as exc:
        return number, [Problem(f"line {number}", f"is not valid JSON ({type(exc).__name__})")], None
    except RecursionError:
        return number, [Problem(f"line {number}", "is nested too deeply to read, which no export writes")], None
    problems = [] if raw.endswith(b"\n") else [Problem(f"line {number}", "has no trailing newline (the file was cut)")]
    try:
        _validate(record, text, prepared=prepared)
    except InputError as exc:
        problems.append(Problem(f"line {number}, {exc.location}", exc.message))
        return number, problems, None
    return number, problems, record["run_id"]


@attrs.define
class _Tally:
    """The file's verdict, built line by line in file order: what only the whole file tells (a run
    id seen twice, the record count), and when to stop (:data:`MAX_PROBLEMS`)."""

    problems: list[Problem] = attrs.field(factory=list)
    records: int = 0
    seen: set[str] = attrs.field(factory=set)

    def add(self, number: int, problems: list[Problem], run_id: str | None) -> bool:
        """Take line ``number``'s verdict; True once there are enough problems to stop (counted at a
        valid record, as the check always has)."""
        self.problems.extend(problems)
        if run_id is None:
            return False
        self.records += 1
        if run_id in self.seen:
            self.problems.append(Problem(f"line {number}, $.run_id", f"run {run_id!r} appears twice"))
        self.seen.add(run_id)
        return len(self.problems) >= MAX_PROBLEMS


def _workers_for(requested: int | None, size: int) -> int:
    from toolscore_export.parallel import MAX_AUTO_WORKERS, can_fork, usable_cpus

    if not can_fork():
        return 1
    if requested:
        return requested
    return 1 if size < POOL_MIN_BYTES else max(1, min(usable_cpus(), MAX_AUTO_WORKERS))


def _serial(path: Path, digest: Any) -> Generator[LineVerdict, None, None]:
    from toolscore_core.kernel.files import numbered_lines

    with path.open("rb") as handle:
        for number, raw in numbered_lines(handle, path):
            digest.update(raw)
            yield line_verdict(number, raw)


def _pooled(path: Path, digest: Any, count: int) -> Generator[LineVerdict, None, None]:
    """The verdicts of every line, from ``count`` worker processes, in file order.

    Why workers: a record's check (the schema, every hash over the canonical JSON) costs about
    230 us in one process, so a gigabyte took minutes, and no line's check depends on another's:
    what does (a run id twice, the count, when to stop) is the driver's :class:`_Tally`. The driver
    cuts the file into chunks of whole lines and hashes it as it cuts (``parallel._spans``); a
    worker reads its chunk and returns the verdicts of its lines that have something to say."""
    from toolscore_export.parallel import Workers, _spans, raise_fields

    jobs = ((str(path), first, offset, size) for first, offset, size, _, _ in _spans(path, CHUNK_BYTES, digest))
    with Workers(count) as workers:
        for result in workers.ordered(check_chunk, jobs):
            if isinstance(result, dict):
                raise_fields(result)
            yield from result


def check_chunk(job: tuple[str, int, int, int]) -> list[LineVerdict] | dict[str, Any]:
    """A worker's part of :func:`_pooled`: the verdicts of ``size`` bytes of whole lines of the file
    ``path`` from ``offset``, the first being line ``first``; or the fields of the error reading them."""
    from toolscore_core import InputError
    from toolscore_export.parallel import error_fields

    path, first, offset, size = job
    try:
        with open(path, "rb") as handle:
            handle.seek(offset)
            data = handle.read(size)
    except OSError as exc:
        return error_fields(InputError(f"cannot be read ({exc.strerror})", file=path))
    return [line_verdict(first + index, raw) for index, raw in enumerate(_split_lines(data))]


def _split_lines(data: bytes) -> list[bytes]:
    """``data``'s lines as iterating a binary file gives them: each with its newline, only an
    unterminated last line without one."""
    lines = data.split(b"\n")
    last = lines.pop()  # after the last newline: empty, or a last line with no newline
    out = [line + b"\n" for line in lines]
    if last:
        out.append(last)
    return out


def _digest_through(path: Path, last: int) -> Any:
    """The SHA-256 object of lines 1 to ``last`` of the file: what a check that stops there read."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            digest.update(raw)
            if number == last:
                break
    return digest


def _ignore(lines: int) -> None:
    """The progress callback of a check no one watches."""


def _manifest_problems(file: Path, sha256: str, records: int, required: bool) -> list[Problem]:
    where = manifest_path(file)
    if not where.exists():
        return [Problem("manifest", f"{where.name} is missing (an interrupted export, or it was removed)")] \
            if required else []
    from toolscore_core.kernel.readlimits import MAX_NESTING, deeper_than, max_file_bytes

    try:
        size = where.stat().st_size
        if size > max_file_bytes():  # read whole to be parsed: held to the kernel's cap, as every file is
            return [Problem("manifest", f"{where.name} is {size / 1048576:,.1f} MB, more than Toolscore reads "
                                        "into memory at once (an export writes a few kB a source)")]
        text = where.read_text(encoding="utf-8")
        manifest = json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return [Problem("manifest", f"{where.name} cannot be read as JSON ({type(exc).__name__})")]
    except RecursionError:
        return [Problem("manifest", f"{where.name} is nested too deeply to read, which no export writes")]
    if not isinstance(manifest, dict) or manifest.get("schema") != MANIFEST_SCHEMA:
        return [Problem("manifest, $.schema", f"{where.name} is not a {MANIFEST_SCHEMA}")]
    if deeper_than(manifest, MAX_NESTING, text):  # a manifest is a few levels deep; its hash walks it
        return [Problem("manifest", f"{where.name} is nested more than {MAX_NESTING} levels deep, "
                                    "which no export writes")]
    problems = []
    try:
        whole = manifest_hash(manifest)
    except (ValueError, TypeError) as exc:  # a NaN or an infinity, which the standard parser reads
        from toolscore_export.validate import not_json_place

        where_in, why = not_json_place(manifest, exc)
        return [Problem(f"manifest, {where_in}", why)]
    if manifest.get(MANIFEST_HASH_KEY) != whole:
        problems.append(Problem(f"manifest, $.{MANIFEST_HASH_KEY}", "does not match the manifest (it was edited)"))
    output: dict[str, Any] = manifest["output"] if isinstance(manifest.get("output"), dict) else {}
    if output.get("sha256") != sha256:
        problems.append(Problem("manifest, $.output.sha256", "does not match the file's bytes (lines were changed, "
                                "added, removed or reordered)"))
    if output.get("records") != records:
        problems.append(Problem("manifest, $.output.records",
                                f"says {output.get('records')!r} records, the file holds {records} valid ones"))
    return problems


__all__ = ["FileCheck", "Problem", "check_file"]
