"""The calls of one OTLP trace read straight from its raw spans, when they have the plain shape
collectors write: the fast path of ``--per-trace`` records built in the export's workers.

Why: the general path decodes each span into a ``Span``, each tool span into a ``SpanCall``
with its metadata, makes ``ToolCall`` objects and a ``Trace`` of them, and the export then
reads eleven fields of each call back into the dicts of ``sources.trace_calls``. On the
bench's traces (six spans, three calls) that was about 72 us of a trace's ~200 in a worker,
much of it objects and metadata the record never reads. This makes the SpanCalls straight
from the raw spans, with only the metadata the record reads, and takes the calls' fields
from the adapter's own merge (``otel_calls.merged_in_order``): about 60 us. Every rule is
the adapter's, called where it is a function (attribute values, which spans are tool calls,
status, ids, times, which keys a span holds, argument and result texts, CallToolResult, the
merge, answers and the calls messages requested: ``otel.SpanAnswers``); those of
``otel_calls.span_call`` that need a Span (its error rules) are written out below, for the
plain shape only.

What is plain: every span a dict with a name and attributes the adapter reads; the spans it
keeps (tool calls, and those carrying an answer or messages) with no events; tool spans with
a ``gen_ai.tool.name`` that needs no stripping, arguments (if any) a JSON object text or an
object, under a key other than ``input.value``. Anything else, and any error on the way,
gives None: the caller takes the general path, which gives the same record or raises its own
error, worded as ever. tests/export/test_plain_trace_s30.py holds the two paths together on
random traces, odd ones included.
"""

from __future__ import annotations

from typing import Any

from toolscore_adapters.protocols import otel, otel_calls, otel_json, otel_spans
from toolscore_adapters.protocols.mcp_result import (
    looks_like_call_tool_result,
    read_call_tool_result,
)
from toolscore_export.per_trace import NO_TRACE_ID
from toolscore_export.run_span import RunSpans

_STATUS_OK, _STATUS_ERROR = otel_spans.STATUS_OK, otel_spans.STATUS_ERROR
_HEX = "0123456789abcdef"


PlainTrace = tuple[list[dict[str, Any]], str | None, str | None]  # (calls, final answer, run span id)


def plain_trace_calls(found: list[tuple[Any, int]], key: str) -> PlainTrace | None:
    """``(calls, final answer, run span id)`` of one trace (``found``: its raw spans with their numbers in
    the file, in order; ``key``: its trace id as decoded), as ``sources.trace_calls``, the Trace and
    ``RunSpans.pick`` give them on the general path; None when the trace is not of the plain shape."""
    reader = PlainTraceReader.for_trace(key)
    if reader is None:
        return None
    for raw, order in found:
        if not reader.add(raw, order):
            return None
    return reader.result()


class PlainTraceReader:
    """One trace read span by span, in the file's order: :func:`plain_trace_calls` fed as the spans come.

    Why span by span: a worker that reads a trace's spans as soon as each line is parsed can let the
    line's decoded JSON go at once, where gathering a whole stretch's spans first kept some 3.5 MB of
    them alive: allocated cold, read back cold and freed cold, which cost more than the parse itself
    (bench/RESULTS.md). What a reader keeps is what the record needs: the calls, the answers and the
    run span's candidates. After ``add`` returns False the trace is not plain, and the reader is done
    (the caller reads the trace by the general path)."""

    __slots__ = ("_answers", "_calls", "_key", "_run_spans")

    def __init__(self, key: str) -> None:
        self._key = key
        self._run_spans = RunSpans()
        self._calls: list[Any] = []
        self._answers: Any = None  # otel.SpanAnswers, made for the first span that carries messages

    @classmethod
    def for_trace(cls, key: str) -> PlainTraceReader | None:
        """A reader for trace ``key``; None when no trace of that id can be plain."""
        if key == NO_TRACE_ID or not otel_calls.calls_as_drafts:
            return None
        return cls(key)

    def add(self, raw: Any, order: int) -> bool:
        """Read the trace's next span (``order``: its number); False when it is not of the plain shape
        (or the adapter would refuse it: the general path says how)."""
        try:
            return self._add(raw, order)
        except Exception:  # what the adapter would refuse, or read its own way: the general path says
            return False

    def _add(self, raw: Any, order: int) -> bool:
        if type(raw) is not dict:
            return False
        name = raw.get("name")
        if type(name) is not str or not name:
            return False
        key = self._key
        attributes = otel_spans.key_values(raw.get("attributes"), "", ".attributes")
        self._run_spans.add(raw, key, attributes)
        convention = otel_calls.convention_from(name, attributes)
        if convention is None and not otel.wanted(name, attributes):
            return True  # a span the adapter does not decode past its attributes
        fields = _span_fields(raw, key)
        if fields is None:
            return False  # events: the general path reads them
        if convention is None:  # an answer, or messages: as the adapter's _trace reads them
            if self._answers is None:
                self._answers = otel.SpanAnswers()
            self._answers.add(attributes, fields[6] or fields[5] or 0, order)
            return True
        call = _call(attributes, convention, order, fields)
        if call is None:
            return False
        self._calls.append(call)
        return True

    def result(self) -> PlainTrace | None:
        """The trace's ``(calls, final answer, run span id)`` once every span is added; None when the
        adapter would refuse it."""
        try:
            calls, final, answers = self._calls, None, self._answers
            if answers is not None:
                calls = calls + answers.unexecuted(calls)
                final = answers.text()
            return ([_call_dict(call.fields) for call in otel_calls.merged_in_order(calls)], final,
                    self._run_spans.pick())
        except Exception:  # as in add
            return None


