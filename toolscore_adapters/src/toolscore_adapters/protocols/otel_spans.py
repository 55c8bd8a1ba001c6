"""Every way a span reaches us, reduced to one small record (:class:`Span`).

OTLP JSON comes in two spellings that differ in the details: the protobuf JSON mapping
(``google.protobuf.json_format``: base64 ids, enum names such as ``SPAN_KIND_INTERNAL``,
int64 as strings) and the collector file exporter (hex ids, integer enums). Both use
camelCase, but ``json_format`` also reads snake_case, so we accept it. SDK span objects
(``ReadableSpan``, e.g. from ``InMemorySpanExporter``) and the SDK's own ``span.to_json()``
form are read here too. Nothing here decides what a tool call is (see ``otel_calls``).

Every reader checks types as it goes: malformed data is an :class:`InputError` naming its
place, never a ``KeyError`` or ``TypeError``.
"""

from __future__ import annotations

import base64
import binascii
import functools
import math
import sys
from collections.abc import Callable, Iterator
from typing import Any

import attrs

from toolscore_core import InputError

STATUS_UNSET, STATUS_OK, STATUS_ERROR = 0, 1, 2
_STATUS_NAMES = {"STATUS_CODE_UNSET": 0, "STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2,
                 "UNSET": 0, "OK": 1, "ERROR": 2, "StatusCode.UNSET": 0, "StatusCode.OK": 1,
                 "StatusCode.ERROR": 2}


Keep = Callable[[str, dict[str, Any]], bool]


@attrs.define(slots=True)
class Span:
    """What the tool-call logic needs from a span, in one spelling."""

    name: str
    attributes: dict[str, Any]
    trace_id: str | None = None  # lowercase hex
    span_id: str | None = None
    parent_id: str | None = None
    start_ns: int | None = None
    end_ns: int | None = None
    status_code: int = STATUS_UNSET
    status_message: str | None = None
    events: tuple[tuple[str, dict[str, Any]], ...] = ()
    order: int = 0  # position in the source, to keep ties stable
    where: str = "$"  # place in the source, for error messages


def _get(obj: dict[str, Any], camel: str, snake: str | None = None) -> Any:
    """A field by its camelCase name, or its proto snake_case name."""
    if camel in obj:
        return obj[camel]
    return obj.get(snake) if snake else None


def _list(value: Any, where: str, field: str = "") -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(f"expected a list, found {type(value).__name__}", location=where + field)
    return value


