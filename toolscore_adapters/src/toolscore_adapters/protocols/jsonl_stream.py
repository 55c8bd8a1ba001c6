"""Reading a JSON Lines file one line at a time, with errors that name the line.

Why not ``toolscore_core.kernel.files``: that reads the whole text first, and the adapters that
stream (otel, mcp) must not hold a 1 GB file in memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toolscore_core import InputError
from toolscore_core.kernel import readlimits
from toolscore_core.kernel.files import numbered_lines
from toolscore_core.kernel.formats import TORN_TAIL_KEY

TORN_KEY = TORN_TAIL_KEY  # Trace.metadata key: a sentence saying a cut-off last line was skipped
#: The read buffer. Why not the default 8 KiB: a trace line is often half of that or more, so
#: that buffer cost a read call every line or two and pieced together every line that crossed
#: its end (3.8 KB OTLP lines: 2.0 us a line to iterate, 0.6 with this). Lines longer than
#: the buffer read as before.
_BUFFER = 64 * 1024


def iter_json_lines(path: Path, *, expected: str, torn: list[str] | None = None) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for every non-blank line; bad UTF-8 or JSON is an InputError.

    Streams, holding one line back to know which line is the last. A last line with no
    newline that does not decode or parse was cut off (a recorder killed mid-write, a copy
    of a file still being written): with ``torn`` given it is skipped and one sentence
    saying so is appended to ``torn``, so every complete line before it is still read;
    without ``torn`` it is an InputError like any other bad line. A bad line that ends with
    its newline was written whole and then damaged: always an InputError, as is a bad line
    anywhere else.
    """
    held: tuple[int, bytes] | None = None
    with path.open("rb", buffering=_BUFFER) as fh:
        for number, raw in numbered_lines(fh, path):  # a line past the kernel's cap is refused, not read whole
            if number == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            if not raw.strip():
                continue
            if held is not None:
                yield held[0], _decode(path, held[0], held[1], expected)
            held = (number, raw)
    if held is None:
        return
    number, raw = held
    if torn is not None and not raw.endswith(b"\n"):
        try:
            json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            torn.append(f"{path}, line {number}: the last line is cut off ({len(raw):,} bytes, no newline); "
                        f"read the {number - 1:,} line(s) before it")
            return
        except (ValueError, RecursionError):
            pass  # complete but past the read limits: _decode says so
    yield number, _decode(path, number, raw, expected)


def _decode(path: Path, number: int, raw: bytes, expected: str) -> Any:
    """One line's value; InputErrors naming the line. ``readlimits.loads_bytes`` reads the
    bytes (orjson's reading where it is the standard reader's), which decodes them only
    when it needs the text: a bad byte is its ``UnicodeDecodeError``, as ``raw.decode`` raises."""
    try:
        return readlimits.loads_bytes(raw, file=path, location=f"line {number}", what="line is")
    except UnicodeDecodeError as exc:
        raise InputError(f"is not valid UTF-8 (byte 0x{raw[exc.start]:02x})", file=path,
                         location=f"line {number}", hint="Save the file as UTF-8") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"line is not valid JSON ({exc.msg})", file=path,
                         location=f"line {number}, column {exc.colno}", expected=expected) from None


def first_line(head: bytes) -> Any:
    """The first line of ``head`` parsed as a JSON object, or ``None`` when it is not one.

    Only an object is parsed: every caller asks whether the first line is a certain kind of
    object, and the commonest trace file, a JSON array on one line, was otherwise parsed
    whole by each of them for nothing (two of every trace's detection passes).
    """
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not text.startswith(b"{"):
        return None
    newline = text.find(b"\n")
    line = text if newline < 0 else text[:newline]
    if line.rstrip() == b"{":
        # A pretty-printed file's first line. Safe: ``{`` alone, with any trailing
        # whitespace, is never a complete JSON value, so json.loads would fail on it
        # (and raising that error cost more than a whole detection pass of an adapter).
        return None
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None
