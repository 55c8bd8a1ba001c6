"""Fast paths of reading a data file, each against the general rule it replaces (issue 12)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from toolscore_core.kernel import files, readlimits
from toolscore_core.kernel.errors import InputError

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


# ---------------------------------------------------------------- settle: when the parsed data is walked


def _deep_rule(text: str) -> bool:
    """The general rule: more brackets than the limit, and not provably shallow."""
    return text.count("[") + text.count("{") > readlimits.MAX_NESTING and not readlimits._shallow_text(text)


def _nested(depth: int, width: int, filler: str) -> str:
    value: Any = [filler] * width
    for _ in range(depth - 1):
        value = {"k": value, "s": filler}
    return json.dumps(value)


def _settle_texts(rng: random.Random) -> list[str]:
    texts = []
    for _ in range(100):
        depth = rng.choice([1, 2, 50, 99, 100, 101, 102, 150])
        filler = rng.choice(["x", "[" * 3, "a\\ud800b", "\ud800", "\\uD83D", "q\"{", ""])
        text = _nested(depth, rng.randint(1, 3), filler)
        if rng.random() < 0.2:  # a large text with few brackets: one long string
            text = _nested(depth, 1, "x" * readlimits._LARGE_TEXT)
        elif rng.random() < 0.3:  # a large file of many calls, shallow or deep
            text = json.dumps([json.loads(text)] * (readlimits._LARGE_TEXT // len(text) + rng.randint(0, 3)))
        texts.append(text)
    return texts


def test_settle_decides_as_the_general_rules_on_large_and_small_texts() -> None:
    rng = random.Random(1314)
    texts = _settle_texts(rng)
    large = [t for t in texts if len(t) >= readlimits._LARGE_TEXT]
    assert {_deep_rule(t) for t in large} == {True, False}
    assert any(t.count("[") + t.count("{") <= readlimits.MAX_NESTING for t in large)
    for text in texts:
        assert readlimits._may_be_deep(text) == _deep_rule(text), text[:80]
        assert readlimits._may_have_surrogates(text) == ("\\ud" in text or "\\uD" in text), text[:80]


def test_settle_still_refuses_a_large_deep_file_and_cleans_a_large_one() -> None:
    deep = json.dumps([json.loads(_nested(150, 1, "x"))] + [{"tool": "t", "args": {}}] * 20000)
    assert len(deep) >= readlimits._LARGE_TEXT
    with pytest.raises(InputError, match="nested more than"):
        readlimits.loads(deep)
    dirty = json.dumps([{"tool": "t", "args": {"q": "\ud800"}}] * 20000)
    assert readlimits.loads(dirty)[-1]["args"]["q"] == "\ufffd"
