"""``export_runs(sources, output)``: sources in, records out, written so a crash leaves no half.

The records stream from the sources through the chosen exporter into a temporary file next
to the output (``.NAME.partial-PID``), which is fsynced and renamed over the output only
when the last record is written. The old manifest is removed just before that rename and
the new one is written (atomically) just after it, so no moment exists at which an output
sits next to a manifest that does not describe it. An exception or Ctrl-C deletes the
temporary file; the old output, if any, is untouched.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import io
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import attrs

from toolscore_export.canonical import file_sha256, loads_prepared
from toolscore_export.exporters import SUBJECT
from toolscore_export.manifest import build_manifest, manifest_path, manifest_text
from toolscore_export.parallel import EncodedRecords
from toolscore_export.record import build_record
from toolscore_export.same_file import FileId, file_id, file_info
from toolscore_export.sources import Sources

_PATH = type(Path())  # the concrete class Path() makes here (PosixPath, WindowsPath)


@attrs.frozen
class ExportResult:
    """What one export wrote: the output, its manifest, the record count and the manifest itself."""

    output: Path
    manifest_file: Path
    records: int
    manifest: dict[str, Any]


def find_format(fmt: str, pm: Any = None) -> Any:
    """The exporter for ``--format fmt`` (subject ``run-record``); a typo lists what is installed."""
    from toolscore_core import InputError, exporter_formats, find_exporter

    try:
        return find_exporter(SUBJECT, fmt, pm=pm)
    except InputError as exc:
        formats = exporter_formats(SUBJECT, pm=pm)
        raise InputError(f"--format {fmt!r} is not an installed run-record format",
                         expected=f"one of {', '.join(formats)}" if formats else exc.expected,
                         hint="A third-party format is an exporter of subject 'run-record'") from None


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _check_output(output: Path, sources: list[Path]) -> list[os.stat_result | None] | None:
    """Raise when ``output`` cannot be written or is one of ``sources``; return the ``os.stat`` of
    each source made for that (None: none was made, the output not existing yet), which the
    sources' reader uses instead of making its own."""
    from toolscore_core import InputError

    if not (output.parent if str(output.parent) else Path(".")).is_dir():
        raise InputError("its folder does not exist", file=output, hint="Create the folder first")
    if output.is_dir():
        raise InputError("is a folder, not a file", file=output)
    target = output.resolve() if output.exists() else None  # resolved once: an export may name many sources
    target_id = file_id(output) if target is not None else None  # a source of another inode is not resolved
    if target is None:
        return None
    infos = []
    for source in sources:
        info = file_info(source)
        infos.append(info)
        if _is_output_known(source, target, target_id, info):
            raise InputError("is also a source: the export would overwrite what it reads", file=output,
                             hint="Write the records to another file (-o)")
    return infos


def _is_output_known(source: Path, target: Path, target_id: FileId | None, info: os.stat_result | None) -> bool:
    """``source.exists() and may_be(source, target_id) and source.resolve() == target`` given ``info``,
    the ``os.stat`` of ``source`` made just before (None: it failed), so a source costs one ``stat``
    where that spelling takes two (``exists()`` is a ``stat`` too)."""
    ident = None if info is None else (info.st_dev, info.st_ino)
    if ident is None:  # missing or unreadable: as the rule spells it
        return source.exists() and source.resolve() == target
    return (target_id is None or ident == target_id) and source.resolve() == target


#: Written bytes the output may hold in the page cache before a flush to disk starts (see _HashedFile).
WRITE_BEHIND_BYTES = 16 << 20
_flush_data = getattr(os, "fdatasync", None)  # not on every platform: there the last fsync does it all


