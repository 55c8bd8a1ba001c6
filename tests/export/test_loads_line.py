"""The orjson parse of a run row's line (:func:`loads_line`) gives exactly what the stdlib
parse with its float hooks gives (:func:`loads_prepared`), value and types, on lines orjson
wrote, lines other writers wrote, and lines it must hand to the slow parser."""

from __future__ import annotations

import json
import random

import pytest

from toolscore_export.canonical import StdlibFloat, loads_line, loads_prepared, prepared_bytes

pytest.importorskip("orjson")

FLOATS = [0.0, -0.0, 1.0, -3.0, 2.5, 0.1, 1 / 3, 1e15, 1e15 + 0.5, 9999999999999998.0, 1e16, 1e17, 1e22,
          1e-4, 9.9999e-5, 1e-5, 1.5e-5, 1e-6, 1e-7, 1e-10, 1e-11, 1e-12, 5e-324, 1.7976931348623157e308,
          0.0012, 0.93, 123456.0, -0.00001]
STRINGS = ["plain", "caf\u00e9 \U0001f600", "tab\tnew\nline \"quoted\" back\\slash", "\u2028\u0000\x1f",
           "version 1.0, then 2.0}", "re-run the e-mail", "0.00001 in text", "ghp_" + "a" * 36, "", "\ufeff"]


def _typed(value: object) -> object:
    """The value with every number's exact type spelled out (1 and 1.0 compare equal in Python)."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, value)


def _rows(count: int, awkward: bool) -> list[dict[str, object]]:
    """Rows of varied values; without ``awkward``, none that sends a line to the slow parse."""
    rng = random.Random(20261204)
    scalars: list[object] = [*FLOATS, *STRINGS, None, True, False, 0, -7, 2**63 - 1, 2**64 + 5, -(2**70)]
    if not awkward:
        scalars = [0.1, 1 / 3, 2.5, 0.0012, 1e17, 1e300, -1.5, *STRINGS[:4], STRINGS[7:], None, True, 0, -7]
    rows = []
    for i in range(count):
        args = {rng.choice(STRINGS) + str(j): rng.choice(scalars) for j in range(rng.randint(0, 4))}
        result = [{"type": "text", "text": rng.choice(STRINGS)}, rng.choice(scalars), [rng.choice(scalars)]]
        rows.append({"cell_id": f"t{i}::a::1", "cost_usd": rng.choice(scalars), "calls": [{"args": args,
                     "result": result, "duration": rng.choice([f for f in scalars if type(f) is float])}], "nested": {"deep": [[{"x": args}]]}})
    return rows


def _lines(row: dict[str, object]) -> list[bytes]:
    """The row as several writers would write it: orjson, compact stdlib, ASCII-escaped, spaced."""
    import orjson

    try:
        by_orjson = [orjson.dumps(row) + b"\n"]
    except TypeError:  # an integer beyond 64 bits
        by_orjson = []
    return [*by_orjson, (json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n").encode(),
            json.dumps(row).encode(), (json.dumps(row, indent=None) + "\r\n").encode()]


@pytest.mark.parametrize("awkward", [False, True])
def test_loads_line_agrees_with_the_stdlib_parse_on_varied_rows(awkward: bool, monkeypatch: pytest.MonkeyPatch):
    from toolscore_export import canonical

    slow_parses = []
    monkeypatch.setattr(canonical, "loads_prepared", lambda text: slow_parses.append(text) or loads_prepared(text))
    import orjson

    rows = _rows(400, awkward)
    lines = [raw for row in rows for raw in _lines(row)]
    as_orjson_writes = {orjson.dumps(row) + b"\n" for row in rows if not awkward}
    for raw in lines:
        text = raw.decode("utf-8")
        fast, slow = loads_line(raw, text), loads_prepared(text)
        assert _typed(fast) == _typed(slow), raw
        assert prepared_bytes(fast) == prepared_bytes(slow)
    if awkward:  # nearly every line needs the slow parse
        assert len(slow_parses) > 0.9 * len(lines)
    else:  # only lines orjson writes byte for byte took the fast one (the compact stdlib line of a row
        # can be the same bytes); the others (escaped, spaced, CRLF) the slow one
        slow = set(slow_parses)
        fast_lines = [raw for raw in lines if raw.decode("utf-8") not in slow]
        assert 0.2 * len(lines) < len(fast_lines)
        assert all(raw in as_orjson_writes for raw in fast_lines)


@pytest.mark.parametrize("raw", [
    b'{"a":1.0}', b'{"a":[-0.0]}', b'{"a":0.00001}', b'{"a":1e-7}', b'{"a":1e5}', b'{"a":1E5}', b'{"a":1,"a":2}',
    b'{"a":NaN}', b'{"a":Infinity}', b'{"a":123456789012345678901234567890}', b'{"a":"\\u00e9"}',
    b'{"a":"\\ud800"}', b'{"a":"v2e-3"}', b'{"a":"toolscore-cjson-1"}', b'{"a": 1}', b'{"a":0.5}\n', b'{"a":2.50}', b'[1.0]', b'{"a":{"b":[1.5e-9,1e300]}}',
])
def test_loads_line_agrees_on_awkward_lines(raw: bytes):
    text = raw.decode("utf-8")
    assert _typed(loads_line(raw, text)) == _typed(loads_prepared(text))


def test_small_floats_stay_marked_for_the_stdlib_encoder():
    value = loads_line(b'{"a":1.5e-9}', '{"a":1.5e-9}')
    assert isinstance(value["a"], StdlibFloat)


def test_an_integral_float_orjson_writes_always_ends_in_point_zero():
    """What the fast parse's guard relies on: below 1e16, orjson writes no other form for one."""
    import orjson

    rng = random.Random(7)
    values = [float(10**k) for k in range(16)] + [rng.randint(-(2**53), 2**53) * 1.0 for _ in range(20_000)]
    values += [rng.randint(0, 10**k) * 1.0 for k in range(1, 16) for _ in range(500)]
    for value in values:
        assert orjson.dumps(value).endswith(b".0"), value


def test_a_bad_line_raises_as_the_stdlib_parse_does():
    with pytest.raises(ValueError):
        loads_line(b'{"a":1', '{"a":1')


def test_every_float_that_normalising_changes_is_caught_in_orjson_writing():
    """The guard's other half: no float :func:`normal_number` changes slips past it, over every
    decimal exponent, integral values and random bit patterns."""
    import math
    import struct

    import orjson

    from toolscore_export.canonical import _may_need_normalising, normal_number

    rng = random.Random(20261204)
    floats = [*FLOATS, *(float(n) for n in range(-50, 50)), 1e15, -1e15, 9999999999999998.0]
    floats += [rng.uniform(1, 10) * 10.0**exponent for exponent in range(-320, 308) for _ in range(8)]
    floats += [float(rng.randint(-(10**k), 10**k)) for k in range(1, 17) for _ in range(200)]
    while len(floats) < 60_000:
        value = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        if math.isfinite(value):
            floats.append(value)
    floats += [-v for v in floats]
    for value in floats:
        normal = normal_number(value)
        changed = type(normal) is not float or normal != value
        if changed:
            assert _may_need_normalising(orjson.dumps({"a": [value, 1]})), value
