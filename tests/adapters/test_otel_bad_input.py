"""Broken OpenTelemetry input: a short InputError naming the file and the place, never a traceback.

Each case starts from the SDK-written example and breaks one thing in it.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolscore_adapters.protocols.otel import OtelAdapter
from toolscore_core import InputError
from toolscore_core.kernel.traces import load_trace_file

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "otel_genai_spans.json"
BATCHES = Path(__file__).resolve().parent / "fixtures" / "otel" / "seed_batches.jsonl"
SPANS = ("resourceSpans", 0, "scopeSpans", 0, "spans")


def _example() -> dict[str, Any]:
    return json.loads(EXAMPLE.read_text(encoding="utf-8"))


def _spans(data: dict[str, Any]) -> list[dict[str, Any]]:
    return data["resourceSpans"][0]["scopeSpans"][0]["spans"]


def _tool_span(data: dict[str, Any], tool: str) -> dict[str, Any]:
    return next(s for s in _spans(data) if s["name"] == f"execute_tool {tool}")


def _set_attribute(span: dict[str, Any], key: str, value: dict[str, Any]) -> None:
    for attribute in span["attributes"]:
        if attribute["key"] == key:
            attribute["value"] = value
            return
    span["attributes"].append({"key": key, "value": value})


def _drop_name(data: dict[str, Any]) -> None:
    del _tool_span(data, "issue_refund")["name"]


def _bad_arguments(data: dict[str, Any]) -> None:
    _set_attribute(_tool_span(data, "issue_refund"), "gen_ai.tool.call.arguments",
                   {"stringValue": '{"order_id": "A-17", "amount": 42.5'})


def _array_arguments(data: dict[str, Any]) -> None:
    _set_attribute(_tool_span(data, "issue_refund"), "gen_ai.tool.call.arguments", {"stringValue": "[1, 2]"})


def _unknown_value_kind(data: dict[str, Any]) -> None:
    _set_attribute(_tool_span(data, "send_email"), "gen_ai.tool.name", {"mapValue": {}})


def _bad_span_id(data: dict[str, Any]) -> None:
    _tool_span(data, "send_email")["spanId"] = "not an id!"


def _bad_status(data: dict[str, Any]) -> None:
    _tool_span(data, "send_email")["status"] = {"code": "STATUS_CODE_MAYBE"}


def _unnamed_tool(data: dict[str, Any]) -> None:
    span = _tool_span(data, "send_email")
    span["name"] = "tools/call"
    span["attributes"] = [a for a in span["attributes"] if a["key"] != "gen_ai.tool.name"]


def _superscript_time(data: dict[str, Any]) -> None:
    _tool_span(data, "send_email")["startTimeUnixNano"] = "\u00b2"  # str.isdigit() says yes, int() no


def _spans_not_a_list(data: dict[str, Any]) -> None:
    data["resourceSpans"][0]["scopeSpans"][0]["spans"] = {"0": "x"}


@pytest.mark.parametrize(
    ("breaker", "message", "place"),
    [
        (_drop_name, "span has no name", "spans[3].name"),
        (_unknown_value_kind, "unknown attribute value kind 'mapValue'", "spans[5].attributes"),
        (_bad_span_id, "neither hex nor base64", "spans[5].spanId"),
        (_bad_status, "unknown status code", "spans[5].status.code"),
        (_unnamed_tool, "does not name its tool", "spans[5]"),
        (_spans_not_a_list, "expected a list, found dict", "scopeSpans[0].spans"),
        (_superscript_time, "expected an integer", "spans[5].startTimeUnixNano"),
    ],
)
def test_broken_span_is_an_input_error_naming_file_and_place(
    tmp_path: Path, adapter_pm: Any, breaker: Callable[[dict[str, Any]], None], message: str, place: str
) -> None:
    data = _example()
    assert [s["name"] for s in _spans(data)][3] == "execute_tool issue_refund"
    assert [s["name"] for s in _spans(data)][5] == "execute_tool send_email"
    breaker(data)
    path = tmp_path / "spans.json"
    path.write_text(json.dumps(data), encoding="utf-8")  # one line: read through the streaming path
    for pretty in (False, True):
        if pretty:
            path.write_text(json.dumps(data, indent=2), encoding="utf-8")  # parsed whole, then load()
        with pytest.raises(InputError) as err:
            load_trace_file(path, pm=adapter_pm)
        text = str(err.value)
        assert message in text and place in text and str(path) in text
        assert "Traceback" not in text and len(text) < 400


def test_truncated_json_and_json_lines(tmp_path: Path, adapter_pm: Any) -> None:
    cut = tmp_path / "cut.json"
    cut.write_text(EXAMPLE.read_text(encoding="utf-8")[:3000], encoding="utf-8")
    with pytest.raises(InputError, match=r"not valid JSON.*|line \d+, column \d+"):
        load_trace_file(cut, pm=adapter_pm)
    lines = BATCHES.read_bytes()
    cut_lines = tmp_path / "cut.jsonl"
    cut_lines.write_bytes(lines[: len(lines) - 200])
    # a cut-off last line is skipped and said (tests/adapters/test_otel_torn_tail.py) ...
    assert "line 3: the last line is cut off" in load_trace_file(cut_lines, pm=adapter_pm).metadata["torn_tail"]
    cut_lines.write_bytes(lines[: len(lines) - 200] + b"\n")  # ... one that ends with its newline is not
    with pytest.raises(InputError) as err:
        load_trace_file(cut_lines, pm=adapter_pm)
    assert "at line 3, column" in str(err.value) and "not valid JSON" in str(err.value)


def test_zero_byte_and_blank_files(tmp_path: Path, adapter_pm: Any) -> None:
    empty = tmp_path / "spans.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(InputError, match="empty"):
        load_trace_file(empty, pm=adapter_pm)
    with pytest.raises(InputError, match="empty"):
        load_trace_file(empty, format="otel", pm=adapter_pm)


def test_invalid_utf8_and_foreign_line_in_json_lines(tmp_path: Path, adapter_pm: Any) -> None:
    first, *rest = BATCHES.read_bytes().splitlines(keepends=True)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(first + b'{"resourceSpans": [], "note": "caf\xe9"}\n' + b"".join(rest))
    with pytest.raises(InputError) as err:
        load_trace_file(bad, pm=adapter_pm)
    assert "UTF-8" in str(err.value) and "line 2" in str(err.value)
    foreign = tmp_path / "foreign.jsonl"
    foreign.write_bytes(first + b'{"tool": "x", "args": {}}\n')
    with pytest.raises(InputError) as err:
        load_trace_file(foreign, pm=adapter_pm)
    assert "line 2" in str(err.value) and "not an OTLP export request" in str(err.value)


def test_an_export_without_tool_spans_or_messages_reads_as_zero_calls_and_says_what_it_saw() -> None:
    data = _example()
    kept = [s for s in _spans(data) if not s["name"].startswith("execute_tool")]
    for span in kept:
        span["attributes"] = [a for a in span["attributes"] if a["key"] != "gen_ai.output.messages"]
    data["resourceSpans"][0]["scopeSpans"][0]["spans"] = kept
    trace = OtelAdapter().load(data)
    assert len(trace) == 0 and trace.metadata == {"spans": 5, "tool_spans": 0, "calls_from_messages": 0}
    assert len(OtelAdapter().load({"resourceSpans": []})) == 0


def test_without_execute_spans_the_requested_calls_come_from_output_messages() -> None:
    data = _example()
    data["resourceSpans"][0]["scopeSpans"][0]["spans"] = [s for s in _spans(data) if not s["name"].startswith("execute_tool")]
    trace = OtelAdapter().load(data)
    assert trace.metadata == {"spans": 5, "tool_spans": 0, "calls_from_messages": 3}
    assert [(c.tool, c.args, c.id) for c in trace] == [
        ("search_orders", {"customer": "ada@example.com", "status": "open"}, "call_search_1"),
        ("issue_refund", {"order_id": "A-17", "amount": 42.5}, "call_refund_1"),
        ("send_email", {"to": "ada@example.com", "subject": "Your refund"}, "call_email_1"),
    ]
    assert [c.is_error for c in trace] == [None, None, None]  # no execution and no response recorded


def test_load_of_non_otel_data_is_an_input_error() -> None:
    for data in ({"spans": []}, "text", 42, [{"hello": 1}], [copy.deepcopy(_example()), 3]):
        with pytest.raises(InputError):
            OtelAdapter().load(data)