class _HashedFile(io.FileIO):
    """The output file, hashing its bytes as they are written, so the manifest's hash needs no
    second read of what may be gigabytes just written; and flushing them to disk as it goes.

    Only bytes written through :meth:`write`, in order, are hashed; anything else that could
    change what the file holds (a seek, a truncate, a write past this object) makes
    :meth:`hexdigest` answer None, and the file is then read back and hashed as before.

    Why flush as it goes: the export fsyncs the output before it renames it into place, and
    with every byte still in the page cache that last fsync waited for all of them: 0.3 s of
    a 300 MB export's 5.5 here, every core idle meanwhile. Each time :data:`WRITE_BEHIND_BYTES`
    more are written, a thread of its own flushes them (``fdatasync``) while this one goes on
    writing; the last fsync then has at most that much left (0.015 s, from 0.33). Why not in
    this thread: there the flushes held the driver longer in all than the fsync they spare
    (0.45 s a 300 MB export, up to 59 ms each) while the workers' results waited.

    One flush runs at a time, and the file waits for it before it closes (its descriptor must
    not be reused under it). A flush's error is raised by the next write or by
    :meth:`finish_flushing`: the kernel reports a failed write-back once, so the last fsync
    would not see it again.

    Why a thread is safe here: the export's workers are forked before its first record is
    written (``Sources`` starts them first), so no fork meets a flush.
    """

    def __init__(self, path: Path) -> None:
        super().__init__(path, "w")
        self._digest: Any = hashlib.sha256()
        self._hashed = 0
        self._in_order = True
        self.synced = 0  # the bytes written when the last flush started (in-order writes only)
        self._flushing: threading.Thread | None = None
        self._flush_error: OSError | None = None

    def write(self, data: Any) -> int:
        written = super().write(data)
        if written:
            self._digest.update(memoryview(data).cast("B")[:written])
            self._hashed += written
            if self._hashed - self.synced >= WRITE_BEHIND_BYTES and _flush_data is not None:
                self._flush_behind()
        return written if written is not None else 0

    def _flush_behind(self) -> None:
        """Start a flush of everything written so far, unless one still runs (the next write asks again)."""
        if self._flushing is not None:
            if self._flushing.is_alive():
                return
            self._flushing = None
            self._raise_flush_error()
        self.synced = self._hashed
        self._flushing = threading.Thread(target=self._flush, args=(self.fileno(),),
                                          name="toolscore-export-write-behind", daemon=True)
        self._flushing.start()

    def _flush(self, fd: int) -> None:
        try:
            _flush_data(fd)  # type: ignore[misc]  # set: the caller checked
        except OSError as exc:
            self._flush_error = exc

    def _raise_flush_error(self) -> None:
        error, self._flush_error = self._flush_error, None
        if error is not None:
            raise error

    def finish_flushing(self) -> None:
        """Wait for a flush still running; raise its error, if it had one."""
        if self._flushing is not None:
            self._flushing.join()
            self._flushing = None
        self._raise_flush_error()

    def close(self) -> None:
        if self._flushing is not None:
            self._flushing.join()  # (an error it had is the caller's to ask for: finish_flushing)
            self._flushing = None
        super().close()

    def seek(self, offset: int, whence: int = 0) -> int:
        self._in_order = False
        return super().seek(offset, whence)

    def truncate(self, size: int | None = None) -> int:
        self._in_order = False
        return super().truncate(size)

    def hexdigest(self, size: int) -> str | None:
        """The SHA-256 of the file's ``size`` bytes, if every one of them was hashed as written."""
        return self._digest.hexdigest() if self._in_order and self._hashed == size else None


