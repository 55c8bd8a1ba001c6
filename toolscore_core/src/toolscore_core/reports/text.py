"""Turning values and calls into short, safe text for people.

Every report (console, Markdown, HTML, the assertion message) prints arguments through
this module, for two reasons. A report must stay readable and bounded when an argument is
a 10 MB string or a trace has 100k calls, so values are cut with a visible ellipsis. And a
credential must never reach a report whole, so every value passes through
:func:`toolscore_core.scoring.secrets.redact` before it is turned into text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ELLIPSIS = "…"
VALUE_LIMIT = 60  # characters of one argument value
CALL_LIMIT = 120  # characters of one rendered call
TEXT_LIMIT = 300  # characters of one message / evidence line


def truncate(text: str, limit: int = TEXT_LIMIT) -> str:
    """``text`` cut to at most ``limit`` characters, ending in an ellipsis when cut."""
    if limit <= 0:
        return ""
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)] + ELLIPSIS


def redact(value: Any) -> Any:
    """``value`` with every credential replaced by its redacted preview (``AKIA…LE``)."""
    from toolscore_core.scoring.secrets import redact as redact_secrets

    return redact_secrets(value)


def format_value(value: Any, limit: int = VALUE_LIMIT) -> str:
    """A Python-looking rendering of one (already redacted) value, at most ``limit`` chars.

    Containers are rendered element by element so that a huge list is never turned into
    one huge string only to be cut afterwards.
    """
    return truncate(_render(value, limit + 1), limit)


def _render(value: Any, budget: int) -> str:
    # Renders at most about ``budget`` characters; the caller truncates the exact length.
    if isinstance(value, str):
        return repr(value[: budget + 2]) if len(value) > budget + 2 else repr(value)
    if isinstance(value, Mapping):
        return _render_items(((f"{k!r}: ", v) for k, v in value.items()), "{", "}", budget)
    if isinstance(value, (list, tuple)):
        open_, close = ("[", "]") if isinstance(value, list) else ("(", ")")
        return _render_items((("", v) for v in value), open_, close, budget)
    text = repr(value)
    return text if len(text) <= budget + 2 else text[: budget + 2]


def _render_items(items: Any, open_: str, close: str, budget: int) -> str:
    out = open_
    first = True
    for prefix, item in items:
        if len(out) > budget:
            return out
        out += ("" if first else ", ") + prefix + _render(item, budget - len(out))
        first = False
    return out + close


def format_args(args: Mapping[str, Any] | None, *, value_limit: int = VALUE_LIMIT) -> str:
    """``origin='SFO', destination='NYC'`` (values redacted and cut)."""
    if not args:
        return ""
    safe = redact(dict(args))
    # Values are repr()-ed (control characters escaped); names are shown as they are, so
    # they are made visible here (a parameter name can carry an escape sequence too).
    return ", ".join(f"{escape_controls(str(name))}={format_value(value, value_limit)}" for name, value in safe.items())


def format_call(tool: str | None, args: Mapping[str, Any] | None, *, limit: int = CALL_LIMIT,
                unchecked: bool = False) -> str:
    """``search_flights(origin='SFO', destination='NYC')``, at most ``limit`` characters.

    ``unchecked`` renders expected calls whose arguments are not checked as ``tool(…)``
    rather than ``tool()``, which would claim that no arguments are expected.
    """
    name = escape_controls(tool) if tool is not None else "<any tool>"
    inner = ELLIPSIS if unchecked else format_args(args)
    return truncate(f"{name}({inner})", limit)


def percent(value: float | None) -> str:
    """``0.9`` -> ``90.0%`` (one decimal, as grades are computed); ``None`` -> ``n/a``."""
    if value is None:
        return "n/a"
    from toolscore_core.scoring.verdict import format_percent

    return format_percent(value)


def ratio(value: float | None) -> str:
    """``0.4666`` -> ``0.47`` (two decimals, the assertion message's style)."""
    if value is None:
        return "n/a"
    return f"{value:.2f}"


#: Unicode categories written as escapes: controls (C0, C1, DEL, so ESC and every
#: CSI / OSC sequence it starts), format characters (bidi overrides and isolates,
#: zero-width characters, soft hyphens, tag characters; ZWJ too, so an emoji sequence
#: shows its parts), lone surrogates, and the line and paragraph separators.
ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_char(char: str) -> str:
    code = ord(char)
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def escape_controls(text: str, *, multiline: bool = False) -> str:
    """``text`` with every character of :data:`ESCAPED_CATEGORIES` written as an escape.

    Printable text is returned as it is (``str.isprintable`` is the fast path); spaces
    other than the ASCII one (no-break, ideographic) are kept: they move no cursor.
    ``multiline`` keeps newlines and tabs (text meant to stay several lines, for a model).
    The backslash itself is not escaped, so the function is idempotent.
    """
    if text.isprintable():
        return text
    import unicodedata

    out: list[str] = []
    for char in text:
        if char.isprintable() or (multiline and char in "\n\t"):
            out.append(char)
        elif unicodedata.category(char) in ESCAPED_CATEGORIES:
            out.append(_escape_char(char))
        else:  # a space separator, private use, unassigned: harmless to a terminal
            out.append(char)
    return "".join(out)


def visible(text: Any, limit: int | None = TEXT_LIMIT, *, redacted: bool = True, multiline: bool = False,
            marker: str = ELLIPSIS) -> str:
    """``text`` fit for a terminal, a CI log or a row: the one function for outside text.

    A server, a trace or a model can send a string that clears the screen, writes the
    user's clipboard (OSC 52), retitles the window, or reverses a line with a bidi
    override. Printed raw, each of those is an attack on whoever reads the output. So
    every such string is redacted (unless ``redacted=False``: text a model must read as
    it is), made visible with :func:`escape_controls` (``\\x1b``, ``\\u202e``, ``\\n``: one
    line unless ``multiline``), then cut to ``limit`` characters ending in ``marker``
    (``None``: not cut). Only a head of a long text is scanned, so the cost is bounded by
    ``limit``, not by the text. Idempotent: ``visible(visible(x)) == visible(x)``.
    """
    value = text if isinstance(text, str) else str(text)
    if limit is not None:
        # An escape is at most 10 characters per character: a head of ``limit`` + 1
        # characters always shows whether the result needs cutting.
        head = limit + 1
        if redacted:
            from toolscore_core.scoring.secrets import redact_head

            value = redact_head(value, head)
        else:
            value = value[:head]
    elif redacted:
        from toolscore_core.scoring.secrets import redact_text

        value = redact_text(value)
    shown = escape_controls(value, multiline=multiline)
    if limit is None or len(shown) <= limit:
        return shown
    if limit <= len(marker):
        return shown[:max(limit, 0)]
    cut = shown[: limit - len(marker)]
    # Never end on half an escape: ``\\x1`` would read as a different character.
    slash = cut.rfind("\\", max(len(cut) - 9, 0))
    if slash >= 0 and _partial_escape(cut[slash:]):
        cut = cut[:slash]
    return cut + marker


def _partial_escape(tail: str) -> bool:
    import re

    return re.fullmatch(r"\\(?:x[0-9a-f]{0,1}|u[0-9a-f]{0,3}|U[0-9a-f]{0,7})?", tail) is not None


def json_visible(document: str) -> str:
    """A JSON document (``json.dumps(..., ensure_ascii=False)``) with every character of
    :data:`ESCAPED_CATEGORIES` written as a JSON ``\\uXXXX`` escape: the same data, but
    printing it cannot drive a terminal (JSON escapes only C0 itself, not DEL, C1 or bidi
    overrides). Characters outside the BMP are written as surrogate pairs, as JSON wants.
    """
    if document.isprintable():
        return document
    import unicodedata

    out: list[str] = []
    for char in document:
        if char.isprintable() or char in "\n\t" or unicodedata.category(char) not in ESCAPED_CATEGORIES:
            out.append(char)
        elif ord(char) < 0x10000:
            out.append(f"\\u{ord(char):04x}")
        else:
            high, low = divmod(ord(char) - 0x10000, 0x400)
            out.append(f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}")
    return "".join(out)


def safe_text(text: Any, limit: int = TEXT_LIMIT) -> str:
    """Free text from a trace or finding (an error message ...), redacted, one line (runs of
    white space as one space), control characters made visible, cut."""
    if text is None:
        return ""
    value = text if isinstance(text, str) else str(text)
    from toolscore_core.scoring.secrets import redact_head

    one_line = " ".join(redact_head(value, 4 * limit + 64).split())
    return visible(one_line, limit, redacted=False)


__all__ = [
    "CALL_LIMIT",
    "ELLIPSIS",
    "ESCAPED_CATEGORIES",
    "TEXT_LIMIT",
    "VALUE_LIMIT",
    "escape_controls",
    "format_args",
    "format_call",
    "format_value",
    "json_visible",
    "percent",
    "ratio",
    "redact",
    "safe_text",
    "truncate",
    "visible",
]
