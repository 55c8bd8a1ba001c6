"""A source whose lines are longer than any stretch reads past its edges takes the planned second pass from
the start: its first pass builds no records, which would all be made again by jobs (issue 11: 106 MB of
7 MB lines, 3,900 records/s built against 5,500-5,700 planned)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolscore_export import per_trace_pool as pool

from .test_per_trace_pool import exported
from .test_per_trace_pool_long_lines_s30 import batched_file


@pytest.fixture
def pooled(monkeypatch):
    from toolscore_export import parallel as par

    monkeypatch.setattr(pool, "MIN_BYTES", 0)
    monkeypatch.setattr(par, "can_fork", lambda: True)


class _Pool:
    spill = "/a/spill/folder"


def test_the_first_line_past_every_edge_builds_no_records_in_the_first_pass(tmp_path: Path, monkeypatch):
    source = batched_file(tmp_path / "collector.jsonl", 60, 6)  # lines of about 20 kB
    first = len(source.read_bytes().split(b"\n", 1)[0]) + 1
    monkeypatch.setattr(pool, "MAX_STRETCH_BYTES", 2 * first)  # an edge as long as the first line: read
    assert not pool._past_every_edge(source) and pool.spill_for(source, _Pool()) == _Pool.spill  # type: ignore[arg-type]
    monkeypatch.setattr(pool, "MAX_STRETCH_BYTES", 2 * first - 2)  # one byte shorter: never read
    assert pool._past_every_edge(source) and pool.spill_for(source, _Pool()) is None  # type: ignore[arg-type]


def test_such_a_source_is_the_serial_export_by_the_planned_pass(tmp_path: Path, monkeypatch, pooled):
    source = batched_file(tmp_path / "collector.jsonl", 60, 6)
    built: list[int] = []
    pieces = pool._pieces
    monkeypatch.setattr(pool, "_pieces", lambda *args: built.append(1) or pieces(*args))
    serial = exported(tmp_path, [source], 1)
    assert exported(tmp_path, [source], 2) == serial and built  # lines short enough: built in the first pass
    built.clear()
    monkeypatch.setattr(pool, "MAX_STRETCH_BYTES", 2000)
    assert exported(tmp_path, [source], 2) == serial and not built
