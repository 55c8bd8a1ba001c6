"""A collector's long lines (hundreds of spans a request) in the pool's first pass: stretches of several
lines, and edge lines as long as they are, so that the traces crossing each line need no second-pass
job; short lines keep the stretches they had. The export is the serial one either way (issue 11)."""

from __future__ import annotations

import pytest

from toolscore_export import per_trace_pool as pool

from .test_per_trace_pool_ahead_c29 import ahead, pooled  # noqa: F401 (fixtures)
from .test_per_trace_pool_built_i11 import SPANS, _exported, _line


def batched_file(path, traces: int, per_line: int, pad: int = 0):
    """Each trace's spans over two lines, ``per_line`` traces a line (a trace's second half on the line
    after its first), each span padded by ``pad`` characters: what a batching collector writes."""
    half = len(SPANS) // 2

    def spans(number: int, part: list[dict]) -> list[dict]:
        return [dict(span, traceId=f"{number + 1:032x}", name=span["name"] + " " * pad) for span in part]

    lines = []
    for j in range(traces // per_line + 1):
        written = [s for n in range(max(0, (j - 1) * per_line), min(traces, j * per_line)) for s in spans(n, SPANS[half:])]
        written += [s for n in range(j * per_line, min(traces, (j + 1) * per_line)) for s in spans(n, SPANS[:half])]
        lines.append(_line(written))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_short_lines_keep_the_usual_stretches(tmp_path):
    source = batched_file(tmp_path / "short.jsonl", 40, 1)
    assert pool.stretch_layout(source) == (pool.CHUNK_BYTES, pool.EDGE_MAX_BYTES)


def test_long_lines_make_stretches_of_several_lines_up_to_the_bound(tmp_path):
    source = batched_file(tmp_path / "long.jsonl", 120, 30)  # lines of about 97 kB
    typical = source.stat().st_size // len(source.read_bytes().splitlines())
    assert typical > pool.EDGE_MAX_BYTES
    step, edge = pool.stretch_layout(source)
    assert step == pool.LINES_A_STRETCH * (len(source.read_bytes()[:1 << 20]) // (source.read_bytes()[:1 << 20].count(b"\n")))
    assert edge == step // 2 and edge > typical
    huge = batched_file(tmp_path / "huge.jsonl", 40, 20, pad=4000)  # lines of 370 kB: eight pass the bound
    assert pool.stretch_layout(huge) == (pool.MAX_STRETCH_BYTES, pool.MAX_STRETCH_BYTES // 2)
    one = tmp_path / "one.jsonl"
    one.write_bytes(b"{" + b" " * (3 << 20) + b"}")  # no newline in the first MiB
    assert pool.stretch_layout(one)[0] == pool.MAX_STRETCH_BYTES


def test_traces_crossing_long_lines_need_no_job_and_export_as_the_serial_path(tmp_path, ahead):  # noqa: F811
    source = batched_file(tmp_path / "collector.jsonl", 300, 30)  # lines of about 97 kB
    assert _exported(tmp_path, source, 2) == _exported(tmp_path, source, 1)
    assert ahead["jobs"] == 0 and ahead["taken"] >= 10


def test_with_the_old_stretches_the_same_file_took_jobs(tmp_path, monkeypatch, ahead):  # noqa: F811
    """What the layout is for: stretches of 512 KiB and edges of 64 KiB left these traces to jobs."""
    monkeypatch.setattr(pool, "stretch_layout", lambda path: (pool.CHUNK_BYTES, pool.EDGE_MAX_BYTES))
    monkeypatch.setattr(pool, "CHUNK_BYTES", 100_000)  # about a line a stretch, as a 1.7 MB line is at 512 KiB
    source = batched_file(tmp_path / "collector.jsonl", 300, 30)  # lines of about 97 kB
    assert _exported(tmp_path, source, 2) == _exported(tmp_path, source, 1)
    assert ahead["jobs"] > 0


@pytest.mark.parametrize("per_line", [5, 20, 60])
def test_a_long_line_past_the_edge_bound_is_a_job_and_the_export_the_serial_one(tmp_path, monkeypatch, ahead,  # noqa: F811
                                                                                per_line):
    monkeypatch.setattr(pool, "stretch_layout", lambda path: (150_000, 30_000))  # edges shorter than the lines
    source = batched_file(tmp_path / "collector.jsonl", 240, per_line)
    assert _exported(tmp_path, source, 2) == _exported(tmp_path, source, 1)
    assert (ahead["jobs"] > 0) == (per_line >= 20)  # lines of 65 kB and more are past the 30 kB edge
