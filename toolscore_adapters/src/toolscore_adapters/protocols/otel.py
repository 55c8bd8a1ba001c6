"""The ``otel`` adapter: OpenTelemetry GenAI spans, as files or as live SDK objects.

Accepted: an OTLP JSON export request (``{"resourceSpans": [...]}``) in either spelling,
a list of them (JSON Lines of export requests, as the collector's file exporter writes),
a live protobuf request, SDK span objects (``InMemorySpanExporter().get_finished_spans()``)
and the SDK's ``span.to_json()`` dicts. A JSON Lines file is streamed line by line by
:meth:`OtelAdapter.load_path`, keeping only the tool-call spans, so a 1 GB export is read
in flat memory; a last line cut off mid-write is skipped, with a sentence saying so in the
trace's metadata (``torn_tail``), which commands print as a warning.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import attrs

from toolscore_adapters.protocols import otel_spans as spans
from toolscore_adapters.protocols.jsonl_stream import TORN_KEY, first_line, iter_json_lines
from toolscore_adapters.protocols.otel_answer import answer_text
from toolscore_adapters.protocols.otel_calls import (
    ID,
    SpanCall,
    convention_from,
    merge_and_order,
    span_call,
)
from toolscore_adapters.protocols.otel_messages import (
    INPUT_KEY,
    OUTPUT_KEY,
    RequestedCalls,
    has_responses,
    output_messages,
)
from toolscore_core import InputError, Trace, TraceAdapter

_EXPORT_KEYS = (b'"resourceSpans"', b'"resource_spans"')


class OtelAdapter(TraceAdapter):
    name: ClassVar[str] = "otel"
    description: ClassVar[str] = "OpenTelemetry GenAI spans: OTLP JSON (both spellings), JSON Lines, SDK spans"

    # ------------------------------------------------------------------ detection

    def detect(self, data: Any) -> float:
        if spans.is_export_request(data) or spans.is_proto_request(data):
            return 0.95
        if isinstance(data, (list, tuple)) and data:
            first = data[0]
            if spans.is_sdk_span(first) and all(spans.is_sdk_span(s) for s in data):
                return 1.0
            if all(spans.is_export_request(item) for item in data):
                return 0.95
            if all(spans.is_sdk_json_span(item) for item in data):
                return 0.9
            if all(_is_bare_otlp_span(item) for item in data):
                return 0.8
        return 0.0

    def detect_path(self, path: Path, head: bytes) -> float:
        """Claim JSON Lines (or one-line) OTLP exports, which :meth:`load_path` streams."""
        text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
        if not text.startswith(b"{"):
            return 0.0
        if b"\n" not in text and len(head) >= 64 * 1024:  # one line longer than the head
            return 0.9 if any(key in text[:4096] for key in _EXPORT_KEYS) else 0.0
        # a pretty-printed file's first line is not complete JSON: judged on the parsed data
        return 0.95 if spans.is_export_request(first_line(head)) else 0.0

    # ------------------------------------------------------------------ loading

    def load(self, data: Any) -> Trace:
        if type(data) is dict and spans.is_export_request(data):  # what _spans does with it, one generator less
            return self._trace(spans.iter_request_spans(data, keep=wanted))
        return self._trace(self._spans(data))

    def load_path(self, path: Path) -> Trace:
        torn: list[str] = []  # a collector killed mid-line leaves a cut-off last line: skipped, and said
        trace = self._trace(_stream_file_spans(path, torn))
        if torn:
            trace.metadata[TORN_KEY] = torn[0]
        return trace

    def load_spans(self, source: Iterable[spans.Span | None]) -> Trace:
        """The trace of decoded spans (``None``: a span :func:`wanted` turned down), as
        :meth:`load` and :meth:`load_path` make it: for a reader that groups a file's spans itself."""
        return self._trace(iter(source))

    def _trace(self, source: Iterator[spans.Span | None]) -> Trace:
        """Keep tool-call spans, and the latest answer text (``None`` = a span the pre-filter
        already dropped)."""
        found: list[SpanCall] = []
        answers = SpanAnswers()
        total = 0
        for span in source:
            total += 1
            if span is None:
                continue
            call = span_call(span)
            if call is not None:
                found.append(call)
                continue
            answers.add(span.attributes, span.end_ns or span.start_ns or 0, span.order)
        tool_spans = len(found)
        found += answers.unexecuted(found)
        # Positional, in field order (calls, final_answer, source_format, metadata; a test pins
        # them): matching four keywords was a quarter of making the Trace.
        return Trace(merge_and_order(found), answers.text(), self.name,
                     {"spans": total, "tool_spans": tool_spans, "calls_from_messages": len(found) - tool_spans})

    def _spans(self, data: Any) -> Iterator[spans.Span | None]:
        if spans.is_proto_request(data):
            data = spans.proto_request_to_json(data)
        if isinstance(data, dict):
            if not spans.is_export_request(data):
                raise InputError("is not an OTLP export (no 'resourceSpans' list)", location="$",
                                 expected='{"resourceSpans": [{"scopeSpans": [{"spans": [...]}]}]}')
            yield from spans.iter_request_spans(data, keep=wanted)
            return
        if not isinstance(data, (list, tuple)):
            raise InputError(f"cannot read OpenTelemetry spans from {type(data).__name__}",
                             expected="an OTLP JSON export, a list of them, or SDK span objects")
        order = 0
        for i, item in enumerate(data):
            where = f"$[{i}]"
            if spans.is_sdk_span(item):
                yield spans.sdk_span(item, where, order)
                order += 1
            elif spans.is_export_request(item):
                for span in spans.iter_request_spans(item, where, order, keep=wanted):
                    order += 1
                    yield span
            elif spans.is_sdk_json_span(item):
                yield spans.sdk_json_span(item, where, order)
                order += 1
            elif _is_bare_otlp_span(item):
                yield from spans.iter_request_spans({"resourceSpans": [{"scopeSpans": [{"spans": [item]}]}]},
                                                    where, order, keep=wanted)
                order += 1
            else:
                raise InputError("is neither an OTLP export request nor a span", location=where,
                                 expected='{"resourceSpans": [...]} or a span object')


