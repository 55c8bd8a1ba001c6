"""The fast encoder (orjson) writes exactly the bytes of the documented canonical form, or
hands the value to the stdlib encoder: compared over every float exponent, the awkward
numbers, strings and keys, and checked end to end in a process where orjson is blocked."""

from __future__ import annotations

import json
import math
import os
import random
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from toolscore_export.canonical import (
    StdlibFloat,
    canonical_bytes,
    line_bytes,
    loads_prepared,
    prepare,
    prepared_bytes,
)

pytest.importorskip("orjson")

AWKWARD = [0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1e-4, 0.0001234, 9.9999e-5,
           1e-5, 1e-10, 1.5e-10, 9.99e-11, 1e-11, 0.1, 0.2, 0.30000000000000004, 1 / 3, 2 / 3, 123.456, 1e15 + 0.5,
           9007199254740993.0, 1e16, 1.5e300, 2.5, -0.5, 1e22, 1e21, 4.35, 0.07, 5e-5, 1.2e-07, 3.14159e-9]


def _floats(count: int) -> list[float]:
    rng = random.Random(20261203)
    out = list(AWKWARD)
    for exponent in range(-325, 309):  # every decimal exponent, a few mantissas each
        for _ in range(6):
            value = rng.uniform(1, 10) * 10.0 ** exponent if exponent > -308 else rng.uniform(0, 1) * 1e-307
            if math.isfinite(value):
                out.append(value)
    while len(out) < count:  # and random bit patterns
        value = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        if math.isfinite(value):
            out.append(value)
    return out + [-v for v in out]


def test_the_fast_encoder_writes_every_float_as_the_rule_does():
    from toolscore_export import canonical

    assert canonical._FAST  # the installed orjson passed the import-time probe, so this tests it
    values = [prepare(v) for v in _floats(60_000)]
    for value in values:
        assert prepared_bytes([value]) == canonical_bytes([value]), repr(value)
    assert prepared_bytes(values) == canonical_bytes(values)


def test_floats_orjson_would_write_differently_are_marked_and_written_by_the_stdlib():
    assert isinstance(prepare(1e-05), StdlibFloat) and isinstance(loads_prepared("1.2e-07"), StdlibFloat)
    assert not isinstance(prepare(0.5), StdlibFloat)
    assert prepared_bytes(prepare({"a": [1e-05, 1.2e-07, 0.00001234]})) == b'{"a":[1e-05,1.2e-07,1.234e-05]}'


@pytest.mark.parametrize("value", [
    {"b": 1, "a": [True, False, None], "é": "ü", "Z": {"z": 1, "a": 2}, "": 0},
    {"s": "".join(chr(c) for c in range(0, 0x80)) + "\u2028\u2029\u00e9\U0001f600\ufeff"},
    {"lone": "\ud800x", "big": 2**70, "neg": -(2**65), "deep": 1},
    [[[[[[[[[[]]]]]]]]]],
    {"k\u00e9y": 1, "ke\u00ffy": 2, "key\U0001f600": 3, "keY": 4},
])
def test_the_fast_encoder_matches_on_strings_keys_and_big_integers(value):
    prepared = prepare(value)
    assert prepared_bytes(prepared) == canonical_bytes(prepared)
    assert prepared_bytes(prepared, sort_keys=False) == line_bytes(prepared)


def test_an_export_is_byte_identical_without_orjson(tmp_path, rows_file, make_row):
    from toolscore_core import RunCall

    calls = (RunCall(tool="t", id="1", args={"x": 1e-05, "y": 2.0, "z": "\u00e9"}, result=[{"n": 1.5e-08}],
                     is_error=False, duration=1.25e-06),)
    rows = rows_file(tmp_path / "runs.jsonl", [make_row(), make_row(repetition=2, calls=calls, cost_usd=3e-06)])
    script = ("import sys; sys.modules['orjson'] = None\n"
              "from toolscore_export import export_runs\n"
              "export_runs([sys.argv[1]], sys.argv[2])\n")
    slow = tmp_path / "slow.jsonl"
    done = subprocess.run([sys.executable, "-c", script, str(rows), str(slow)], capture_output=True, text=True,
                          timeout=60, env={**os.environ})
    assert done.returncode == 0, done.stderr
    from toolscore_export import export_runs

    fast = tmp_path / "fast.jsonl"
    export_runs([rows], fast)
    assert fast.read_bytes() == slow.read_bytes()
    assert json.loads(fast.read_text().splitlines()[1])["cost"]["usd"] == 3e-06
    assert Path(str(fast) + ".manifest.json").is_file()
