"""Records built ahead by the pool's first pass (a trace crossing a stretch's end, built with its spans on the
line after the stretch) are taken only when whole, and the export is the serial one either way (issue 11)."""

from __future__ import annotations

import random

import pytest

from toolscore_export import parallel as par
from toolscore_export import per_trace_pool as pool

from .test_per_trace_pool_built_i11 import SPANS, _exported, _line, layout_file


@pytest.fixture(autouse=True)
def pooled(monkeypatch):
    monkeypatch.setattr(pool, "MIN_BYTES", 0)  # every OTLP JSON Lines source goes to the workers
    monkeypatch.setattr(par, "can_fork", lambda: True)  # threads of earlier tests must not make it serial


@pytest.fixture
def ahead(monkeypatch):
    """The records built ahead the driver was offered ('offered') and those it took ('taken'), and its jobs."""
    seen = {"offered": 0, "taken": 0, "jobs": 0}
    ahead_of, job_of = pool._ahead, pool._job_of

    def recorded_ahead(lines, index):
        found = ahead_of(lines, index)
        seen["offered"] += len(lines.built[index - 1][1][5]) if index else 0
        seen["taken"] += len(found)
        return found

    def recorded_job(*args):
        seen["jobs"] += 1
        return job_of(*args)

    monkeypatch.setattr(pool, "_ahead", recorded_ahead)
    monkeypatch.setattr(pool, "_job_of", recorded_job)
    return seen


def collector_file(path, count: int):
    """Each trace's spans over two lines, as the bench writes them: every stretch's end cuts a trace."""
    half = len(SPANS) // 2
    lines = []
    for j in range(count + 1):
        spans = [dict(span, traceId=f"{j:032x}") for span in SPANS[half:]] if j else []
        spans += [dict(span, traceId=f"{j + 1:032x}") for span in SPANS[:half]] if j < count else []
        lines.append(_line(spans))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("chunk", [700, 2500, 9000])
def test_traces_crossing_every_stretch_need_no_job(tmp_path, monkeypatch, ahead, chunk):
    monkeypatch.setattr(pool, "CHUNK_BYTES", chunk)
    source = collector_file(tmp_path / "collector.jsonl", 60)
    assert _exported(tmp_path, source, 2) == _exported(tmp_path, source, 1)
    assert ahead["taken"] >= 5 and ahead["taken"] == ahead["offered"] and ahead["jobs"] == 0


@pytest.mark.parametrize("seed", range(60))
def test_random_layouts_with_records_built_ahead_are_the_serial_export(tmp_path, monkeypatch, seed):
    rng = random.Random(seed)
    monkeypatch.setattr(pool, "CHUNK_BYTES", rng.choice([60, 150, 700, 2500]))
    source = layout_file(tmp_path / "layout.jsonl", rng)
    assert _exported(tmp_path, source, 2) == _exported(tmp_path, source, 1)


def test_the_random_layouts_offer_records_taken_and_refused(tmp_path, monkeypatch, ahead):
    """Not vacuous: across the layouts above, records built ahead are taken, and refused (a trace that began
    before the stretch, or goes on past the line after it)."""
    for seed in range(60):
        rng = random.Random(seed)
        monkeypatch.setattr(pool, "CHUNK_BYTES", rng.choice([60, 150, 700, 2500]))
        _exported(tmp_path, layout_file(tmp_path / "layout.jsonl", rng), 2)
    assert ahead["taken"] >= 20 and ahead["offered"] - ahead["taken"] >= 20


@pytest.mark.parametrize("seed", range(30))
def test_the_line_before_a_line_start_is_the_one_split_gives(tmp_path, seed):
    rng = random.Random(seed)
    limit = pool.EDGE_MAX_BYTES
    lines = [b"x" * rng.choice([0, 1, 5, 9000, 20000, limit - 1, limit, limit + 1, 3 * limit])
             for _ in range(rng.randint(1, 8))]
    data = b"".join(line + b"\n" for line in lines)
    path = tmp_path / "lines"
    path.write_bytes(data)
    with open(path, "rb") as handle:
        start = 0
        for index, line in enumerate(lines):
            before = lines[index - 1] if index else b""
            assert pool._line_before(handle, start) == (before if len(before) <= limit else b"")
            start += len(line) + 1
