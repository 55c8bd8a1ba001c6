"""``jsonl_stream.iter_json_lines`` reads each line through ``readlimits.loads_bytes`` (orjson where
it agrees): every line's value, and every error (message, file, line and column), is what the
general reading gives (the same reader without orjson: ``raw.decode("utf-8")`` then
``readlimits.loads``), on random files of good, bad, blank, BOM-led and cut-off lines; and
the errors are worded as they always were."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolscore_adapters.protocols import jsonl_stream
from toolscore_core import InputError
from toolscore_core.kernel import readlimits

EXPECTED = "one OTLP export request per line"
GOOD = [b'{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001",'
        b'"startTimeUnixNano":"1795000000030000000","kind":3}]}]}]}',
        b'{"a": 1, "a": 2.5e-3, "b": [-0.0, 1e400, 12345678901234567890]}',
        b'{"id": 12345678901234567890, "neg": -98765432109876543210}',
        b'{"s": "\\ud800 lone \\ud83d\\ude00"}', b'{"n": NaN}', b"[" * 101 + b"]" * 101,
        b'{"k": "caf\xc3\xa9 \\u0000"}', b"7", b'"text"']
BAD = [b'{"a": ', b'{"a": "\xff"}', b'{"a": "\xed\xa0\x80"}', b'{"a": 1}}', b'{"a": "tab\there"}',
       b'\xef\xbb\xbf{"late": "bom"}', b"[" * 1200 + b"]" * 1200, b'{"big": ' + b"9" * 5000 + b"}"]


def _read(lines: Iterator[tuple[int, Any]], torn: list[str] | None) -> tuple[Any, ...]:
    out: list[tuple[int, str]] = []
    try:
        for number, value in lines:
            out.append((number, repr(value)))
    except InputError as exc:
        return ("error", out, exc.message, exc.file, exc.location, exc.expected, exc.hint, torn)
    return ("read", out, torn)


def _random_file(rng: random.Random) -> bytes:
    lines = [rng.choice(GOOD) if rng.random() < 0.85 else rng.choice(BAD) for _ in range(rng.randint(0, 6))]
    lines += [b"", b"  \t", b"\r"] * (rng.random() < 0.2)
    rng.shuffle(lines)
    data = b"\n".join(lines) + rng.choice([b"\n", b"", b"\r\n"])
    if rng.random() < 0.2:
        data = b"\xef\xbb\xbf" + data
    if rng.random() < 0.2 and data:
        data = data[: rng.randrange(len(data))]  # cut off mid-line, as a killed recorder leaves it
    return data


def _general(path: Path, torn: list[str] | None, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    """What the reader gives with orjson not installed: every line through the general path."""
    with monkeypatch.context() as patch:
        patch.setattr(readlimits, "_orjson", False)
        return _read(jsonl_stream.iter_json_lines(path, expected=EXPECTED, torn=torn), torn)


def test_random_files_read_as_the_general_reading_reads_them(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("orjson")
    rng = random.Random(5)
    path = tmp_path / "t.jsonl"
    outcomes = set()
    for _ in range(1_500):
        path.write_bytes(_random_file(rng))
        for keep_torn in (True, False):
            mine: list[str] | None = [] if keep_torn else None
            theirs: list[str] | None = [] if keep_torn else None
            got = _read(jsonl_stream.iter_json_lines(path, expected=EXPECTED, torn=mine), mine)
            want = _general(path, theirs, monkeypatch)
            assert got == want, path.read_bytes()
            outcomes.add((got[0], bool(got[-1])))
    assert outcomes == {("read", True), ("read", False), ("error", False)}  # a torn line skipped, and not


@pytest.mark.parametrize(("line", "message", "location"), [
    (b'{"a": "\xff"}', "is not valid UTF-8 (byte 0xff)", "line 2"),
    (b'{"a": "\xed\xa0\x80"}', "is not valid UTF-8 (byte 0xed)", "line 2"),
    (b'{"a": ', "line is not valid JSON (Expecting value)", "line 2, column 1"),  # the newline is read too
    (b'{"a": "tab\there"}', "line is not valid JSON (Invalid control character at)", "line 2, column 11"),
    (b'\xef\xbb\xbf{"b": 1}', "line is not valid JSON (Unexpected UTF-8 BOM (decode using utf-8-sig))",
     "line 2, column 1"),
    (b'{"n": ' + b"[" * 1200 + b"]" * 1200 + b"}", "line is nested too deeply to read", "line 2"),
    (b'{"n": ' + b"[" * 150 + b"]" * 150 + b"}",
     "line is nested more than 100 levels deep (arrays and objects inside each other)", "line 2"),
    (b'{"big": ' + b"9" * 5000 + b"}", "line is not readable: an integer of 5,000 digits is longer than Toolscore reads",
     "line 2, column 9"),
])
def test_a_bad_line_is_worded_as_before(tmp_path: Path, line: bytes, message: str, location: str) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"ok": 1}\n' + line + b"\n")
    with pytest.raises(InputError) as caught:
        list(jsonl_stream.iter_json_lines(path, expected=EXPECTED))
    assert (caught.value.message, caught.value.file, caught.value.location) == (message, str(path), location)


def test_lines_around_and_past_the_read_buffer_read_whole(tmp_path: Path) -> None:
    """Lines that end just before, at and after the buffer's end, and lines longer than it."""
    size = jsonl_stream._BUFFER
    lines = [b'{"s": "' + b"x" * (length - 9) + b'"}' for length in
             (size - 2, 10, size - 1, size, size + 1, 3 * size + 7, 3_800, 3_800, 3_800, 5)]
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    got = [(number, value["s"]) for number, value in jsonl_stream.iter_json_lines(path, expected=EXPECTED)]
    assert got == [(number, line[7:-2].decode()) for number, line in enumerate(lines, start=1)]
