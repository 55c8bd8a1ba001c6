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
    parser.add_argument("--cold", action="store_true",
                        help="server.warm_start: false (a new interpreter per run) for comparison")
    opts = parser.parse_args()

    from toolscore_agent import load_agent_spec, run_study
    from toolscore_core import read_runs

    base = load_agent_spec(EXAMPLE)
    per_rep = len(base.tasks) * len(base.arms)
    spec = attrs.evolve(base, repetitions=math.ceil(opts.runs / per_rep),
                        server=attrs.evolve(base.server, warm_start=not opts.cold))
    print(f"{spec.run_count} runs ({len(spec.tasks)} tasks x {len(spec.arms)} arms x {spec.repetitions} "
          f"repetitions), python {sys.version.split()[0]}, {os.cpu_count()} cpus, "
          f"load average {os.getloadavg()[0]:.2f}, warm start {'off' if opts.cold else 'on'}")
    for workers in opts.workers:
        with tempfile.TemporaryDirectory() as tmp:
            output = Path(tmp) / "runs.jsonl"
            before_self, before_children = (resource.getrusage(who) for who in
                                             (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
            start = time.perf_counter()
            result = run_study(spec, output=output, workers=workers)
            elapsed = time.perf_counter() - start
            cpu_self = _cpu_ms(before_self, resource.getrusage(resource.RUSAGE_SELF)) / spec.run_count
            cpu_children = _cpu_ms(before_children, resource.getrusage(resource.RUSAGE_CHILDREN)) / spec.run_count
            rows = sum(1 for _ in read_runs(output))
        assert rows == spec.run_count, (rows, spec.run_count)
        outcomes = {arm: dict(counts) for arm, counts in result.outcomes.items()}
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"workers {workers}: {rows} rows in {elapsed:.1f} s = {rows / elapsed:.1f} runs/s "
              f"(peak RSS of the driver {peak_mb:.0f} MB; CPU per run: driver {cpu_self:.1f} ms, "
              f"servers {cpu_children:.1f} ms) outcomes {outcomes}")


def _cpu_ms(before: resource.struct_rusage, after: resource.struct_rusage) -> float:
    """User + system CPU between two readings, in ms. Warm-started servers are the zygote's
    children, not ours: their CPU shows only when the zygote exits (after the study), so the
    "servers" figure of a warm run is the zygote's whole life, reaped at the end."""
    return 1000 * (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)


if __name__ == "__main__":
    main()
