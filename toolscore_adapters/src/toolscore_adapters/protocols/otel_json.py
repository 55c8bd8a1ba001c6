"""JSON text inside span attributes (arguments, results, messages), read as the kernel reads it.

Why: a tool span's arguments are a short JSON text, and ``readlimits.loads`` reaches the C
scanner through four Python calls and two regular-expression matches (1.5 us for
``{"path": "notes/todo.md"}``, against 0.25 us for the scan itself); a trace file of a few
calls parses several such texts. Here a text that the scanner reads whole from its first
character (no surrounding whitespace, no byte-order mark) is settled by the kernel's
:func:`~toolscore_core.kernel.readlimits.settle` directly; anything else, and every error,
goes through ``readlimits.loads`` itself, so values, limits and errors are the kernel's.
The two tests that let ``settle`` return a value untouched are asked here first (a text with
no more brackets than the nesting limit and no backslash): two calls fewer per text.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from toolscore_core.kernel import readlimits

# json.loads uses a decoder with these (default) options; its scanner reads the same values.
# (scan_once is set in JSONDecoder.__init__, which the type stubs do not declare.)
_scan: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def loads(text: str, *, location: str | Callable[[], str] | None = None, what: str = "is") -> Any:
    """``readlimits.loads(text, location=location, what=what)``: the same value, or the same error.

    ``location`` may be a function giving it: a text read here needs no place (most do), so
    the caller need not spell one for every text."""
    try:
        value, end = _scan(text, 0)
    except Exception:  # not a value at 0, or past a limit: the kernel's reader says which, in its words
        return readlimits.loads(text, location=_spelled(location), what=what)
    if end != len(text):  # whitespace or more data after the value: the kernel's reader decides
        return readlimits.loads(text, location=_spelled(location), what=what)
    if "\\" not in text and (len(text) <= readlimits.MAX_NESTING  # (no more brackets than characters)
                             or text.count("[") + text.count("{") <= readlimits.MAX_NESTING):
        return value  # what settle answers: too few brackets to be too deep, no escape to make a surrogate
    return readlimits.settle(value, text, location=_spelled(location), what=what)


def _spelled(location: str | Callable[[], str] | None) -> str | None:
    return location() if callable(location) else location
