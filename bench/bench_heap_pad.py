"""Page faults of a worker encoding run rows, with and without its heap padded (``heap_pad``).

Run: .venv/bin/python bench/bench_heap_pad.py [--rows 3000] [--rounds 2]

Each side runs in a fresh interpreter: it cuts a runs file (bench_export.py writes it) into
the export's chunks, encodes every chunk once to make its heap, then counts the minor page
faults (``ru_minflt``) of ``--rounds`` more passes, each chunk's records spilled to a file and
read back as a worker and the driver do. The padded side calls ``pad_the_heap()`` first, as
every export worker does. Why a bench and not a test: a fault count moves with the machine
and its other tenants (a fresh-clone CI run saw 2.8 times fewer faults padded, where this
machine sees 9 to 18 times).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from bench_export import runs_file

_ENCODE = textwrap.dedent("""
    import json, resource, sys
    from pathlib import Path
    from toolscore_export import parallel
    from toolscore_export.heap_pad import pad_the_heap
    padded = pad_the_heap() if sys.argv[2] == "pad" else None
    path = Path(sys.argv[1])
    chunks = [parallel.Chunk(path=str(path), sha256="0" * 64, first=first, offset=offset, size=size, final=final,
                             latest=None, attempts={}, spill=sys.argv[3])
              for first, offset, size, _, final in parallel._spans(path)]
    def encode_all():
        for chunk in chunks:
            parallel.taken_back(parallel.encode_chunk(chunk)[0])
    encode_all()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(int(sys.argv[4])):
        encode_all()
    print(json.dumps({"padded": padded, "faults": resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before,
                      "chunks": len(chunks)}))
""")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=2)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-heap-pad-") as tmp:
        runs, spill = Path(tmp) / "runs.jsonl", Path(tmp) / "spill"
        spill.mkdir()
        runs_file(runs, opts.rows, 3)
        for mode in ("plain", "pad"):
            done = subprocess.run([sys.executable, "-c", _ENCODE, str(runs), mode, str(spill), str(opts.rounds)],
                                  capture_output=True, text=True, check=True)
            found = json.loads(done.stdout)
            print(f"{mode:5s}: {found['faults']:,} page faults over {opts.rounds} passes of {found['chunks']} chunks"
                  f" (pad set: {found['padded']})")


if __name__ == "__main__":
    main()
