"""How long stopping worker pools early takes, and whether a stop ever hangs.

Run: .venv/bin/python bench/bench_early_stop.py [--rounds 10] [--megabytes 16] [--timeout 30]

Each round is a process of its own: it starts a pool of two workers whose jobs return results
of --megabytes, takes the first result and stops (the export's ``Workers.close()``, as an
error or Ctrl-C does; the ``local`` executor's results closed, as a study stopped early does),
then exits. Reported per pool: the seconds the stop took (median and largest), the workers'
exit codes seen, and the rounds that did not end within --timeout (a hang: a worker killed
while it sent a result left the pool, or the process's exit, waiting for ever). The figures
before the workers were asked instead of killed are in bench/RESULTS.md (2026-12-05, stop 35).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

EXPORT_ROUND = """
import json, sys, time
from toolscore_export.parallel import Workers

SIZE = int(sys.argv[1])


def large(n):
    time.sleep(0.01 * (n % 3))
    return b"x" * SIZE


workers = Workers(2)
results = workers.ordered(large, iter(range(100)))
next(results)
processes = list(workers._pool._pool)
started = time.monotonic()
workers.close()
print(json.dumps({"seconds": time.monotonic() - started, "exit_codes": [p.exitcode for p in processes]}))
"""

EXECUTOR_ROUND = """
import functools, json, multiprocessing, operator, sys, time
from toolscore_core import get_executor

CALL = operator.methodcaller("__call__")

if __name__ == "__main__":
    large = functools.partial(bytes, int(sys.argv[1]))
    results = get_executor("local", workers=2).run(CALL, [(i, large) for i in range(20)])
    next(results)
    processes = multiprocessing.active_children()
    started = time.monotonic()
    results.close()
    print(json.dumps({"seconds": time.monotonic() - started,
                      "exit_codes": [p.exitcode for p in processes if p.exitcode is not None]}))
"""


def rounds(script: str, size: int, count: int, timeout: float) -> tuple[list[float], set[int], int]:
    """The stop times, the exit codes seen and the rounds that hung, of ``count`` rounds."""
    seconds: list[float] = []
    codes: set[int] = set()
    hung = 0
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "round.py"
        path.write_text(script, encoding="utf-8")
        for _ in range(count):
            try:
                done = subprocess.run([sys.executable, str(path), str(size)], capture_output=True, text=True,
                                      timeout=timeout)
            except subprocess.TimeoutExpired:
                hung += 1
                continue
            if done.returncode != 0 or not done.stdout.strip():
                raise SystemExit(f"a round failed: {done.stderr[-2000:]}")
            found = json.loads(done.stdout.splitlines()[-1])
            seconds.append(found["seconds"])
            codes.update(found["exit_codes"])
    return seconds, codes, hung


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--megabytes", type=float, default=16)
    parser.add_argument("--timeout", type=float, default=30, help="seconds after which a round counts as hung")
    args = parser.parse_args()
    size = int(args.megabytes * 1_000_000)
    for name, script in (("export Workers.close()", EXPORT_ROUND), ("local executor, results closed", EXECUTOR_ROUND)):
        seconds, codes, hung = rounds(script, size, args.rounds, args.timeout)
        timing = (f"stop {statistics.median(seconds):.2f} s median, {max(seconds):.2f} s largest"
                  if seconds else "no round ended")
        print(f"{name}: {args.rounds} rounds of {args.megabytes:g} MB results: {timing}; "
              f"hung {hung}; worker exit codes {sorted(codes)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
