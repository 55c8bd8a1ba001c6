"""Build the OpenTelemetry fixtures with the real OpenTelemetry SDK (offline, deterministic).

Why a script: the fixtures must be what the SDK and the OTLP encoder really write, not
JSON typed by hand. Spans are recorded through ``TracerProvider`` + ``InMemorySpanExporter``
with fixed timestamps and a seeded id generator, then encoded with
``opentelemetry.exporter.otlp.proto.common.trace_encoder.encode_spans`` and written as

* the protobuf JSON mapping (``google.protobuf.json_format``: base64 ids, enum names), and
* the collector file-exporter spelling (hex ids, integer enums), and
* JSON Lines of export requests (one batch per line, batches out of start-time order).

Run: ``.venv/bin/python tests/adapters/make_fixtures_otel.py`` (rewrites the files).
The same builders are imported by the tests to feed live SDK span objects.
"""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.trace import SpanKind, Status, StatusCode, Tracer, set_span_in_context

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "otel_genai_spans.json"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "otel"
T0 = 1_795_000_000_000_000_000  # a fixed start time (ns), so the files never change between runs
MS = 1_000_000


class SeededIds(IdGenerator):
    """Deterministic trace and span ids, so regenerated fixtures are byte-identical."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def generate_span_id(self) -> int:
        return self._random.getrandbits(64) or 1

    def generate_trace_id(self) -> int:
        return self._random.getrandbits(128) or 1


def record(build: Callable[[Tracer], None], seed: int = 4) -> tuple[ReadableSpan, ...]:
    """Run ``build`` against a fresh SDK tracer and return the finished spans."""
    exporter = InMemorySpanExporter()
    # an explicit resource: the default one carries a random service.instance.id
    resource = Resource({"service.name": "support-agent", "telemetry.sdk.language": "python",
                         "telemetry.sdk.name": "opentelemetry"})
    provider = TracerProvider(id_generator=SeededIds(seed), resource=resource)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    build(provider.get_tracer("toolscore.fixtures", "1.0.0"))
    provider.shutdown()
    return exporter.get_finished_spans()


def _tool_span(
    tracer: Tracer,
    parent: Any,
    name: str,
    call_id: str,
    args: dict[str, Any] | None,
    result: Any,
    start_ms: int,
    end_ms: int,
    error: str | None = None,
    extra: dict[str, Any] | None = None,
) -> Any:
    """One ``execute_tool`` span as a GenAI instrumentation records it."""
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.call.id": call_id,
        "gen_ai.tool.type": "function",
    }
    if args is not None:
        attributes["gen_ai.tool.call.arguments"] = json.dumps(args)
    if result is not None:
        attributes["gen_ai.tool.call.result"] = json.dumps(result)
    attributes.update(extra or {})
    span = tracer.start_span(
        f"execute_tool {name}", context=set_span_in_context(parent), kind=SpanKind.INTERNAL,
        attributes=attributes, start_time=T0 + start_ms * MS,
    )
    if error is not None:
        span.set_attribute("error.type", "ToolError")
        span.record_exception(RuntimeError(error), timestamp=T0 + (end_ms - 1) * MS)
        span.set_status(Status(StatusCode.ERROR, error))
    span.end(end_time=T0 + end_ms * MS)
    return span


def _chat_span(tracer: Tracer, parent: Any, start_ms: int, end_ms: int, output: list[dict[str, Any]]) -> None:
    """An inference span; ``output`` is its opt-in ``gen_ai.output.messages`` content."""
    span = tracer.start_span(
        "chat gpt-4o", context=set_span_in_context(parent), kind=SpanKind.CLIENT,
        attributes={"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
                    "gen_ai.provider.name": "openai", "gen_ai.usage.input_tokens": 412,
                    "gen_ai.usage.output_tokens": 38, "gen_ai.output.messages": json.dumps(output)},
        start_time=T0 + start_ms * MS,
    )
    span.end(end_time=T0 + end_ms * MS)


def _asks_for(call_id: str, name: str, args: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"role": "assistant", "finish_reason": "tool_call",
             "parts": [{"type": "tool_call", "id": call_id, "name": name, "arguments": args}]}]


FINAL_ANSWER = "I have emailed Ada about her refund."


def seed_session(tracer: Tracer) -> None:
    """The seed README's example 4: the refund fails, the agent emails the customer anyway."""
    agent = tracer.start_span(
        "invoke_agent support-agent", kind=SpanKind.INTERNAL, start_time=T0,
        attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support-agent",
                    "gen_ai.provider.name": "openai"},
    )
    search = {"customer": "ada@example.com", "status": "open"}
    refund = {"order_id": "A-17", "amount": 42.5}
    email = {"to": "ada@example.com", "subject": "Your refund"}
    _chat_span(tracer, agent, 1, 700, _asks_for("call_search_1", "search_orders", search))
    _tool_span(tracer, agent, "search_orders", "call_search_1", search,
               [{"order_id": "A-17", "total": 42.5, "status": "open"}], 701, 760)
    _chat_span(tracer, agent, 761, 1400, _asks_for("call_refund_1", "issue_refund", refund))
    _tool_span(tracer, agent, "issue_refund", "call_refund_1", refund,
               None, 1401, 1480, error="Refund window has closed")
    _chat_span(tracer, agent, 1481, 2100, _asks_for("call_email_1", "send_email", email))
    _tool_span(tracer, agent, "send_email", "call_email_1", email, {"status": "sent"}, 2101, 2190)
    _chat_span(tracer, agent, 2191, 2600, [{"role": "assistant", "finish_reason": "stop",
                                             "parts": [{"type": "text", "content": FINAL_ANSWER}]}])
    agent.end(end_time=T0 + 2601 * MS)


