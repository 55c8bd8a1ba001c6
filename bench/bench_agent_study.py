"""Scripted agent studies on the bundled sample server: runs per second, rows written included.

Run: .venv/bin/python bench/bench_agent_study.py [--runs 1000] [--workers 1 4]
Takes the offline example's spec (two scripted arms, two tasks, a guard that refuses
deletes), raises its repetitions until the study has at least --runs runs, and runs it with
run_study() into a fresh runs.jsonl for each worker count. Every run starts its own server
process, replays its script, is graded and appends one fsynced row, exactly as
`toolscore agent run` does; nothing is mocked.
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import attrs

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "agent_harness" / "offline.yaml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 4])
    opts = parser.parse_args()

    from toolscore_agent import load_agent_spec, run_study
    from toolscore_core import read_runs

    base = load_agent_spec(EXAMPLE)
    per_rep = len(base.tasks) * len(base.arms)
    spec = attrs.evolve(base, repetitions=math.ceil(opts.runs / per_rep))
    print(f"{spec.run_count} runs ({len(spec.tasks)} tasks x {len(spec.arms)} arms x {spec.repetitions} "
          f"repetitions), python {sys.version.split()[0]}, {os.cpu_count()} cpus, "
          f"load average {os.getloadavg()[0]:.2f}")
    for workers in opts.workers:
        with tempfile.TemporaryDirectory() as tmp:
            output = Path(tmp) / "runs.jsonl"
            start = time.perf_counter()
            result = run_study(spec, output=output, workers=workers)
            elapsed = time.perf_counter() - start
            rows = sum(1 for _ in read_runs(output))
        assert rows == spec.run_count, (rows, spec.run_count)
        outcomes = {arm: dict(counts) for arm, counts in result.outcomes.items()}
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"workers {workers}: {rows} rows in {elapsed:.1f} s = {rows / elapsed:.1f} runs/s "
              f"(peak RSS of the driver {peak_mb:.0f} MB) outcomes {outcomes}")


if __name__ == "__main__":
    main()
