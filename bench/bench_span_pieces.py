"""A collector's OTLP lines read whole against read in pieces (toolscore_export/span_pieces.py): µs of CPU a
span by line length, and the peak memory of reading the longest line, each way.

Run: .venv/bin/python bench/bench_span_pieces.py [--rounds 3] [--batches 1,16,64,256,1000,2000]

Why: orjson reads a line of a few traces at about 2.3 µs a span, but a collector's line of 2,000
traces (7 MB) at 8-9: the whole document is built, read and freed out of the cache, and while it
is built orjson holds some 80 MiB beside the line's 35 MiB of values. The export's workers read
lines of 256 KiB or more in pieces of 16 KiB instead. Lines are bench_export.py's (--batch B: B
traces a line, six spans each, every trace's spans over two lines). Four readers, each over the
same lines, alternating: ``whole`` is orjson (trace ids only, the first pass's reader), ``whole,
kernel`` the kernel's ``loads_bytes`` (the values records are built from: orjson where it
provably reads as the standard reader, after that test); ``pieces`` and ``pieces, kernel`` the
same two in pieces. Memory: a fresh interpreter reads the longest line once each way and reports
its peak RSS growth (VmHWM), with the line's bytes already read.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_export import otlp_traces_file

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "adapters" / "fixtures" / "otel" / "mcp_spans.json"

_MEMORY = """
import sys
from _memory import peak_rss_kib, reset_peak
line = open(sys.argv[1], "rb").readlines()[1]
import orjson
from toolscore_export.span_pieces import spans_in_pieces
from toolscore_core.kernel.readlimits import loads_bytes
reset_peak()
before = peak_rss_kib()
if sys.argv[2] == "whole":
    n = sum(len(s["spans"]) for r in loads_bytes(line)["resourceSpans"] for s in r["scopeSpans"])
else:
    n = sum(len(piece) for piece in spans_in_pieces(line, exact=True))
print(n, (peak_rss_kib() - before) / 1024)
"""


def readers() -> dict[str, object]:
    import orjson

    from toolscore_core.kernel.readlimits import loads_bytes
    from toolscore_export.per_trace import plain_spans
    from toolscore_export.span_pieces import spans_in_pieces

    def whole(read):
        return lambda line: len(plain_spans(read(line)) or ())

    def pieces(exact):
        return lambda line: sum(len(piece) for piece in spans_in_pieces(line, exact=exact))

    return {"whole": whole(orjson.loads), "whole, kernel": whole(loads_bytes), "pieces": pieces(False),
            "pieces, kernel": pieces(True)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batches", default="1,16,64,256,1000,2000", help="traces a line, comma-separated")
    opts = parser.parse_args()
    trace = FIXTURE.read_bytes()
    ways = readers()
    with tempfile.TemporaryDirectory(prefix="bench-pieces-") as tmp:
        print("µs of CPU a span, the best of each round's; lines 2-5 of bench_export.py's file")
        print(f"{'traces a line':>13} {'line':>9} | " + " | ".join(f"{name:>14}" for name in ways))
        longest = None
        for batch in (int(b) for b in opts.batches.split(",")):
            path = Path(tmp) / f"b{batch}.jsonl"
            otlp_traces_file(path, trace, max(batch * 8, 40), batch=batch)
            lines = path.read_bytes().splitlines(keepends=True)[1:5]
            best = dict.fromkeys(ways, float("inf"))
            for _ in range(opts.rounds):
                for name, read in ways.items():
                    start = time.process_time()
                    spans = sum(read(line) for line in lines)  # type: ignore[operator]
                    best[name] = min(best[name], (time.process_time() - start) / spans * 1e6)
            print(f"{batch:>13} {len(lines[0]) / 1e6:>7.2f}MB | " + " | ".join(f"{best[n]:>14.2f}" for n in ways))
            longest = path
        assert longest is not None
        for way in ("whole", "pieces"):
            here = Path(__file__).resolve().parent
            result = subprocess.run([sys.executable, "-c", _MEMORY, str(longest), way], capture_output=True, text=True,
                                    check=True, cwd=here, env={"PYTHONPATH": str(here), "PATH": ""})
            count, grown = result.stdout.split()
            print(f"the longest line read {way}, the kernel's values: peak RSS growth {float(grown):.1f} MiB "
                  f"({count} spans)")


if __name__ == "__main__":
    main()
