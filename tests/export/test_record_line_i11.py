"""``record_line`` writes a trace's record line straight from its calls; ``build_record`` written by
``prepared_bytes`` (plus the newline) is the reference it must equal byte for byte.

The fast path takes prepared runs whose calls are all trace calls (a dict of exactly the
thirteen keys ``trace_calls`` gives) and decides the ids, statuses, unknowns and hashes in
line. Held here against the reference on every trace fixture (with and without a gold file,
with and without trace and span ids) and on random runs: credential-like strings, unicode,
lone surrogates, floats of every notation, big integers, unknown fields, many calls, no
calls, repeated and synthesized-looking ids, calls that are not trace calls, run-level
values of every kind.
"""

from __future__ import annotations

import contextlib
import json
import math
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from toolscore_core import InputError, Trace
from toolscore_core.kernel.traces import load_trace_bytes
from toolscore_export import canonical
from toolscore_export import record as records
from toolscore_export.record import RunInput, SourceRef
from toolscore_export.sources import trace_calls, trace_run

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted(p for p in (ROOT / "tests" / "adapters" / "fixtures").rglob("*") if p.suffix in (".json", ".jsonl"))
GOLD = ROOT / "examples" / "guardrails" / "gold.json"
SECRET = "gh" + "p_" + "Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8"  # a token shape, split so no scanner flags this file
WORDS = ["read_text_file", "notes/todo.md", "caf\u00e9", "\U0001f600", "\u2028", "a\tb", 'q"q', "back\\slash",
         "\x07", "call-1", "call-2", "call-2-2", "", SECRET, "Bearer " + "z" * 30, "https://u:pw@h/x"]
NUMBERS = [0, 1, -7, 2**63 - 1, 0.5, 0.01, 3e-5, 1e-7, 1.5e300, 123.456, -2.5, 1e16, 1e-300]
RARE = ["\udc80", 2**64 + 3, 10**30]  # what orjson refuses: the reference writes it by the stdlib encoder
TRACE_KEYS = ("id", "tool", "provider_name", "args", "result", "structured", "is_error", "error", "duration", "denied",
              "deny_reason", "span_id", "trace_id")


def reference(run: RunInput) -> bytes:
    """What the pool's worker writes for ``run`` before ``record_line``."""
    return canonical.prepared_bytes(records.build_record(run), sort_keys=False) + b"\n"


def assert_same_line(run: RunInput) -> bytes:
    """``record_line`` equals the reference, and its hash is the record's own canonical hash."""
    line = records.record_line(run)
    assert line == reference(run), run
    record = json.loads(line)
    assert record["hashes"][records.RECORD_HASH_KEY] == records.build_record(run)["hashes"][records.RECORD_HASH_KEY]
    if b"\\ud" not in line:  # a lone surrogate's escape reads back as another string: its hash is another
        assert records.record_hash(record) == record["hashes"][records.RECORD_HASH_KEY]
    return line


def fixture_traces() -> Iterator[Trace]:
    """The trace of every fixture a trace reader takes."""
    for path in FIXTURES:
        with contextlib.suppress(InputError):
            yield load_trace_bytes(path, path.read_bytes(), allow_empty=True)[0]


def fixture_runs() -> list[RunInput]:
    """Every fixture's trace as a run, with and without a gold file, ids given or not."""
    runs = []
    for trace in fixture_traces():
        source = SourceRef("trace", f"{len(runs)}.json", "0" * 64, format=trace.source_format)
        for gold in (None, str(GOLD)):
            for trace_id, span_id in ((None, None), ("ab" * 16, "cd" * 8)):
                runs.append(trace_run(trace, trace_calls(trace), source, gold=gold, pm=None, run_id=f"{len(runs)}#t",
                                      trace_id=trace_id, span_id=span_id))
    return runs


def test_every_fixture_gives_the_reference_line() -> None:
    runs = fixture_runs()
    fast = 0
    for run in runs:
        assert_same_line(run)
        forced = attrs.evolve(run, prepared=True)  # the reference trusts the flag too: both must agree on it
        assert_same_line(forced)
        fast += run.prepared
    assert len(runs) > 150 and 40 < fast < len(runs)  # the fast path is taken on many, not on all


