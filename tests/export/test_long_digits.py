"""The kernel reader's "19 digits in a row" check (which sends a line to the standard JSON
reader, since orjson would read a longer integer as a float) answers exactly as the regular
expression it replaced, on random and edge-case bytes."""

from __future__ import annotations

import random
import re

from toolscore_core.kernel import jsonl

REFERENCE = re.compile(rb"\d{19}")


def test_same_answer_as_the_regular_expression() -> None:
    rng = random.Random(11)
    alphabet = b"0123456789-.e\xd9\xff \"a"
    cases = [b"", b"1" * 18, b"1" * 19, b"x" + b"9" * 19 + b"x", b"1" * 18 + b"\xd9" + b"1",
             "١٢٣٤٥٦٧٨٩٠١٢٣٤٥٦٧٨٩".encode(), b'{"big": 123456789012345678901234567890}']
    cases += [bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 80))) for _ in range(5000)]
    cases += [bytes(rng.choice(b"0123456789") for _ in range(rng.randint(15, 25))) for _ in range(500)]
    for raw in cases:
        assert jsonl._has_long_digits(raw) == (REFERENCE.search(raw) is not None), raw
    assert any(jsonl._has_long_digits(raw) for raw in cases) and not all(jsonl._has_long_digits(raw) for raw in cases)
