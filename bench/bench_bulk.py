"""Bulk scoring throughput: traces per second for many small traces, at 1 and 2 workers.

Run: .venv/bin/python bench/bench_bulk.py [--traces 10000] [--calls 10] [--workers 1 2] [--executor local]
     [--format openai]
Writes ``--traces`` OpenAI-message traces of ``--calls`` tool calls each (a tenth with a
wrong argument, so findings are counted too) and one gold file to a temporary folder, then
times :func:`toolscore_core.evaluate_many` once per worker count, from the first path found
to the summary written (discovery, hashing, scoring, one fsynced row per trace). Prints
traces/s and the speed-up over the first worker count.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path


def make_traces(folder: Path, count: int, calls: int) -> Path:
    """``count`` OpenAI chat-message traces under ``folder/traces``; returns the gold file."""
    expected = [{"tool": "lookup", "args": {"item": f"I-{i}"}} for i in range(calls)]
    gold = folder / "gold.json"
    gold.write_text(json.dumps(expected), encoding="utf-8")
    for n in range(count):
        messages: list[dict[str, object]] = [{"role": "user", "content": "look everything up"}]
        for i in range(calls):
            item = f"I-{i}" if (n + i) % 10 else f"I-{i}-x"
            call_id = f"call_{n}_{i}"
            messages.append({"role": "assistant", "content": None, "tool_calls": [{
                "id": call_id, "type": "function",
                "function": {"name": "lookup", "arguments": json.dumps({"item": item})}}]})
            messages.append({"role": "tool", "tool_call_id": call_id, "content": json.dumps({"found": True})})
        messages.append({"role": "assistant", "content": "done"})
        target = folder / "traces" / f"d{n % 100:02d}" / f"t{n:06d}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(messages), encoding="utf-8")
    return gold


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--executor", default="local")
    parser.add_argument("--format", default=None, help="force the trace format (e.g. openai): no detection")
    opts = parser.parse_args()
    from toolscore_core import evaluate_many

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        gold = make_traces(folder, opts.traces, opts.calls)
        print(f"wrote {opts.traces} traces of {opts.calls} calls in {time.perf_counter() - start:.1f} s "
              f"({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f})")
        first = None
        for workers in opts.workers:
            out = folder / f"results-{workers}.jsonl"
            start = time.perf_counter()
            result = evaluate_many(gold, str(folder / "traces" / "**" / "*.json"), output=out, workers=workers,
                                   executor=opts.executor, format=opts.format, keep_rows=False)
            seconds = time.perf_counter() - start
            rate = opts.traces / seconds
            first = first or rate
            summary = result.summary
            print(f"{opts.executor} workers={workers}: {seconds:.2f} s, {rate:.0f} traces/s "
                  f"(x{rate / first:.2f}), scored {summary['scored']}, errors {summary['errors']}, "
                  f"mean score {summary['score']['mean']:.3f}")
            if summary["errors"]:
                print(f"unexpected errors: {summary['error_examples'][:2]}", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
