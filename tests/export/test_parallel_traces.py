"""Worker processes for trace files: the serial bytes, the serial manifest, the serial first error."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from toolscore_core import InputError
from toolscore_export import export_runs, trace_batches
from toolscore_export import parallel as par
from toolscore_export.parallel import choose_workers

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "adapters" / "fixtures"
TRACES = sorted(p for p in FIXTURES.rglob("*") if p.suffix in (".json", ".jsonl"))
GUARDRAILS = ROOT / "examples" / "guardrails"


@pytest.fixture(autouse=True)
def small_batches(monkeypatch):
    monkeypatch.setattr(trace_batches, "BATCH_FILES", 3)  # many tasks from a few files
    monkeypatch.setattr(par, "can_fork", lambda: True)  # threads of earlier tests must not make it serial


def comparable(manifest: dict, stamped: bool = False) -> dict:
    """A manifest without what differs between two exports of the same sources (time, output name)."""
    kept = {k: v for k, v in manifest.items() if k not in ("created_at", "manifest_sha256")}
    apart = ("name", "sha256") if stamped else ("name",)
    return kept | {"output": {k: v for k, v in kept["output"].items() if k not in apart}}


def both(tmp_path: Path, sources: list[Path], **options) -> tuple[bytes, bytes]:
    """The output of one process and of two workers, after checking their manifests agree."""
    serial, pooled = tmp_path / "serial.jsonl", tmp_path / "pooled.jsonl"
    one = export_runs(sources, serial, workers=1, **options)
    two = export_runs(sources, pooled, workers=2, **options)
    stamped = options.get("fmt") == "otel"  # its lines carry the time they were written
    assert comparable(one.manifest, stamped) == comparable(two.manifest, stamped)
    return serial.read_bytes(), pooled.read_bytes()


def copies(folder: Path, names: list[str], source: Path) -> list[Path]:
    folder.mkdir(exist_ok=True)
    made = [folder / name for name in names]
    for path in made:
        path.write_bytes(source.read_bytes())
    return made


def test_every_fixture_with_workers_is_the_serial_export(tmp_path, rows_file, make_row):
    runs = rows_file(tmp_path / "runs.jsonl", [make_row(), make_row(task="other")])
    receipt = tmp_path / "receipt.json"
    from toolscore_core import evaluate

    receipt.write_text(json.dumps(evaluate(GUARDRAILS / "gold.json", GUARDRAILS / "trace.json").to_dict()))
    twice = [*copies(tmp_path / "again", [TRACES[0].name], TRACES[0]),  # names given already
             *copies(tmp_path / "again", [TRACES[1].name], TRACES[1])]
    sources = [*TRACES[:7], runs, *TRACES[7:20], receipt, *TRACES[20:], *twice]
    serial, pooled = both(tmp_path, sources)
    assert serial == pooled and serial.count(b"\n") == len(TRACES) + 2 + 1 + 2
    assert f'"run_id":"{TRACES[0].name}@'.encode() in pooled


def test_workers_score_against_gold_and_write_the_otel_format(tmp_path):
    traces = copies(tmp_path / "in", [f"t{i}.json" for i in range(7)], GUARDRAILS / "trace.json")
    serial, pooled = both(tmp_path, traces, gold=GUARDRAILS / "gold.json")
    assert serial == pooled and b'"grade"' in pooled
    serial, pooled = both(tmp_path, traces, gold=GUARDRAILS / "gold.json", fmt="otel")
    stamp = re.compile(rb'"observedTimeUnixNano":"\d+"')
    assert stamp.sub(b"", serial) == stamp.sub(b"", pooled)


def test_held_and_unheld_files_give_the_same_records(tmp_path, monkeypatch):
    from toolscore_export import sources

    traces = copies(tmp_path / "in", [f"t{i}.json" for i in range(8)], FIXTURES / "otel" / "mcp_spans.json")
    monkeypatch.setattr(sources, "CACHE_BYTES", 3 * traces[0].stat().st_size)  # the rest read by the workers
    serial, pooled = both(tmp_path, traces)
    assert serial == pooled


def _first_error(tmp_path: Path, sources: list[Path], workers: int) -> tuple[str, str | None, str | None]:
    with pytest.raises(InputError) as caught:
        export_runs(sources, tmp_path / f"out{workers}.jsonl", workers=workers)
    return caught.value.message, str(caught.value.file), caught.value.location


def test_the_first_bad_file_in_source_order_is_the_error(tmp_path):
    good = copies(tmp_path / "in", [f"t{i}.json" for i in range(10)], FIXTURES / "otel" / "mcp_spans.json")
    bad_json, bad_utf8 = tmp_path / "in" / "bad.json", tmp_path / "in" / "bad_utf8.json"
    bad_json.write_text('{"resourceSpans": [', encoding="utf-8")
    bad_utf8.write_bytes(b'{"a": "\xff"}')
    twice = copies(tmp_path / "again", ["t1.json", "t1.json"], good[1])[:1]
    for sources in ([*good[:4], bad_json, *good[4:], bad_utf8], [*good[:7], bad_utf8, *good[7:], bad_json],
                    [*good[:5], *twice, *good[5:], bad_json]):
        serial = _first_error(tmp_path, sources, 1)
        assert _first_error(tmp_path, sources, 2) == serial


def test_a_name_given_twice_over_is_the_serial_error(tmp_path):
    trace = FIXTURES / "otel" / "mcp_spans.json"
    sources = [*copies(tmp_path / "a", ["x.json"], trace), *copies(tmp_path / "b", ["x.json"], trace),
               *copies(tmp_path / "c", ["x.json"], trace)]
    serial = _first_error(tmp_path, sources, 1)
    assert "a second time" in serial[0] and _first_error(tmp_path, sources, 2) == serial


def test_workers_start_for_trace_files_only_when_there_are_enough():
    assert choose_workers(None, 0, par.AUTO_MIN_TRACE_FILES - 1) == 1
    assert choose_workers(0, 0, 10) == 1 and choose_workers(2, 0, 1) == 2
    assert choose_workers(None, 0, par.AUTO_MIN_TRACE_FILES) == min(par.usable_cpus(), par.MAX_AUTO_WORKERS)


@pytest.mark.parametrize("gold", [None, GUARDRAILS / "gold.json"], ids=["no-gold", "gold"])
def test_a_workers_trace_line_is_its_record_encoded(gold):
    """trace_line, what a worker writes for a trace file, is the bytes of trace_record's record
    and a newline, on every adapter fixture that reads as a trace (with and without a gold)."""
    from toolscore_core.kernel.plugins import get_plugin_manager
    from toolscore_export.canonical import file_sha256, prepared_bytes

    context = trace_batches.TraceContext(trace_format=None, gold=str(gold) if gold else None,
                                         pm=get_plugin_manager())
    compared = 0
    for path in TRACES:
        item = trace_batches.TraceItem(path=str(path), sha256=file_sha256(path), raw=None,
                                       run_id=f"run-{path.name}", repeated=False)
        try:
            record = trace_batches.trace_record(item, trace_batches._Format(), context)
        except InputError as exc:
            with pytest.raises(InputError) as raised:
                trace_batches.trace_line(item, trace_batches._Format(), context)
            assert raised.value.message == exc.message
            continue
        line = trace_batches.trace_line(item, trace_batches._Format(), context)
        assert line == prepared_bytes(record, sort_keys=False) + b"\n", path
        compared += 1
    assert compared > 20
