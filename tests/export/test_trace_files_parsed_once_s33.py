"""A small trace file past the bytes held from the first read is read again once and parsed once (issue 11).

Why: an export holds small trace files' bytes from its first read up to ``sources.CACHE_BYTES`` (some
2,000 files of 8 KB); the files after those went to the kernel by their path, and an OTLP file's run span
then read and parsed the whole file a second time. Now such a file's bytes are read again and parsed
once, for the trace and its run span alike. The records, and every error, must be what they were.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolscore_core import InputError
from toolscore_export import export_runs, run_span, sources

ROOT = Path(__file__).resolve().parents[2]
OTLP = ROOT / "tests" / "adapters" / "fixtures" / "otel" / "mcp_spans.json"


def _trace_files(folder: Path, count: int) -> list[Path]:
    """``count`` OTLP files of the fixture's spans, each under a trace id of its own."""
    request = json.loads(OTLP.read_text(encoding="utf-8"))
    paths = []
    for number in range(count):
        for resource in request["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    span["traceId"] = f"{number + 1:032x}"
        paths.append(folder / f"trace-{number}.json")
        paths[-1].write_text(json.dumps(request, indent=1), encoding="utf-8")
    return paths


def _exported(paths: list[Path], out: Path, workers: int) -> tuple[bytes, list[Any]]:
    result = export_runs(paths, out, workers=workers)
    return out.read_bytes(), result.manifest["sources"]


@pytest.mark.parametrize("workers", [1, 2])
def test_files_past_the_held_bytes_are_parsed_once_with_the_same_records(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch,
                                                                         workers: int) -> None:
    from toolscore_export import parallel

    monkeypatch.setattr(parallel, "can_fork", lambda: True)  # threads of earlier tests must not make it serial
    paths = _trace_files(tmp_path, 12)
    held = _exported(paths, tmp_path / "held.jsonl", workers)
    read_again: list[Path] = []
    requests = run_span._requests

    def counted(path: Path) -> Any:
        read_again.append(path)
        return requests(path)

    monkeypatch.setattr(run_span, "_requests", counted)
    monkeypatch.setattr(sources, "CACHE_BYTES", 0)  # no file's bytes held from the first read
    assert _exported(paths, tmp_path / "unheld.jsonl", workers) == held
    assert read_again == []  # (workers=2: a forked worker's calls would not show here, but its records do)
    spans = [json.loads(line)["trace_context"].get("span_id") for line in held[0].splitlines()]
    assert len(spans) == 12 and all(isinstance(span, str) and len(span) == 16 for span in spans)


def test_the_run_span_is_the_one_a_second_read_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run span (the records' ``trace_context.span_id``) is the same when the file is parsed once as when
    the run span read it again: compared by reading the file again on purpose."""
    paths = _trace_files(tmp_path, 3)
    monkeypatch.setattr(sources, "CACHE_BYTES", 0)
    once = _exported(paths, tmp_path / "once.jsonl", 1)[0]
    monkeypatch.setattr(sources, "_small_file_bytes", lambda path: None)  # the kernel opens it, as before
    again = _exported(paths, tmp_path / "again.jsonl", 1)[0]
    assert once == again
    spans = [json.loads(line)["trace_context"].get("span_id") for line in once.splitlines()]
    assert len(spans) == 3 and all(isinstance(span, str) and len(span) == 16 for span in spans)


BAD_FILES = {
    "invalid_utf8.json": b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "\xff"}]}]}]}',
    "truncated.json": OTLP.read_bytes()[:300],
    "deep.json": b'{"resourceSpans": ' + b"[" * 300 + b"]" * 300 + b"}",
    "not_a_trace.json": b'{"hello": "world"}',
    "nan.json": b'{"resourceSpans": NaN}',
    "bom.json": b"\xef\xbb\xbf" + OTLP.read_bytes(),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_a_file_read_again_gives_the_error_or_record_it_gave_held_or_opened_by_the_kernel(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    good = _trace_files(tmp_path, 1)[0]
    bad = tmp_path / name
    bad.write_bytes(BAD_FILES[name])
    outcomes: list[bytes | str] = []
    for cache, small in ((sources.CACHE_BYTES, sources.SMALL_FILE), (0, sources.SMALL_FILE), (0, 0)):
        monkeypatch.setattr(sources, "CACHE_BYTES", cache)
        monkeypatch.setattr(sources, "SMALL_FILE", small)  # 0: every file opened by the kernel, as before
        try:
            outcomes.append(_exported([good, bad], tmp_path / f"out-{cache}-{small}.jsonl", 1)[0])
        except InputError as exc:
            outcomes.append(str(exc))
    assert outcomes[0] == outcomes[1] == outcomes[2], outcomes
    assert name == "bom.json" or isinstance(outcomes[0], str)  # (each bad file is an error, not a record)
