"""Streaming: flat memory on a large runs file, and an interrupted export leaves nothing half-written."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from toolscore_core import InputError, RunWriter
from toolscore_export import check_file, export_runs


def big_runs_file(path: Path, make_row, rows: int) -> Path:
    """``rows`` distinct cells in the harness's row format (one real row, its cell id varied)."""
    base = make_row(calls=(), guard_denials=(), evaluation=None).to_dict()
    with path.open("w", encoding="utf-8") as handle:
        for i in range(rows):
            task, repetition = f"t{i % 101}", i // 101 + 1
            base.update(task_id=task, repetition=repetition, cell_id=f"{task}::careful::{repetition}")
            handle.write(json.dumps(base, separators=(",", ":")) + "\n")
    return path


def traced_peak(source: Path, out: Path) -> int:
    tracemalloc.start()
    try:
        export_runs([source], out)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_does_not_grow_with_the_number_of_rows(tmp_path, make_row):
    """Five times the rows, the same peak (bar one int per cell): nothing is held per row.

    tracemalloc makes every allocation slow, so this compares small files; bench/bench_export.py
    measures the peak on a file of 100,000 rows.
    """
    small = big_runs_file(tmp_path / "small.jsonl", make_row, 500)
    large = big_runs_file(tmp_path / "large.jsonl", make_row, 2_500)
    export_runs([small], tmp_path / "warm.jsonl")  # imports and compiled schemas are not what we measure
    peak_small = traced_peak(small, tmp_path / "small.out.jsonl")
    peak_large = traced_peak(large, tmp_path / "large.out.jsonl")
    assert peak_large < peak_small + 1024 * 1024, (peak_small, peak_large)
    assert peak_large < 100 * 1024 * 1024


def test_a_failure_midway_leaves_the_old_output_and_manifest_untouched(tmp_path, make_row):
    with RunWriter(tmp_path / "runs.jsonl") as writer:
        writer.write(make_row())
    out = tmp_path / "records.jsonl"
    export_runs([tmp_path / "runs.jsonl"], out)
    before = (out.read_bytes(), out.with_name(out.name + ".manifest.json").read_bytes())
    with (tmp_path / "runs.jsonl").open("a") as handle:  # a later line that is not a run row
        handle.write('{"run_record_version": "1", "cell_id": "bad"}\n{"run_record_version": "1"}\n')
    with pytest.raises(InputError) as info:
        export_runs([tmp_path / "runs.jsonl"], out)
    assert info.value.location.startswith("line 2")
    after = (out.read_bytes(), out.with_name(out.name + ".manifest.json").read_bytes())
    assert after == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["records.jsonl", "records.jsonl.manifest.json",
                                                         "runs.jsonl"]
    assert check_file(out).ok


def test_a_killed_export_leaves_no_half_written_output_and_no_stale_manifest(tmp_path, make_row):
    source = big_runs_file(tmp_path / "runs.jsonl", make_row, 30_000)
    out = tmp_path / "records.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "toolscore_core.cli", "export", str(source), "-o", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    partial = tmp_path / f".records.jsonl.partial-{proc.pid}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if partial.exists() and partial.stat().st_size > 0:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the export finished before it could be interrupted"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert not out.exists()
    assert not out.with_name(out.name + ".manifest.json").exists()