def _dict(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(f"expected an object, found {type(value).__name__}", location=where)
    return value


def any_value(value: Any, where: str) -> Any:
    """Decode an OTLP ``AnyValue`` (``{"stringValue": ...}``, ``{"kvlistValue": ...}`` ...)."""
    if value is None:
        return None
    value = _dict(value, where)
    if not value:
        return None  # an empty AnyValue is "no value"
    for key, snake in (("stringValue", "string_value"), ("boolValue", "bool_value")):
        if key in value or snake in value:
            return _get(value, key, snake)
    if "intValue" in value or "int_value" in value:
        return _integer(_get(value, "intValue", "int_value"), where)
    if "doubleValue" in value or "double_value" in value:
        return _double(_get(value, "doubleValue", "double_value"), where)
    if "arrayValue" in value or "array_value" in value:
        inner = _get(value, "arrayValue", "array_value") or {}
        items = _list(_dict(inner, where).get("values"), f"{where}.arrayValue.values")
        return [any_value(item, f"{where}.arrayValue.values[{i}]") for i, item in enumerate(items)]
    if "kvlistValue" in value or "kvlist_value" in value:
        inner = _get(value, "kvlistValue", "kvlist_value") or {}
        return key_values(_dict(inner, where).get("values"), f"{where}.kvlistValue.values")
    if "bytesValue" in value or "bytes_value" in value:
        return _get(value, "bytesValue", "bytes_value")  # kept as its base64 text
    raise InputError(f"unknown attribute value kind {sorted(value)[0]!r}", location=where,
                     expected="stringValue, intValue, doubleValue, boolValue, arrayValue or kvlistValue")


def key_values(items: Any, where: str, field: str = "") -> dict[str, Any]:
    """A list of ``{"key": K, "value": AnyValue}`` as a plain dict.

    Most attribute values are plain strings, flags or counts: they take a fast path that
    builds no location text (places are only spelled out when something is wrong). A
    ``stringValue`` is the value whatever else the AnyValue holds (:func:`any_value` looks
    at it first); a ``boolValue`` or an ``intValue`` only when it is alone (a
    ``string_value`` beside it would come first), and a count only when it is an int or
    up to 20 decimal digits, which ``int()`` always reads (anything else, such as a sign,
    a space or a 5,000-digit text, goes the general way, to its value or its error).
    """
    if type(items) is not list:
        items = _list(items, where, field)
    out: dict[str, Any] = {}
    i = -1  # counted by hand: enumerate's pair an item cost more than the count
    for item in items:
        i += 1
        if type(item) is dict:
            try:  # subscripts, not get(): a third of the time an attribute took
                key = item["key"]
                value = item["value"]
            except KeyError:
                pass  # the general way reads it (or says what is wrong)
            else:
                if type(key) is str and type(value) is dict:
                    if "stringValue" in value:
                        out[key] = value["stringValue"]
                        continue
                    if len(value) == 1:
                        if "boolValue" in value:
                            out[key] = value["boolValue"]
                            continue
                        if "intValue" in value:
                            number = value["intValue"]
                            if type(number) is int:  # (a bool's type is bool: the general way refuses it)
                                out[key] = number
                                continue
                            if type(number) is str and len(number) <= 20 and number.isdecimal():
                                out[key] = int(number)
                                continue
        place = f"{where}{field}[{i}]"
        item = _dict(item, place)
        key = item.get("key")
        if not isinstance(key, str):
            raise InputError("attribute without a string 'key'", location=place)
        out[key] = any_value(item.get("value"), f"{place}.value")
    return out


def _integer(raw: Any, where: str) -> int:
    if isinstance(raw, bool):
        raise InputError("expected an integer, found a boolean", location=where)
    if isinstance(raw, int):
        return raw
    if isinstance(raw, str):
        try:
            return int(raw)
        except ValueError:
            pass
    if isinstance(raw, float) and raw.is_integer():
        return int(raw)
    raise InputError(f"expected an integer, found {raw!r}"[:120], location=where)


def _double(raw: Any, where: str) -> float:
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return float(raw)
    if raw in ("NaN", "Infinity", "-Infinity"):
        return float(raw.replace("Infinity", "inf")) if raw != "NaN" else math.nan
    raise InputError(f"expected a number, found {raw!r}"[:120], location=where)


_MAX_NANOS = 2**64 - 1  # OTLP times are fixed64 nanoseconds


def _time(raw: Any, where: str, field: str = "") -> int | None:
    if raw is None or raw == "0" or raw == 0:
        return None
    if type(raw) is str and raw.isdecimal():  # isdigit() passes "²", which int() refuses
        value: int | None = int(raw) if len(raw) <= 20 else _MAX_NANOS + 1
    else:
        value = _integer(raw, where + field)
    if value is not None and value > _MAX_NANOS:  # a 400-digit time would overflow every duration
        raise InputError("a time is larger than OTLP's 64-bit nanoseconds", location=where + field,
                         expected="nanoseconds since 1970 as a 64-bit number, e.g. \"1795000000001000000\"")
    return value


def span_id(raw: Any, where: str, field: str = "") -> str | None:
    """An id as lowercase hex: hex (file exporter) and base64 (protobuf mapping) both work.

    The two cannot be confused: 8- and 16-byte ids are 16/32 characters in hex but 12/24 in
    base64. Trace and parent ids repeat span after span, so decoded ids are cached.
    """
    if type(raw) is not str or not raw:  # a text, nearly always: these two questions are then settled
        if raw is None or raw == "":
            return None
        if not isinstance(raw, str):
            raise InputError(f"an id must be a string, found {type(raw).__name__}", location=where + field)
    try:
        return _decode_id(raw)
    except ValueError:
        raise InputError(f"id {raw!r} is neither hex nor base64"[:120], location=where + field) from None


@functools.lru_cache(maxsize=4096)
def _decode_id(raw: str) -> str:
    text = raw.strip()
    if text[:2] in ("0x", "0X"):
        text = text[2:]
    if len(text) in (16, 32):
        try:
            bytes.fromhex(text)
        except ValueError:
            pass
        else:
            return text.lower()
    try:
        return _b64decode(text).hex()
    except (binascii.Error, ValueError):
        raise ValueError(raw) from None


if sys.version_info >= (3, 11):
    def _b64decode(text: str) -> bytes:
        return binascii.a2b_base64(text, strict_mode=True)  # what b64decode(validate=True) does, faster
else:  # pragma: no cover - Python 3.10
    def _b64decode(text: str) -> bytes:
        return base64.b64decode(text, validate=True)


def _status(raw: Any, where: str, field: str = "") -> tuple[int, str | None]:
    if raw is None or raw == {}:
        return STATUS_UNSET, None
    where = where + field
    raw = _dict(raw, where)
    code = raw["code"] if "code" in raw else raw.get("status_code", 0)  # the other spelling looked up only if needed
    message = raw["message"] if "message" in raw else raw.get("description")
    if type(code) is int and 0 <= code <= 2:  # the usual case, first (a bool's type is bool)
        number = code
    elif isinstance(code, str) and code in _STATUS_NAMES:
        number = _STATUS_NAMES[code]
    elif isinstance(code, int) and not isinstance(code, bool) and code in (0, 1, 2):
        number = code
    else:
        raise InputError(f"unknown status code {code!r}"[:120], location=f"{where}.code",
                         expected="0/1/2 or STATUS_CODE_UNSET/OK/ERROR")
    if message is not None and not isinstance(message, str):
        raise InputError("status message must be a string", location=f"{where}.message")
    return number, message or None


def _events(raw: Any, where: str, field: str = "") -> tuple[tuple[str, dict[str, Any]], ...]:
    if not raw:
        return ()
    out = []
    where = where + field
    for i, event in enumerate(_list(raw, where)):
        event = _dict(event, f"{where}[{i}]")
        name = event.get("name")
        attributes = event.get("attributes")
        attrs_dict = attributes if isinstance(attributes, dict) else key_values(attributes, f"{where}[{i}].attributes")
        out.append((name if isinstance(name, str) else "", attrs_dict))
    return tuple(out)


def otlp_span(raw: Any, where: str, order: int, keep: Keep | None = None) -> Span | None:
    """One raw OTLP/JSON span decoded, as :func:`iter_request_spans` decodes it (``None``: ``keep`` said no)."""
    # The usual cases of _dict, _status and _events are tested here, sparing a call each:
    # a span is a plain dict, with an empty status and no events, nearly always.
    if type(raw) is not dict:
        raw = _dict(raw, where)
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise InputError("span has no name", location=f"{where}.name",
                         expected="every OTLP span to have a non-empty 'name'")
    attributes = key_values(raw.get("attributes"), where, ".attributes")
    if keep is not None and not keep(name, attributes):
        return None  # not wanted: ids, times and events are never decoded
    status = raw.get("status")
    status_code, status_message = (STATUS_UNSET, None) if status is None or status == {} else _status(
        status, where, ".status")
    events = raw.get("events")
    # The fields that can be wrong are decoded in the order they always were (ids, times,
    # events), so the first error named is the same.
    trace_id, span_id_, parent_id = _ids(raw["traceId"] if "traceId" in raw else raw.get("trace_id"),
                                         raw["spanId"] if "spanId" in raw else raw.get("span_id"),
                                         raw["parentSpanId"] if "parentSpanId" in raw else raw.get("parent_span_id"),
                                         where)
    start_ns, end_ns = _times(raw["startTimeUnixNano"] if "startTimeUnixNano" in raw else raw.get("start_time_unix_nano"),
                              raw["endTimeUnixNano"] if "endTimeUnixNano" in raw else raw.get("end_time_unix_nano"), where)
    # Positional, in field order (a test pins them): matching twelve keywords cost more than
    # half of making the Span.
    return Span(name, attributes, trace_id, span_id_, parent_id, start_ns, end_ns, status_code, status_message,
                _events(events, where, ".events") if events else (), order, where)


_HEX_DIGITS = "0123456789abcdef"
_HEX_LENGTHS = (16, 32)


def _ids(trace: Any, span: Any, parent: Any, where: str) -> tuple[str | None, str | None, str | None]:
    """:func:`span_id` of a span's three ids. Why: nearly always all three are non-empty texts
    (or no parent), with no wrapper call each. The trace id repeats span after span: a cache
    hit. A span id is new with each span, and its children's parent id is read after it, if
    at all: a lowercase hex span or parent id of 16 or 32 digits (the file exporter's) is what
    ``_decode_id`` makes of it, kept as it is (0.13 us to tell) instead of a cache miss (0.5 us
    and an eviction); any other text is decoded (and cached)."""
    if type(trace) is str and type(span) is str and trace and span and (parent is None or type(parent) is str):
        digits, lengths, decode = _HEX_DIGITS, _HEX_LENGTHS, _decode_id
        try:
            return (decode(trace),
                    span if len(span) in lengths and not span.strip(digits) else decode(span),
                    (parent if len(parent) in lengths and not parent.strip(digits) else decode(parent))
                    if parent else None)
        except ValueError:
            pass  # which one is wrong, and its place: the general way says
    return (span_id(trace, where, ".traceId"), span_id(span, where, ".spanId"),
            span_id(parent, where, ".parentSpanId"))


def _times(start: Any, end: Any, where: str) -> tuple[int | None, int | None]:
    """:func:`_time` of a span's start and end. Why: nearly always both are texts of 19 digits,
    read here without two calls. A text of up to 19 characters is what ``int()`` makes of it
    there too (below 2**64 whatever it says, so no bound to check), or goes the general way."""
    if type(start) is str and type(end) is str and len(start) <= 19 and len(end) <= 19:
        try:
            return (int(start) if start != "0" else None), (int(end) if end != "0" else None)
        except ValueError:
            pass  # which one is wrong, and its place: the general way says
    return _time(start, where, ".startTimeUnixNano"), _time(end, where, ".endTimeUnixNano")


def is_export_request(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(_get(data, "resourceSpans", "resource_spans"), list)


def iter_request_spans(request: Any, where: str = "$", start_order: int = 0,
                       keep: Keep | None = None) -> Iterator[Span | None]:
    """The spans of one ``ExportTraceServiceRequest`` (``{"resourceSpans": [...]}``).

    With ``keep``, a span it rejects (from its name and attributes) is yielded as ``None``,
    undecoded beyond that: most spans of a GenAI export are not tool calls.
    """
    order = start_order
    for span_where, raw in iter_raw_spans(request, where):
        yield otlp_span(raw, span_where, order, keep)
        order += 1


def iter_raw_spans(request: Any, where: str = "$") -> Iterator[tuple[str, Any]]:
    """``(place, span)`` of each raw span of one export request, in order; a malformed request
    is an InputError naming the place (the spans themselves are not checked here)."""
    # The checks' usual outcome is tested inline, and a place is spelled for a list only when
    # it is not one (asked of every line of a file, twice by an export of one record a trace).
    if type(request) is not dict:
        request = _dict(request, where)
    resources = _get(request, "resourceSpans", "resource_spans")
    if type(resources) is not list:
        resources = _list(resources, f"{where}.resourceSpans")
    for r, resource in enumerate(resources):
        resource_where = f"{where}.resourceSpans[{r}]"
        if type(resource) is not dict:
            resource = _dict(resource, resource_where)
        scopes = _get(resource, "scopeSpans", "scope_spans")
        scope_key = "scopeSpans"
        if scopes is None:  # OTLP before 0.15 called them instrumentationLibrarySpans
            scopes = _get(resource, "instrumentationLibrarySpans", "instrumentation_library_spans")
            scope_key = "instrumentationLibrarySpans"
        if type(scopes) is not list:
            scopes = _list(scopes, f"{resource_where}.{scope_key}")
        for s, scope in enumerate(scopes):
            scope_where = f"{resource_where}.{scope_key}[{s}]"
            if type(scope) is not dict:
                scope = _dict(scope, scope_where)
            raws = scope.get("spans")
            if type(raws) is not list:
                raws = _list(raws, f"{scope_where}.spans")
            for i, raw in enumerate(raws):
                yield f"{scope_where}.spans[{i}]", raw


def is_sdk_json_span(data: Any) -> bool:
    """The SDK's ``ReadableSpan.to_json()`` form (what ``ConsoleSpanExporter`` prints)."""
    return (isinstance(data, dict) and isinstance(data.get("context"), dict)
            and "span_id" in data["context"] and isinstance(data.get("attributes"), dict))


def sdk_json_span(raw: dict[str, Any], where: str, order: int) -> Span:
    from datetime import datetime

    def iso_ns(value: Any, place: str) -> int | None:
        if value is None:
            return None
        if not isinstance(value, str):
            raise InputError("a timestamp must be an ISO 8601 string", location=place)
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise InputError(f"not an ISO 8601 timestamp: {value!r}"[:120], location=place) from None
        return int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000

    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise InputError("span has no name", location=f"{where}.name")
    context = raw["context"]
    status = raw.get("status") if isinstance(raw.get("status"), dict) else None
    code, message = _status(status, f"{where}.status")
    return Span(
        name=name, attributes=dict(raw["attributes"]),
        trace_id=span_id(context.get("trace_id"), f"{where}.context.trace_id"),
        span_id=span_id(context.get("span_id"), f"{where}.context.span_id"),
        parent_id=span_id(raw.get("parent_id"), f"{where}.parent_id"),
        start_ns=iso_ns(raw.get("start_time"), f"{where}.start_time"),
        end_ns=iso_ns(raw.get("end_time"), f"{where}.end_time"),
        status_code=code, status_message=message,
        events=_events(raw.get("events"), f"{where}.events"), order=order, where=where,
    )


def is_sdk_span(obj: Any) -> bool:
    """A live SDK span (``ReadableSpan`` and subclasses), recognised without importing the SDK."""
    module = type(obj).__module__ or ""
    return module.startswith("opentelemetry.") and hasattr(obj, "attributes") and hasattr(obj, "start_time")


def sdk_span(obj: Any, where: str, order: int) -> Span:
    """Read a live ``ReadableSpan``: its attributes are already structured Python values."""
    name = getattr(obj, "name", None)
    if not isinstance(name, str) or not name:
        raise InputError("span has no name", location=where)
    context = getattr(obj, "context", None)
    parent = getattr(obj, "parent", None)
    status = getattr(obj, "status", None)
    code_enum = getattr(status, "status_code", None)
    code = int(getattr(code_enum, "value", 0) or 0) if code_enum is not None else 0
    events = tuple((str(getattr(e, "name", "")), dict(getattr(e, "attributes", None) or {}))
                   for e in (getattr(obj, "events", None) or ()))

    def hex_id(ctx: Any, attr: str, width: int) -> str | None:
        value = getattr(ctx, attr, None) if ctx is not None else None
        return f"{value:0{width}x}" if isinstance(value, int) and value else None

    return Span(
        name=name, attributes=dict(getattr(obj, "attributes", None) or {}),
        trace_id=hex_id(context, "trace_id", 32), span_id=hex_id(context, "span_id", 16),
        parent_id=hex_id(parent, "span_id", 16),
        start_ns=getattr(obj, "start_time", None), end_ns=getattr(obj, "end_time", None),
        status_code=code if code in (0, 1, 2) else 0,
        status_message=getattr(status, "description", None) or None,
        events=events, order=order, where=where,
    )


def is_proto_request(obj: Any) -> bool:
    """A live protobuf ``ExportTraceServiceRequest`` (or ``TracesData``)."""
    return (type(obj).__module__ or "").startswith("opentelemetry.proto.") and hasattr(obj, "resource_spans")


def proto_request_to_json(obj: Any) -> dict[str, Any]:
    from google.protobuf.json_format import MessageToDict

    return MessageToDict(obj)


# The decoders ``otlp_span`` applies to a raw span's status, ids and times, under public names for a
# reader of raw spans that makes no Span (the export's plain-trace reader): one copy of each rule.
span_status, span_ids, span_times = _status, _ids, _times
