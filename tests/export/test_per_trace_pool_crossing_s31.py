"""The traces that cross stretches are gathered only for a source whose records the first pass builds:
a source past ``BUILT_MAX_BYTES`` (the planned second pass) keeps none, however long its lines, and its
export is still the serial one (issue 11: on 1 GB of 7 MB lines that set was all 280,000 trace ids,
24 MiB of the driver's peak)."""

from __future__ import annotations

from toolscore_export import parallel as par
from toolscore_export import per_trace_pool as pool
from toolscore_export.run_ids import compact_key
from toolscore_export.trace_batches import TraceContext

from .test_per_trace_pool_ahead_c29 import pooled  # noqa: F401 (fixture)
from .test_per_trace_pool_built_i11 import _exported
from .test_per_trace_pool_long_lines_s30 import batched_file


def test_only_a_built_first_pass_gathers_the_traces_crossing_stretches(tmp_path, monkeypatch):
    monkeypatch.setattr(par, "can_fork", lambda: True)
    monkeypatch.setattr(pool, "stretch_layout", lambda path: (60_000, 30_000))  # lines longer than a stretch
    source = batched_file(tmp_path / "collector.jsonl", 120, 20)  # lines of about 65 kB
    with par.Workers(2, TraceContext(None, None, None)) as workers:
        built = pool.first_pass(source, workers, "0" * 64, workers.spill)
        planned = pool.first_pass(source, workers, "0" * 64, None)
        assert built is not None and planned is not None
        pool._unlink_built(built)
    assert len(built.crossing) >= 100  # nearly every trace: its two lines are in two stretches
    assert planned.crossing == set() and not planned.built
    assert planned.compact and not built.compact  # a planned source's trace ids are kept as numbers
    assert planned.bounds == {compact_key(key): packed for key, packed in built.bounds.items()}
    assert all(type(key) is int for key in planned.bounds) and list(planned.numbers) == list(built.numbers)


def test_a_planned_source_of_long_lines_exports_as_the_serial_path(tmp_path, monkeypatch, pooled):  # noqa: F811
    monkeypatch.setattr(pool, "BUILT_MAX_BYTES", 0)  # every source takes the planned second pass
    monkeypatch.setattr(pool, "stretch_layout", lambda path: (60_000, 30_000))
    gathered: list[int] = []
    plan = pool.plan

    def recorded_plan(lines, size):
        gathered.append(len(lines.crossing))
        return plan(lines, size)

    monkeypatch.setattr(pool, "plan", recorded_plan)
    source = batched_file(tmp_path / "collector.jsonl", 240, 20)
    assert _exported(tmp_path, source, 2) == _exported(tmp_path, source, 1)
    assert gathered == [0]  # the planned path ran, with no crossing set
