"""Mutated bytes of every source kind: the export gives records that validate, or an InputError
(exit 2), and nothing else, serially and with workers.

Each case takes a valid source (run rows, a collector's OTLP lines read trace by trace, an
OTLP file, an evaluation receipt, an ``mcp record`` session) and damages it the ways files are
damaged: bytes flipped, cut, repeated or dropped, invalid UTF-8, a BOM, NUL and control
characters, deep brackets, long digits, NaN. Seeds are fixed, so a failure replays.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from toolscore_core import InputError
from toolscore_export import export_runs
from toolscore_export import parallel as par
from toolscore_export.check import check_file
from toolscore_export.manifest import MANIFEST_SCHEMA

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "adapters" / "fixtures"

INSERTS = [b"\xff", b"\xc3", b"\xef\xbb\xbf", b"\x00", b"\x1b[31m", b"[" * 300, b"]", b"}", b"{", b'"', b"\\",
           b"\\ud800", b"9" * 5000, b"NaN", b"-Infinity", b"1e999", b",", b":", b"\n", b"\r\n", b" " * 50,
           "✓é\u202e".encode()]


def mutated(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        where = rng.randrange(len(out) + 1)
        how = rng.randrange(5)
        if how == 0 and out:
            out[min(where, len(out) - 1)] = rng.randrange(256)
        elif how == 1:
            del out[where:where + rng.randint(1, 40)]
        elif how == 2:
            out[where:where] = rng.choice(INSERTS)
        elif how == 3:
            out = out[:where]  # cut
        else:
            start = rng.randrange(len(out) + 1)
            out[where:where] = out[start:start + rng.randint(1, 200)]  # a repeated piece
    return bytes(out)


def run_rows(make_row) -> bytes:
    lines = []
    for i in range(12):
        row = make_row(task=f"t{i % 5}").to_dict()
        row["turns"] = i
        lines.append(json.dumps(row, ensure_ascii=i % 2 == 0))
    return ("\n".join(lines) + "\n").encode("utf-8")


def collector_lines() -> bytes:
    request = json.loads((FIXTURES / "otel" / "mcp_spans.json").read_text(encoding="utf-8"))
    spans = [s for r in request["resourceSpans"] for scope in r["scopeSpans"] for s in scope["spans"]]
    lines = []
    for number in range(6):
        copy = [dict(s, traceId=f"{number + 1:032x}") for s in spans]
        lines.append(json.dumps({"resourceSpans": [{"resource": request["resourceSpans"][0].get("resource", {}),
                                                     "scopeSpans": [{"scope": {"name": "t"}, "spans": copy}]}]}))
    return ("\n".join(lines) + "\n").encode("utf-8")


def receipt() -> bytes:
    from toolscore_core import evaluate

    examples = ROOT / "examples" / "guardrails"
    return json.dumps(evaluate(examples / "gold.json", examples / "trace.json").to_dict()).encode("utf-8") + b"\n"


SOURCES = {
    "runs.jsonl": (run_rows, {}),
    "collector.jsonl": (lambda make_row: collector_lines(), {"per_trace": True}),
    "trace.json": (lambda make_row: (FIXTURES / "otel" / "mcp_spans.json").read_bytes(), {}),
    "receipts.jsonl": (lambda make_row: receipt(), {}),
    "session.jsonl": (lambda make_row: (FIXTURES / "mcp" / "memory_session.jsonl").read_bytes(), {}),
}


@pytest.mark.parametrize("fmt", ["aef", "otel"])
@pytest.mark.parametrize("name", sorted(SOURCES))
def test_damaged_sources_give_valid_records_or_an_input_error(tmp_path, make_row, monkeypatch, name, fmt):
    monkeypatch.setattr(par, "can_fork", lambda: True)
    monkeypatch.setattr(par, "CHUNK_BYTES", 2048)
    make, options = SOURCES[name]
    original = make(make_row)
    rng = random.Random(f"s35-{name}")
    outcomes = {"records": 0, "refused": 0}
    for case in range(60):
        source = tmp_path / f"{case}-{name}"
        source.write_bytes(mutated(original, rng))
        for workers in (1, 2):
            out = tmp_path / f"{case}-{workers}.jsonl"
            try:
                export_runs([source], out, workers=workers, fmt=fmt, **options)
            except InputError as exc:
                assert exc.message and not out.exists(), (case, workers)
                outcomes["refused"] += 1
                continue
            except Exception as exc:
                raise AssertionError(f"case {case}, workers {workers}: {type(exc).__name__}: {exc}") from exc
            if fmt == "aef":
                check = check_file(out)
                assert check.ok, (case, workers, [p.describe() for p in check.problems][:3])
            else:  # OTLP/JSON evaluation events: one JSON object a line
                assert all(isinstance(json.loads(line), dict) for line in out.read_text(encoding="utf-8").splitlines())
            outcomes["records"] += 1
    assert outcomes["records"] and outcomes["refused"]  # both kinds of outcome were met


@pytest.mark.parametrize("target", ["records", "manifest"])
def test_a_damaged_records_file_or_manifest_is_reported_never_raised(tmp_path, make_row, target):
    runs = tmp_path / "runs.jsonl"
    runs.write_bytes(run_rows(make_row))
    out = tmp_path / "records.jsonl"
    export_runs([runs], out)
    manifest = out.with_name(out.name + ".manifest.json")
    damaged = out if target == "records" else manifest
    original = damaged.read_bytes()
    rng = random.Random(f"s35-validate-{target}")
    found = 0
    for case in range(150):
        damaged.write_bytes(mutated(original, rng))
        try:
            check = check_file(out)
        except InputError:
            continue
        except Exception as exc:
            raise AssertionError(f"case {case}: {type(exc).__name__}: {exc}") from exc
        found += not check.ok
    for deep in (5000, 900):  # past the parser; read, but past the checks' walks
        damaged.write_bytes(f'{{"schema": "{MANIFEST_SCHEMA}", "x": '.encode() + b"[" * deep + b"]" * deep + b"}")
        problems = check_file(out).problems
        assert problems
        if target == "manifest":
            assert [p.where for p in problems] == ["manifest"] and "nested" in problems[0].message
    assert found > 100  # nearly every damage is seen


def bench_collector_file(path: Path, traces: int, batch: int) -> None:
    """The export bench's collector file (``bench_export.otlp_traces_file``) of ``traces`` traces."""
    from .test_plain_trace_s30 import bench_export_module

    bench_export_module().otlp_traces_file(path, (FIXTURES / "otel" / "mcp_spans.json").read_bytes(), traces,
                                           batch=batch)