def value(rng: random.Random, depth: int = 0) -> Any:
    """A prepared JSON value (what a parser gives), with the strings and numbers above."""
    pick = rng.random()
    if depth < 3 and pick < 0.25:
        return {rng.choice([*WORDS[:9], "path", "k"]): value(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    if depth < 3 and pick < 0.4:
        return [value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if pick < 0.01:
        return rng.choice(RARE)
    if pick < 0.7:
        return rng.choice(WORDS)
    if pick < 0.85:
        return canonical.prepare(rng.choice(NUMBERS))
    return rng.choice([None, True, False])


def trace_call(rng: random.Random) -> dict[str, Any]:
    """A call with a trace call's keys; the fields a record reads for ids and status often set."""
    call = {key: value(rng) if rng.random() < 0.5 else None for key in TRACE_KEYS}
    call["id"] = rng.choice(["c1", "c2", "call-2", "call-3", "", None, 7, SECRET])
    call["is_error"] = rng.choice([True, False, None, 1])
    call["denied"] = rng.choice([True, False, 1, 0, "", "yes"])
    call["trace_id"] = rng.choice(["ef" * 16, None, 3])
    call["duration"] = rng.choice([None, 0.01, 2, canonical.prepare(3e-5), 1.5])
    if rng.random() < 0.5:  # a parser's order of keys is the span's, not this one
        call = dict(rng.sample(list(call.items()), len(call)))
    return call


def other_call(rng: random.Random) -> Any:
    """A call the fast path does not take: a key more or less, or not a dict."""
    call = trace_call(rng)
    pick = rng.randrange(3)
    if pick == 0:
        call["cost_usd"] = rng.choice([None, 0.25])
    elif pick == 1:
        del call[rng.choice(TRACE_KEYS)]
        call["other"] = 1  # thirteen keys again, one of them not a trace call's
    else:
        return {k: v for k, v in call.items() if k != "span_id"}
    return call


def random_run(rng: random.Random, n: int) -> RunInput:
    calls = [trace_call(rng) for _ in range(rng.choice([0, 1, 3, 5, 40]))]
    if calls and rng.random() < 0.1:
        calls.insert(rng.randrange(len(calls)), other_call(rng))
    maybe = lambda make: make() if rng.random() < 0.3 else None  # noqa: E731 - a field known or not
    usage = rng.choice([None, {}, {"input_tokens": 5}, {"input_tokens": 1, "output_tokens": 2, "cached_tokens": 0},
                        {"output_tokens": None, "extra": 3}])
    final = maybe(lambda: rng.choice(WORDS))
    return RunInput(
        run_id=f"t{n}.jsonl#{rng.choice(WORDS)}", source=SourceRef("trace", rng.choice(["t.jsonl", "caf\u00e9.json"]),
                                                                 "1" * 64, format=rng.choice(["otel", None]),
                                                                 line=rng.choice([None, 3])),
        outcome=rng.choice(["unknown", "pass", "fail"]), task_id=maybe(lambda: "task"), arm_id=maybe(lambda: "arm"),
        provider=maybe(lambda: "p"), model=maybe(lambda: "m"), repetition=maybe(lambda: 2), study=maybe(lambda: "s"),
        attempts=rng.choice([1, 3]), status=maybe(lambda: "completed"), error=maybe(lambda: rng.choice(WORDS)),
        started_at=maybe(lambda: "2026-12-04T10:00:00Z"), finished_at=maybe(lambda: "2026-12-04T10:00:01Z"),
        turns=maybe(lambda: 4), prompt=maybe(lambda: rng.choice(WORDS)), final_answer=final,
        final_answer_known=rng.random() < 0.2, calls=calls, usage=usage, cost_usd=maybe(lambda: 0.125),
        price=maybe(lambda: {"input": 0.5, "label": rng.choice(WORDS)}), server=maybe(lambda: {"name": "notes"}),
        evaluation=maybe(lambda: {"score": value(rng)}), trace_id=rng.choice([None, "ab" * 16]),
        span_source=rng.random() < 0.7, span_id=rng.choice([None, "cd" * 8]), prepared=True)


@pytest.mark.parametrize("seed", range(4))
def test_random_prepared_runs_give_the_reference_line(seed: int) -> None:
    rng = random.Random(seed)
    fast = refused = 0
    for n in range(400):
        run = random_run(rng, n)
        assert_same_line(run)
        try:
            fast += records._trace_line(run) is not None
        except TypeError:  # orjson refused a value (a lone surrogate, a big integer, a StdlibFloat)
            refused += 1
    assert fast > 120 and refused > 100  # both ways are taken


def test_ids_are_correlated_as_the_reference_does() -> None:
    """Repeated ids, empty ids and ids that look synthesized: the cases correlate_ids numbers around."""
    base = dict.fromkeys(TRACE_KEYS)
    for ids in (["call-2", None, None], ["c1", "c1", "call-2", None], ["", "call-1", None, "call-1-2"], [None] * 4, []):
        calls = [{**base, "id": i, "args": {"k": 1}, "is_error": False, "duration": 0.5} for i in ids]
        run = RunInput(run_id="r", source=SourceRef("trace", "t.jsonl", "0" * 64, format="otel"), calls=calls,
                       prepared=True)
        line = assert_same_line(run)
        got = [c["call_id"] for c in json.loads(line)["requested_calls"]]
        assert len(set(got)) == len(got)


def test_a_value_the_reference_refuses_raises_its_error() -> None:
    call = dict.fromkeys(TRACE_KEYS)
    for bad in ({"evaluation": 7}, {"price": ["abc"]}, {"usage": 3}):
        run = RunInput(run_id="r", source=SourceRef("trace", "t.jsonl", "0" * 64), calls=[call], prepared=True,
                       **bad)  # type: ignore[arg-type]
        with pytest.raises((TypeError, ValueError)) as expected:
            reference(run)
        with pytest.raises(type(expected.value), match=str(expected.value).replace("(", ".").replace(")", ".")):
            records.record_line(run)


def test_a_float_orjson_writes_otherwise_goes_the_reference_way() -> None:
    call = dict.fromkeys(TRACE_KEYS)
    call["duration"] = canonical.normal_number(2e-6)
    run = RunInput(run_id="r", source=SourceRef("trace", "t.jsonl", "0" * 64), calls=[call], prepared=True)
    assert b'"duration_s":2e-06' in assert_same_line(run)
    assert math.isclose(json.loads(records.record_line(run))["completed_calls"][0]["duration_s"], 2e-6)


def test_without_orjson_the_line_is_the_same() -> None:
    """In a process that cannot import orjson, record_line takes the reference path and writes the same bytes."""
    script = (
        "import sys; sys.modules['orjson'] = None\n"
        "from toolscore_export.record import RunInput, SourceRef, record_line\n"
        "call = dict.fromkeys(('id', 'tool', 'provider_name', 'args', 'result', 'structured', 'is_error', 'error',"
        " 'duration', 'denied', 'deny_reason', 'span_id', 'trace_id'))\n"
        "call.update(id='c1', args={'b': 1, 'a': [0.5, 'caf\\u00e9']}, result='ok', is_error=False)\n"
        "run = RunInput(run_id='r', source=SourceRef('trace', 't.jsonl', '0' * 64), calls=[call], prepared=True)\n"
        "sys.stdout.buffer.write(record_line(run))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, check=True).stdout
    call = dict.fromkeys(TRACE_KEYS)
    call.update(id="c1", args={"b": 1, "a": [0.5, "caf\u00e9"]}, result="ok", is_error=False)
    run = RunInput(run_id="r", source=SourceRef("trace", "t.jsonl", "0" * 64), calls=[call], prepared=True)
    assert out == records.record_line(run) == reference(run)
