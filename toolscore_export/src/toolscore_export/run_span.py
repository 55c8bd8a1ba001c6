"""The span of the run itself in an OTLP trace file: the agent's span, else the trace's root.

Why: an evaluation event joined only to a trace id lands on the trace, not on a span; a
backend shows it best on the span of the agent run it judges. The adapters keep the tool
spans only (the run's own span carries no call), so the export finds the run span itself,
from the same file, by two plain rules:

1. the one span of the run's trace whose ``gen_ai.operation.name`` is ``invoke_agent``;
2. else the one span of that trace without a parent (the root).

Anything else (two agent spans, two roots, ids that are not OTLP/JSON hex) gives None:
an id is never guessed. Only OTLP/JSON is read here (an export request, a list of them, or
JSON Lines of them, as the Collector's file exporter writes); other formats give None.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

_SPAN_ID = re.compile(r"[0-9a-f]{16}")
_HEX_DIGITS = "0123456789abcdef"  # what _SPAN_ID matches: 16 of them, nothing else
_AGENT = "invoke_agent"
_OPERATION = "gen_ai.operation.name"
_MAX_BYTES = 256 << 20  # a trace file larger than this is not read a second time for its run span


def _loads() -> Any:
    try:
        import orjson
    except ImportError:
        return json.loads
    return orjson.loads


def _requests(path: Path) -> Iterator[Any]:
    """The JSON values of the file (only ids and names are read from them, so any parser will do)."""
    loads = _loads()
    text = path.read_text(encoding="utf-8-sig", errors="replace")
    try:
        data = loads(text)
    except (ValueError, RecursionError):
        try:
            data = json.loads(text)  # what orjson refuses (NaN, deep nesting) the standard parser may read
        except (ValueError, RecursionError):
            for line in text.splitlines():
                if line.strip():
                    try:
                        yield loads(line)
                    except (ValueError, RecursionError):
                        try:
                            yield json.loads(line)
                        except (ValueError, RecursionError):
                            continue  # a torn line: the adapter has reported it
            return
    yield from as_requests(data)


def as_requests(data: Any) -> list[Any]:
    """The export requests of a file's parsed JSON: a list of them, or one."""
    return data if isinstance(data, list) else [data]


def _spans(request: Any) -> Iterator[dict[str, Any]]:
    if not isinstance(request, dict):
        return
    for resource in request.get("resourceSpans") or []:
        for scope in (resource.get("scopeSpans") or []) if isinstance(resource, dict) else []:
            for span in (scope.get("spans") or []) if isinstance(scope, dict) else []:
                if isinstance(span, dict):
                    yield span


def run_span_id(path: Path, trace_id: str | None, requests: Iterable[Any] | None = None) -> str | None:
    """The span id (16 lowercase hex digits) of the run in OTLP/JSON file ``path``, or None.

    ``requests``: the file's JSON values when the caller parsed them already (the export
    parses a small trace file once, for the adapter and for this); else the file is read.
    """
    if trace_id is None:
        return None
    try:
        if requests is None and path.stat().st_size > _MAX_BYTES:
            return None
        found = RunSpans()
        for request in _requests(path) if requests is None else requests:
            for span in _spans(request):
                found.add(span, trace_id)
    except (OSError, RecursionError):
        return None
    return found.pick()


def _same_trace(given: Any, trace_id: str) -> bool:
    """``str(given).lower() == trace_id.lower()``, without the three copies when ``given`` is
    ``trace_id`` spelled the same (every span of the trace in a file as exported)."""
    if type(given) is str and given == trace_id:
        return True
    return str(given).lower() == trace_id.lower()


class RunSpans:
    """The candidates for a trace's run span, gathered span by span: its agent spans and its roots."""

    def __init__(self) -> None:
        self.agents: set[str] = set()
        self.roots: set[str] = set()

    def add(self, span: dict[str, Any], trace_id: str, attributes: dict[str, Any] | None = None) -> None:
        """Count ``span`` (a raw OTLP/JSON span) if it belongs to trace ``trace_id`` and has a hex id.

        ``attributes``: its attributes as the otel adapter's ``key_values`` read them, when the
        caller has them. Every item of the list is then an object with a text key, each key in
        that dict: one without the operation's key holds no item to look for."""
        span_id = span.get("spanId")
        if not isinstance(span_id, str):
            return
        given = span.get("traceId", "")
        if not (type(given) is str and given == trace_id) and not _same_trace(given, trace_id):
            return
        # a lowercase hex id (what OTLP/JSON writes) is its own lower(); strip is a third cheaper than fullmatch
        if len(span_id) != 16 or span_id.strip(_HEX_DIGITS):
            span_id = span_id.lower()
            if not _SPAN_ID.fullmatch(span_id):
                return
        looked_at = (span.get("attributes") or ()) if attributes is None or _OPERATION in attributes else ()
        for attribute in looked_at:  # its gen_ai.operation.name
            if isinstance(attribute, dict) and attribute.get("key") == _OPERATION:
                value = attribute.get("value")
                if isinstance(value, dict) and value.get("stringValue") == _AGENT:
                    self.agents.add(span_id)
                break
        if not span.get("parentSpanId"):
            self.roots.add(span_id)

    def pick(self) -> str | None:
        """The one agent span, else the one root; None when either rule finds several (never a guess)."""
        for found in (self.agents, self.roots):
            if len(found) == 1:
                return next(iter(found))
            if found:
                return None
        return None


__all__ = ["RunSpans", "as_requests", "run_span_id"]
