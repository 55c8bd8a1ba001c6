"""The optional orjson path of the JSON Lines reader gives exactly what the standard reader
gives, line by line, types included, or hands the line to it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolscore_core import InputError
from toolscore_core.kernel import jsonl, readlimits

LINES = [
    b'{"a": 1, "b": [1.5, -0.0, 1e-7, 2.5e300], "c": null, "d": true}',
    b'{"a": 1, "a": 2}',
    b'{"big": 123456789012345678901234567890, "neg": -98765432109876543210}',
    b'{"edge": 18446744073709551615, "just": 9223372036854775807}',
    b'{"x": 1e400}',
    b'{"x": NaN, "y": -Infinity}',
    b'{"s": "\\ud800 lone"}',
    '{"u": "caf\u00e9 \u2603 \U0001f511", "e": "\\u00e9\\n\\t"}'.encode(),
    b'\xef\xbb\xbf{"bom": 1}',
    b'[' * 2000 + b']' * 2000,
]


def _same(a: object, b: object) -> bool:
    """Equal, and of the same types all the way down (1 is not 1.0 here)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)  # type: ignore[attr-defined]
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))  # type: ignore[arg-type]
    if isinstance(a, float) and a != a:
        return b != b
    return a == b


def _standard(raw: bytes) -> object:
    text = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw
    return json.loads(text.decode("utf-8"))


@pytest.mark.parametrize("raw", LINES, ids=range(len(LINES)))
def test_each_line_reads_as_the_standard_reader_reads_it(raw: bytes) -> None:
    try:
        expected = _standard(raw)
    except RecursionError:
        with pytest.raises(InputError, match="nested too deeply"):
            jsonl.decode_line(raw, file=Path("x.jsonl"), number=1)
        return
    assert _same(jsonl.decode_line(raw, file=Path("x.jsonl"), number=1), expected)


def test_errors_are_worded_by_the_standard_reader() -> None:
    with pytest.raises(InputError, match=r"line 3 is not valid JSON"):
        jsonl.decode_line(b'{"a": ', file=Path("x.jsonl"), number=3)
    with pytest.raises(InputError, match=r"line 2 is not valid UTF-8"):
        jsonl.decode_line(b'{"a": "\xff"}', file=Path("x.jsonl"), number=2)


def test_the_fast_path_is_the_one_taken_when_orjson_is_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("orjson")
    fast = readlimits.fast_json()
    assert fast
    calls: list[bytes] = []
    real = fast.loads

    def spy(raw: bytes) -> object:
        calls.append(raw)
        return real(raw)

    monkeypatch.setattr(fast, "loads", spy)
    jsonl.decode_line(b'{"a": 1}', file=Path("x.jsonl"), number=1)
    jsonl.decode_line(b'{"id": 12345678901234567890123}', file=Path("x.jsonl"), number=2)
    assert calls == [b'{"a": 1}']  # the long integer went to the standard reader
