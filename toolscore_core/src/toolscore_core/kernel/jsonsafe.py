"""JSON-safe conversion: any value made fit for a record, a report or a log line.

Records (``Evaluation.to_dict()``, baselines, run rows) and findings hold values that came
from a trace: tool arguments, results and errors that may be huge, nested without end,
not JSON at all (NaN, tuples, objects, non-string keys) or carry a credential. Every
writer needs the same answer to "what do we keep of this value", so it is given once,
here, in the kernel, where the model, the scoring and the reports can all use it without
importing each other:

- strings are kept up to ``max_string`` characters, with a note of how long they were;
- lists, tuples and dicts keep their first ``max_items`` items, with a note of how many
  were left out; tuples become lists and keys become strings;
- NaN and infinities become their ``repr`` (JSON has no such numbers); any other object
  becomes its ``repr``, cut like a string;
- nesting deeper than :data:`MAX_DEPTH` becomes ``"…"``;
- credentials are replaced by their redacted previews *before* anything is cut, so a cut
  can never leave half a key readable (``redact=False`` keeps them, for callers that
  redact by other means).

The result contains only ``dict`` (string keys), ``list``, ``str``, ``int``, finite
``float``, ``bool`` and ``None``, so ``json.dumps(..., allow_nan=False)`` always succeeds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MAX_STRING = 500  # characters of one string value kept in a record
MAX_ITEMS = 50  # items of one list / keys of one dict kept in a record
MAX_DEPTH = 20  # levels of nesting kept; deeper values become "…"

_INFINITIES = (float("inf"), float("-inf"))


def to_json_safe(value: Any, *, max_string: int = MAX_STRING, max_items: int = MAX_ITEMS,
                 redact: bool = True) -> Any:
    """A JSON-safe, size-bounded (and by default redacted) copy of ``value``.

    :param max_string: characters kept of each string (the head, then
        ``"… (N characters)"``).
    :param max_items: items kept of each list and keys of each dict (then one marker item
        saying how many more there were).
    :param redact: replace every credential by its preview (``AKIA…LE``) first.
    """
    if redact:
        return _redacting(max_string, max_items).convert(value, 0)
    return _Converter(max_string, max_items, _same, _head, _same).convert(value, 0)


def bounded(value: Any, *, max_string: int = MAX_STRING, max_items: int = MAX_ITEMS, depth: int = 0) -> Any:
    """The scoring code's historical name for :func:`to_json_safe` (always redacted).

    ``depth`` counts levels already used by the caller, so a nested call respects the same
    overall :data:`MAX_DEPTH`.
    """
    return _redacting(max_string, max_items).convert(value, depth)


def _redacting(max_string: int, max_items: int) -> _Converter:
    # Imported here, not at module level: the kernel must stay cheap to import, and the
    # credential patterns are only compiled when a record is actually written.
    from toolscore_core.scoring.secrets import redact as redact_value
    from toolscore_core.scoring.secrets import redact_head, redact_text

    return _Converter(max_string, max_items, redact_text, redact_head, lambda key: str(redact_value(key)))


def _same(text: str) -> str:
    return text


def _head(text: str, limit: int) -> str:
    return text[:limit]


class _Converter:
    """One conversion's limits and redaction functions, looked up once instead of on
    every value of a 100k-call trace."""

    __slots__ = ("head", "key", "max_items", "max_string", "text")

    def __init__(self, max_string: int, max_items: int, text: Callable[[str], str],
                 head: Callable[[str, int], str], key: Callable[[str], str]) -> None:
        self.max_string = max_string
        self.max_items = max_items
        self.text = text
        self.head = head
        self.key = key

    def convert(self, value: Any, depth: int) -> Any:
        if depth > MAX_DEPTH:
            return "…"
        if isinstance(value, str):
            if len(value) <= self.max_string:
                return self.text(value)
            return f"{self.head(value, self.max_string)}… ({len(value)} characters)"
        if isinstance(value, bool) or value is None or isinstance(value, int):
            return value
        if isinstance(value, float):
            return value if value == value and value not in _INFINITIES else repr(value)
        if isinstance(value, dict):
            items = list(value.items())
            out = {self.key(str(k)): self.convert(v, depth + 1) for k, v in items[:self.max_items]}
            if len(items) > self.max_items:
                out["…"] = f"{len(items) - self.max_items} more key(s)"
            return out
        if isinstance(value, (list, tuple)):
            kept = [self.convert(v, depth + 1) for v in value[:self.max_items]]
            if len(value) > self.max_items:
                kept.append(f"… {len(value) - self.max_items} more item(s)")
            return kept
        return self.convert(repr(value), depth + 1)


__all__ = ["MAX_DEPTH", "MAX_ITEMS", "MAX_STRING", "bounded", "to_json_safe"]
