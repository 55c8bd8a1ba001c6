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
    return ", ".join(f"{name}={format_value(value, value_limit)}" for name, value in safe.items())


def format_call(tool: str | None, args: Mapping[str, Any] | None, *, limit: int = CALL_LIMIT,
                unchecked: bool = False) -> str:
    """``search_flights(origin='SFO', destination='NYC')``, at most ``limit`` characters.

    ``unchecked`` renders expected calls whose arguments are not checked as ``tool(…)``
    rather than ``tool()``, which would claim that no arguments are expected.
    """
    name = tool if tool is not None else "<any tool>"
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


def safe_text(text: Any, limit: int = TEXT_LIMIT) -> str:
    """Free text from a trace or finding (an error message ...), redacted, one line, cut."""
    if text is None:
        return ""
    cleaned = redact(str(text))
    one_line = " ".join(str(cleaned).split())
    return truncate(one_line, limit)


__all__ = [
    "CALL_LIMIT",
    "ELLIPSIS",
    "TEXT_LIMIT",
    "VALUE_LIMIT",
    "format_args",
    "format_call",
    "format_value",
    "percent",
    "ratio",
    "redact",
    "safe_text",
    "truncate",
]
