"""Fast paths of reading a data file, each against the general rule it replaces (issue 12)."""

from __future__ import annotations

import json
import random
from typing import Any

from toolscore_core.kernel import files

_PIECES = ["\n", "\r", "\r\n", "\n\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", " ",
           "\t", "a", "\xa0", "\x1f", "\u3000", "{", "}", "[", "]", '{"a": 1}', "[1, 2]", "\U0001f600", "é"]


def _random_text(rng: random.Random, pieces: int) -> str:
    return "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, pieces)))


def _regex_break(text: str, start: int) -> tuple[int, int]:
    """The general rule: the regex search of a line boundary."""
    found = files._LINE_BREAK.search(text, start)
    return (found.start(), found.end()) if found else (len(text), len(text))


def _splitlines_non_blank(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _whole_rule(text: str) -> bool:
    """looks_like_json_lines as all of the text's lines decide it: two or more non-blank
    lines, the first a whole JSON object or array."""
    lines = _splitlines_non_blank(text)
    first = lines[0].strip() if len(lines) >= 2 else ""
    return first[:1] in ("{", "[") and first[-1:] in ("}", "]") and _parses(first)


def test_next_break_is_the_regex_search_at_every_start() -> None:
    rng = random.Random(1312)
    for _ in range(4000):
        text = _random_text(rng, 30)
        for start in range(len(text) + 1):
            assert files._next_break(text, start) == _regex_break(text, start), (repr(text), start)


def test_next_break_finds_a_boundary_past_a_long_line() -> None:
    body = json.dumps([{"tool": f"t{i}", "args": {"q": "x" * (i % 7)}} for i in range(2000)])
    for tail in ("", "\n", "\r\n", "\r", "\u2028", "\x85", "\x0b"):
        text = body + tail + '{"a": 1}'
        assert files._next_break(text, 0) == _regex_break(text, 0), repr(tail)
        assert list(files._non_blank_lines(text)) == _splitlines_non_blank(text), repr(tail)


def test_non_blank_lines_and_the_json_lines_test_on_random_text() -> None:
    rng = random.Random(1313)
    for _ in range(20000):
        text = _random_text(rng, 16)
        assert list(files._non_blank_lines(text)) == _splitlines_non_blank(text), repr(text)
        assert files.looks_like_json_lines(text) == _whole_rule(text), repr(text)


def test_json_lines_test_on_files_as_they_are_written() -> None:
    calls: list[Any] = [{"tool": "search", "args": {"q": "a\u2028b"}}, {"tool": "book", "args": {}}]
    cases = {
        "one line": json.dumps(calls),
        "one line and a newline": json.dumps(calls) + "\n",
        "pretty": json.dumps(calls, indent=2),
        "json lines": "\n".join(json.dumps(c) for c in calls) + "\n",
        "json lines, CRLF": "\r\n".join(json.dumps(c) for c in calls),
        "json lines, raw U+2028 inside a string": "\n".join(json.dumps(c, ensure_ascii=False) for c in calls),
    }
    for name, text in cases.items():
        assert files.looks_like_json_lines(text) == _whole_rule(text), name
    assert files.looks_like_json_lines(cases["json lines"])
    assert not files.looks_like_json_lines(cases["one line"])