#: What :func:`_span_fields` decodes of a span: its status code and message, ids, start and end.
SpanFields = tuple[int, Any, Any, Any, Any, Any, Any]


def _span_fields(raw: dict[str, Any], key: str) -> SpanFields | None:
    """The fields ``otel_spans.otlp_span`` decodes of a span it keeps (its errors raised as there); None
    when it has events (read there, not here)."""
    if raw.get("events"):
        return None
    status = raw.get("status")
    code, message = (0, None) if status is None or status == {} else otel_spans.span_status(status, "", "")
    trace_id = raw["traceId"] if "traceId" in raw else raw.get("trace_id")  # otlp_span's reading, of either spelling
    span_id = raw["spanId"] if "spanId" in raw else raw.get("span_id")
    parent_id = raw["parentSpanId"] if "parentSpanId" in raw else raw.get("parent_span_id")
    if (trace_id == key and type(span_id) is str and len(span_id) == 16 and not span_id.strip(_HEX)
            and (parent_id is None or (type(parent_id) is str and (
                not parent_id or (len(parent_id) == 16 and not parent_id.strip(_HEX)))))):
        parent_id = parent_id or None  # lowercase hex (``key`` is the trace id decoded): as span_ids keeps them
    else:
        trace_id, span_id, parent_id = otel_spans.span_ids(trace_id, span_id, parent_id, "")
    start, end = otel_spans.span_times(
        raw["startTimeUnixNano"] if "startTimeUnixNano" in raw else raw.get("start_time_unix_nano"),
        raw["endTimeUnixNano"] if "endTimeUnixNano" in raw else raw.get("end_time_unix_nano"), "")
    return code, message, trace_id, span_id, parent_id, start, end


def _call(a: dict[str, Any], convention: str, order: int, fields: SpanFields) -> otel_calls.SpanCall | None:
    """The SpanCall of one tool span (``a``: its attributes; ``fields``: :func:`_span_fields`) by
    ``otel_calls.span_call``'s rules, its metadata only what the record reads; None when it is not plain."""
    code, message, trace_id, span_id, parent_id, start, end = fields
    tool = a.get("gen_ai.tool.name")
    if not (type(tool) is str and tool and not tool[0].isspace() and not tool[-1].isspace()):
        return None  # another key, a span name or an error: _tool_name's other rules
    argument_keys, result_keys, call_id_keys, _, _ = otel_calls.present_keys(a)
    args = _arguments(a, argument_keys)
    if args is False:
        return None
    result = structured = result_error = None
    result_is_error: bool | None = None
    recorded = False
    result_key = otel_calls.first_key(a, result_keys) if result_keys else None
    if result_key is not None:  # otel_calls._result
        value = a[result_key]
        if isinstance(value, str) and value.startswith("{") and '"content"' in value[:64]:
            value = otel_calls.opened_result(value)
        if looks_like_call_tool_result(value):
            result, structured, result_is_error, result_error = read_call_tool_result(value)
        else:
            result = value
        recorded = True
    error_type = a.get("error.type")
    error_type = str(error_type) if error_type not in (None, "") else None
    if code == _STATUS_ERROR or error_type is not None or result_is_error:
        is_error: bool | None = True
        error = message or result_error  # (no events: no exception message)
        if error is None and error_type is not None:
            error = "the tool reported an error" if error_type == "tool_error" else f"error.type {error_type}"
        if error is None:
            error = "the span's status is ERROR"
    elif code == _STATUS_OK or end is not None or recorded:
        is_error, error = False, None
    else:
        is_error, error = None, None
    duration = (end - start) / 1e9 if start is not None and end is not None and end >= start else None
    call_id = otel_calls.first_text(a, call_id_keys) if call_id_keys else None
    metadata = {"span_id": span_id} if span_id else {}  # what the record reads of span_call's metadata
    if trace_id:
        metadata["trace_id"] = trace_id
    #                             tool, args, id,      result, structured_result, is_error, error, duration,
    return otel_calls.SpanCall([tool, args, call_id, result, structured, is_error, error, duration,
                                False, None, None, None, metadata], convention, start, order, trace_id, span_id,
                               parent_id)  # denied, denied_reason, provider, index, metadata


def _arguments(a: dict[str, Any], present: tuple[str, ...]) -> Any:
    """``otel_calls._arguments``' value where it is an object or unknown; False for the rest (not plain)."""
    key = otel_calls.first_key(a, present) if present else None
    if key is None:
        return None
    if key == "input.value":
        return False  # OpenInference's, read by its mime type
    value = a[key]
    if isinstance(value, dict):
        return value
    if not isinstance(value, str):
        return False  # the adapter's error
    if not value.strip():
        return {}
    parsed = otel_json.loads(value, what="tool-call arguments are")  # past a limit: an error, so not plain
    return parsed if isinstance(parsed, dict) else False  # a list, a number: kept as raw text there


def _call_dict(fields: list[Any]) -> dict[str, Any]:
    """``sources.trace_calls``' dict of a call's fields (``SpanCall.fields``: ToolCall's, in its order),
    as the ToolCall made of them holds them: ``merge_and_order`` stores them unchanged when
    ``otel_calls.calls_as_drafts`` (a duration here is None or a float >= 0, kept as it is)."""
    (tool, args, call_id, result, structured, is_error, error, duration, denied, denied_reason, _, _,
     metadata) = fields
    return {"id": call_id, "tool": tool, "provider_name": metadata.get("provider_name"), "args": args, "result": result,
            "structured": structured, "is_error": is_error, "error": error, "duration": duration, "denied": denied,
            "deny_reason": denied_reason, "span_id": metadata.get("span_id"), "trace_id": metadata.get("trace_id")}


__all__ = ["PlainTraceReader", "plain_trace_calls"]
