"""The cheaper ways a trace's run and record are made give what the general ways give.

- ``trace_run_input`` (a RunInput filled as a draft) against ``RunInput(...)`` by keyword;
- ``clean_prepared`` (a trace call's fields fetched and typed at once, its keys and its
  duration left out of the text) against the plain rule it stands for: every call and value
  prepared, and the JSON text of all of them holding no escape and no anchor;
- ``is_prepared`` with its test of a container of leaves in C, against ``prepare``.
"""

from __future__ import annotations

import math
import random
from typing import Any

import attrs
import pytest

from tests.export.test_prepared_traces_i11 import TOKEN, random_calls, random_trace, same, tree
from toolscore_export import canonical
from toolscore_export.record import RunInput, SourceRef, clean_prepared, trace_run_input
from toolscore_export.redaction import can_skip_redaction
from toolscore_export.sources import trace_calls

TRACE_KEYS = ("id", "tool", "provider_name", "args", "result", "structured", "is_error", "error", "duration", "denied",
              "deny_reason", "span_id", "trace_id")


def _fields(run: RunInput) -> list[tuple[str, Any]]:
    return [(field.name, getattr(run, field.name)) for field in attrs.fields(RunInput)]


@pytest.mark.parametrize("seed", range(3))
def test_a_drafted_run_input_is_the_one_its_init_makes(seed: int) -> None:
    rng = random.Random(seed)
    for n in range(300):
        source = SourceRef("trace", f"t{n}.jsonl", "0" * 64, format=rng.choice([None, "otel"]))
        given = {"run_id": f"t{n}#x", "source": source, "outcome": rng.choice(["pass", "fail", "unknown"]),
                 "task_id": rng.choice([None, "task"]), "final_answer": rng.choice([None, "", "done"]),
                 "calls": (), "evaluation": None,
                 "trace_id": rng.choice([None, "ab" * 16]), "span_source": rng.random() < 0.5,
                 "span_id": rng.choice([None, "cd" * 8]), "prepared": rng.random() < 0.5}
        drafted, made = trace_run_input(**given), RunInput(**given)
        assert type(drafted) is RunInput
        assert _fields(drafted) == _fields(made)
        assert drafted == made and hash(drafted) == hash(made) and repr(drafted) == repr(made)
        unhashed = trace_run_input(**{**given, "calls": [{"tool": "t"}], "evaluation": {"score": 1}})
        assert _fields(unhashed) == _fields(RunInput(**{**given, "calls": [{"tool": "t"}], "evaluation": {"score": 1}}))
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            drafted.run_id = "changed"  # type: ignore[misc]


def reference_clean(calls: Any, values: list[Any]) -> bool:
    """The rule ``clean_prepared`` stands for, plainly: all prepared, and no escape and no anchor in
    the JSON text of every call (keys and all) and value."""
    return (type(calls) is list and canonical.is_prepared(calls) and canonical.is_prepared(values)
            and can_skip_redaction(canonical.prepared_bytes([calls, values], sort_keys=False)))


def _values(rng: random.Random, odd: bool) -> list[Any]:
    return ["a=b.jsonl#1" if rng.random() < 0.1 else "t.jsonl#1", rng.choice([None, "task"]), "t.jsonl",
            tree(rng, odd) if rng.random() < 0.2 else None, rng.choice([None, {"score": 0.5}])]


def _trace_shaped(rng: random.Random, odd: bool) -> list[dict[str, Any]]:
    """A trace's calls (every key), their fields now and then replaced by random, odd or credential values."""
    calls = trace_calls(random_trace(rng, odd))
    for call in calls:
        if rng.random() < 0.3:
            call[rng.choice(TRACE_KEYS)] = rng.choice([tree(rng, odd), "x " + TOKEN, 1.0, 2.5, "Bearer " + "q" * 30,
                                                       {"k": "https://u:pw@h/"}, "\x01", Word(), 3, True])
    return calls


class Word(str):
    """A str subclass: prepare keeps it, is_prepared does not take it."""


