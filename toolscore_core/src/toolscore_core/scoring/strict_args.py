"""``evaluate(strict=True)``: plain expected numbers must also have the same type.

Why: tool-scorer 1.10.0's ``strict`` flag (which its users pass today) turns off the
int/float leniency, so ``{"n": 1}`` does not match ``{"n": 1.0}``. Toolscore's ordinary
comparison is already strict about everything else that flag covers (strings are never
stripped, ``True`` is never ``1``), so strictness only has to add the number type. It is
done by wrapping each plain expected number in :class:`SameNumber`, so the one pairing
and every metric see the stricter expectation without a second comparison path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from toolscore_core.kernel.model import ExpectedCall
from toolscore_core.scoring.matchers import Matcher


class SameNumber(Matcher):
    """An int matches only an int, a float only a float, of equal value (never a bool)."""

    json_key = "$strict"

    def __init__(self, value: int | float) -> None:
        self.value = value

    def matches(self, actual: Any) -> bool:
        return type(actual) is type(self.value) and actual == self.value

    def to_json(self) -> dict[str, Any]:
        return {"$strict": self.value}

    def _identity(self) -> tuple[Any, ...]:
        return (type(self.value).__name__, self.value)

    def __repr__(self) -> str:
        return repr(self.value)


def _strict(value: Any) -> Any:
    if isinstance(value, Matcher):
        return value  # a matcher already says exactly what it accepts
    if type(value) in (int, float):
        return SameNumber(value)
    if isinstance(value, Mapping):
        return {key: _strict(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(item) for item in value]
    return value


def strict_calls(expected: tuple[ExpectedCall, ...]) -> tuple[ExpectedCall, ...]:
    """``expected`` with every plain number (nested anywhere) compared by type as well."""
    return tuple(call if not call.args else attrs.evolve(call, args=_strict(call.args)) for call in expected)


__all__ = ["SameNumber", "strict_calls"]
