"""How a forbidden rule's argument matcher reads a value: it searches, it never needs the
value to be one flat string.

A policy ``{"command": {"$regex": "rm -rf"}}`` exists to stop a destructive command, and
shell tools often take argv lists: ``["bash", "-c", "rm -rf /"]`` hides the text one level
down and ``["rm", "-rf", "/"]`` splits it into words. A rule that only looked at top-level
strings would be bypassed by either. So ``$regex`` and a text ``$contains`` in a forbidden
rule are tried on every string in the value (nested lists and objects included, keys too)
and on every list of plain words joined with spaces, the command line it forms. Expected
arguments keep their exact meaning (a full match); only forbidden rules use this.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from toolscore_core.scoring.matchers import Contains, OneOf, Regex, matches


def searched_texts(value: Any) -> Iterator[str]:
    """Every string (and number, as text) inside ``value`` and every word list joined into a
    command line.

    Walked with an explicit stack, so a deeply nested argument cannot exhaust recursion.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, (int, float)) and not isinstance(item, bool):
            yield str(item)  # {"port": {"$regex": "^22$"}} catches 22, as tool-scorer's did
        elif isinstance(item, Mapping):
            for key, inner in item.items():
                if isinstance(key, str):
                    yield key
                stack.append(inner)
        elif isinstance(item, (list, tuple)):
            words = [w for w in item if isinstance(w, (str, int, float)) and not isinstance(w, bool)]
            if len(words) > 1 and len(words) == len(item):
                yield " ".join(str(w) for w in words)
            stack.extend(reversed(item))


def rule_value_matches(expected: Any, actual: Any) -> bool:
    """Whether a forbidden rule's value ``expected`` catches the argument ``actual``."""
    if isinstance(expected, Regex):
        return any(expected.search(text) for text in searched_texts(actual))
    if isinstance(expected, Contains) and isinstance(expected.item, str):
        item = expected.item
        return expected.matches(actual) or any(item in text for text in searched_texts(actual))
    if isinstance(expected, OneOf):
        return any(rule_value_matches(candidate, actual) for candidate in expected.values)
    return matches(expected, actual)


__all__ = ["rule_value_matches", "searched_texts"]