def inference_only_session(tracer: Tracer) -> None:
    """Inference spans only (no execute_tool spans): the calls live in the messages. The
    second response's id has the leading space of the convention's own example."""
    def chat(start_ms: int, inputs: list[dict[str, Any]], outputs: list[dict[str, Any]]) -> None:
        span = tracer.start_span("chat gpt-4o", kind=SpanKind.CLIENT, start_time=T0 + start_ms * MS,
                                 attributes={"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
                                             "gen_ai.input.messages": json.dumps(inputs),
                                             "gen_ai.output.messages": json.dumps(outputs)})
        span.end(end_time=T0 + (start_ms + 50) * MS)

    user = {"role": "user", "parts": [{"type": "text", "content": "Weather in Paris and Rome?"}]}
    ask_paris = _asks_for("call_p", "get_weather", {"city": "Paris"})
    ask_rome = _asks_for("call_r", "get_weather", {"city": "Rome"})
    chat(0, [user], ask_paris)
    paris = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_p", "response": "18 C"}]}
    chat(100, [user, *ask_paris, paris], ask_rome)
    rome = {"role": "tool", "parts": [{"type": "tool_call_response", "id": " call_r", "response": "24 C"}]}
    ask_time = _asks_for("call_t", "get_time", {"city": "Rome"})
    chat(200, [user, *ask_paris, paris, *ask_rome, rome], ask_time)


def no_content_session(tracer: Tracer) -> None:
    """Opt-in content capture off: names and ids only, no arguments, no results."""
    agent = tracer.start_span("invoke_agent quiet-agent", start_time=T0,
                              attributes={"gen_ai.operation.name": "invoke_agent"})
    _tool_span(tracer, agent, "get_weather", "call_w1", None, None, 10, 40)
    _tool_span(tracer, agent, "get_time", "call_t1", None, None, 50, 60, error="timeout")
    agent.end(end_time=T0 + 100 * MS)


