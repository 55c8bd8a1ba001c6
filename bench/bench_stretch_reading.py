"""A first-pass stretch of OTLP traces read span by span as its lines are parsed, against the same
stretch with its decoded lines kept until the last is parsed: CPU a trace, in one process.

Run: .venv/bin/python bench/bench_stretch_reading.py [--traces 20000] [--rounds 4] [--batch B] [--odd-every N]

Why: `toolscore export --per-trace` builds a source's records in its workers' first pass, a
1 MiB stretch of the file at a time (toolscore_export/per_trace_pool.py). Gathering a
stretch's spans first kept every decoded line alive until its last was parsed: some 7 MB of
small objects, allocated, read back and freed out of the cache. This times
``per_trace_pool.stretch_keys`` on the stretches of bench_export.py's OTLP file (two traces a
line, six spans and three calls each) both ways, alternating, with the workers' garbage
collector settings and heap pad; and, for the effect alone, orjson parsing the same lines
with each value let go at once, against 256 of them kept at a time.

``--odd-every N`` gives every Nth trace's spans an event, which the plain reader turns down
(the general path reads those traces: in a streamed stretch, from the spans kept once the trace
is turned down and its earlier lines parsed again), and ``--batch B`` writes B traces a line
(stretches of eight lines, as for a collector's batches). Each stretch is read as a worker's
first, before the reader could give up on the source.
"""

from __future__ import annotations

import argparse
import gc
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_export import otlp_traces_file


def stretches(path: Path, spill: str, pool: Any) -> None:
    size = path.stat().st_size
    step, edge = pool.stretch_layout(path)
    for offset in range(0, size, step):
        pool._plain.refused = 0  # each stretch as a worker's first
        assert pool.stretch_keys(pool.Stretch(str(path), offset, min(step, size - offset), "0" * 64, spill, edge))
    for name in os.listdir(spill):
        os.unlink(os.path.join(spill, name))


def with_events(path: Path, every: int) -> None:
    """Every ``every``-th trace of ``path`` (by its trace id's number) with an event on each of its spans."""
    import orjson

    out = []
    for line in path.read_bytes().splitlines():
        request = orjson.loads(line)
        for resource in request["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    if int(span["traceId"], 16) % every == 0:
                        span["events"] = [{"name": "log", "attributes": []}]
        out.append(orjson.dumps(request) + b"\n")
    path.write_bytes(b"".join(out))


def parsed(lines: list[bytes], kept: int) -> None:
    import orjson

    for start in range(0, len(lines), kept):
        values = [orjson.loads(line) for line in lines[start:start + kept]]
        del values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traces", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--batch", type=int, default=1, help="traces a line (bench_export.py's --batch)")
    parser.add_argument("--odd-every", type=int, default=0, help="every Nth trace's spans carry an event")
    opts = parser.parse_args()

    from toolscore_export import per_trace_pool as pool
    from toolscore_export.heap_pad import pad_the_heap
    from toolscore_export.trace_batches import TraceContext, set_context

    pad_the_heap()  # as a worker starts (parallel._start_worker)
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)
    set_context(TraceContext(None, None, None))
    streamed = pool._streamed
    with tempfile.TemporaryDirectory(prefix="bench-stretch-") as tmp:
        source = Path(tmp) / "traces.jsonl"
        trace = (Path(__file__).resolve().parents[1] / "tests" / "adapters" / "fixtures" / "otel"
                 / "mcp_spans.json").read_bytes()
        otlp_traces_file(source, trace, opts.traces, batch=opts.batch)
        if opts.odd_every:
            with_events(source, opts.odd_every)
        spill = os.path.join(tmp, "spill")
        os.mkdir(spill)
        lines = source.read_bytes().splitlines(keepends=True)
        stretches(source, spill, pool)  # imports, caches
        step = pool.stretch_layout(source)[0]
        print(f"{opts.traces:,} traces ({opts.batch} a line"
              + (f", every {opts.odd_every}th with span events" if opts.odd_every else "")
              + f"), {source.stat().st_size / 2**20:.1f} MiB, stretches of {step / 2**20:.2f} MiB; µs of CPU a trace")
        for round_ in range(opts.rounds):
            figures = []
            for name, way in (("kept", lambda: False), ("streamed", streamed)):
                pool._streamed = way
                started = time.process_time()
                stretches(source, spill, pool)
                figures.append(f"{name} {(time.process_time() - started) / opts.traces * 1e6:6.1f}")
            for kept in (1, 256):
                started = time.process_time()
                parsed(lines, kept)
                figures.append(f"parse, {kept} kept {(time.process_time() - started) / opts.traces * 1e6:5.1f}")
            print(f"round {round_ + 1}: " + " | ".join(figures))
        pool._streamed = streamed


if __name__ == "__main__":
    main()
