"""Benchmark of evaluate(): 1k, 10k and 100k calls, and the one-tool worst case.

Run: ``.venv/bin/python bench/bench_evaluate.py [--sizes 1000,10000,100000] [--repeat 3]``.

Traces: the expected list and the actual trace have the same length, over 20 tool names,
with some differences (every 10th call gets a different argument value, every 50th a
different tool, every 100th is a failed call). The worst case is 10k calls all of ONE
tool name with every call's arguments different from its expectation, so exact-hash
pairing removes nothing and everything goes through the assignment.

Both wall-clock and CPU time are reported: the shared machine's load inflates wall clock,
CPU time (``time.process_time``) is what the code costs. Peak memory is tracemalloc's peak
during the call (Python allocations, numpy included), measured in a separate run because
tracing slows the code down; from 1M calls on (``--sizes ...,1000000``) tracing would take
minutes, so the peak is the process's resident-set growth instead (``VmHWM``, reset before
the call; bench/_memory.py), which also counts the allocator's slack.

The floor (issue 12): what any scorer of the same files must at least do, ``json.load`` of
the gold and trace files plus one canonical hash of every call's arguments; each row's
"vs floor" divides its CPU time by the floor's at the same size.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _memory import peak_rss_kib, reset_peak

TRACE_FROM = 1_000_000  # from this size on, peak memory is RSS growth, not tracemalloc


def make_case(n: int, *, one_tool: bool = False) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    expected: list[dict[str, Any]] = []
    actual: list[dict[str, Any]] = []
    for i in range(n):
        tool = "search" if one_tool else f"tool_{i % 20}"
        args = {"query": f"item {i}", "page": i % 7, "exact": i % 2 == 0}
        expected.append({"tool": tool, "args": args})
        call_args = dict(args)
        call_tool = tool
        if one_tool:
            call_args["page"] = (i + 1) % 7  # every call differs: nothing pairs by hashing
        elif i % 10 == 3:
            call_args["query"] = f"item {i} (edited)"
        if not one_tool and i % 50 == 7:
            call_tool = "other_tool"
        call = {"tool": call_tool, "args": call_args, "result": "ok", "is_error": False, "duration": 0.01}
        if i % 100 == 11:
            call.update(is_error=True, error="failed", result=None)
        actual.append(call)
    return expected, actual


def floor(n: int, *, repeat: int) -> float:
    """Median CPU seconds of the floor: json.load of both files, one canonical hash per call."""
    from toolscore_core.scoring.matchers import canonical

    expected, actual = make_case(n)
    cpus: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = [Path(tmp) / "gold.json", Path(tmp) / "trace.json"]
        for path, data in zip(paths, (expected, actual), strict=True):
            path.write_text(json.dumps(data))
        del expected, actual
        for _ in range(repeat):
            gc.collect()
            c0 = time.process_time()
            for path in paths:
                with path.open(encoding="utf-8") as handle:
                    for call in json.load(handle):
                        hash(canonical(call.get("args")))
            cpus.append(time.process_time() - c0)
    return statistics.median(cpus)


def run(n: int, *, one_tool: bool, repeat: int) -> dict[str, Any]:
    from toolscore_core.scoring.evaluation import evaluate

    expected, actual = make_case(n, one_tool=one_tool)
    evaluate(expected[:50], actual[:50])  # warm up: imports and plugin loading are not measured
    walls: list[float] = []
    cpus: list[float] = []
    result = None
    for _ in range(repeat):
        result = None
        gc.collect()
        reset_peak()
        rss_before = peak_rss_kib()
        w0, c0 = time.perf_counter(), time.process_time()
        result = evaluate(expected, actual)
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
        rss_growth = peak_rss_kib() - rss_before
    assert result is not None
    score = result.score
    if n < TRACE_FROM:
        result = None
        gc.collect()
        tracemalloc.start()
        evaluate(expected, actual)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        peak_mib, how = peak / 2**20, "traced"
    else:
        peak_mib, how = rss_growth / 1024, "RSS"
    return {"n": n, "one_tool": one_tool, "wall": statistics.median(walls), "cpu": statistics.median(cpus),
            "peak_mib": peak_mib, "peak_how": how, "score": score}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    floors = {n: floor(n, repeat=args.repeat if n < 100_000 else 1) for n in sorted({*sizes, 10_000})}
    rows = [run(n, one_tool=False, repeat=args.repeat if n < 100_000 else 1) for n in sizes]
    rows.append(run(10_000, one_tool=True, repeat=args.repeat))
    print("| calls | case | wall (median) | CPU (median) | floor (CPU) | vs floor | peak memory | score |")
    print("|------:|------|------:|------:|------:|------:|------:|------:|")
    for r in rows:
        case = "one tool, all differ (worst case)" if r["one_tool"] else "20 tools, some differences"
        base = floors[r["n"]]
        print(f"| {r['n']:,} | {case} | {r['wall']:.2f} s | {r['cpu']:.2f} s | {base:.3f} s | "
              f"{r['cpu'] / base:.1f}x | {r['peak_mib']:.0f} MiB ({r['peak_how']}) | {r['score']:.3f} |")
    base = [r for r in rows if not r["one_tool"]]
    for a, b in itertools.pairwise(base):
        print(f"growth {a['n']:,} -> {b['n']:,}: x{b['cpu'] / a['cpu']:.1f} CPU for x{b['n'] / a['n']:.0f} calls")


if __name__ == "__main__":
    main()
