"""Run every benchmark in bench/ once, in order, printing each one's figures (`make bench`).

Each script can also be run alone with its own options (see its --help); the figures worth
keeping go into bench/RESULTS.md by hand or with a script's own --append option. The
OpenTelemetry streaming run uses a 0.1 GB file here; run that script alone for the 1 GB one.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
RUNS: list[list[str]] = [
    ["bench_cli_startup.py", "--runs", "20"],
    ["bench_evaluate.py", "--sizes", "1000,10000,100000", "--repeat", "3"],
    ["bench_cli_eval.py", "--runs", "5"],
    ["bench_adapters_openai.py", "--calls", "100000", "--repeat", "3"],
    ["bench_adapters_otel.py", "--calls", "100000", "--gigabytes", "0.1"],
    ["bench_mcp_clients.py"],
    ["bench_mcp_test.py", "--no-write"],
    ["bench_flood.py", "--seconds", "3"],
    ["bench_agent_study.py", "--runs", "1000", "--workers", "1", "4"],
    ["bench_export.py", "--rows", "100000"],
    ["bench_export_floor.py", "--rounds", "3"],
    ["bench_heap_pad.py"],
    ["bench_stretch_reading.py", "--rounds", "3"],
    ["bench_span_pieces.py", "--rounds", "3"],
    ["bench_early_stop.py", "--rounds", "5"],
    ["bench_compare.py", "--rows", "100000"],
    ["bench_bulk.py", "--traces", "10000", "--workers", "1", "2"],
    ["bench_snapshots.py", "--tests", "1000", "--repeat", "3"],
]


def main() -> int:
    failed = 0
    for script, *args in RUNS:
        print(f"\n== {script} {' '.join(args)}", flush=True)
        start = time.perf_counter()
        code = subprocess.call([sys.executable, str(HERE / script), *args])
        print(f"-- {script}: exit {code}, {time.perf_counter() - start:.1f} s", flush=True)
        failed += code != 0
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
