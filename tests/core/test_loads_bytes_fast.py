"""``readlimits.loads_bytes`` and ``readlimits.loads`` (orjson's reading where it provably agrees)
give what the general path, the standard reader of ``readlimits._standard_loads``, gives: the
same value, types and key order included, or the same error, on random JSON texts and on
every adapter fixture.

The random texts aim at where the two readers could part: repeated keys, floats of every
spelling (random doubles, long mantissas, huge and tiny exponents, -0.0, 1e400), integers
around 64 bits, 19-digit runs inside and outside strings, escapes (surrogate pairs, lone
surrogates, ``\\u0000``), raw control characters, a BOM, whitespace JSON does and does not
allow, nesting at and past ``MAX_NESTING``, bad UTF-8, and texts cut or damaged at random.
"""

from __future__ import annotations

import json
import random
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolscore_core import InputError
from toolscore_core.kernel import readlimits

FIXTURES = Path(__file__).resolve().parents[1] / "adapters" / "fixtures"
WHERE = {"file": Path("t.jsonl"), "location": "line 7", "what": "line is"}

NUMBERS = ["-0", "0", "-0.0", "0.0", "0e0", "-0E-0", "1e400", "-1e400", "1e-400", "-1e-400", "1E+308",
           "1.7976931348623157e308", "1.7976931348623159e308", "4.9e-324", "2.4703282292062328e-324",
           "2.2250738585072011e-308", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
           "-9223372036854775809", "18446744073709551615", "18446744073709551616", "999999999999999999",
           "-999999999999999999", "1000000000000000000", "NaN", "Infinity", "-Infinity", "1e0000000000000000001",
           "0.1234567890123456789", "123456789012345678.123456789012345678e-5", "1e-99999", "1e99999", "0e99999",
           "01", "1.", ".5", "+1", "-", "1e", "0x10"]
STRING_PIECES = ["a", "key", "é", "☃", "🔑", "\ufffe", "\u2028", "\x7f", " ", "1795000000030000000",
                 " 12345678901234567890", "-12345678901234567890", "e1234567890123456789", "\\n", "\\t", '\\"',
                 "\\\\", "\\/", "\\b", "\\f", "\\r", "\\u00e9", "\\u0000", "\\ud83d\\ude00", "\\uD83D\\uDE00",
                 "\\udbff\\udfff", "\\ud800", "\\udc00", "\\udc00\\ud800", "\\ud800\\ud800", "\\ud83dx",
                 "\\ud83d\\u0041", "\t", "\x00", "\x1f", "\\x"]
SPACES = ["", "", "", " ", "\t", "\n", "\r\n", "  ", "\x0b", "\x0c", "\xa0"]


