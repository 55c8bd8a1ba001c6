"""One record per trace of an OTLP source (``export runs --per-trace``).

Why: the OpenTelemetry Collector's file exporter writes JSON Lines of export requests, each
holding spans of whichever traces ended in that batch; read as one trace, such a file
becomes one record merging unrelated runs. With this option each trace id of an OTLP
source is its own run: ``run_id`` is ``FILE#TRACE_ID``, ``trace_context`` names that trace
and its run span, and ``--gold`` scores each trace. It is a choice, not the default: an
auto-instrumented app can put each model call of one run in a trace of its own.

A JSON Lines file is read twice, a line at a time. The first pass notes the line of each
trace's last span; the second gathers each trace's decoded spans (only those the otel
adapter keeps: tool calls and answers) and hands the trace on as soon as its last line is
read. Memory is an entry per trace id not yet ended (its id and a line number, about 200
bytes) plus the spans of the traces still open at a line (those of a batch or two, as a
collector writes them), never the file. Records come in the order their traces end in the
file (then in the order of their first span on that last line). Spans without
a trace id are one run of their own (``FILE#no-trace-id``). An OTLP file that is one JSON
document (not JSON Lines) is read whole, as without the option, and split the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from toolscore_export.record import RunInput, SourceRef
from toolscore_export.run_span import RunSpans
from toolscore_export.sources import trace_calls, trace_run

NO_TRACE_ID = "no-trace-id"
EXPECTED = "one OTLP export request per line"

Requests = Callable[[], Iterator[tuple[str, Any]]]  # a fresh pass over (place, export request)


def otel_modules() -> Any:
    """The otel adapter's modules; --per-trace reads spans as that adapter reads them."""
    from toolscore_core import InputError

    try:
        from toolscore_adapters.protocols import otel, otel_spans
    except ImportError:
        raise InputError("--per-trace needs the otel adapter, which is not installed",
                         hint="Install toolscore-adapters") from None
    return otel, otel_spans


def line_request(path: Path, number: int, request: Any, spans: Any) -> tuple[str, Any]:
    """``(place, request)`` of line ``number`` of a JSON Lines source; an InputError when it is not an export request."""
    from toolscore_core import InputError

    if not spans.is_export_request(request):
        raise InputError("line is not an OTLP export request (no 'resourceSpans' list)", file=path,
                         location=f"line {number}", expected='{"resourceSpans": [...]} on every line')
    return f"line {number}: $", request


def decoded_line(path: Path, number: int, raw: bytes, spans: Any) -> tuple[str, Any]:
    """:func:`line_request` of one whole line's bytes: the value the adapter's line reader decodes.

    Only the value is the reader's: a line it refuses raises here too, but not always the same
    error (a worker that meets one leaves the wording to the serial path)."""
    from toolscore_core.kernel import readlimits

    return line_request(path, number, readlimits.loads_bytes(raw, file=path, location=f"line {number}",
                                                             what="line is"), spans)


def _line_requests(path: Path) -> Requests:
    """The export requests of a JSON Lines file, a line at a time (a torn last line skipped, as the adapter does)."""
    from toolscore_adapters.protocols.jsonl_stream import iter_json_lines

    _, spans = otel_modules()

    def requests() -> Iterator[tuple[str, Any]]:
        for number, request in iter_json_lines(path, expected=EXPECTED, torn=[]):
            yield line_request(path, number, request, spans)

    return requests


def _data_requests(data: Any) -> Requests | None:
    """The export requests of a parsed OTLP/JSON document (one, or a list); None for other OTLP shapes."""
    _, spans = otel_modules()
    if spans.is_export_request(data):
        return lambda: iter([("$", data)])
    if isinstance(data, list) and data and all(spans.is_export_request(item) for item in data):
        return lambda: ((f"$[{i}]", item) for i, item in enumerate(data))
    return None


def trace_key(raw: Any, where: str, spans: Any) -> str:
    """The trace id of a raw span as the adapter decodes it (lowercase hex), or NO_TRACE_ID."""
    if not isinstance(raw, dict):
        return NO_TRACE_ID
    found = spans.span_id(raw["traceId"] if "traceId" in raw else raw.get("trace_id"), where, ".traceId")
    return found or NO_TRACE_ID


def plain_spans(request: dict[str, Any]) -> list[Any] | None:
    """The raw spans of an export request, in order, when every level of it is a plain dict or list
    (``resourceSpans``, ``scopeSpans``, ``spans``), else None (the adapter's walk then reads it).

    Why: the adapter's walk spells every span's place for its error messages (a string a span,
    a quarter of the first pass), which only the second pass can need; this finds the same
    spans: ``otel_spans.iter_raw_spans`` where it would raise nothing and take no other key."""
    resources = request.get("resourceSpans")
    if type(resources) is not list:
        return None
    found: list[Any] = []
    for resource in resources:
        if type(resource) is not dict:
            return None
        scopes = resource.get("scopeSpans")
        if type(scopes) is not list:  # missing or null: the older key is read, by the adapter
            return None
        for scope in scopes:
            if type(scope) is not dict:
                return None
            items = scope.get("spans")
            if type(items) is list:
                found += items
            elif items is not None:
                return None
    return found


def known_key(raw: Any, known: dict[str, str], spans: Any, where: str = "") -> str:
    """:func:`trace_key` of a raw span (``where``: its place, for an error), remembered in ``known`` by
    the trace id's text (every span of a trace repeats it, and decoding it is a pure function of it)."""
    if type(raw) is dict:
        value = raw["traceId"] if "traceId" in raw else raw.get("trace_id")
        if type(value) is str:
            key = known.get(value)
            if key is None:
                key = known[value] = trace_key(raw, where, spans)
            return key
    return trace_key(raw, where, spans)