@pytest.mark.parametrize("seed", range(4))
def test_clean_prepared_decides_as_the_plain_rule(seed: int) -> None:
    rng = random.Random(seed)
    answers = []
    for n in range(1500):
        odd = n % 3 == 0
        pick = rng.random()
        if pick < 0.6:
            calls: Any = _trace_shaped(rng, odd)
        elif pick < 0.8:
            calls = random_calls(rng, odd)
        else:  # a trace call among others, one with a key too many or one less
            calls = _trace_shaped(rng, odd) + random_calls(rng, odd)
            if calls and rng.random() < 0.5:
                victim = calls[0]
                if rng.random() < 0.5:
                    victim["cost_usd"] = 0.5
                elif victim:
                    del victim[next(iter(victim))]
        values = _values(rng, odd)
        answer = clean_prepared(calls, values)
        assert answer is reference_clean(calls, values), (calls, values)
        answers.append(answer)
    assert 150 < sum(answers) < 1350  # both answers given


def test_a_trace_calls_fields_are_each_tested() -> None:
    """Every field of a trace call, and the duration as a string, is read: a credential or a value
    a copy would change in any of them keeps the run unprepared."""
    for key in TRACE_KEYS:
        for bad in ("x " + TOKEN, 1.0, Word("w"), {"k": 2.0}, math.nan):
            call: dict[str, Any] = dict.fromkeys(TRACE_KEYS)
            call["tool"], call["duration"] = "read", 0.25
            assert clean_prepared([call], ["r", None, "t", None, None])
            call[key] = bad
            assert not clean_prepared([call], ["r", None, "t", None, None]), (key, bad)


@pytest.mark.parametrize("seed", range(3))
def test_is_prepared_of_containers_of_leaves_agrees_with_prepare(seed: int) -> None:
    rng = random.Random(seed)
    leaves = ["a", "", 0, -7, 2**70, True, False, None, 0.5, 1.0, math.inf, Word("w"), (1,), [], {}, canonical.StdlibFloat(2e-6)]
    for _ in range(3000):
        items = [rng.choice(leaves) for _ in range(rng.randint(0, 5))]
        for value in (items, {f"k{i}": item for i, item in enumerate(items)}):
            if canonical.is_prepared(value):
                assert same(canonical.prepare(value), value), value
            elif not any(isinstance(i, (Word, canonical.StdlibFloat)) for i in items):
                assert not same(canonical.prepare(value), value), value


def reference_run_unknowns(fields: tuple[Any, Any, Any, Any], final_known: bool, usage: dict[Any, Any],
                           cost_usd: Any) -> list[str]:
    """The run-level unknowns, by the rule as written in the record's docs."""
    names = [name for name, value in zip(("status", "prompt", "started_at", "finished_at"), fields, strict=True)
             if value is None]
    names += [] if final_known else ["final_answer"]
    names += [f"usage.{key}" for key, value in usage.items() if value is None]
    return names + (["cost.usd"] if cost_usd is None else [])


@pytest.mark.parametrize("seed", range(2))
def test_run_unknowns_names_what_the_rule_names(seed: int) -> None:
    from toolscore_export.record import run_unknowns

    rng = random.Random(seed)
    keys = ["input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens", "", 7]
    for _ in range(2000):
        fields = tuple(rng.choice([None, "x", 0, ""]) for _ in range(4))
        usage = {key: rng.choice([None, 0, 12]) for key in rng.sample(keys, rng.randint(0, len(keys)))}
        final_known, cost = rng.random() < 0.5, rng.choice([None, 0, 0.5])
        start = ["calls[*].cost_usd"]
        found = list(start)
        run_unknowns(found, fields, final_known, usage, cost)  # type: ignore[arg-type]
        assert found == start + reference_run_unknowns(fields, final_known, usage, cost)  # type: ignore[arg-type]


def test_a_line_with_its_newline_is_the_line_and_a_newline() -> None:
    """``prepared_bytes(newline=True)``, by orjson's option or after the stdlib encoder (a value orjson refuses)."""
    for value in ({"a": [1, "x", None]}, {"b": canonical.StdlibFloat(2e-6)}, ["\udc80"], {"z": 1, "a": {"c": 2, "b": 3}},
                  "", 2**70):
        for sort_keys in (False, True):
            plain = canonical.prepared_bytes(value, sort_keys=sort_keys)
            assert canonical.prepared_bytes(value, sort_keys=sort_keys, newline=True) == plain + b"\n"
