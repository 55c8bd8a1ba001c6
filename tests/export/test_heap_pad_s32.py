"""A worker's heap kept padded (``heap_pad``): where glibc is the C library the pad is set; every export
worker sets it as it starts, and so does the ``toolscore export`` command, but not ``export_runs`` for its
caller. (What the pad saves, page faults, is measured in ``bench/bench_heap_pad.py``: a count that moves
with the machine is no test.)"""

from __future__ import annotations

import os
import platform
import time
from pathlib import Path

import pytest

from toolscore_export import heap_pad
from toolscore_export import parallel as par

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"


@pytest.mark.skipif(not GLIBC, reason="the pad is glibc's malloc setting")
def test_glibc_takes_the_pad():
    assert heap_pad.pad_the_heap() is True


def test_nothing_is_asked_where_the_c_library_is_not_glibc(monkeypatch):
    monkeypatch.setattr(platform, "libc_ver", lambda *args, **kwargs: ("musl", "1.2"))
    assert heap_pad.pad_the_heap() is False
    monkeypatch.setattr(platform, "libc_ver", lambda *args, **kwargs: ("glibc", "2.36"))
    monkeypatch.setattr(platform, "system", lambda: "Darwin")
    assert heap_pad.pad_the_heap() is False


def _recorded(folder: Path):
    def pad_the_heap(pad: int = heap_pad.PAD_BYTES) -> bool:
        (folder / f"{os.getpid()}-{pad}").touch()
        return True

    return pad_the_heap


def test_every_worker_pads_its_heap_as_it_starts(tmp_path, monkeypatch):
    monkeypatch.setattr(heap_pad, "pad_the_heap", _recorded(tmp_path))  # inherited by the forked workers
    with par.Workers(2) as workers:
        ran = set(workers.ordered(_pid, iter(range(8))))
        deadline = time.monotonic() + 30
        while len(list(tmp_path.iterdir())) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)  # each worker pads as it starts, before its first job
        marks = {name.name for name in tmp_path.iterdir()}
    assert ran <= {int(mark.split("-")[0]) for mark in marks} and os.getpid() not in ran
    assert len(marks) == 2 and {mark.split("-")[1] for mark in marks} == {str(4 << 20)}


def _pid(_: int) -> int:
    return os.getpid()


def test_the_command_pads_its_own_heap_and_export_runs_does_not(tmp_path, monkeypatch, make_row, ghp):
    from click.testing import CliRunner

    from toolscore_export import export_runs
    from toolscore_export.cli import export as export_command

    from .test_parallel import mixed_rows

    marks = tmp_path / "marks"
    marks.mkdir()
    monkeypatch.setattr(heap_pad, "pad_the_heap", _recorded(marks))
    runs = mixed_rows(tmp_path / "runs.jsonl", make_row, ghp)
    export_runs([runs], tmp_path / "library.jsonl", workers=1)
    assert not any(marks.iterdir())  # a program calling export_runs keeps its heap as it was
    result = CliRunner().invoke(export_command, [str(runs), "-o", str(tmp_path / "command.jsonl"), "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert [name.name for name in marks.iterdir()] == [f"{os.getpid()}-{4 << 20}"]
