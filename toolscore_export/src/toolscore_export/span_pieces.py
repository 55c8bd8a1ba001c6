"""The spans of a long OTLP JSON Lines line read a piece at a time: the spans the whole line's parse
gives, for a fraction of its memory and, on a collector's long lines, under half its time.

Why: a collector writes one export request a line, thousands of spans each (1.7 MB for 500
traces, 7 MB for 2,000). orjson reads a short line at about 2.3 us a span, but a 7 MB line at
8.7: the whole document is built, read and freed out of the cache; and on its way it holds
some 80 MiB besides the line's 35 MiB of values, so a worker reading one peaked at 135 MiB,
more than the export's goal for a whole run (bench/RESULTS.md). Read in pieces of
:data:`PIECE_BYTES`, the same spans cost 2.3 us each, and a caller that lets each piece go
holds one piece at a time.

How: a line of the plain shape (``per_trace.plain_spans``: an object whose ``resourceSpans``
are objects whose ``scopeSpans`` are objects whose ``spans`` are an array) is walked here:
the small parts around the spans (keys, resources, scopes, the first span of each array)
are read by the standard reader's own scanner, a value at a time. The rest of a spans array
is read in pieces: a piece ends where the bytes that end the array's first span and start
its second come again (``},{"traceId"`` in a collector's line), and orjson reads ``[`` +
piece + ``]``. Such a cut can fall inside a span (between two of its links) or past the
array's end; orjson then refuses the piece, and the next spans are read one at a time by the
scanner, up to past that cut. So the bytes alone never decide a value: a piece orjson accepts
starts where a span starts and holds whole values separated as in the line, and JSON is read
left to right, each value's extent fixed by its own bytes, so those values are the ones the
line's parse puts there.

Everything else is declined (:class:`Declined`), and the caller reads the line whole, as it
always has: another shape (a key met twice in the walk, a resource without ``scopeSpans``, a
legacy key), bytes that are not JSON, and, where the caller needs the kernel's values
(``exact``), a line the kernel's reader would not give to orjson (an integer past 64 bits,
nesting past its limit). The scanner's values are then settled as the kernel settles its
own (a lone surrogate replaced). Declining can happen after pieces were given: a caller keeps
what a line gave until the line is done.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from toolscore_core.kernel import readlimits

#: Bytes of a piece orjson reads: small enough to stay in a core's cache (a 16 KiB piece read at
#: 2.3 us a span, a 256 KiB one at 3.3, a 1 MiB one at 4.1, on this project's bench machine).
PIECE_BYTES = 16 << 10
#: The shortest line read in pieces; orjson reads a shorter one whole about as fast (2.5 us a span at
#: 220 kB), and a short line's few spans are not worth the walk.
MIN_LINE_BYTES = 256 << 10
#: Bytes of the line the scanner decodes to read one value, four times more until the value fits.
_WINDOW = 4 << 10


class Declined(Exception):
    """The line is not read here (see the module docstring): the caller reads it whole."""


_scan: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_WS = re.compile(rb"[ \t\n\r]*")
_KEY = re.compile(rb'"([^"\\\x00-\x1f]*)"[ \t\n\r]*:[ \t\n\r]*')  # a key without escapes, and its colon
_SEPARATOR = re.compile(rb"[ \t\n\r]*,[ \t\n\r]*")
_FIRST_KEY = re.compile(rb'\{[ \t\n\r]*"[^"\\\x00-\x1f]{1,128}"')  # a span's opening up to its first key


def spans_in_pieces(body: bytes, *, exact: bool, piece_bytes: int = PIECE_BYTES) -> Iterator[list[Any]]:
    """The raw spans of one line (``body``: its bytes, a byte-order mark removed), in order, a piece at a
    time: together ``plain_spans`` of the line's value, or :class:`Declined` (at any point).

    ``exact``: the values are the kernel's (``readlimits.loads_bytes``), checked as it checks a line;
    without it they may differ where orjson and the standard reader differ (an integer past 64 bits
    is a float), which trace ids, always strings, never do."""
    try:
        if exact and not readlimits.orjson_agrees(body):
            raise Declined
        yield from _Walk(body, exact, piece_bytes).request()
    except Declined:
        raise
    except Exception:  # not JSON, or a value past a limit: the whole line's reader says which
        raise Declined from None


class _Walk:
    """One line's walk: ``at`` is the byte it has reached."""

    __slots__ = ("at", "body", "exact", "piece_bytes")

    def __init__(self, body: bytes, exact: bool, piece_bytes: int) -> None:
        self.body, self.exact, self.piece_bytes = body, exact, piece_bytes
        self.at = 0

    def request(self) -> Iterator[list[Any]]:
        """The line's top object, then only blanks."""
        yield from self._object("resourceSpans", lambda: self._array(self._resource))
        if self._blank() != len(self.body):
            raise Declined

    def _resource(self) -> Iterator[list[Any]]:
        # (without scopeSpans: plain_spans leaves the older key to the adapter's walk)
        yield from self._object("scopeSpans", lambda: self._array(self._scope))

    def _object(self, wanted: str, read: Callable[[], Iterator[list[Any]]]) -> Iterator[list[Any]]:
        """The object at ``at``: its key ``wanted`` (which it must have) read by ``read``, every other key's
        value read past."""
        found = False
        for key in self._keys():
            if key == wanted:
                found = True
                yield from read()
            else:
                self._value()
        if not found:
            raise Declined

    def _scope(self) -> Iterator[list[Any]]:
        for key in self._keys():
            if key != "spans":
                self._value()
            elif self.body.startswith(b"null", self.at):
                self.at += 4
            else:
                yield from self._spans()

    def _keys(self) -> Iterator[str]:
        """The keys of the object at ``at``, each left with ``at`` on its value; ``at`` past the object
        at the end. Declined for a key met twice (the parse keeps the last value at the first place)."""
        body = self.body
        at = self._blank()
        if body[at:at + 1] != b"{":
            raise Declined
        at = _WS.match(body, at + 1).end()  # type: ignore[union-attr]
        seen: set[str] = set()
        if body[at:at + 1] == b"}":
            self.at = at + 1
            return
        while True:
            match = _KEY.match(body, at)
            if match is None:
                raise Declined  # a key with escapes, or not a key
            key = match.group(1).decode("utf-8")
            if key in seen:
                raise Declined
            seen.add(key)
            self.at = match.end()
            yield key
            at = self._blank()
            closing = body[at:at + 1]
            if closing == b"}":
                self.at = at + 1
                return
            if closing != b",":
                raise Declined
            at = _WS.match(body, at + 1).end()  # type: ignore[union-attr]

    def _array(self, element: Callable[[], Iterator[list[Any]]]) -> Iterator[list[Any]]:
        """The elements of the array at ``at``, each read by ``element``."""
        if self._opened_empty():
            return
        while True:
            yield from element()
            if self._after_element():
                return

    def _opened_empty(self) -> bool:
        """Past the opening of the array at ``at`` (declined if there is none): True, and past the array,
        when it is empty."""
        at = self._blank()
        if self.body[at:at + 1] != b"[":
            raise Declined
        self.at = self._blank_from(at + 1)
        if self.body[self.at:self.at + 1] == b"]":
            self.at += 1
            return True
        return False

    def _after_element(self) -> bool:
        """Past the separator after an array's element: True at the array's end."""
        at = self._blank()
        mark = self.body[at:at + 1]
        if mark == b"]":
            self.at = at + 1
            return True
        if mark != b",":
            raise Declined
        self.at = at + 1
        return False

    def _spans(self) -> Iterator[list[Any]]:
        """The spans array at ``at``: its first span by the scanner, the rest in pieces (see the module)."""
        body = self.body
        if self._opened_empty():
            return
        first_at = self.at
        yield [self._value()]
        end = self.at
        separator = _SEPARATOR.match(body, end)
        if separator is None:  # one span: the array ends here, or the line is declined
            self._after_element()
            return
        opening = _FIRST_KEY.match(body, first_at)
        # the bytes between two spans: the first's closing brace, the separator, the next span's first key
        cut = body[end - 1:separator.end()] + opening.group() if opening is not None else None
        self.at = separator.end()
        while True:
            start = self.at
            ends = body.find(cut, start + self.piece_bytes) + 1 if cut is not None else 0
            if ends > 0:
                try:
                    piece = orjson.loads(b"[" + body[start:ends] + b"]")
                except orjson.JSONDecodeError:
                    pass
                else:
                    yield piece
                    self.at = ends + len(separator.group())
                    continue
            else:
                ends = len(body)  # no cut ahead: the rest of the array
            # one span at a time up to past the cut orjson refused (or to the array's end)
            while True:
                yield [self._value()]
                if self._after_element():
                    return
                if self.at > ends:
                    break

    def _value(self) -> Any:
        """The value at ``at`` by the standard reader's scanner; ``at`` past it."""
        body = self.body
        at = self._blank()
        size = _WINDOW
        while True:
            window = body[at:at + size]
            whole = at + size >= len(body)
            try:
                text = window.decode("utf-8")
            except UnicodeDecodeError as exc:  # the window may end inside a character: cut it before that one
                if whole or exc.reason != "unexpected end of data":
                    raise Declined from None
                window = window[:exc.start]
                text = window.decode("utf-8")
            try:
                value, end = _scan(text, 0)
            except (StopIteration, json.JSONDecodeError):
                if whole:
                    raise Declined from None
                size *= 4
                continue
            if not whole and end == len(text):  # a number may go on past the window
                size *= 4
                continue
            read = text[:end]
            self.at = at + (end if window.isascii() else len(read.encode("utf-8")))
            if self.exact:  # a lone surrogate replaced as the kernel replaces it (orjson refuses those)
                return readlimits.settle(value, read)
            return value

    def _blank(self) -> int:
        """``at`` past blanks (and the place it is then)."""
        self.at = self._blank_from(self.at)
        return self.at

    def _blank_from(self, at: int) -> int:
        return _WS.match(self.body, at).end()  # type: ignore[union-attr]


__all__ = ["MIN_LINE_BYTES", "PIECE_BYTES", "Declined", "spans_in_pieces"]
