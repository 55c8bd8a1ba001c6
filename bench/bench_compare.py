"""`toolscore compare` on a large runs file: seconds for 100,000 rows, and peak memory.

Run: .venv/bin/python bench/bench_compare.py [--rows 100000] [--calls 3] [--tasks 100] [--arms 2]
Writes a runs file (the kernel's RunWriter format) of --rows distinct cells: --tasks tasks x
--arms arms x as many repetitions as fit, each row a realistic one with --calls tool calls
(one denied) and an evaluation, outcomes varied per arm. Then runs compare_runs() and every
renderer exactly as the command does. Reports CPU and wall time (the machine is shared),
the share spent in bare json.loads of the same lines (the floor for a streamed reader),
and the process's peak RSS growth (VmHWM reset before the compare, read after).

Memory is shown twice: the reading phase alone (rows streamed into the per-(task, arm)
accumulators, which is what "flat in rows" is about), and the whole compare with every
renderer, which also holds the result: pass^k for every k up to the repetitions of each
task x arm, and the report strings, whose size follows the study's shape, not its rows.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from _memory import peak_rss_kib, reset_peak


def runs_file(path: Path, rows: int, calls: int, tasks: int, arms: int) -> None:
    from toolscore_core import RunCall, RunRow

    row_calls = tuple(
        RunCall(tool="delete_note", args={"title": f"n{i}"}, denied=True, deny_reason="never deletes", is_error=True)
        if i == 1 else
        RunCall(tool="create_note", id=f"toolu_{i}", args={"title": f"note {i}", "body": "text " * 20},
                result=[{"type": "text", "text": f"saved note {i}"}], is_error=False, duration=0.01 * (i + 1))
        for i in range(calls))
    base = RunRow(task_id="t", arm_id="a0", repetition=1, status="completed", outcome="pass", order=1, seed=7,
                  study="bench", provider="scripted", model="scripted", turns=calls + 1,
                  usage={"input_tokens": 900, "output_tokens": 120}, cost_usd=0.0012,
                  final_answer="Saved the notes; the delete was refused.", calls=row_calls,
                  evaluation={"score": 0.93, "grade": "A", "verdict": "PASS"}).to_dict()
    outcomes = ("pass", "fail", "pass", "unknown", "pass", "error")
    with path.open("w", encoding="utf-8") as handle:
        for i in range(rows):
            task, arm, repetition = f"t{i % tasks}", f"a{(i // tasks) % arms}", i // (tasks * arms) + 1
            outcome = outcomes[(i * 7 + (i // tasks) % arms) % len(outcomes)]
            base.update(task_id=task, arm_id=arm, repetition=repetition, cell_id=f"{task}::{arm}::{repetition}",
                        outcome=outcome, passed=outcome == "pass", status="error" if outcome == "error" else "completed")
            handle.write(json.dumps(base, ensure_ascii=False, separators=(",", ":")) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--calls", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=100)
    parser.add_argument("--arms", type=int, default=2)
    opts = parser.parse_args()

    from toolscore_agent.compare import compare_runs
    from toolscore_agent.compare_report import RENDERERS

    with tempfile.TemporaryDirectory(prefix="bench-compare-") as tmp:
        source = Path(tmp) / "runs.jsonl"
        runs_file(source, opts.rows, opts.calls, opts.tasks, opts.arms)
        warm = Path(tmp) / "warm.jsonl"
        runs_file(warm, 200, opts.calls, 10, opts.arms)
        compare_runs(warm)  # imports
        cpu = time.process_time()
        with source.open("rb") as handle:
            for line in handle:
                json.loads(line)
        floor = time.process_time() - cpu
        from toolscore_agent.compare import _Cells
        from toolscore_core.kernel.jsonl import iter_json_objects

        reset_peak()
        before = peak_rss_kib()
        cells = _Cells()
        for number, data in iter_json_objects(source, what="a run row"):
            cells.add(data, source, number)
        reading = peak_rss_kib() - before
        del cells
        reset_peak()
        before = peak_rss_kib()
        cpu, wall = time.process_time(), time.perf_counter()
        result = compare_runs(source)
        sizes = {name: len(render(result)) for name, render in RENDERERS.items()}
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        growth = peak_rss_kib() - before
        print(f"{result.cells:,} rows ({opts.tasks} tasks x {opts.arms} arms, {opts.calls} calls each) from "
              f"{source.stat().st_size / 2**20:.1f} MiB; {len(result.pairs)} paired test(s)")
        print(f"  compare + all renderers: {cpu:.2f} s CPU, {wall:.2f} s wall, load {os.getloadavg()[0]:.1f}; "
              f"bare json.loads of the lines: {floor:.2f} s CPU")
        print(f"  peak RSS growth: reading the rows {reading / 1024:.1f} MiB; compare + all renderers "
              f"{growth / 1024:.1f} MiB; report sizes {sizes}")


if __name__ == "__main__":
    main()
