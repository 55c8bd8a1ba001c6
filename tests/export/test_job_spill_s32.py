"""A planned second-pass job's records of ``JOB_SPILL_BYTES`` or more wait in the pool's spill folder, not
in the driver (issue 11: on 1 GB of a collector's 7 MB lines, four results of about 6 MB in flight were a
third of the driver's peak memory); the driver reads each in its turn and removes it."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from toolscore_export import parallel as par
from toolscore_export import per_trace_pool as pool
from toolscore_export.trace_batches import TraceContext, set_context

from .test_per_trace_pool import collector_file, exported


@pytest.fixture
def taken(monkeypatch):
    """Every OTLP source takes the planned second pass; what the driver takes back from each job is recorded:
    a file's name and whether it was there, or the records' size."""
    monkeypatch.setattr(pool, "BUILT_MAX_BYTES", 0)
    monkeypatch.setattr(pool, "MIN_BYTES", 0)
    monkeypatch.setattr(pool, "JOB_TRACES", 3)
    monkeypatch.setattr(par, "can_fork", lambda: True)
    seen: list[tuple[str, bool] | int] = []

    def recorded(data):
        seen.append((data, Path(data).is_file()) if isinstance(data, str) else len(data))
        return par.taken_back(data)

    monkeypatch.setattr(pool, "taken_back", recorded)
    return seen


@pytest.mark.parametrize("bound", [1, 7000])
def test_large_job_records_wait_in_the_spill_folder_and_the_export_is_the_serial_one(tmp_path, monkeypatch, taken,
                                                                                     bound):
    monkeypatch.setattr(pool, "JOB_SPILL_BYTES", bound)
    source = collector_file(tmp_path / "otlp.jsonl", 20)
    serial = exported(tmp_path, [source], 1)
    assert exported(tmp_path, [source], 2) == serial
    files = [item for item in taken if isinstance(item, tuple)]
    sizes = [item for item in taken if isinstance(item, int)]
    assert files and all(there for _, there in files)  # each was in the folder when its turn came
    assert not any(Path(name).exists() for name, _ in files)  # and was removed once read
    if bound == 1:
        assert not sizes  # every job's records went through a file
    else:
        assert sizes and all(size < bound for size in sizes)  # the last job's (2 traces, not 3) came back as bytes


def test_without_a_spill_folder_a_job_gives_its_records_as_bytes(tmp_path, monkeypatch):
    monkeypatch.setattr(pool, "JOB_SPILL_BYTES", 1)
    source = collector_file(tmp_path / "otlp.jsonl", 4)
    lines = source.read_bytes()
    job = pool.TraceJob(path=str(source), sha256="0" * 64, first=1, offset=0, size=len(lines), order=0, start=1,
                        carried=())
    set_context(TraceContext(None, None, None))
    try:
        given = pool.job_records(job)
        spilled = pool.job_records(attrs.evolve(job, spill=str(tmp_path)))
    finally:
        set_context(None)
    assert given is not None and isinstance(given[0], bytes) and given[0].count(b"\n") == 4
    assert spilled is not None and isinstance(spilled[0], str) and Path(spilled[0]).parent == tmp_path
    assert spilled[1] == given[1] and par.taken_back(spilled[0]) == given[0]
    assert not Path(spilled[0]).exists()
