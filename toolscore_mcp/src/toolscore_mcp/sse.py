"""A small Server-Sent Events parser for Streamable HTTP replies.

Streamable HTTP answers a POST with either one JSON body or an ``text/event-stream``
whose ``data:`` fields carry JSON-RPC messages. Servers differ (a priming event with empty
data, ``event: message`` or none, ``id:`` or none, CRLF line ends), so the parser follows
the SSE rules rather than any one server: fields accumulate until a blank line; comment
lines (``:``) are skipped; multiple ``data:`` lines join with ``\\n``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import attrs


@attrs.frozen
class Event:
    data: str
    event: str = "message"
    id: str | None = None


def parse_events(lines: Iterable[str]) -> Iterator[Event]:
    """Yield each dispatched event of an SSE stream given as decoded lines."""
    data: list[str] = []
    event = ""
    event_id: str | None = None
    for raw in lines:
        line = raw.rstrip("\r\n")
        if line == "":
            if any(data):  # an empty data buffer (a priming event) is not dispatched
                yield Event(data="\n".join(data), event=event or "message", id=event_id)
            data, event, event_id = [], "", None
            continue
        if line.startswith(":"):
            continue
        field, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if field == "data":
            data.append(value)
        elif field == "event":
            event = value
        elif field == "id":
            event_id = value
    if any(data):
        yield Event(data="\n".join(data), event=event or "message", id=event_id)
