"""`toolscore eval` end to end on a 10k-call trace file: wall time, CPU and peak RSS.

Run: .venv/bin/python bench/bench_cli_eval.py [--calls 10000] [--runs 5]
Writes the gold and trace files (the same shape as bench_evaluate.py's ordinary case) to a
temporary folder and runs the real console script, so start-up, imports, reading both files,
scoring and the console report are all included.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_evaluate import make_case


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    opts = parser.parse_args()
    toolscore = str(Path(sys.executable).parent / "toolscore")
    expected, actual = make_case(opts.calls)
    with tempfile.TemporaryDirectory() as tmp:
        gold, trace = Path(tmp) / "gold.json", Path(tmp) / "trace.json"
        gold.write_text(json.dumps(expected))
        trace.write_text(json.dumps(actual))
        walls, cpus = [], []
        for _ in range(opts.runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run([toolscore, "eval", str(gold), str(trace)], capture_output=True, text=True)
            walls.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            assert done.returncode == 0, done.stderr
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"toolscore eval, {opts.calls:,} calls: wall median {statistics.median(walls):.2f} s "
          f"(min {min(walls):.2f}), CPU median {statistics.median(cpus):.2f} s, peak RSS {peak_mb:.0f} MB")


if __name__ == "__main__":
    main()
