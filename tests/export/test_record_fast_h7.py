"""One credential test for a whole run gives the record that redacting every value on its own gives.

``build_record`` of an unprepared run redacts its calls and its run-level values (name, prompt,
answer, usage...) after one anchor test of all of them (``redacted_run``). The reference here
redacts each value by the general path (``prepare(value, redact_text)``, each call by
``redacted_copy``) and hands the result to ``build_record`` as a prepared run, which takes its
values as they are; the two records must be the same, byte for byte and type for type, on
every trace fixture and on random runs holding credentials, anchors, escapes, surrogates,
big integers, odd floats and stray objects in any of their fields.
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from types import MappingProxyType
from typing import Any

import attrs
import pytest

from toolscore_core import InputError, redact_text
from toolscore_core.kernel.traces import load_trace_bytes
from toolscore_export import canonical
from toolscore_export.record import RunInput, SourceRef, build_record, redacted_copy
from toolscore_export.redaction import can_skip_redaction
from toolscore_export.sources import trace_calls

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted(p for p in (ROOT / "tests" / "adapters" / "fixtures").rglob("*") if p.suffix in (".json", ".jsonl"))
TOKEN = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"  # a GitHub token shape, split so no scanner flags this file
CLEAN = ["", "run.json", "trace-2026-12-04.jsonl", "note", "caf\u00e9 \U0001f600", "\u2028", "tab\there", "say \"hi\"",
         "k-", "0.5"]
WORDS = [*CLEAN, "a=b", "https://u:pw@host/x", "Bearer " + "q" * 30, TOKEN, "\udc80", "back\\slash", "\\u0041",
         "eyJhbGciOi", "AKIA" + "QRSTUVWXYZ234567", "xoxb-", "/"]


class Odd:
    """A value of no JSON type: a record writes its str(), here a credential."""

    def __str__(self) -> str:
        return "odd " + TOKEN


def leaf(rng: random.Random) -> Any:
    pick = rng.randrange(9)
    if pick < 3:  # mostly clean words: a run's record then skips redaction, or one word sends it there
        return "".join(rng.choice(WORDS if rng.random() < 0.03 else CLEAN) for _ in range(rng.randint(1, 2)))
    if pick == 3:
        return rng.choice([0, -1, 2**64 + 1, -(2**70), 10**30])
    if pick == 4:
        return rng.choice([0.25, 2.0, -0.0, 1e-6, 3e-5, 1e16, 1e-300, math.nan, -math.inf, canonical.StdlibFloat(2e-6)])
    return rng.choice([None, True, False, Odd()])


def tree(rng: random.Random, depth: int = 0) -> Any:
    if depth > 2 or rng.random() < 0.5:
        return leaf(rng)
    items = [tree(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.5:
        return {rng.choice([*CLEAN, rng.choice(WORDS), 7, None]): item for item in items}
    return items if rng.random() < 0.5 else tuple(items)


def maybe(rng: random.Random, value: Any) -> Any:
    return value if rng.random() < 0.6 else None


def random_run(rng: random.Random) -> RunInput:
    keys = ("id", "tool", "args", "result", "structured", "is_error", "error", "duration", "denied", "cost_usd")
    calls: list[Any] = [{key: tree(rng) for key in keys if rng.random() < 0.7} for _ in range(rng.randint(0, 3))]
    calls = [MappingProxyType(call) if rng.random() < 0.2 else call for call in calls]  # a Mapping, not a dict
    word = lambda: maybe(rng, leaf(rng) if rng.random() < 0.2 else rng.choice(WORDS if rng.random() < 0.05 else CLEAN))  # noqa: E731
    mapping = lambda: maybe(rng, {rng.choice(CLEAN): tree(rng) for _ in range(rng.randint(0, 3))})  # noqa: E731
    return RunInput(run_id=rng.choice(CLEAN), source=SourceRef("trace", rng.choice(CLEAN), "0" * 64), task_id=word(),
                    arm_id=word(), study=word(), error=word(), prompt=word(), final_answer=word(), calls=calls,
                    usage=mapping(), price=mapping(), server=mapping(), evaluation=mapping(),
                    cost_usd=maybe(rng, leaf(rng)))


def reference_record(run: RunInput) -> dict[str, Any]:
    """The record of ``run`` with each value redacted on its own, by the general path."""
    def redact(value: Any) -> Any:
        return canonical.prepare(value, redact_text)

    def mapping(value: Any) -> Any:
        return redact(dict(value)) if value is not None else None

    return build_record(attrs.evolve(
        run, prepared=True, run_id=redact(run.run_id), task_id=redact(run.task_id), arm_id=redact(run.arm_id),
        study=redact(run.study), error=redact(run.error), prompt=redact(run.prompt),
        final_answer=redact(run.final_answer), source=attrs.evolve(run.source, name=redact(run.source.name)),
        calls=[redacted_copy(dict(call), redact_text) for call in run.calls], usage=redact(dict(run.usage or {})),
        price=mapping(run.price), server=mapping(run.server), evaluation=mapping(run.evaluation),
        cost_usd=canonical.prepare(run.cost_usd)))


def typed_walk(value: Any) -> list[Any]:
    """Every node's type and every key, in a fixed order: two records with equal bytes and equal
    walks hold the same types too (an int is not a float, a StdlibFloat not a float)."""
    seen, pending = [], [value]
    while pending:
        node = pending.pop()
        seen.append(type(node))
        if isinstance(node, dict):
            seen.extend(node)
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return seen


def assert_same_record(run: RunInput) -> None:
    fast, slow = build_record(run), reference_record(run)
    assert typed_walk(fast) == typed_walk(slow), run
    for sort_keys in (False, True):
        assert canonical.prepared_bytes(fast, sort_keys=sort_keys) == canonical.prepared_bytes(slow, sort_keys=sort_keys)


def test_every_fixture_trace_gives_the_record_of_each_value_redacted_alone() -> None:
    runs = 0
    for path in FIXTURES:
        try:
            trace, _ = load_trace_bytes(path, path.read_bytes(), allow_empty=True)
        except InputError:
            continue
        calls = trace_calls(trace)
        for prompt in (None, "Use the token " + TOKEN):  # a credential in a run-level value only, then none
            assert_same_record(RunInput(run_id=path.name, source=SourceRef("trace", path.name, "0" * 64),
                                        final_answer=trace.final_answer, calls=calls, prompt=prompt,
                                        span_source=True, trace_id="ab" * 16))
            runs += 1
    assert runs > 40


@pytest.mark.parametrize("seed", range(3))
def test_random_runs_give_the_record_of_each_value_redacted_alone(seed: int) -> None:
    runs = [random_run(random.Random(seed * 1000 + n)) for n in range(400)]
    for run in runs:
        assert_same_record(run)
    texts = [canonical.prepared_bytes(canonical.prepare(list(attrs.astuple(run))), sort_keys=False) for run in runs]
    skipped = sum(map(can_skip_redaction, texts))
    assert 20 < skipped < 380  # both the skip and the redaction are taken


def test_a_credential_in_one_run_level_value_is_redacted_and_the_calls_stay() -> None:
    run = RunInput(run_id="r", source=SourceRef("trace", "r.json", "0" * 64), calls=[{"tool": "read", "args": {}}],
                   usage={"note": TOKEN})
    record = build_record(run)
    assert TOKEN not in repr(record) and record["requested_calls"][0]["args"] == {}


@pytest.mark.parametrize("seed", range(3))
def test_the_dash_anchors_are_found_from_the_dashes_as_by_a_search_of_each(seed: int) -> None:
    """Differential: ``has_anchor`` against a plain search for every anchor on random texts with
    no dash to dozens (past the dashes looked at one by one, anchors before and after them)."""
    from toolscore_export.redaction import _DASH_ANCHORS, ANCHORS, CASELESS_ANCHORS, has_anchor

    assert all(anchor.endswith("-") for anchor in _DASH_ANCHORS)  # what finding them from the dashes assumes
    rng = random.Random(seed)
    pieces = ["-", "--", "sk", "k-", "sk-", "xox", "xoxb-", "xoxq-", "xoxs", "s", "2026-12-04", "a b", "\u00e9", "x"]
    found = 0
    for _ in range(6000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        expected = any(a in text for a in ANCHORS) or any(a in text.lower() for a in CASELESS_ANCHORS)
        assert has_anchor(text) is expected, text
        found += expected and text.count("-") > 8 and not any(a in text[:text.find("-") + 3] for a in ANCHORS)
    assert found > 100  # anchors past the dashes looked at one by one are found too
