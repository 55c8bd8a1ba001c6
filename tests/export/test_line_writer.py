"""``aef`` writes its lines as bytes in batches: the file holds exactly what the text path
writes, whatever the records hold and however they mix with blocks from worker processes."""

from __future__ import annotations

import io

import pytest

from toolscore_export.canonical import prepare, prepared_bytes
from toolscore_export.exporters import RunRecordLines
from toolscore_export.parallel import EncodedRecords


def _records() -> list[object]:
    values = [None, 1.5, 1.0, 1e-7, 2**70, "caf\u00e9 \U0001f600", "lone \ud800 surrogate", "line\nbreak \u2028",
              "ghp_" + "a" * 36, {"z": 1, "a": [True, False]}]
    out: list[object] = []
    for i in range(120):
        record = prepare({"run_id": f"r{i}", "value": values[i % len(values)], "nested": {"k": values[(i * 7) % 10]}})
        if i % 25 == 24:  # a worker's block of two records, between single records
            block = b"".join(prepared_bytes(r, sort_keys=False) + b"\n" for r in (record, {"block": i}))
            out.append(EncodedRecords(block, 2))
        else:
            out.append(record)
    return out


@pytest.mark.parametrize("batch", [1, 300, 1 << 16])
def test_batched_bytes_are_the_text_paths_lines(tmp_path, monkeypatch: pytest.MonkeyPatch, batch: int):
    monkeypatch.setattr(RunRecordLines, "BATCH_BYTES", batch)
    records = _records()
    text = io.StringIO()
    RunRecordLines().export(iter(records), text)
    path = tmp_path / "out.jsonl"
    with open(path, "w", encoding="utf-8", errors="backslashreplace", newline="\n") as stream:
        stream.write("")  # the export's own stream, as export_runs opens it
        RunRecordLines().export(iter(records), stream)
    expected = text.getvalue().encode("utf-8", "backslashreplace")
    assert path.read_bytes() == expected
    assert expected.count(b"\n") == 120 + 4  # four blocks of two records each
    assert b"\\ud800" in expected