class SpanAnswers:
    """What a trace's spans other than tool calls tell, gathered span by span: the latest answer
    text, and the calls their messages requested that no tool span executed.

    Shared by the adapter's ``_trace`` and the export's plain-trace reader, which makes no Span:
    the rules are here once."""

    def __init__(self) -> None:
        self._requested: RequestedCalls | None = None  # made for the first span that is no tool call
        self._answer: tuple[int, int, str] | None = None  # (end time, order, text) of the latest answer

    def add(self, attributes: dict[str, Any], ended: int, order: int) -> None:
        """A span that is no tool call (``ended``: its end time, else its start, else 0)."""
        if self._requested is None:
            self._requested = RequestedCalls()
        output = output_messages(attributes)  # read by both, parsed once
        self._requested.add_span(attributes, ended, order, output)
        text = answer_text(attributes, output)
        if text is not None and (self._answer is None or (ended, order) > self._answer[:2]):
            self._answer = (ended, order, text)

    def unexecuted(self, found: list[SpanCall]) -> list[SpanCall]:
        """The calls the messages requested that none of the tool spans ``found`` executed."""
        requested = self._requested
        if requested is None or not requested.requested:  # else no call is unexecuted
            return []
        executed = {c.fields[ID].strip() for c in found if c.fields[ID]}
        return [SpanCall(list(attrs.astuple(call, recurse=False)), "genai-messages", ended, order, None, None, None)
                for ended, order, call in requested.unexecuted(executed)]

    def text(self) -> str | None:
        """The latest answer's text, if any span carried one."""
        return self._answer[2] if self._answer else None


def wanted(name: str, attributes: dict[str, Any]) -> bool:
    """Spans worth decoding in full: tool calls, and spans whose messages hold an answer,
    requested calls or tool responses.

    ``is_tool_span`` and ``carries_answer`` are spelled out (asked of every span of a file,
    most of them turned down: two calls fewer each); a test holds this to them."""
    if convention_from(name, attributes) is not None:  # is_tool_span
        return True
    if attributes.get(OUTPUT_KEY) is not None or attributes.get("ai.response.text") is not None:  # carries_answer
        return True
    return attributes.get(INPUT_KEY) is not None and has_responses(attributes)  # (no input messages: none)


def _is_bare_otlp_span(item: Any) -> bool:
    return (isinstance(item, dict) and ("spanId" in item or "span_id" in item)
            and isinstance(item.get("attributes"), list) and "name" in item)


def _stream_file_spans(path: Path, torn: list[str] | None = None) -> Iterator[spans.Span | None]:
    """Spans of a JSON Lines export, one line in memory at a time. A cut-off last line is
    skipped and one sentence saying so is appended to ``torn`` (as the MCP session and
    JSON-RPC readers do): every complete export request before it is still read."""
    order = 0
    for number, request in iter_json_lines(path, expected="one OTLP export request per line", torn=torn):
        if not spans.is_export_request(request):
            raise InputError("line is not an OTLP export request (no 'resourceSpans' list)", file=path,
                             location=f"line {number}", expected='{"resourceSpans": [...]} on every line')
        try:
            for span in spans.iter_request_spans(request, f"line {number}: $", order, keep=wanted):
                order += 1
                yield span
        except InputError as exc:
            raise exc.with_file(path) from None