def _number(rng: random.Random) -> str:
    kind = rng.randrange(5)
    if kind == 0:
        return rng.choice(["", "-"]) + str(rng.randrange(10 ** rng.randint(1, 25)))
    if kind == 1:
        double = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        return rng.choice([repr(double), f"{double:.17e}", f"{double:.20g}"])
    if kind == 2:
        return rng.choice(NUMBERS)
    exponent = rng.choice(["", f"e{rng.randint(-400, 400)}", f"E+{rng.randint(0, 30)}",
                           "e-" + "0" * rng.randint(0, 20) + str(rng.randint(0, 330))])
    return (rng.choice(["", "-"]) + str(rng.randrange(10 ** rng.randint(1, 20))) + "."
            + "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 22))) + exponent)


def _string(rng: random.Random) -> str:
    return '"' + "".join(rng.choice(STRING_PIECES) for _ in range(rng.randint(0, 4))) + '"'


def _space(rng: random.Random) -> str:
    return rng.choice(SPACES) if rng.random() < 0.3 else ""


def _value(rng: random.Random, depth: int) -> str:
    kind = rng.randrange(7 if depth < 4 else 4)
    if kind == 0:
        return _number(rng)
    if kind == 1:
        return _string(rng)
    if kind == 2:
        return rng.choice(["true", "false", "null"])
    if kind == 3:
        return _deep(rng) if rng.random() < 0.05 else _number(rng)
    if kind == 4:
        items = [_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
        return "[" + _space(rng) + ("," + _space(rng)).join(items) + "]"
    keys = [rng.choice(['"a"', '"b"', '"\\u0061"', '"é"', '"\\u00e9"']) if rng.random() < 0.5 else _string(rng)
            for _ in range(rng.randint(0, 5))]  # repeated keys, also spelled differently
    return "{" + ",".join(f"{_space(rng)}{key}{_space(rng)}:{_space(rng)}{_value(rng, depth + 1)}"
                          for key in keys) + "}"


def _deep(rng: random.Random) -> str:
    """Nesting at, just under and past the limit, and past what the standard reader can read."""
    levels = rng.choice([readlimits.MAX_NESTING - 1, readlimits.MAX_NESTING, readlimits.MAX_NESTING + 1, 150, 1100])
    opens = [rng.choice(["[", '{"k":']) for _ in range(levels)]
    inner = rng.choice(["1", '"x"', "[]", "{}", '"\\ud800"'])
    return "".join(opens) + inner + "".join("]" if o == "[" else "}" for o in reversed(opens))


def _text(rng: random.Random) -> bytes:
    """One line's bytes: a random value, sometimes with a BOM, a newline, or damage."""
    raw = (_space(rng) + _value(rng, 0) + _space(rng)).encode("utf-8", "surrogatepass")
    if rng.random() < 0.05:
        raw = b"\xef\xbb\xbf" + raw
    if rng.random() < 0.5:
        raw += b"\n"
    damage = rng.random()
    if damage < 0.05 and raw:
        raw = raw[: rng.randrange(len(raw))]
    elif damage < 0.1 and raw:
        at = rng.randrange(len(raw))
        raw = raw[:at] + bytes([rng.randrange(256)]) + raw[at + 1:]
    elif damage < 0.12:
        raw += rng.choice([b"\xff", b"\xed\xa0\x80", b"\xc0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82"])
    return raw


def _general(raw: bytes) -> Any:
    return readlimits._standard_loads(raw.decode("utf-8"), **WHERE)  # type: ignore[arg-type]


def _fast(raw: bytes) -> Any:
    return readlimits.loads_bytes(raw, **WHERE)  # type: ignore[arg-type]


def _outcome(read: Callable[[bytes], Any], raw: bytes) -> tuple[Any, ...]:
    """The value's repr (types, key order, -0.0 and nan told apart), or every part of the error."""
    try:
        value = read(raw)
    except InputError as exc:
        return ("InputError", exc.message, exc.file, exc.location, exc.expected, exc.hint, str(exc))
    except json.JSONDecodeError as exc:
        return ("JSONDecodeError", exc.msg, exc.pos, exc.lineno, exc.colno, str(exc))
    except UnicodeDecodeError as exc:
        return ("UnicodeDecodeError", exc.start, exc.end, str(exc))
    return ("value", repr(value))


def _texts(seed: int, count: int) -> list[bytes]:
    rng = random.Random(seed)
    return [_text(rng) for _ in range(count)]


def test_random_texts_read_the_same_by_both_paths() -> None:
    texts = _texts(11, 12_000)
    for raw in texts:
        assert _outcome(_fast, raw) == _outcome(_general, raw), raw
    kinds = {_outcome(_general, raw)[0] for raw in texts}
    assert kinds == {"value", "InputError", "JSONDecodeError", "UnicodeDecodeError"}  # every outcome was met


def test_the_random_texts_take_the_fast_path_often_and_not_always() -> None:
    """The comparison above means something only if orjson's value was taken for many texts."""
    pytest.importorskip("orjson")
    taken = [readlimits._orjson_agrees(raw) and _parses_with_orjson(raw) for raw in _texts(11, 2_000)]
    assert 0.3 < sum(taken) / len(taken) < 0.9


def _parses_with_orjson(raw: bytes) -> bool:
    import orjson

    try:
        orjson.loads(raw)
    except (orjson.JSONDecodeError, RecursionError):
        return False
    return True


def _fixture_texts() -> list[bytes]:
    texts = []
    for path in sorted(FIXTURES.rglob("*")):
        if path.suffix in (".json", ".jsonl"):
            data = path.read_bytes()
            texts.append(data)
            texts.extend(line for line in data.splitlines(keepends=True) if line.strip())
    return texts


def test_every_fixture_file_and_line_reads_the_same_by_both_paths() -> None:
    texts = _fixture_texts()
    assert len(texts) > 40
    for raw in texts:
        assert _outcome(_fast, raw) == _outcome(_general, raw), raw[:200]


def _otlp_line() -> bytes:
    """An OTLP/JSON line as a collector writes it: 19-digit times and a trace id of digits, in strings."""
    request = json.loads((FIXTURES / "otel" / "mcp_spans.json").read_bytes())
    for scope in request["resourceSpans"][0]["scopeSpans"]:
        for span in scope["spans"]:
            span["traceId"] = f"{7:032x}"
    return (json.dumps(request, separators=(",", ":")) + "\n").encode()


def test_an_otlp_line_is_read_by_orjson() -> None:
    """Its 19-digit runs are all inside strings, which must not send it to the slower reader."""
    raw = _otlp_line()
    assert b'"1795000000' in raw and b"0" * 31 in raw
    assert not readlimits.may_hold_long_int(raw)
    assert readlimits._orjson_agrees(raw)
    assert _outcome(_fast, raw) == _outcome(_general, raw)


def test_without_orjson_it_is_the_general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(readlimits, "_orjson", False)  # as fast_json() leaves it when orjson is not installed
    for raw in [*_texts(12, 1_500), _otlp_line()]:
        assert _outcome(_fast, raw) == _outcome(_general, raw), raw


def _number_tokens(raw: bytes) -> list[str]:
    """Every number token outside strings, as the standard reader meets them (the oracle)."""
    tokens: list[str] = []

    def keep(token: str) -> float:
        tokens.append(token)
        return 0.0

    json.loads(raw.decode("utf-8"), parse_int=keep, parse_float=keep)
    return tokens


def _has_long_run(token: str) -> bool:
    return any(len(run) >= 19 for run in token.replace("-", " ").replace("+", " ").replace(".", " ")
               .replace("e", " ").replace("E", " ").split())


def test_may_hold_long_int_flags_every_number_with_19_digits_in_a_row() -> None:
    """Checked against the numbers the standard reader itself parses: no text with such a number
    (an integer past 64 bits among them) is ever passed as safe, floats with such a run included."""
    flagged_safe_runs = 0
    for raw in _texts(13, 12_000) + _fixture_texts():
        try:
            tokens = _number_tokens(raw)
        except (ValueError, RecursionError):
            continue  # not valid JSON: orjson refuses it, so the test does not matter
        if any(_has_long_run(token) for token in tokens):
            assert readlimits.may_hold_long_int(raw), raw
        elif b"0" * 19 in raw.translate(bytes(0x30 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))):
            flagged_safe_runs += not readlimits.may_hold_long_int(raw)
    assert flagged_safe_runs > 40  # and long runs inside strings are mostly let through


@pytest.mark.parametrize("number", ["12345678901234567890", "-1234567890123456789", "1234567890123456789.5",
                                    "0.1234567890123456789", "1e1234567890123456789", "1E-1234567890123456789"])
@pytest.mark.parametrize("before", ["", "[", '{"a":', "[1,", '{"a": ', "[\t", "[\r\n"])
def test_may_hold_long_int_after_every_byte_a_number_can_follow(before: str, number: str) -> None:
    closing = "]" if before.startswith("[") else "}" if before else ""
    assert readlimits.may_hold_long_int((before + number + closing).encode())


def _valid_json(raw: bytes) -> str | None:
    """The text of ``raw`` when it is valid JSON (too deep for the standard reader included)."""
    try:
        text = raw.decode("utf-8")
        json.loads(text)
    except RecursionError:
        return text
    except ValueError:
        return None
    return text


def test_orjson_agrees_is_the_long_int_test_and_the_nesting_test_of_the_text() -> None:
    """The one pass over the classes decides as the two tests it stands for, on the decoded text."""
    texts = _texts(14, 3_000) + _fixture_texts()
    texts += [b"[" * n + b"1" + b"]" * n for n in (99, 100, 101, 150)]
    texts += [b'{"a":' * n + b"1" + b"}" * n for n in (99, 100, 101)]
    texts += [b"[" + b"[]," * 200 + b"[]]", b'["[[[[' + b"[" * 200 + b'"]']  # many brackets, shallow
    checked = 0
    for raw in texts:
        text = _valid_json(raw)
        if text is None:
            continue  # orjson refuses it, so the answer is never used
        checked += 1
        assert readlimits._shallow_bytes(raw) == readlimits._shallow_text(text), raw
        expected = not readlimits.may_hold_long_int(raw) and not readlimits._may_be_deep(text)
        assert readlimits._orjson_agrees(raw) == expected, raw
    assert checked > 1_500
    assert readlimits._orjson_agrees(b"[" + b"[]," * 200 + b"[]]")
    assert not readlimits._orjson_agrees(b"[" * 101 + b"]" * 101)


def _text_outcome(read: Callable[..., Any], text: Any) -> tuple[Any, ...]:
    """:func:`_outcome` of ``read(text)``; any other error by its type and words (bytes, which
    ``loads`` is not made for, end in a TypeError both ways)."""
    try:
        return _outcome(lambda _: read(text, **WHERE), b"")
    except Exception as exc:
        return ("other", type(exc).__name__, str(exc))


def test_loads_of_a_text_reads_as_the_standard_reader() -> None:
    """``loads(text)`` takes the same fast path from the text's UTF-8; a text with a lone
    surrogate character (a Python caller's, never a file's) and bytes go the standard way."""
    texts: list[Any] = []
    for raw in _texts(15, 6_000) + _fixture_texts():
        try:
            texts.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            continue
    taken = sum(readlimits._orjson_agrees(text.encode()) for text in texts)
    rng = random.Random(16)
    texts += ['{"a": "' + rng.choice(["\ud800", "\udfff", "x\udc00y"]) + '"}' for _ in range(20)]
    texts += [b'{"a": 12345678901234567890}', b"[1]", b'{"a": "x"}', '{"a": 1}'.encode("utf-16"),
              b'\xef\xbb\xbf{"a": 1}', bytearray(b"[1]")]
    for text in texts:
        assert _text_outcome(readlimits.loads, text) == _text_outcome(readlimits._standard_loads, text), text
    assert taken > 2_000  # the fast path was tried on many of them


class _CountingOrjson:
    """orjson, counting the texts it is given (to see which reader ran)."""

    def __init__(self) -> None:
        import orjson

        self.orjson, self.JSONDecodeError, self.calls = orjson, orjson.JSONDecodeError, 0

    def loads(self, data: bytes) -> Any:
        self.calls += 1
        return self.orjson.loads(data)


def test_a_text_past_the_bound_is_read_by_the_standard_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    """Up to the bound orjson reads it; past it, where orjson would cost more memory, the
    standard reader does, to the same value."""
    pytest.importorskip("orjson")
    counting = _CountingOrjson()
    monkeypatch.setattr(readlimits, "_orjson", counting)
    item = '{"id": "call", "args": {"q": "weather", "k": 1.5}}'
    text = "[" + ",".join([item] * (readlimits._FAST_TEXT_CHARS // len(item))) + "]"
    at_bound = text[: readlimits._FAST_TEXT_CHARS - 4].rpartition(",")[0] + "]"
    assert len(at_bound) <= readlimits._FAST_TEXT_CHARS < len(text)
    assert readlimits._orjson_agrees(text.encode())
    assert _text_outcome(readlimits.loads, at_bound) == _text_outcome(readlimits._standard_loads, at_bound)
    assert counting.calls == 1
    assert _text_outcome(readlimits.loads, text) == _text_outcome(readlimits._standard_loads, text)
    assert counting.calls == 1
