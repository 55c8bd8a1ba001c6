"""A small Server-Sent Events parser for Streamable HTTP replies.

Streamable HTTP answers a POST with either one JSON body or an ``text/event-stream``
whose ``data:`` fields carry JSON-RPC messages. Servers differ (a priming event with empty
data, ``event: message`` or none, ``id:`` or none, CRLF line ends), so the parser follows
the SSE rules rather than any one server: fields accumulate until a blank line; comment
lines (``:``) are skipped; multiple ``data:`` lines join with ``\\n``.

A server decides how long an event is, so both the lines (:func:`capped_lines`) and the
events (``max_event_chars``) are capped: past the cap the stream is refused with
:class:`OversizedEvent` instead of being buffered whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import attrs

_LINE_END = re.compile(rb"\r\n|\r|\n")


class OversizedEvent(ValueError):
    """A line or an event of the stream is longer than the cap."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"an SSE event is over the {limit:,}-byte limit per message")
        self.limit = limit


@attrs.frozen
class Event:
    data: str
    event: str = "message"
    id: str | None = None


def capped_lines(chunks: Iterable[bytes], limit: int) -> Iterator[str]:
    """The lines of a byte stream (decoded as UTF-8, line ends kept off), none longer than
    ``limit`` bytes: a line that grows past it raises :class:`OversizedEvent` before more
    than ``limit`` bytes (and one chunk) are held. CR, LF and CRLF all end a line, as SSE
    allows. Each byte is scanned once, so a long line costs linear time."""
    pending = bytearray()
    for chunk in chunks:
        # What is already pending holds no line end, but a CR at its end may be half a CRLF.
        position = max(len(pending) - 1, 0)
        pending += chunk
        start = 0
        while (match := _LINE_END.search(pending, position)) is not None:
            if match.group() == b"\r" and match.end() == len(pending):
                break  # wait for the next chunk: it may begin with the LF
            if match.start() - start > limit:
                raise OversizedEvent(limit)
            yield pending[start:match.start()].decode("utf-8", errors="replace")
            start = position = match.end()
        del pending[:start]
        if len(pending) > limit:
            raise OversizedEvent(limit)
    if pending:
        yield pending.rstrip(b"\r").decode("utf-8", errors="replace")


def parse_events(lines: Iterable[str], *, max_event_chars: int | None = None) -> Iterator[Event]:
    """Yield each dispatched event of an SSE stream given as decoded lines; an event whose
    data grows past ``max_event_chars`` raises :class:`OversizedEvent`."""
    data: list[str] = []
    size = 0
    event = ""
    event_id: str | None = None
    for raw in lines:
        line = raw.rstrip("\r\n")
        if line == "":
            if any(data):  # an empty data buffer (a priming event) is not dispatched
                yield Event(data="\n".join(data), event=event or "message", id=event_id)
            data, event, event_id, size = [], "", None, 0
            continue
        if line.startswith(":"):
            continue
        field, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if field == "data":
            size += len(value) + 1
            if max_event_chars is not None and size > max_event_chars:
                raise OversizedEvent(max_event_chars)
            data.append(value)
        elif field == "event":
            event = value
        elif field == "id":
            event_id = value
    if any(data):
        yield Event(data="\n".join(data), event=event or "message", id=event_id)
