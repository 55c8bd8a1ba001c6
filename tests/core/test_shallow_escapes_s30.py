"""The nesting test of the kernel's reader on escape-heavy text: ``readlimits._shallow_bytes``
removes escapes from the bytes that can make them up, and strings holding brackets by a regex,
where it once scanned the whole text twice for escapes and split it at every quote. Both
shortcuts must give the answer of the plain steps, and of the parsed value's own depth, on
text made to trip them: JSON inside strings (a trace's arguments), runs of backslashes
before quotes, brackets inside strings, non-ASCII text, and values on both sides of the limit.
"""

from __future__ import annotations

import json
import random
from typing import Any

from toolscore_core.kernel import readlimits

from .test_scoring_fast_paths_h12 import _reference_shallow
from .test_startup_h2 import nesting as depth


def reference_shallow(data: bytes) -> bool:
    """The test as it was: escapes removed from the whole text, then a split at every quote."""
    return _reference_shallow(data.decode("utf-8"))


_PIECES = ["[", "]", "{", "}", '"', "\\", "/", "b", "n", "u", "t", "x", " ", ":", ",", "\n", "\u00e9", '"]', '["',
           "\\\\", '\\"', "\\u0022"]


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(_PIECES) for _ in range(rng.randrange(7)))


def _value(rng: random.Random, level: int) -> Any:
    roll = rng.random()
    if level > 6 or roll < 0.3:
        kind = rng.random()
        if kind < 0.45:
            return _text(rng)
        if kind < 0.75:  # JSON inside a string, as a span's arguments are, once or twice over
            inner = json.dumps(_value(rng, level + 2))
            return inner if rng.random() < 0.7 else json.dumps(inner)
        return rng.choice([1, 2.5, None, True, -7])
    if roll < 0.65:
        return [_value(rng, level + 1) for _ in range(rng.randrange(4))]
    return {_text(rng): _value(rng, level + 1) for _ in range(rng.randrange(4))}


def _chain(rng: random.Random, levels: int) -> Any:
    value = _value(rng, 0)
    for _ in range(levels):
        value = [value, _text(rng)] if rng.random() < 0.5 else {"k" + _text(rng): value, "v" + _text(rng): _value(rng, 5)}
    return value


def test_the_shortcuts_answer_as_the_plain_steps_and_the_depth() -> None:
    rng = random.Random(30)
    answers = {True: 0, False: 0}
    escaped = 0
    for case in range(3000):
        value = _chain(rng, rng.randint(95, 106)) if case % 4 == 0 else _value(rng, 0)
        for text in (json.dumps(value), json.dumps(value, ensure_ascii=False), json.dumps(value, indent=1)):
            data = text.encode("utf-8")
            answer = readlimits._shallow_bytes(data)
            assert answer == reference_shallow(data), text[:300]
            assert answer == (depth(json.loads(text)) <= readlimits.MAX_NESTING), text[:300]
            answers[answer] += 1
            escaped += b'\\"' in data
    assert answers[True] > 1000 and answers[False] > 500  # both sides of the limit, often
    assert escaped > 3000  # most texts hold escaped quotes


def test_every_byte_json_allows_after_a_backslash_is_kept_before_the_escapes_go() -> None:
    """Were one of them dropped, the backslash before it could pair with the next quote."""
    for follower in b'"\\/bfnrtu':
        assert bytes([follower]).translate(None, readlimits._NOT_ESCAPE) == bytes([follower])
    assert b"\\".translate(None, readlimits._NOT_ESCAPE) == b"\\"
    assert b"axz09:,\xc3\xa9 ".translate(None, readlimits._NOT_ESCAPE) == b""


def test_a_collectors_line_with_arguments_in_strings_is_shallow_and_a_deep_one_is_not() -> None:
    span = {"traceId": "ab" * 16, "spanId": "cd" * 8, "name": "execute_tool read",
            "attributes": [{"key": "gen_ai.tool.call.arguments", "value": {"stringValue": json.dumps(
                {"path": "a\\b\"[c]", "deep": [[["x"]]]})}}]}
    line = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span] * 300}]}]}).encode()
    assert readlimits._shallow_bytes(line) and reference_shallow(line)
    deep = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span] * 3 + [_chain(random.Random(1), 100)]}]}]})
    assert not readlimits._shallow_bytes(deep.encode()) and not reference_shallow(deep.encode())
