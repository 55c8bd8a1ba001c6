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


def iter_json_lines(path: Path, *, expected: str) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for every non-blank line; bad UTF-8 or JSON is an InputError."""
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, start=1):
            if number == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            if not raw.strip():
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(f"is not valid UTF-8 (byte 0x{raw[exc.start]:02x})", file=path,
                                 location=f"line {number}", hint="Save the file as UTF-8") from None
            try:
                yield number, json.loads(text)
            except json.JSONDecodeError as exc:
                raise InputError(f"line is not valid JSON ({exc.msg})", file=path,
                                 location=f"line {number}, column {exc.colno}", expected=expected) from None
            except RecursionError:
                raise InputError("line is nested too deeply to read", file=path,
                                 location=f"line {number}") from None


def first_line(head: bytes) -> Any:
    """The first line of ``head`` parsed as JSON, or ``None`` when it is not complete JSON."""
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    newline = text.find(b"\n")
    line = text if newline < 0 else text[:newline]
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None
