"""The output's hash in the manifest is taken as the output is written: the same hash a read of the
file gives, and, whenever anything but plain in-order writes touched the file, a read it is."""

from __future__ import annotations

import hashlib
import io
import json

from toolscore_export import export_runs
from toolscore_export.canonical import file_sha256
from toolscore_export.export import _HashedFile


def test_the_manifest_hash_is_the_files_hash(tmp_path, make_row, ghp):
    runs = tmp_path / "runs.jsonl"
    rows = [make_row(task=f"t{i}", final_answer=f"caf\u00e9 {ghp}" if i == 3 else "ok").to_dict() for i in range(30)]
    runs.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    for workers, fmt in ((1, "aef"), (2, "aef"), (1, "otel")):
        out = tmp_path / f"records-{workers}-{fmt}.jsonl"
        result = export_runs([runs], out, fmt=fmt, workers=workers)
        assert result.manifest["output"]["sha256"] == file_sha256(out)


def test_writes_in_order_are_hashed_and_anything_else_is_read_back(tmp_path):
    path = tmp_path / "out.jsonl"
    hashed = _HashedFile(path)
    with io.TextIOWrapper(io.BufferedWriter(hashed), encoding="utf-8", errors="backslashreplace") as stream:
        stream.write("caf\u00e9 \ud800\n")
        stream.buffer.write(b"raw bytes\n" * 5000)
        stream.write("end\n")
    data = path.read_bytes()
    assert hashed.hexdigest(len(data)) == hashlib.sha256(data).hexdigest() and b"\\ud800" in data
    assert hashed.hexdigest(len(data) + 1) is None  # bytes it never saw: read the file instead
    for touch in ("seek", "truncate"):
        moved = _HashedFile(tmp_path / f"{touch}.jsonl")
        with io.BufferedWriter(moved) as stream:
            stream.write(b"first line\n")
            stream.flush()
            getattr(moved, touch)(0)
            stream.write(b"other line\n")
        assert moved.hexdigest((tmp_path / f"{touch}.jsonl").stat().st_size) is None
