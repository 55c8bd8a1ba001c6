"""The record of a run row built straight from its dict (:func:`row_record`) is exactly the record the
general path builds (a RunInput, then build_record): same keys, same order, same values and types,
same hashes, over rows of every shape, including those orjson refuses and the general path writes."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from toolscore_export import canonical
from toolscore_export.canonical import StdlibFloat, loads_prepared, prepared_bytes
from toolscore_export.row_record import general_record, row_record
from toolscore_export.sources import row_record_of

from .conftest import GHP, row

pytest.importorskip("orjson")

TEXTS = ["plain", "caf\u00e9 \U0001f600", "tab\tnew\nline \"q\" back\\slash", "\u2028\u0000\x1f", "", "\ufeff",
         f"token {GHP}", "https://user:hunter2@example.com/x?api_key=abc123"]
NUMBERS: list[Any] = [0, 7, -1, 2**63 - 1, 2**64 + 5, 0.5, 1 / 3, 1e300, 0.0012, 1e-3, True, False, None]
AWKWARD: list[Any] = ["\ud800 lone", 1e-7, 0.00001]  # orjson refuses these: the row takes the general path


def _typed(value: Any) -> Any:
    """The value with each scalar's exact type spelled out (1, 1.0 and True compare equal in Python)."""
    if isinstance(value, dict):
        return [(k, _typed(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, value)


def _same(data: dict[str, Any], name: str = "runs.jsonl", line: int = 3, attempts: int = 1) -> dict[str, Any]:
    fast = row_record(copy.deepcopy(data), name, "ab" * 32, line, attempts)
    slow = general_record(copy.deepcopy(data), name, "ab" * 32, line, attempts)
    assert _typed(fast) == _typed(slow)
    assert prepared_bytes(fast, sort_keys=False) == prepared_bytes(slow, sort_keys=False)
    return fast


def _value(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.random()
    if depth < 2 and pick < 0.2:
        return {rng.choice(TEXTS) + str(i): _value(rng, depth + 1) for i in range(rng.randint(0, 3))}
    if depth < 2 and pick < 0.3:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if pick > 0.99:
        return rng.choice(AWKWARD)
    return rng.choice(TEXTS) if pick < 0.6 else rng.choice(NUMBERS)


def _call(rng: random.Random, ids: list[Any]) -> dict[str, Any]:
    call: dict[str, Any] = {"id": rng.choice(ids), "tool": rng.choice(["list", "caf\u00e9", "delete_note"])}
    optional = {"provider_name": rng.choice([None, "srv.list"]), "args": rng.choice([None, {}, _value(rng)]),
                "result": rng.choice([None, _value(rng), [{"type": "text", "text": rng.choice(TEXTS)}]]),
                "structured": rng.choice([None, {"n": rng.choice(NUMBERS)}]),
                "is_error": rng.choice([None, True, False]), "error": rng.choice([None, "boom"]),
                "duration": rng.choice([None, 0, 0.25, 1e-7]), "denied": rng.choice([False, True]),
                "deny_reason": rng.choice([None, "never deletes"]),
                # not in a harness row, but the general path reads them: the fast one must too
                "cost_usd": rng.choice([None, 0.002]), "span_id": rng.choice([None, "s1"]),
                "trace_id": rng.choice([None, 5, "t1"])}
    for key, value in optional.items():
        if rng.random() < 0.7:
            call[key] = value
    return call


def _row(rng: random.Random) -> dict[str, Any]:
    data = json.loads(json.dumps(row(task=rng.choice(["t", "caf\u00e9"]), repetition=rng.randint(1, 3)).to_dict()))
    ids = [None, "", "toolu_1", "toolu_2", "call-2", "call-3"]
    data["calls"] = [_call(rng, ids) for _ in range(rng.randint(0, 5))]
    data["status"] = rng.choice(["completed", "limit_reached", "budget_stopped", "error"])
    data["outcome"] = rng.choice(["pass", "fail", "error", "unknown"])
    for key in ("usage", "price", "server", "evaluation", "extra", "final_answer", "started_at", "finished_at",
                "cost_usd", "turns", "study", "provider", "model", "error"):
        if rng.random() < 0.3:
            data.pop(key, None)
        elif rng.random() < 0.2:
            data[key] = None
    if rng.random() < 0.3:
        data["extra"] = {"prompt": rng.choice([*TEXTS, 3, None])}
    if rng.random() < 0.3:
        data["usage"] = {k: rng.choice([None, 5]) for k in rng.sample(["input_tokens", "output_tokens",
                                                                          "cached_tokens"], rng.randint(0, 3))}
    if rng.random() < 0.2:
        data["evaluation"] = rng.choice([[], "PASS", {"score": 1e-7, "findings": [{"m": "\u00e9"}]}])
    if rng.random() < 0.5:
        data["final_answer"] = rng.choice(TEXTS)
    return loads_prepared(json.dumps(data, ensure_ascii=rng.random() < 0.5))


@pytest.mark.parametrize("seed", range(8))
def test_the_fast_record_is_the_general_record(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(150):
        _same(_row(rng), name=rng.choice(["runs.jsonl", "caf\u00e9.jsonl"]), line=rng.randint(1, 10**6),
              attempts=rng.randint(1, 12))


def test_values_orjson_refuses_take_the_general_path() -> None:
    data = loads_prepared(json.dumps(row().to_dict()))
    data["final_answer"] = "\ud800 lone"
    _same(data)
    data = loads_prepared(json.dumps(row().to_dict()))
    data["calls"][0]["args"] = {"tiny": StdlibFloat(1e-7)}
    assert _same(data)["requested_calls"][0]["args_sha256"] == canonical.sha256_hex({"tiny": 1e-7})


def test_without_orjson_agreeing_the_general_path_gives_the_record(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(canonical, "_FAST", False)
    _same(loads_prepared(json.dumps(row().to_dict())))


def test_a_row_with_a_credential_is_redacted_before_either_path() -> None:
    data = row(final_answer=f"token {GHP}").to_dict()
    text = json.dumps(data)
    record = row_record_of(loads_prepared(text), text, "runs.jsonl", "ab" * 32, 1, 1)
    assert GHP not in json.dumps(record)
    assert record == general_record(canonical.prepare(loads_prepared(text), _redactor()), "runs.jsonl", "ab" * 32, 1, 1)


def _redactor() -> Any:
    from toolscore_core import redact_text

    return redact_text
