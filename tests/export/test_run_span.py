"""The run's own span of an OTLP trace file: the agent span, else the one root, else nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolscore_core import InputError
from toolscore_export import export_runs, validate_record
from toolscore_export.run_span import run_span_id

TRACE = "0af7651916cd43dd8448eb211c80319c"


def span(span_id: str, parent: str | None = None, operation: str | None = None, trace: str = TRACE) -> dict:
    attributes = [{"key": "gen_ai.operation.name", "value": {"stringValue": operation}}] if operation else []
    item = {"traceId": trace, "spanId": span_id, "name": operation or "step", "attributes": attributes}
    if parent:
        item["parentSpanId"] = parent
    return item


def otlp(path: Path, spans: list[dict], lines: bool = False) -> Path:
    requests = [{"resourceSpans": [{"scopeSpans": [{"spans": [s]}]}]} for s in spans]
    text = "\n".join(json.dumps(r) for r in requests) + "\n" if lines else json.dumps(
        {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})
    path.write_text(text, encoding="utf-8")
    return path


def test_the_agent_span_wins_over_the_root(tmp_path):
    path = otlp(tmp_path / "t.json", [span("aaaaaaaaaaaaaaaa"), span("bbbbbbbbbbbbbbbb", "aaaaaaaaaaaaaaaa", "invoke_agent"),
                                     span("cccccccccccccccc", "bbbbbbbbbbbbbbbb", "execute_tool")])
    assert run_span_id(path, TRACE) == "bbbbbbbbbbbbbbbb"


def test_without_an_agent_span_the_single_root_is_the_run(tmp_path):
    path = otlp(tmp_path / "t.jsonl", [span("aaaaaaaaaaaaaaaa"), span("cccccccccccccccc", "aaaaaaaaaaaaaaaa", "chat")],
                lines=True)
    assert run_span_id(path, TRACE) == "aaaaaaaaaaaaaaaa"


def test_an_uncertain_run_span_is_never_guessed(tmp_path):
    two_agents = otlp(tmp_path / "a.json", [span("aaaaaaaaaaaaaaaa", operation="invoke_agent"),
                                            span("bbbbbbbbbbbbbbbb", operation="invoke_agent")])
    two_roots = otlp(tmp_path / "b.json", [span("aaaaaaaaaaaaaaaa"), span("bbbbbbbbbbbbbbbb")])
    other_trace = otlp(tmp_path / "c.json", [span("aaaaaaaaaaaaaaaa", trace="1" * 32)])
    base64_ids = otlp(tmp_path / "d.json", [span("qqqqqqqqqqqqqqqq")])
    assert [run_span_id(p, TRACE) for p in (two_agents, two_roots, other_trace, base64_ids)] == [None] * 4
    assert run_span_id(two_roots, None) is None


def test_a_run_row_record_is_unchanged_and_a_span_record_validates(tmp_path, rows_file, make_row):
    runs = rows_file(tmp_path / "runs.jsonl", [make_row()])
    export_runs([runs], tmp_path / "rows.jsonl")
    record = json.loads((tmp_path / "rows.jsonl").read_text(encoding="utf-8"))
    assert record["trace_context"] == {"trace_id": None}  # rows carry no spans: no key is added
    fixture = Path(__file__).resolve().parents[1] / "adapters" / "fixtures" / "otel" / "mcp_spans.json"
    export_runs([fixture], tmp_path / "spans.jsonl")
    spans = json.loads((tmp_path / "spans.jsonl").read_text(encoding="utf-8"))
    assert spans["trace_context"]["span_id"] == "7a97c643656412a9"
    assert validate_record(spans) is None
    spans["trace_context"]["span_id"] = "0000000000000001"
    with pytest.raises(InputError, match="record_sha256"):  # the span id is under the record's hash
        validate_record(spans)