def _ignore(records: int) -> None:
    """The progress callback of an export no one watches."""


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def export_runs(sources: Iterable[str | Path], output: str | Path, *, fmt: str = "aef", gold: str | Path | None = None,
                trace_format: str | None = None, pm: Any = None, on_torn: Callable[[Any], None] | None = None,
                workers: int | None = None, per_trace: bool = False,
                on_progress: Callable[[int], None] | None = None, **options: Any) -> ExportResult:
    """Export every run of ``sources`` to ``output`` in format ``fmt``, plus its manifest.

    ``sources`` are runs files, trace files (scored against ``gold`` when given; read as
    ``trace_format`` when named) and evaluation receipts, in any mix. ``on_torn`` hears of a
    torn last line of a runs file (skipped, like every reader of runs files skips it).
    ``options`` go to the exporter. Bad input is an InputError naming the file and line.
    ``workers``: processes that turn run rows into records (None or 0: automatic, one per
    CPU for large runs files or many trace files; 1: this process only); the output is the
    same byte for byte. ``per_trace``: one record per trace id of an OTLP source instead of
    one per file (:mod:`toolscore_export.per_trace`). ``on_progress`` is called with the records
    written so far, as they are written and as each worker's result comes back (a first pass
    writes none yet): :class:`toolscore_export.progress.ExportProgress` shows them.
    """
    from toolscore_core import InputError

    paths = [s if type(s) is _PATH else Path(s) for s in sources]  # a path given is not parsed again (~2 us)
    if not paths:
        raise InputError("no source file given", hint="Name one or more runs, trace or receipt files")
    out = Path(output)
    infos = _check_output(out, paths)
    if gold is not None and not Path(gold).is_file():
        from toolscore_core.kernel.files import not_a_file

        raise InputError(not_a_file(Path(gold)).message, file=gold,
                         hint="--gold names the gold file traces are scored against")
    exporter = find_format(fmt, pm)
    count = 0
    tell = on_progress if on_progress is not None else _ignore

    def worked() -> None:  # a worker's result came back
        tell(count)

    reader = Sources(paths, trace_format=trace_format, gold=str(gold) if gold is not None else None, pm=pm,
                     on_torn=on_torn, workers=workers, per_trace=per_trace, stat_results=infos,
                     on_result=worked if on_progress is not None else None)
    takes_encoded = bool(getattr(exporter, "takes_encoded", False))

    def records() -> Iterator[Any]:
        nonlocal count
        for run in reader:
            if isinstance(run, EncodedRecords):  # rows encoded by worker processes, in order
                count += run.count
                if takes_encoded:
                    yield run
                else:  # any other format gets the records themselves, as the serial path gives them
                    yield from (loads_prepared(line) for line in run.lines())
                tell(count)
                continue
            yield run if isinstance(run, dict) else build_record(run)  # a run row comes as its record
            count += 1
            tell(count)

    directory = out.parent if str(out.parent) else Path(".")
    temp = directory / f".{out.name}.partial-{os.getpid()}"
    try:
        hashed = _HashedFile(temp)
        with io.TextIOWrapper(io.BufferedWriter(hashed), encoding="utf-8", errors="backslashreplace",
                              newline="\n") as stream:  # what open(temp, "w", ...) builds, over a hashed file
            exporter.export(records(), stream, **options)
            stream.flush()
            hashed.finish_flushing()
            os.fsync(stream.fileno())
        size = temp.stat().st_size
        digest = hashed.hexdigest(size) or file_sha256(temp)
        manifest = build_manifest(fmt=exporter.format, sources=[s.to_dict() for s in reader.stats], output=out,
                                  output_sha256=digest, size=size, records=count, created_at=_now())
        manifest_file = manifest_path(out)
        with contextlib.suppress(FileNotFoundError):
            manifest_file.unlink()  # never leave the old manifest beside the new output
        os.replace(temp, out)
        _fsync_dir(directory)
    except OSError as exc:
        raise InputError(f"cannot write the records ({exc.strerror})", file=out) from None
    finally:
        with contextlib.suppress(OSError):
            temp.unlink()
    from toolscore_core.kernel.files import write_atomic

    write_atomic(manifest_file, manifest_text(manifest), what="the manifest")
    return ExportResult(output=out, manifest_file=manifest_file, records=count, manifest=manifest)


__all__ = ["ExportResult", "export_runs", "find_format"]