def mcp_session(tracer: Tracer) -> None:
    """MCP client spans: one nested under a GenAI execute_tool span for the same call (to be
    merged), one tool_error (CallToolResult.isError), one JSON-RPC error, one tools/list."""
    agent = tracer.start_span("invoke_agent files-agent", start_time=T0,
                              attributes={"gen_ai.operation.name": "invoke_agent"})
    listing = tracer.start_span("tools/list", context=set_span_in_context(agent), kind=SpanKind.CLIENT,
                                attributes={"mcp.method.name": "tools/list", "jsonrpc.request.id": "1"},
                                start_time=T0 + 5 * MS)
    listing.end(end_time=T0 + 9 * MS)
    outer = tracer.start_span(
        "execute_tool read_text_file", context=set_span_in_context(agent), start_time=T0 + 10 * MS,
        attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "read_text_file",
                    "gen_ai.tool.call.id": "call_read_1",
                    "gen_ai.tool.call.arguments": json.dumps({"path": "notes/todo.md"})},
    )
    inner = tracer.start_span(
        "tools/call read_text_file", context=set_span_in_context(outer), kind=SpanKind.CLIENT,
        start_time=T0 + 11 * MS,
        attributes={"mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "read_text_file", "jsonrpc.request.id": "2",
                    "mcp.session.id": "sess-1", "network.transport": "pipe",
                    "gen_ai.tool.call.result": json.dumps(
                        {"content": [{"type": "text", "text": "- buy milk"}], "isError": False})},
    )
    inner.end(end_time=T0 + 18 * MS)
    outer.end(end_time=T0 + 20 * MS)
    denied = tracer.start_span(
        "tools/call read_text_file", context=set_span_in_context(agent), kind=SpanKind.CLIENT,
        start_time=T0 + 30 * MS,
        attributes={"mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "read_text_file", "jsonrpc.request.id": "3",
                    "gen_ai.tool.call.arguments": json.dumps({"path": "/etc/passwd"}),
                    "error.type": "tool_error"},
    )
    denied.set_status(Status(StatusCode.ERROR, "Access denied - path outside allowed directories"))
    denied.end(end_time=T0 + 33 * MS)
    bad = tracer.start_span(
        "tools/call move_file", context=set_span_in_context(agent), kind=SpanKind.CLIENT,
        start_time=T0 + 40 * MS,
        attributes={"mcp.method.name": "tools/call", "gen_ai.tool.name": "move_file",
                    "jsonrpc.request.id": "4", "error.type": "-32602", "rpc.response.status_code": "-32602",
                    "gen_ai.tool.call.arguments": json.dumps({"source": "a.txt"})},
    )
    bad.set_status(Status(StatusCode.ERROR, "Invalid params: destination is required"))
    bad.end(end_time=T0 + 41 * MS)
    agent.end(end_time=T0 + 50 * MS)


def deprecated_session(tracer: Tracer) -> None:
    """Spans from instrumentations older than the current GenAI conventions."""
    # pydantic-ai before it adopted gen_ai.tool.call.*: span "running tool", tool_arguments/tool_response
    old = tracer.start_span("running tool", start_time=T0 + 10 * MS,
                            attributes={"gen_ai.tool.name": "lookup", "gen_ai.tool.call.id": "pyd_1",
                                        "gen_ai.system": "openai",
                                        "tool_arguments": json.dumps({"term": "ada"}),
                                        "tool_response": "found 1 customer"})
    old.end(end_time=T0 + 12 * MS)
    # a span named "execute_tool X" without gen_ai.operation.name, generic tool.* keys
    named = tracer.start_span("execute_tool convert", start_time=T0 + 20 * MS,
                              attributes={"tool.name": "convert", "tool.arguments": json.dumps({"x": 3})})
    named.end(end_time=T0 + 21 * MS)
    fn = tracer.start_span("function call", start_time=T0 + 30 * MS,
                           attributes={"gen_ai.operation.name": "execute_tool", "function.name": "ping",
                                       "function.arguments": "{}"})
    fn.end(end_time=T0 + 31 * MS)


def openinference_session(tracer: Tracer) -> None:
    """Arize OpenInference TOOL spans (tool.name, input.value / output.value)."""
    tool = tracer.start_span("get_weather", start_time=T0 + 10 * MS,
                             attributes={"openinference.span.kind": "TOOL", "tool.name": "get_weather",
                                         "tool.description": "Weather for a city",
                                         "input.value": json.dumps({"city": "Paris"}),
                                         "input.mime_type": "application/json",
                                         "output.value": "18 C and sunny", "output.mime_type": "text/plain"})
    tool.end(end_time=T0 + 15 * MS)
    failed = tracer.start_span("get_forecast", start_time=T0 + 20 * MS,
                               attributes={"openinference.span.kind": "TOOL", "tool.name": "get_forecast",
                                           "input.value": json.dumps({"city": "Paris", "days": 30}),
                                           "input.mime_type": "application/json"})
    failed.record_exception(ValueError("days must be <= 14"), timestamp=T0 + 24 * MS)
    failed.set_status(Status(StatusCode.ERROR))
    failed.end(end_time=T0 + 25 * MS)


