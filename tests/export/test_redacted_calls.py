"""One credential test for all of a record's calls gives the copies each call's own test gives.

``redacted_calls`` stands for ``[redacted_copy(dict(c), text) for c in calls]``; it is checked
against that on the calls of every trace fixture and on random calls holding credentials,
anchors that are not credentials, escapes, unicode, odd numbers and stray objects."""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import pytest

from toolscore_core import InputError, redact_text
from toolscore_core.kernel.traces import load_trace_bytes
from toolscore_export import canonical
from toolscore_export.record import redacted_calls, redacted_copy
from toolscore_export.redaction import has_anchor
from toolscore_export.sources import trace_calls

ROOT = Path(__file__).resolve().parents[2]
TRACES = sorted(p for p in (ROOT / "tests" / "adapters" / "fixtures").rglob("*") if p.suffix in (".json", ".jsonl"))
GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # a GitHub token shape, built so no scanner flags this file


def reference(calls: list[dict[str, Any]]) -> list[Any]:
    return [redacted_copy(dict(call), redact_text) for call in calls]


def same(a: Any, b: Any) -> bool:
    """Equal, of the same types all the way down, keys in the same order (NaN equal to NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def fixture_calls() -> list[list[dict[str, Any]]]:
    found = []
    for path in TRACES:
        try:
            trace, _ = load_trace_bytes(path, path.read_bytes(), allow_empty=True)
        except InputError:
            continue
        found.append(trace_calls(trace))
    return found


def test_the_calls_of_every_fixture_are_copied_as_each_call_alone_copies_them() -> None:
    found = fixture_calls()
    assert len(found) > 20 and sum(map(len, found)) > 50
    for calls in found:
        assert same(redacted_calls(calls, redact_text), reference(calls))


class Stray:
    def __str__(self) -> str:
        return "stray " + GHP


TEXTS = ["", "plain", "a=b", "https://example.com/x", "Bearer abcdefghijklmnopqrstuvwxyz0123", GHP, "sk-" + "x" * 40,
         "é\u2028ü", "\ud800", "line\nbreak", "tab\tand\x01control", "back\\slash", "quote\"d", "eyJhbGciOiJIUzI1NiJ9",
         "AKIA" + "ABCDEFGHIJKLMNOP", "-----BEGIN " + "PRIVATE KEY-----", "x" * 5000, "1e-05", "s", "k-"]


def random_value(rng: random.Random, depth: int = 0) -> Any:
    if depth > 3 or rng.random() < 0.45:
        return rng.choice([
            lambda: rng.choice(TEXTS), lambda: rng.choice(TEXTS) + rng.choice(TEXTS), lambda: rng.randint(-5, 2**70),
            lambda: rng.random(), lambda: rng.choice([1.0, -0.0, 1e-7, 1e-5, 1e16, 1e300, math.nan, math.inf]),
            lambda: None, lambda: rng.choice([True, False]), lambda: Stray(), lambda: canonical.StdlibFloat(1e-6),
        ])()
    items = [random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    kind = rng.randrange(3)
    if kind == 0:
        return {rng.choice([*TEXTS[:8], 1, None, 2.5]): item for item in items}
    return items if kind == 1 else tuple(items)


def random_call(rng: random.Random) -> dict[str, Any]:
    keys = ["id", "tool", "provider_name", "args", "result", "structured", "is_error", "error", "duration", "denied",
            "deny_reason", "span_id", "trace_id"]
    return {key: random_value(rng) for key in keys if rng.random() < 0.8}


@pytest.mark.parametrize("seed", range(2))
def test_random_calls_are_copied_as_each_call_alone_copies_them(seed: int) -> None:
    rng = random.Random(seed)
    plain = 0
    for _ in range(700):
        calls = [random_call(rng) for _ in range(rng.randint(0, 4))]
        fast, slow = redacted_calls(calls, redact_text), reference(calls)
        assert same(fast, slow), calls
        assert canonical.prepared_bytes(fast, sort_keys=False) == canonical.prepared_bytes(slow, sort_keys=False)
        text = canonical.prepared_bytes(slow, sort_keys=False).decode("utf-8", "surrogatepass")
        plain += not has_anchor(text) and "\\" not in text
    assert 50 < plain < 650  # both branches are taken


def test_a_credential_in_one_call_is_redacted_while_the_others_stay() -> None:
    calls = [{"tool": "read", "args": {"path": "a.txt"}}, {"tool": "send", "args": {"token": GHP}}]
    copies = redacted_calls(calls, redact_text)
    assert GHP not in repr(copies) and copies[0] == {"tool": "read", "args": {"path": "a.txt"}}
