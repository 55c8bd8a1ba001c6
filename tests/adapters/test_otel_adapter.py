"""The ``otel`` adapter on files the OpenTelemetry SDK wrote (tests/adapters/make_fixtures_otel.py)
and on live SDK span objects."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import toolscore_test_providers_support as S

from toolscore_adapters.protocols.otel import OtelAdapter
from toolscore_core.kernel.traces import load_trace, load_trace_file

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "otel"
EXAMPLE = ROOT / "examples" / "otel_genai_spans.json"
SEED_CALLS = [
    ("search_orders", {"customer": "ada@example.com", "status": "open"}, False, None),
    ("issue_refund", {"order_id": "A-17", "amount": 42.5}, True, "Refund window has closed"),
    ("send_email", {"to": "ada@example.com", "subject": "Your refund"}, False, None),
]


def _summary(trace: Any) -> list[tuple[str, Any, Any, Any]]:
    return [(c.tool, c.args, c.is_error, c.error) for c in trace]


@pytest.mark.parametrize("name", ["seed_file_exporter.json", "seed_structured.json", "seed_reversed.json"])
def test_every_spelling_reads_the_same_three_calls(name: str) -> None:
    data = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    assert OtelAdapter().detect(data) >= 0.9
    assert _summary(OtelAdapter().load(data)) == SEED_CALLS


def test_protobuf_mapping_spelling_is_what_the_example_file_uses() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    assert "SPAN_KIND_INTERNAL" in text and '"intValue": "412"' in text  # enum names, int64 strings
    trace = OtelAdapter().load(json.loads(text))
    assert _summary(trace) == SEED_CALLS
    assert [c.id for c in trace] == ["call_search_1", "call_refund_1", "call_email_1"]
    assert [c.duration for c in trace] == pytest.approx([0.059, 0.079, 0.089])
    assert trace.metadata == {"spans": 8, "tool_spans": 3, "calls_from_messages": 0}  # chat and agent spans are not calls
    # results stay the text the span recorded, like tool results in every other format
    assert json.loads(trace[0].result) == [{"order_id": "A-17", "total": 42.5, "status": "open"}]


def test_file_exporter_spelling_uses_hex_ids_and_integer_enums() -> None:
    data = json.loads((FIXTURES / "seed_file_exporter.json").read_text(encoding="utf-8"))
    span = data["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert isinstance(span["kind"], int) and len(span["spanId"]) == 16
    trace = OtelAdapter().load(data)
    example = OtelAdapter().load(json.loads(EXAMPLE.read_text(encoding="utf-8")))
    assert [c.metadata["span_id"] for c in trace] == [c.metadata["span_id"] for c in example]


def test_calls_are_ordered_by_start_time_not_file_order() -> None:
    data = json.loads((FIXTURES / "seed_reversed.json").read_text(encoding="utf-8"))
    names = [s["name"] for s in data["resourceSpans"][0]["scopeSpans"][0]["spans"]]
    assert names.index("execute_tool send_email") < names.index("execute_tool search_orders")
    assert [c.tool for c in OtelAdapter().load(data)] == ["search_orders", "issue_refund", "send_email"]


def test_json_lines_of_export_requests_stream_through_load_path(adapter_pm: Any) -> None:
    path = FIXTURES / "seed_batches.jsonl"
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert first["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["name"] != "execute_tool search_orders"
    assert OtelAdapter().detect_path(path, path.read_bytes()[:65536]) >= 0.9
    trace = load_trace_file(path, pm=adapter_pm)
    assert trace.source_format == "otel"
    assert _summary(trace) == SEED_CALLS
    # the same file parsed whole (a list of requests) gives the same calls
    parsed = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert _summary(OtelAdapter().load(parsed)) == SEED_CALLS


def test_files_are_auto_detected_through_the_kernel(adapter_pm: Any) -> None:
    for path in (EXAMPLE, FIXTURES / "seed_file_exporter.json"):
        trace = load_trace_file(path, pm=adapter_pm)
        assert trace.source_format == "otel"
        assert _summary(trace) == SEED_CALLS
    forced = load_trace_file(EXAMPLE, format="otel", pm=adapter_pm)
    assert _summary(forced) == SEED_CALLS


def test_live_sdk_spans_from_the_in_memory_exporter(adapter_pm: Any) -> None:
    builders = S.fixture_script("make_fixtures_otel.py")
    finished = builders.record(builders.seed_session)
    assert type(finished[0]).__module__.startswith("opentelemetry.sdk")
    assert OtelAdapter().detect(finished) == 1.0
    trace = load_trace(finished, pm=adapter_pm)
    assert trace.source_format == "otel"
    assert _summary(trace) == SEED_CALLS
    from_file = OtelAdapter().load(json.loads(EXAMPLE.read_text(encoding="utf-8")))
    assert [c.metadata["span_id"] for c in trace] == [c.metadata["span_id"] for c in from_file]
    assert [c.duration for c in trace] == [c.duration for c in from_file]


def test_live_protobuf_request_and_sdk_to_json_form() -> None:
    builders = S.fixture_script("make_fixtures_otel.py")
    finished = builders.record(builders.seed_session)
    request = builders.export_request(finished)
    assert OtelAdapter().detect(request) >= 0.9
    assert _summary(OtelAdapter().load(request)) == SEED_CALLS
    as_json = [json.loads(span.to_json()) for span in finished]
    assert OtelAdapter().detect(as_json) >= 0.9
    assert _summary(OtelAdapter().load(as_json)) == SEED_CALLS


def test_missing_opt_in_content_is_unknown_not_empty() -> None:
    trace = OtelAdapter().load(json.loads((FIXTURES / "no_content.json").read_text(encoding="utf-8")))
    assert [c.tool for c in trace] == ["get_weather", "get_time"]
    assert [c.args for c in trace] == [None, None]
    assert [c.result for c in trace] == [None, None]
    assert [c.is_error for c in trace] == [False, True]
    assert trace[1].error == "timeout"


def test_mcp_span_nested_in_genai_span_is_merged_into_one_call() -> None:
    data = json.loads((FIXTURES / "mcp_spans.json").read_text(encoding="utf-8"))
    trace = OtelAdapter().load(data)
    assert trace.metadata == {"spans": 6, "tool_spans": 4, "calls_from_messages": 0}  # tools/list is not a call
    assert [c.tool for c in trace] == ["read_text_file", "read_text_file", "move_file"]
    merged = trace[0]
    assert merged.id == "call_read_1"  # from the GenAI span
    assert merged.args == {"path": "notes/todo.md"}  # from the GenAI span
    assert merged.result == "- buy milk"  # from the MCP span's CallToolResult
    assert merged.is_error is False
    assert merged.metadata["jsonrpc.request.id"] == "2" and merged.metadata["merged_mcp_span"]
    assert merged.duration == pytest.approx(0.010)


def test_mcp_tool_error_and_json_rpc_error_are_failures() -> None:
    trace = OtelAdapter().load(json.loads((FIXTURES / "mcp_spans.json").read_text(encoding="utf-8")))
    denied, bad = trace[1], trace[2]
    assert denied.is_error is True and denied.error == "Access denied - path outside allowed directories"
    assert denied.metadata["error.type"] == "tool_error"
    assert bad.is_error is True and bad.error == "Invalid params: destination is required"
    assert bad.metadata["error.type"] == "-32602"


def test_deprecated_and_pre_convention_names() -> None:
    trace = OtelAdapter().load(json.loads((FIXTURES / "deprecated.json").read_text(encoding="utf-8")))
    assert [(c.tool, c.args, c.result) for c in trace] == [
        ("lookup", {"term": "ada"}, "found 1 customer"),
        ("convert", {"x": 3}, None),
        ("ping", {}, None),
    ]
    assert trace[0].provider == "openai"  # gen_ai.system, the old name of gen_ai.provider.name
    assert all(c.is_error is False for c in trace)


def test_openinference_tool_spans() -> None:
    trace = OtelAdapter().load(json.loads((FIXTURES / "openinference.json").read_text(encoding="utf-8")))
    assert _summary(trace) == [
        ("get_weather", {"city": "Paris"}, False, None),
        ("get_forecast", {"city": "Paris", "days": 30}, True, "days must be <= 14"),  # exception event
    ]
    assert trace[0].result == "18 C and sunny"


def test_vercel_ai_sdk_tool_call_spans() -> None:
    trace = OtelAdapter().load(json.loads((FIXTURES / "vercel.json").read_text(encoding="utf-8")))
    assert [(c.tool, c.id, c.args, c.result, c.is_error) for c in trace] == [
        ("search", "tc_1", {"q": "otel"}, '["a", "b"]', False),
        ("fetch_page", "tc_2", {"url": "https://example.com"}, None, True),
    ]
    assert trace[1].error == "fetch failed: 404"


def test_structured_attribute_values_are_decoded() -> None:
    data = json.loads((FIXTURES / "seed_structured.json").read_text(encoding="utf-8"))
    assert "kvlistValue" in json.dumps(data) and "arrayValue" in json.dumps(data)
    trace = OtelAdapter().load(data)
    assert trace[0].result == [{"order_id": "A-17", "total": 42.5, "status": "open"}]


def test_snake_case_proto_field_names_are_accepted() -> None:
    from google.protobuf.json_format import MessageToDict

    builders = S.fixture_script("make_fixtures_otel.py")
    request = builders.export_request(builders.record(builders.seed_session))
    snake = MessageToDict(request, preserving_proto_field_name=True)
    assert "resource_spans" in snake
    assert _summary(OtelAdapter().load(snake)) == SEED_CALLS


def test_not_otel_data_is_not_claimed() -> None:
    adapter = OtelAdapter()
    for data in ([], {}, [{"tool": "x", "args": {}}], {"messages": []}, "resourceSpans", None, 3,
                 [{"jsonrpc": "2.0", "id": 1, "method": "tools/call"}]):
        assert adapter.detect(data) == 0.0


def test_final_answer_is_the_text_of_the_last_inference_span() -> None:
    builders = S.fixture_script("make_fixtures_otel.py")
    for data in (json.loads(EXAMPLE.read_text(encoding="utf-8")),
                 json.loads((FIXTURES / "seed_reversed.json").read_text(encoding="utf-8")),
                 builders.record(builders.seed_session)):
        assert OtelAdapter().load(data).final_answer == builders.FINAL_ANSWER
    assert OtelAdapter().load_path(FIXTURES / "seed_batches.jsonl").final_answer == builders.FINAL_ANSWER
    # content capture off: no answer is known, and none is made up
    no_content = OtelAdapter().load(json.loads((FIXTURES / "no_content.json").read_text(encoding="utf-8")))
    assert no_content.final_answer is None


def test_inference_only_spans_give_calls_from_messages_with_responses_by_trimmed_id() -> None:
    data = json.loads((FIXTURES / "inference_only.json").read_text(encoding="utf-8"))
    assert '\\"id\\": \\" call_r\\"' in json.dumps(data)  # the leading space, as recorded
    trace = OtelAdapter().load(data)
    assert trace.metadata == {"spans": 3, "tool_spans": 0, "calls_from_messages": 3}
    assert [(c.tool, c.args, c.id, c.result, c.is_error) for c in trace] == [
        ("get_weather", {"city": "Paris"}, "call_p", "18 C", False),
        ("get_weather", {"city": "Rome"}, "call_r", "24 C", False),
        ("get_time", {"city": "Rome"}, "call_t", None, None),  # asked for, never answered: unknown
    ]
    assert all(c.metadata["convention"] == "genai-messages" for c in trace)


def test_requested_calls_with_an_execute_span_are_not_counted_twice() -> None:
    trace = OtelAdapter().load(json.loads(EXAMPLE.read_text(encoding="utf-8")))
    assert '"type": "tool_call"' in EXAMPLE.read_text(encoding="utf-8").replace('\\"', '"')
    assert len(trace) == 3 and trace.metadata["calls_from_messages"] == 0