def vercel_session(tracer: Tracer) -> None:
    """Vercel AI SDK spans: ai.toolCall with ai.toolCall.* attributes (v4 args/result, v5 input/output)."""
    v4 = tracer.start_span("ai.toolCall", start_time=T0 + 10 * MS,
                           attributes={"ai.operationId": "ai.toolCall", "operation.name": "ai.toolCall",
                                       "ai.toolCall.name": "search", "ai.toolCall.id": "tc_1",
                                       "ai.toolCall.args": json.dumps({"q": "otel"}),
                                       "ai.toolCall.result": json.dumps(["a", "b"])})
    v4.end(end_time=T0 + 14 * MS)
    v5 = tracer.start_span("ai.toolCall", start_time=T0 + 20 * MS,
                           attributes={"ai.operationId": "ai.toolCall", "ai.toolCall.name": "fetch_page",
                                       "ai.toolCall.id": "tc_2",
                                       "ai.toolCall.input": json.dumps({"url": "https://example.com"})})
    v5.set_status(Status(StatusCode.ERROR, "fetch failed: 404"))
    v5.end(end_time=T0 + 22 * MS)


# ---------------------------------------------------------------- encodings


def export_request(spans: Sequence[ReadableSpan]) -> Any:
    """The OTLP ``ExportTraceServiceRequest`` protobuf message the SDK's exporters send."""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    return encode_spans(spans)


def protobuf_json(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """The protobuf JSON mapping: camelCase, base64 ids, enum names, int64 as strings."""
    from google.protobuf.json_format import MessageToDict

    return MessageToDict(export_request(spans))


def file_exporter_json(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """The collector file-exporter spelling: the same fields, hex ids, integer enums."""
    from google.protobuf.json_format import MessageToDict

    data = MessageToDict(export_request(spans), use_integers_for_enums=True)
    for resource in data.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
                for link in span.get("links", []):
                    for key in ("traceId", "spanId"):
                        if key in link:
                            link[key] = base64.b64decode(link[key]).hex()
    return data


def structured_request(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """Like :func:`protobuf_json`, with arguments/results re-encoded as structured OTLP values
    (kvlistValue / arrayValue), as SDKs that support complex attributes export them."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.proto.common.v1.common_pb2 import (
        AnyValue,
        ArrayValue,
        KeyValue,
        KeyValueList,
    )

    def any_value(value: Any) -> AnyValue:
        if isinstance(value, dict):
            return AnyValue(kvlist_value=KeyValueList(values=[KeyValue(key=k, value=any_value(v)) for k, v in value.items()]))
        if isinstance(value, list):
            return AnyValue(array_value=ArrayValue(values=[any_value(v) for v in value]))
        if isinstance(value, bool):
            return AnyValue(bool_value=value)
        if isinstance(value, int):
            return AnyValue(int_value=value)
        if isinstance(value, float):
            return AnyValue(double_value=value)
        return AnyValue(string_value=str(value))

    request = export_request(spans)
    for resource in request.resource_spans:
        for scope in resource.scope_spans:
            for span in scope.spans:
                for attribute in span.attributes:
                    if attribute.key in ("gen_ai.tool.call.arguments", "gen_ai.tool.call.result"):
                        attribute.value.CopyFrom(any_value(json.loads(attribute.value.string_value)))
    return MessageToDict(request)


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> None:
    seed = record(seed_session)
    _write(EXAMPLE, protobuf_json(seed))
    _write(FIXTURES / "seed_file_exporter.json", file_exporter_json(seed))
    _write(FIXTURES / "seed_structured.json", structured_request(seed))
    # JSON Lines: one export request per line, the latest batch first (file order != start order)
    batches = [seed[6:], seed[3:6], seed[:3]]
    lines = [json.dumps(file_exporter_json(batch) if i % 2 else protobuf_json(batch), ensure_ascii=False)
             for i, batch in enumerate(batches)]
    (FIXTURES / "seed_batches.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    # spans exported in reverse order inside one request
    _write(FIXTURES / "seed_reversed.json", protobuf_json(tuple(reversed(seed))))
    _write(FIXTURES / "no_content.json", protobuf_json(record(no_content_session)))
    _write(FIXTURES / "inference_only.json", protobuf_json(record(inference_only_session)))
    _write(FIXTURES / "mcp_spans.json", file_exporter_json(record(mcp_session)))
    _write(FIXTURES / "deprecated.json", protobuf_json(record(deprecated_session)))
    _write(FIXTURES / "openinference.json", protobuf_json(record(openinference_session)))
    _write(FIXTURES / "vercel.json", protobuf_json(record(vercel_session)))
    print(f"wrote {EXAMPLE.relative_to(ROOT)} and {len(list(FIXTURES.iterdir()))} files in {FIXTURES.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
