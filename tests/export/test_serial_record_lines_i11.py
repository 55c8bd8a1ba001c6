"""The serial export hands ``aef`` each trace run's record as its line (``record.record_line``)
instead of the record dict the exporter encodes (issue 11). Compared here with the general path
it skips, ``prepared_bytes(build_record(run))`` per run of the same sources, on every adapter
fixture (trace files, receipts, gold or not, per trace or not) and through the text-only stream."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from toolscore_core import InputError
from toolscore_export import export_runs
from toolscore_export.canonical import prepared_bytes
from toolscore_export.exporters import RunRecordLines
from toolscore_export.parallel import EncodedRecords
from toolscore_export.record import build_record
from toolscore_export.sources import Sources

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "adapters" / "fixtures"
TRACES = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl", ".yaml", ".yml"))


def _reference(paths: list[Path], per_trace: bool) -> bytes:
    """The lines of the general path: every run's record dict, encoded as the exporter encodes one."""
    lines = []
    for run in Sources(paths, workers=1, per_trace=per_trace):
        record = run if isinstance(run, dict) else build_record(run)  # type: ignore[arg-type]
        lines.append(prepared_bytes(record, sort_keys=False) + b"\n")
    return b"".join(lines)


@pytest.mark.parametrize("per_trace", [False, True])
@pytest.mark.parametrize("path", TRACES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_a_serial_export_writes_the_general_paths_lines(tmp_path: Path, path: Path, per_trace: bool) -> None:
    try:
        expected = _reference([path], per_trace)
    except InputError as error:  # a broken fixture: the export fails alike
        with pytest.raises(InputError) as caught:
            export_runs([path], tmp_path / "o.jsonl", workers=1, per_trace=per_trace)
        assert (caught.value.message, caught.value.location) == (error.message, error.location)
        return
    result = export_runs([path], tmp_path / "o.jsonl", workers=1, per_trace=per_trace)
    assert (tmp_path / "o.jsonl").read_bytes() == expected
    assert result.records == expected.count(b"\n")


def test_many_sources_cross_the_exporters_batch(tmp_path: Path) -> None:
    """More records than one batch of the exporter, single lines and a worker-sized block mixed."""
    trace = (FIXTURES / "otel" / "mcp_spans.json").read_bytes()
    paths = []
    for index in range(60):
        paths.append(tmp_path / f"t{index}.json")
        paths[-1].write_bytes(trace)
    expected = _reference(paths, False)
    export_runs(paths, tmp_path / "o.jsonl", workers=1)
    assert (tmp_path / "o.jsonl").read_bytes() == expected
    big = EncodedRecords(expected, 60)
    single = EncodedRecords(expected[: expected.index(b"\n") + 1], 1)
    items = [single, big, single, *([single] * 70)]
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="utf-8", newline="\n")
    RunRecordLines().export(items, stream)
    stream.flush()
    assert raw.getvalue() == b"".join(item.data for item in items)
    text = io.StringIO()
    RunRecordLines().export(items, text)
    assert text.getvalue().encode("utf-8") == raw.getvalue()
