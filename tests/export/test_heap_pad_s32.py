"""A worker's heap kept padded (``heap_pad``): where glibc is the C library the pad is set, and a worker
encoding real chunks of run rows then takes far fewer fresh pages from the kernel (issue 11: the page
faults were a tenth of a rows export's CPU); elsewhere nothing is asked."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from toolscore_export import heap_pad

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"

#: Encode the first chunks of a runs file three times over, as a worker does, and print the minor page
#: faults taken while doing so (the first round, which makes the heap, is not counted).
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
            data = parallel.taken_back(parallel.encode_chunk(chunk)[0])
            assert data.count(b"\\n") > 100
    encode_all()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    encode_all(); encode_all()
    print(json.dumps({"padded": padded, "faults": resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before}))
""")


def _faults(runs: Path, spill: Path, mode: str) -> dict:
    done = subprocess.run([sys.executable, "-c", _ENCODE, str(runs), mode, str(spill)], capture_output=True,
                          text=True, timeout=300, check=True)
    return json.loads(done.stdout)


@pytest.mark.skipif(not GLIBC, reason="the pad is glibc's malloc setting")
def test_a_padded_worker_encodes_chunks_with_far_fewer_page_faults(tmp_path):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    try:
        from bench_export import runs_file
    finally:
        sys.path.pop(0)
    runs = tmp_path / "runs.jsonl"
    runs_file(runs, 3000, 3)  # about 4 MB: eight chunks of 512 KiB, each about 1 MB of records
    spill = tmp_path / "spill"
    spill.mkdir()
    plain, padded = _faults(runs, spill, "plain"), _faults(runs, spill, "pad")
    assert padded["padded"] is True and plain["padded"] is None
    assert padded["faults"] * 3 < plain["faults"], (plain, padded)
    assert not any(spill.iterdir())  # every spilled chunk was read back and removed


def test_nothing_is_asked_where_the_c_library_is_not_glibc(monkeypatch):
    monkeypatch.setattr(platform, "libc_ver", lambda *args, **kwargs: ("musl", "1.2"))
    assert heap_pad.pad_the_heap() is False
    monkeypatch.setattr(platform, "libc_ver", lambda *args, **kwargs: ("glibc", "2.36"))
    monkeypatch.setattr(platform, "system", lambda: "Darwin")
    assert heap_pad.pad_the_heap() is False


@pytest.mark.skipif(not GLIBC, reason="the pad is glibc's malloc setting")
def test_glibc_takes_the_pad():
    assert heap_pad.pad_the_heap() is True
