"""The output is flushed to disk as it is written (a flush started every ``WRITE_BEHIND_BYTES``, in a
thread, one at a time), not all at the last fsync: the flushes happen where they should, the file
waits for one before it closes, they change no byte of the output or its hash, and a flush that
fails is the export's clear error, with no partial file left behind."""

from __future__ import annotations

import errno
import hashlib
import io
import itertools
import json
import os
import threading
import time

import pytest

from toolscore_core import InputError
from toolscore_export import export, export_runs
from toolscore_export.canonical import file_sha256


def test_flushes_follow_the_bytes_written_one_at_a_time(tmp_path, monkeypatch):
    path = tmp_path / "out.jsonl"
    hashed = export._HashedFile(path)
    seen: list[tuple[int, int]] = []  # (bytes the flush was started for, the file's size as it ran)
    running = threading.Lock()
    overlapping: list[int] = []

    def flush(fd: int) -> None:
        if not running.acquire(blocking=False):
            overlapping.append(hashed.synced)  # (an assert here would only be printed by the thread)
            return
        try:
            seen.append((hashed.synced, os.fstat(fd).st_size))
            time.sleep(0.01)  # slower than the writes: some steps find it still running
            os.fdatasync(fd)
        finally:
            running.release()

    monkeypatch.setattr(export, "WRITE_BEHIND_BYTES", 1000)
    monkeypatch.setattr(export, "_flush_data", flush)
    pieces = [b"x" * size + b"\n" for size in (10, 999, 1, 2500, 0, 700, 300, 5000, 42) * 20]
    with io.BufferedWriter(hashed, buffer_size=512) as stream:
        for piece in pieces:
            stream.write(piece)
            time.sleep(0.001)
    data = path.read_bytes()
    assert data == b"".join(pieces)
    assert hashed.hexdigest(len(data)) == hashlib.sha256(data).hexdigest()
    assert len(seen) >= 3 and not overlapping, (seen, overlapping)
    starts = [0] + [start for start, _ in seen]
    assert all(later - earlier >= 1000 for earlier, later in itertools.pairwise(starts))  # a step apart
    assert all(size >= start for start, size in seen)  # a flush covers bytes already written


def test_the_file_closes_only_after_its_flush(tmp_path, monkeypatch):
    done: list[int] = []

    def slow(fd: int) -> None:
        time.sleep(0.3)
        os.fdatasync(fd)  # fails (EBADF) if the file were closed under it
        done.append(fd)

    monkeypatch.setattr(export, "WRITE_BEHIND_BYTES", 100)
    monkeypatch.setattr(export, "_flush_data", slow)
    hashed = export._HashedFile(tmp_path / "out.jsonl")
    hashed.write(b"y" * 150)
    hashed.close()
    assert len(done) == 1 and hashed.closed


def test_a_flush_error_is_raised_by_the_next_step_or_the_finish(tmp_path, monkeypatch):
    def failing(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(export, "WRITE_BEHIND_BYTES", 100)
    monkeypatch.setattr(export, "_flush_data", failing)
    hashed = export._HashedFile(tmp_path / "finish.jsonl")
    hashed.write(b"y" * 150)
    with pytest.raises(OSError, match=os.strerror(errno.ENOSPC)):
        hashed.finish_flushing()
    hashed.finish_flushing()  # raised once
    hashed.close()
    later = export._HashedFile(tmp_path / "next.jsonl")
    later.write(b"y" * 150)
    later._flushing.join()
    with pytest.raises(OSError, match=os.strerror(errno.ENOSPC)):
        later.write(b"z" * 150)  # the next step finds the error
    later.close()


def test_an_export_is_the_same_bytes_with_flushes_between(tmp_path, make_row, monkeypatch):
    runs = tmp_path / "runs.jsonl"
    rows = [make_row(task=f"t{i}", final_answer="caf\u00e9 " * (i % 7)).to_dict() for i in range(300)]
    runs.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    plain = export_runs([runs], tmp_path / "plain.jsonl", workers=1)
    seen: list[int] = []
    real = os.fdatasync
    monkeypatch.setattr(export, "WRITE_BEHIND_BYTES", 4096)
    monkeypatch.setattr(export, "_flush_data", lambda fd: (seen.append(fd), real(fd)))
    for workers, least in ((1, 2), (2, 1)):  # (a flush is skipped while one runs; workers write a chunk at once)
        out = tmp_path / f"flushed-{workers}.jsonl"
        seen.clear()
        result = export_runs([runs], out, workers=workers)
        assert out.read_bytes() == (tmp_path / "plain.jsonl").read_bytes()
        assert result.manifest["output"]["sha256"] == plain.manifest["output"]["sha256"] == file_sha256(out)
        assert len(seen) >= least, f"{workers} worker(s): {len(seen)} flushes of {out.stat().st_size:,} bytes"


def test_a_failed_flush_is_a_clear_error_and_leaves_no_partial_file(tmp_path, make_row, monkeypatch):
    runs = tmp_path / "runs.jsonl"
    runs.write_text("".join(json.dumps(make_row(task=f"t{i}").to_dict()) + "\n" for i in range(100)),
                    encoding="utf-8")
    out = tmp_path / "records.jsonl"
    out.write_text("the old output\n", encoding="utf-8")

    def failing(fd: int) -> None:
        time.sleep(0.5)  # still running when the last record is written: the finish raises it
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(export, "WRITE_BEHIND_BYTES", 2048)
    monkeypatch.setattr(export, "_flush_data", failing)
    with pytest.raises(InputError) as caught:
        export_runs([runs], out, workers=1)
    assert "cannot write the records" in caught.value.message and os.strerror(errno.EIO) in caught.value.message
    assert out.read_text(encoding="utf-8") == "the old output\n"  # untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["records.jsonl", "runs.jsonl"]  # no partial file
