"""A small trace file is read once on the export path: its kind, hash, trace and run span come
from one read of its bytes. Each short cut is compared here with the general path it stands for
(the kernel reading the file by its path, ``detect_kind`` reading it line by line, the run span
read from the file), on every adapter fixture and on the hostile inputs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from toolscore_core import InputError, evaluate
from toolscore_core.kernel.traces import load_trace_bytes, load_trace_file
from toolscore_export import export_runs, sources
from toolscore_export.run_span import run_span_id
from toolscore_export.sources import detect_kind, kind_of_bytes, look_at

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "adapters" / "fixtures"
TRACES = sorted(p for p in FIXTURES.rglob("*") if p.suffix in (".json", ".jsonl"))
RECEIPT = {"kind": "toolscore.evaluation", "score": 1.0}


def _error(fn, *args, **kwargs) -> tuple[str, str | None, str | None]:
    with pytest.raises(InputError) as caught:
        fn(*args, **kwargs)
    return caught.value.message, str(caught.value.file), caught.value.location


@pytest.mark.parametrize("path", TRACES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_trace_from_its_bytes_is_the_trace_from_its_path(path):
    by_path = load_trace_file(path, allow_empty=True)
    by_bytes, _ = load_trace_bytes(path, path.read_bytes(), allow_empty=True)
    assert by_bytes == by_path
    assert kind_of_bytes(path, path.read_bytes()) == detect_kind(path)


def _kinds_cases(tmp_path: Path) -> dict[str, bytes]:
    row = json.dumps({"run_record_version": 1, "task_id": "t"})
    return {
        "rows.jsonl": f"\n  \n{row}\n{row}\n".encode(),
        "escaped.jsonl": b'{"run\\u005frecord_version": 1}\n',  # the key spelled with an escape: a runs file
        "escaped_kind.jsonl": b'{"kind": "toolscore\\u002eevaluation"}\n',
        "receipts.jsonl": (json.dumps(RECEIPT) + "\n" + json.dumps(RECEIPT) + "\n").encode(),
        "receipt.json": json.dumps(RECEIPT, indent=2).encode(),
        "receipts.json": json.dumps([RECEIPT, RECEIPT], indent=2).encode(),
        "mixed.json": json.dumps([RECEIPT, {"kind": "other"}], indent=2).encode(),
        "bom.jsonl": b"\xef\xbb\xbf" + json.dumps(RECEIPT).encode() + b"\n",
        "not_utf8.json": b'{"kind": "toolscore.evaluation", "x": "\xff"}',
        "text.txt": b"hello\nworld\n",
        "trace.json": (FIXTURES / "otel" / "mcp_spans.json").read_bytes(),
        "trace.jsonl": (FIXTURES / "otel" / "seed_batches.jsonl").read_bytes(),
        "no_newline": b"   {}",
    }


def test_the_kind_from_bytes_is_the_kind_from_the_file(tmp_path):
    for name, raw in _kinds_cases(tmp_path).items():
        path = tmp_path / name
        path.write_bytes(raw)
        assert (name, kind_of_bytes(path, raw)) == (name, detect_kind(path))
        assert look_at(path) == (detect_kind(path), len(raw), raw)


def test_an_unusual_source_is_looked_at_as_before(tmp_path, monkeypatch):
    (tmp_path / "empty.json").write_bytes(b"")
    (tmp_path / "folder").mkdir()
    for path in (tmp_path / "missing.json", tmp_path / "empty.json", tmp_path / "folder"):
        assert _error(look_at, path) == _error(detect_kind, path)
    big = tmp_path / "big.json"
    big.write_bytes((FIXTURES / "otel" / "mcp_spans.json").read_bytes())
    monkeypatch.setattr(sources, "SMALL_FILE", 100)
    assert look_at(big) == ("trace", big.stat().st_size, None)  # large: not held, read when its turn comes


def test_hostile_bytes_fail_as_the_file_fails(tmp_path, monkeypatch):
    cases = {"bad_utf8.json": b'{"a": "\xff\xfe"}', "blank.json": b"  \n\n ", "bad.json": b'{"a": ',
             "bad_line.jsonl": b'{"a": 1}\n{"a": \n', "deep.json": b"[" * 100_000 + b"]" * 100_000}
    for name, raw in cases.items():
        path = tmp_path / name
        path.write_bytes(raw)
        assert (name, _error(load_trace_bytes, path, raw)) == (name, _error(load_trace_file, path))
    path = tmp_path / "empty.json"
    path.write_bytes(b"")
    assert _error(load_trace_bytes, path, b"")[:2] == _error(load_trace_file, path)[:2]
    monkeypatch.setenv("TOOLSCORE_MAX_INPUT_MB", "0.001")
    path = FIXTURES / "otel" / "mcp_spans.json"
    assert _error(load_trace_bytes, path, path.read_bytes()) == _error(load_trace_file, path)


def test_the_run_span_from_parsed_requests_is_the_one_read_from_the_file():
    for path in (FIXTURES / "otel").glob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        requests = data if isinstance(data, list) else [data]
        for trace_id in {s.get("traceId") for r in requests for rs in r.get("resourceSpans", [])
                         for ss in rs.get("scopeSpans", []) for s in ss.get("spans", [])}:
            assert run_span_id(path, trace_id, requests) == run_span_id(path, trace_id), path.name


def _export(tmp_path: Path, sources_: list[Path], name: str) -> tuple[bytes, dict]:
    out = tmp_path / name
    result = export_runs(sources_, out, workers=1)
    return out.read_bytes(), comparable(result.manifest)


def comparable(manifest: dict) -> dict:
    """A manifest without what differs between two exports of the same sources (time, output name)."""
    kept = {k: v for k, v in manifest.items() if k not in ("created_at", "manifest_sha256")}
    return kept | {"output": {k: v for k, v in kept["output"].items() if k != "name"}}


def _as_yaml(source: Path, path: Path) -> Path:
    """An OTLP trace written as block YAML: read by the adapter, but not by the run span (JSON only)."""
    from ruamel.yaml import YAML

    with path.open("w", encoding="utf-8") as handle:
        YAML(typ="safe", pure=True).dump(json.loads(source.read_text(encoding="utf-8")), handle)
    return path


def test_an_export_from_held_bytes_is_the_export_that_reads_every_file_again(tmp_path, monkeypatch, rows_file,
                                                                               make_row):
    folder = tmp_path / "in"
    folder.mkdir()
    chosen = [*TRACES, rows_file(folder / "runs.jsonl", [make_row(), make_row(task="other")])]
    receipt = folder / "receipt.json"
    guardrails = ROOT / "examples" / "guardrails"
    receipt.write_text(json.dumps(evaluate(guardrails / "gold.json", guardrails / "trace.json").to_dict(), indent=2),
                       encoding="utf-8")
    chosen += [receipt, _as_yaml(FIXTURES / "otel" / "mcp_spans.json", folder / "spans.yaml")]
    fast = _export(tmp_path, chosen, "fast.jsonl")
    monkeypatch.setattr(sources, "SMALL_FILE", 0)  # every source read by its path, as before
    assert _export(tmp_path, chosen, "slow.jsonl") == fast
    assert fast[1]["sources"][0]["sha256"] == hashlib.sha256(TRACES[0].read_bytes()).hexdigest()


def test_held_bytes_stay_within_their_budget(tmp_path, monkeypatch):
    trace = (FIXTURES / "otel" / "mcp_spans.json").read_bytes()
    paths = []
    for i in range(5):
        paths.append(tmp_path / f"t{i}.json")
        paths[-1].write_bytes(trace)
    monkeypatch.setattr(sources, "CACHE_BYTES", 2 * len(trace))
    reader = sources.Sources(paths, workers=1)
    runs = iter(reader)
    next(runs)
    assert sorted(reader._held) == [1]  # two held up front, the first already used; the rest are read again
    assert len(list(runs)) == 4


def _looks_like_json_lines_whole(text: str) -> bool:
    """The rule as it was written before it stopped splitting a whole file: the reference."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 2:
        return False
    first = lines[0].strip()
    if not first.startswith(("{", "[")):
        return False
    try:
        json.loads(first)
    except (ValueError, RecursionError):
        return False
    return True


def test_json_lines_are_told_from_the_first_two_lines_as_from_all_of_them():
    from toolscore_core.kernel.files import looks_like_json_lines

    texts = ["", "\n\n", '{"a": 1}', '{"a": 1}\n', '{"a": 1}\n\n  \n', '{"a": 1}\n{"b": 2}\n', '\n \n{"a": 1}\n x\n',
             '[1]\r\n[2]', '{\n  "a": 1\n}\n', 'x\n{"a": 1}\n', '{"a": \n1}\n', '{"a": 1}\u2028{"b": 2}',
             '\u2029\n{"a": 1}\x0b{"b": 2}', "[" * 5000 + "\n" + "]" * 5000 + "\n"]
    for text in texts:
        assert looks_like_json_lines(text) == _looks_like_json_lines_whole(text), repr(text[:40])
