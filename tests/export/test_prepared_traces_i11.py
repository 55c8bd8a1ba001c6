"""A trace's run handed to ``build_record`` as prepared gives the record the general path gives.

``trace_run`` marks a run prepared when its calls and values are in prepared shape already
(``is_prepared``) and their JSON text holds no escape and no anchor (``clean_prepared``); the
record then skips the copies and the redaction. ``build_record`` takes each call's hashes from
orjson's bytes in line (``fast_calls``) rather than by ``general_calls``. Each shortcut is held
here against the path it skips, on every trace fixture and on random values holding
credentials, anchors, escapes, unicode, lone surrogates, NaN and infinities, integral and
small floats, big integers, tuples, subclasses, stray objects and unknown fields.
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import attrs
import pytest

from toolscore_core import InputError, ToolCall, Trace
from toolscore_core.kernel.traces import load_trace_bytes
from toolscore_export import canonical
from toolscore_export.record import (
    RunInput,
    SourceRef,
    build_record,
    clean_prepared,
    fast_calls,
    general_calls,
    record_calls,
)
from toolscore_export.sources import OTLP_FORMAT, trace_calls, trace_run

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted(p for p in (ROOT / "tests" / "adapters" / "fixtures").rglob("*") if p.suffix in (".json", ".jsonl"))
TOKEN = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"  # a GitHub token shape, split so no scanner flags this file
CLEAN = ["", "read_text_file", "notes/todo.md", "- buy milk", "caf\u00e9 \U0001f600", "\u2028", "tab\there",
         "say \"hi\"", "k-", "0.5", "2026-12-04"]
ODD_WORDS = ["a=b", "https://u:pw@host/x", "Bearer " + "q" * 30, TOKEN, "\udc80", "back\\slash", "\\u0041",
             "\x01ctl", "eyJhbGciOi", "AKIA" + "QRSTUVWXYZ234567", "xoxb-", "sk-" + "a" * 24, "/"]


class Word(str):
    """A str subclass: prepare keeps it, the fast check does not take it."""


class Odd:
    """A value of no JSON type: a record writes its str(), here a credential."""

    def __str__(self) -> str:
        return "odd " + TOKEN


def leaf(rng: random.Random, odd: bool) -> Any:
    pick = rng.randrange(10)
    if pick < 4:
        words = ODD_WORDS if rng.random() < 0.03 else CLEAN
        return "".join(rng.choice(words) for _ in range(rng.randint(1, 2)))
    if pick == 4:
        return rng.choice([0, -1, 7, 2**64 + 1, -(2**70), 10**30])
    if pick == 5:
        return rng.choice([0.25, 0.01, 1.5e300, 2.0, -0.0, 1e-6, 3e-5, 1e16, 1e-300, math.nan, -math.inf, math.inf])
    if odd and pick == 6:
        return rng.choice([Word("w"), canonical.StdlibFloat(2e-6), Odd(), True.__class__(1)])
    return rng.choice([None, True, False])


def tree(rng: random.Random, odd: bool, depth: int = 0) -> Any:
    if depth > 2 or rng.random() < 0.5:
        return leaf(rng, odd)
    items = [tree(rng, odd, depth + 1) for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.5:
        keys = [*CLEAN, "path", Word("k"), 7, None] if odd else [*CLEAN, "path", "x"]
        return {rng.choice(keys): item for item in items}
    return items if rng.random() < 0.8 or not odd else tuple(items)


def same(a: Any, b: Any) -> bool:
    """Equal, and of the same type at every place (NaN equal to NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return (list(a) == list(b) and all(type(x) is type(y) for x, y in zip(a, b, strict=True))
                and all(same(a[k], b[k]) for k in a))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


@pytest.mark.parametrize("seed", range(4))
def test_is_prepared_says_true_exactly_when_prepare_gives_the_same_value(seed: int) -> None:
    rng = random.Random(seed)
    taken = 0
    for n in range(3000):
        odd = n % 3 == 0
        value = tree(rng, odd)
        kept = same(canonical.prepare(value), value)
        if odd:  # subclasses and StdlibFloat may be kept by prepare; the check may refuse them
            assert not canonical.is_prepared(value) or kept, value
        else:
            assert canonical.is_prepared(value) is kept, value
        taken += canonical.is_prepared(value)
    assert 500 < taken < 2800  # both answers are given


def test_is_prepared_refuses_what_a_copy_changes() -> None:
    for value in ([1, (2,)], {"a": 1.0}, {1: "x"}, [math.nan], {"a": [math.inf]}, Word("w"), {"a": {"b": Odd()}},
                  canonical.StdlibFloat(2e-6), {"k": -0.0}):
        assert not canonical.is_prepared(value), value
    deep: Any = []
    for _ in range(5000):
        deep = [deep]
    assert not canonical.is_prepared(deep)  # past the recursion limit: the copy meets it as before


def random_calls(rng: random.Random, odd: bool) -> list[dict[str, Any]]:
    keys = ("id", "tool", "provider_name", "args", "result", "structured", "is_error", "error", "duration", "denied",
            "deny_reason", "span_id", "trace_id", "cost_usd")
    calls = []
    for _ in range(rng.randint(0, 4)):
        call = {key: tree(rng, odd) for key in keys if rng.random() < 0.7}
        for key in ("id", "is_error", "denied", "trace_id"):  # the fields a record reads for ids and status
            if rng.random() < 0.5:
                call[key] = rng.choice({"id": ["c1", "c2", "call-2", None, ""], "is_error": [True, False, None],
                                        "denied": [True, False, 1, ""], "trace_id": ["ab" * 16, None, 3]}[key])
        calls.append(call)
    return calls


@pytest.mark.parametrize("seed", range(4))
def test_fast_calls_are_the_general_calls(seed: int) -> None:
    rng = random.Random(seed)
    refused = 0
    for n in range(1500):
        calls = canonical.prepare(random_calls(rng, odd=n % 2 == 0))
        slow = general_calls(calls)
        assert same(record_calls(calls), slow), calls
        try:
            fast = fast_calls(calls)
        except TypeError:  # orjson refused a value (a StdlibFloat, a lone surrogate...): record_calls took the other
            refused += 1
            continue
        assert same(fast, slow), calls
    assert 20 < refused < 1000


def random_trace(rng: random.Random, odd: bool) -> Trace:
    calls = []
    for _ in range(rng.randint(0, 4)):
        pick = rng.random
        calls.append(ToolCall(
            tool=rng.choice(CLEAN if pick() < 0.9 else ODD_WORDS), args=tree(rng, odd) if pick() < 0.8 else None,
            id=rng.choice(["c1", "c2", None, "call-1", TOKEN if pick() < 0.05 else "c3"]),
            result=tree(rng, odd) if pick() < 0.6 else None, structured_result=tree(rng, odd) if pick() < 0.3 else None,
            is_error=rng.choice([True, False, None]), error=leaf(rng, odd) if pick() < 0.3 else None,
            duration=rng.choice([None, 0.01, 1.0, 3e-5, 2.5, math.nan]), denied=pick() < 0.2,
            denied_reason=rng.choice([None, "no", "a=b"]),
            metadata={"span_id": rng.choice(["ab" * 8, None, 5]), "trace_id": rng.choice(["cd" * 16, None]),
                      **({"provider_name": leaf(rng, odd)} if pick() < 0.3 else {})}))
    final = rng.choice([None, "done", "caf\u00e9", "Bearer " + "q" * 30, Word("w") if odd else "ok"])
    return Trace(calls=calls, final_answer=final, source_format=rng.choice([OTLP_FORMAT, "mcp"]))


def run_of(trace: Trace, name: str) -> RunInput:
    source = SourceRef("trace", name, "0" * 64, format=trace.source_format)
    return trace_run(trace, trace_calls(trace), source, gold=None, pm=None, run_id=name + "#t", trace_id="ab" * 16,
                     span_id="cd" * 8)


def assert_same_record(run: RunInput) -> None:
    """The record of ``run`` as given (prepared or not) against the general path's (copies, then redaction)."""
    fast, slow = build_record(run), build_record(attrs.evolve(run, prepared=False))
    assert same(fast, slow), run
    for sort_keys in (False, True):
        assert canonical.prepared_bytes(fast, sort_keys=sort_keys) == canonical.prepared_bytes(slow, sort_keys=sort_keys)


def test_every_fixture_trace_prepared_gives_the_general_record() -> None:
    runs = prepared = 0
    for path in FIXTURES:
        try:
            trace, _ = load_trace_bytes(path, path.read_bytes(), allow_empty=True)
        except InputError:
            continue
        run = run_of(trace, path.name)
        assert_same_record(run)
        runs += 1
        prepared += run.prepared
    assert runs > 40 and 20 < prepared < runs  # the shortcut is taken on most, not on all


@pytest.mark.parametrize("seed", range(4))
def test_random_traces_prepared_give_the_general_record(seed: int) -> None:
    rng = random.Random(seed)
    prepared = 0
    for n in range(500):
        run = run_of(random_trace(rng, odd=n % 2 == 0), f"t{n}.jsonl")
        assert_same_record(run)
        prepared += run.prepared
    assert 50 < prepared < 450


def test_a_credential_anywhere_keeps_the_run_unprepared() -> None:
    clean = [{"id": "c1", "tool": "read", "args": {"path": "a.txt"}, "result": "ok"}]
    assert clean_prepared(clean, ["t.jsonl#1", None, "t.jsonl", "done", None])
    for where in range(4):
        calls = [dict(clean[0])]
        values: list[Any] = ["t.jsonl#1", None, "t.jsonl", "done", None]
        if where == 0:
            calls[0]["args"] = {"token": TOKEN}
        elif where == 1:
            calls[0]["result"] = ["x", {"k": "https://u:pw@host/x"}]
        elif where == 2:
            values[3] = "Bearer " + "q" * 30
        else:
            values[4] = {"findings": [{"message": "\x01" + TOKEN}]}
        assert not clean_prepared(calls, values)
    assert not clean_prepared(tuple(clean), ["t", None, "t", None, None])  # not a list: copied as before


@pytest.mark.parametrize("seed", range(3))
def test_the_keyed_anchors_are_found_from_their_keys_as_by_a_search_of_each(seed: int) -> None:
    """Differential: ``has_anchor`` (single-character keys found place by place, the longer keys one
    regex per first character) against a plain search for every anchor, on texts crowded with the
    keys (past the places looked at one by one, anchors before and after them)."""
    from toolscore_export.redaction import ANCHORS, CASELESS_ANCHORS, has_anchor

    rng = random.Random(seed)
    pieces = ["K", "I", "z", "J", "B", "/", "=", "_", "gh", "_pat", "pat_", "_live", "_test_", "AKI", "AKIA", "ASIA",
              "SIA", "AIz", "AIza", "ey", "eyJ", "-----BEGIN", "-----BEGIN ", ":/", "://", "github_pat_", "sk_live_",
              "rk_test_", "ghp_", "gh_", "x", " ", "\u00e9"]
    found = late = 0
    for _ in range(8000):
        crowd = rng.choice("KIzJB/")  # one key many times over, so its anchor may come past the places looked at
        text = "".join(rng.choice(pieces) if rng.random() < 0.3 else crowd for _ in range(rng.randint(0, 40)))
        expected = any(a in text for a in ANCHORS) or any(a in text.lower() for a in CASELESS_ANCHORS)
        assert has_anchor(text) is expected, text
        found += expected
        late += expected and not has_anchor(text[:_nth(text, crowd, 9)])
    assert 1000 < found < 7900 and late > 100


def _nth(text: str, key: str, n: int) -> int:
    """The place of the ``n``-th ``key`` in ``text`` (its length when there are fewer)."""
    at = -1
    for _ in range(n):
        at = text.find(key, at + 1)
        if at < 0:
            return len(text)
    return at


def test_short_and_long_values_are_hashed_alike() -> None:
    """The calls' hashes (CPython's own SHA-256 under 64 bytes, OpenSSL's above) are the canonical ones."""
    import hashlib

    for size in (0, 1, 40, 63, 64, 65, 200, 5000):
        args = {"p": "x" * size}
        requested = fast_calls([{"tool": "t", "args": args, "result": args, "is_error": False}])[0][0]
        assert requested["args_sha256"] == hashlib.sha256(canonical.canonical_bytes(args)).hexdigest()


def test_a_trace_calls_own_keys_hold_no_anchor_and_no_escape() -> None:
    """``clean_prepared`` leaves a trace call's keys out of the text it tests: they must be clean."""
    from toolscore_export.record import _TRACE_CALL_KEYS
    from toolscore_export.redaction import can_skip_redaction

    assert set(trace_calls(Trace(calls=[ToolCall(tool="t")]))[0]) == _TRACE_CALL_KEYS
    assert can_skip_redaction(canonical.prepared_bytes(sorted(_TRACE_CALL_KEYS)))
    assert can_skip_redaction(canonical.prepared_bytes(" ".join(sorted(_TRACE_CALL_KEYS))))


def test_an_anchor_in_any_field_of_a_trace_call_keeps_the_run_unprepared() -> None:
    keys = ("id", "tool", "provider_name", "args", "result", "structured", "is_error", "error", "duration", "denied",
            "deny_reason", "span_id", "trace_id")
    for key in keys:
        call: dict[str, Any] = dict.fromkeys(keys)
        call["tool"] = "read"
        assert clean_prepared([call], ["r", None, "t", None, None])
        call[key] = "x " + TOKEN if key not in ("args", "structured") else {"k": TOKEN}
        assert not clean_prepared([call], ["r", None, "t", None, None]), key