def _endings(requests: Requests, spans: Any) -> dict[str, int]:
    """First pass: the place of the request that holds each trace's last span."""
    last: dict[str, int] = {}
    known: dict[str, str] = {}
    for index, (where, request) in enumerate(requests()):
        for key in _request_keys(request, where, known, spans):
            last[key] = index
    return last


def _request_keys(request: Any, where: str, known: dict[str, str], spans: Any) -> list[str]:
    """The trace key of each span of an export request, in order: by :func:`plain_spans` and
    :func:`known_key` where they read it, else (an unusual shape, a bad id) by the adapter's walk,
    which raises the error the serial reader raises, at its place."""
    raws = plain_spans(request) if type(request) is dict else None
    if raws is not None:
        try:
            return [known_key(raw, known, spans) for raw in raws]
        except Exception:  # a bad id: the walk below words it and names its place
            pass
    return [known_key(raw, known, spans, span_where) for span_where, raw in spans.iter_raw_spans(request, where)]


class _Open:
    """The decoded spans of one trace still being read, and its run span's candidates."""

    def __init__(self) -> None:
        self.spans: list[Any] = []
        self.run_spans = RunSpans()


def _traces(requests: Requests, spans: Any, otel: Any) -> Iterator[tuple[str, list[Any], RunSpans]]:
    """Second pass: ``(trace id, decoded spans, run span candidates)`` of each trace, as soon as it ends."""
    last = _endings(requests, spans)
    open_: dict[str, _Open] = {}
    known: dict[str, str] = {}
    order = 0  # the place of a span in the file, as the adapter numbers them
    for index, (where, request) in enumerate(requests()):
        seen: dict[str, None] = {}  # the traces of this request, in the order their first span comes
        for span_where, raw in spans.iter_raw_spans(request, where):
            key = known_key(raw, known, spans, span_where)
            seen[key] = None
            trace = open_.get(key)
            if trace is None:  # not setdefault: it would build an _Open (a list, two sets) for every span
                trace = open_[key] = _Open()
            trace.spans.append(spans.otlp_span(raw, span_where, order, otel.wanted))
            trace.run_spans.add(raw, key)
            order += 1
        for key in seen:
            if last.get(key) == index:  # its last span: the trace is whole
                del last[key]
                done = open_.pop(key)
                yield key, done.spans, done.run_spans


def is_line_source(path: Path, raw: bytes | None, trace_format: str | None) -> bool:
    """Whether ``path`` is read as JSON Lines of OTLP export requests, a line at a time."""
    from toolscore_export.sources import OTLP_FORMAT

    if trace_format not in (None, "auto", OTLP_FORMAT):
        return False
    otel, _ = otel_modules()
    if raw is not None:
        head = raw[:1 << 16]
    else:
        with path.open("rb") as handle:
            head = handle.read(1 << 16)
    return bool(otel.OtelAdapter().detect_path(path, head) > 0)


def _requests_of(path: Path, raw: bytes | None, trace_format: str | None, pm: Any) -> Requests | None:
    """How to read ``path`` trace by trace, or None when it is not an OTLP source (one record, as usual)."""
    from toolscore_export.sources import OTLP_FORMAT, _read_trace

    if trace_format not in (None, "auto", OTLP_FORMAT):
        return None
    if is_line_source(path, raw, trace_format):  # JSON Lines of export requests: streamed
        return _line_requests(path)
    trace, data = _read_trace(path, raw, trace_format, pm)
    return _data_requests(data) if trace.source_format == OTLP_FORMAT and data is not None else None


def trace_run_of(adapter: Any, key: str, decoded: list[Any], run_spans: RunSpans, source: SourceRef, *,
                 gold: str | None, pm: Any) -> RunInput:
    """The run of one trace of an OTLP source (``key``: its trace id, or NO_TRACE_ID), from its decoded spans."""
    trace = adapter.load_spans(decoded)
    trace_id = None if key == NO_TRACE_ID else key
    return trace_run(trace, trace_calls(trace), source, gold=gold, pm=pm, run_id=f"{source.name}#{key}",
                     trace_id=trace_id, span_id=run_spans.pick() if trace_id else None)


def per_trace_inputs(path: Path, sha256: str, stats: Any, *, trace_format: str | None, gold: str | None, pm: Any,
                     raw: bytes | None = None) -> Iterable[RunInput]:
    """The runs of a trace source, one per trace id when it is OTLP (else its one run, as usual)."""
    from toolscore_core import InputError
    from toolscore_export.sources import OTLP_FORMAT, TRACE, trace_input

    requests = _requests_of(path, raw, trace_format, pm)
    if requests is None:
        yield trace_input(path, sha256, stats, trace_format=trace_format, gold=gold, pm=pm, raw=raw)
        return
    otel, spans = otel_modules()
    stats.format = OTLP_FORMAT
    adapter = otel.OtelAdapter()
    source = SourceRef(TRACE, path.name, sha256, format=OTLP_FORMAT)
    try:
        for key, decoded, run_spans in _traces(requests, spans, otel):
            yield trace_run_of(adapter, key, decoded, run_spans, source, gold=gold, pm=pm)
    except InputError as exc:
        raise exc.with_file(path) from None


__all__ = ["EXPECTED", "NO_TRACE_ID", "decoded_line", "is_line_source", "known_key", "line_request", "otel_modules",
           "per_trace_inputs", "plain_spans", "trace_key", "trace_run_of"]
