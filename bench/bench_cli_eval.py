"""`toolscore eval` end to end on a 10k-call trace file: wall time, CPU and peak RSS.

Run: .venv/bin/python bench/bench_cli_eval.py [--calls 10000] [--runs 5]
Writes the gold and trace files (the same shape as bench_evaluate.py's ordinary case) to a
temporary folder and runs the real console script, so start-up, imports, reading both files,
scoring and the console report are all included. Peak RSS is the largest of the runs'
(``ru_maxrss`` of the children), so ``--calls 1000000`` reports the 1M-call memory too.

The floor (issue 12) is a fresh interpreter that does what any scorer of the files must:
``json.load`` of both files and one canonical hash of every call's arguments.

``--baseline DIRS`` also times another version of the sources (DIRS: ``os.pathsep``-separated
``src`` folders put first on PYTHONPATH, e.g. of an exported earlier commit), alternating
run by run with this one, so that both meet the same load on a shared machine; it prints
both CPU medians (same number of runs each) and checks both print the same report.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_evaluate import make_case

FLOOR = """
import json, sys
from toolscore_core.scoring.matchers import canonical
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as handle:
        for call in json.load(handle):
            hash(canonical(call.get("args")))
"""


def _timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one child process."""
    wall, cpu, _out = _run(command, env)
    return wall, cpu


def _run(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Wall and CPU seconds of one child process, and what it printed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode == 0, done.stderr
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, done.stdout


def _alternate(command: list[str], baseline: str, runs: int) -> str:
    """The CPU medians of this version and of ``baseline``'s, run alternately (AB, BA, ...)."""
    other = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (baseline, os.environ.get("PYTHONPATH"))))}
    cpus: dict[str, list[float]] = {"this": [], "baseline": []}
    outputs: dict[str, set[str]] = {"this": set(), "baseline": set()}
    for run in range(runs):
        order = [("this", None), ("baseline", other)]
        for label, env in order if run % 2 == 0 else order[::-1]:
            _wall, cpu, out = _run(command, env)
            cpus[label].append(cpu)
            outputs[label].add(out)
    this, base = statistics.median(cpus["this"]), statistics.median(cpus["baseline"])
    same = "the same report" if outputs["this"] == outputs["baseline"] else "DIFFERENT reports"
    return (f"alternating, {runs} runs each: CPU median {this:.3f} s, baseline {base:.3f} s "
            f"({(this - base) / base:+.1%}); {same}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", metavar="DIRS", help="src folders of another version to time alternately")
    opts = parser.parse_args()
    toolscore = str(Path(sys.executable).parent / "toolscore")
    expected, actual = make_case(opts.calls)
    with tempfile.TemporaryDirectory() as tmp:
        gold, trace = Path(tmp) / "gold.json", Path(tmp) / "trace.json"
        gold.write_text(json.dumps(expected))
        trace.write_text(json.dumps(actual))
        floors = [_timed([sys.executable, "-c", FLOOR, str(gold), str(trace)]) for _ in range(opts.runs)]
        runs = [_timed([toolscore, "eval", str(gold), str(trace)]) for _ in range(opts.runs)]
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        compared = _alternate([toolscore, "eval", str(gold), str(trace)], opts.baseline, opts.runs) if opts.baseline else ""
    walls, cpus = [w for w, _ in runs], [c for _, c in runs]
    floor_wall, floor_cpu = statistics.median(w for w, _ in floors), statistics.median(c for _, c in floors)
    print(f"toolscore eval, {opts.calls:,} calls: wall median {statistics.median(walls):.2f} s "
          f"(min {min(walls):.2f}), CPU median {statistics.median(cpus):.2f} s, peak RSS {peak_mb:.0f} MB; "
          f"floor wall {floor_wall:.2f} s, CPU {floor_cpu:.2f} s "
          f"(eval = {statistics.median(cpus) / floor_cpu:.1f}x the floor's CPU)")
    if compared:
        print(compared)


if __name__ == "__main__":
    main()
