"""The runs-file reader hands a line with an integer of 19 digits or more to the standard JSON
reader (orjson would read it as a float), whatever else the line holds: random rows with long
integers at every place a number can stand, and long digit runs inside strings, decode to
exactly the standard reader's values (types included)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from toolscore_core.kernel import jsonl

from .test_loads_line import _typed


def _row(rng: random.Random) -> str:
    long_int = str(rng.randint(10**18, 10**30)) if rng.random() < 0.7 else str(rng.randint(0, 10**17))
    sign = "-" if rng.random() < 0.3 else ""
    spaced = rng.choice(["", " ", "\t", "\n"])
    places = [
        f'{{"a":{spaced}{sign}{long_int}}}',
        f'{{"a":[1,{spaced}{sign}{long_int}]}}',
        f'{{"a":"t{long_int}","b":{sign}{long_int}}}',
        f'{{"ts":"{long_int}","n":{rng.randint(0, 99)}}}',
        f'[{sign}{long_int}]',
        f'{{"f":{sign}{long_int}.5,"g":1e{rng.randint(1, 30)}}}',
    ]
    return rng.choice(places)


def test_rows_with_long_integers_read_as_the_standard_reader_reads_them() -> None:
    rng = random.Random(11)
    long_ints = 0
    for number in range(1, 4001):
        text = _row(rng)
        expected = json.loads(text)
        got = jsonl.decode_line(text.encode(), file=Path("runs.jsonl"), number=number)
        assert _typed(got) == _typed(expected), text
        long_ints += any(isinstance(v, int) and abs(v) >= 10**18 for v in _numbers(expected))
    assert long_ints > 1000  # the cases exercised the long integers, not only short ones


def _numbers(value: object) -> list[object]:
    if isinstance(value, dict):
        return [n for item in value.values() for n in _numbers(item)]
    if isinstance(value, list):
        return [n for item in value for n in _numbers(item)]
    return [value]