def outcome_of(source: Path, out: Path, workers: int) -> tuple[str, Any]:
    try:
        export_runs([source], out, workers=workers, per_trace=True)
    except InputError as exc:
        return "error", (exc.message, exc.location)
    lines = out.read_bytes().splitlines()
    return "records", [json.loads(line)["hashes"]["record_sha256"] for line in lines]


@pytest.mark.parametrize("batch", [8, 160])  # lines of about 28 kB, and of 560 kB read in pieces
def test_a_damaged_collector_file_read_by_workers_gives_what_one_process_gives(tmp_path, monkeypatch, batch):
    """The pool's trace-by-trace reading (stretches, pieces, jobs) against the serial reading."""
    monkeypatch.setattr(par, "can_fork", lambda: True)
    clean = tmp_path / "clean.jsonl"
    bench_collector_file(clean, 340, batch)
    original = clean.read_bytes()
    assert len(original) > (1 << 20)  # large enough for the workers
    rng = random.Random(f"s35-pool-{batch}")
    kinds = set()
    for case in range(20):
        source = tmp_path / f"{case}.jsonl"
        source.write_bytes(mutated(original, rng))
        serial = outcome_of(source, tmp_path / f"{case}-1.jsonl", 1)
        pooled = outcome_of(source, tmp_path / f"{case}-2.jsonl", 2)
        assert pooled == serial, case
        kinds.add(serial[0])
    assert kinds == {"error", "records"}
