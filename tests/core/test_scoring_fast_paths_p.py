"""Fast paths of reading and scoring (issue 12, last part): each must give what its slow path gives.

Each test runs the fast path and the general one on the same inputs (random shapes, edge
values, invalid items) and compares results, or counts that the fast path was taken, so a
fast path that diverged or silently stopped being used fails here; nothing is timed.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from toolscore_core.builtin import adapters
from toolscore_core.builtin.adapters import CustomCallListAdapter
from toolscore_core.kernel.errors import InputError
from toolscore_core.scoring import contracts

_VALUES: dict[str, list[Any]] = {
    "tool": ["search", "", 3, None, "x" * 40],
    "args": [{}, {"q": "a"}, None, "{\"q\": 1}", [], {"q": {"$regex": "a+"}}, {1: "a"}],
    "id": [None, "c1", 7],
    "result": [None, "ok", {"rows": 2}, ""],
    "is_error": [None, True, False, 0, 1],
    "error": [None, "boom", "", True, False, 5],
    "duration": [None, 0.5, 3, -1, float("nan"), float("inf"), True, "1s", 10**400],
    "elapsed": [0.2],
    "metadata": [{"k": 1}],
    "cost": [0.01],
    "other": ["kept"],
}


def _random_call(rng: random.Random, *, plain: bool) -> dict[str, Any]:
    keys = ["tool", "args", "id", "result", "is_error", "error", "duration"]
    if not plain:
        keys += ["elapsed", "metadata", "cost", "other"]
    call = {key: rng.choice(_VALUES[key]) for key in keys if key == "tool" or rng.random() < 0.6}
    if plain:  # only values the fast path takes
        call["tool"] = "search"
        if call.get("args") not in (None, {}, {"q": "a"}):
            call["args"] = {"q": "a"}
        if "is_error" in call and call["is_error"] not in (None, True, False):
            call["is_error"] = None
        if "error" in call and call["error"] not in (None, "boom", ""):
            call["error"] = None
        if "duration" in call and (type(call["duration"]) not in (int, float) and call["duration"] is not None):
            call["duration"] = None
        if "id" in call and call["id"] == 7:
            call["id"] = "c1"
    return call


def _general(items: list[Any], monkeypatch: pytest.MonkeyPatch) -> Any:
    with monkeypatch.context() as patched:
        patched.setattr(adapters, "_plain_calls", lambda data: ((), False))
        try:
            return CustomCallListAdapter().load(items)
        except InputError as exc:
            return ("error", str(exc))


def _fast(items: list[Any]) -> Any:
    try:
        return CustomCallListAdapter().load(items)
    except InputError as exc:
        return ("error", str(exc))


@pytest.mark.parametrize("plain", [True, False])
def test_plain_call_lists_read_as_the_general_reader_reads_them(plain: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(12)
    for _ in range(400):
        items = [_random_call(rng, plain=plain) for _ in range(rng.randint(0, 4))]
        fast, general = _fast(items), _general(items, monkeypatch)
        assert repr(fast) == repr(general), items  # repr: 5 and 5.0 or True and 1 would compare equal


def test_plain_call_lists_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []
    monkeypatch.setattr(CustomCallListAdapter, "_call", lambda self, item, where: seen.append(item))
    trace = CustomCallListAdapter().load([{"tool": "a", "args": {"x": 1}, "result": "ok", "duration": 2},
                                          {"tool": "b", "is_error": True, "error": "no"}])
    assert seen == []
    assert [c.tool for c in trace.calls] == ["a", "b"]
    assert trace.calls[0].duration == 2.0 and type(trace.calls[0].duration) is float
    assert trace.calls[0].is_error is False and trace.calls[1].is_error is True
    assert trace.calls[0].metadata is not trace.calls[1].metadata  # each call has its own dict


_GOLD_VALUES: dict[str, list[Any]] = {
    "tool": ["search", "", 3, None],
    "args": [{}, {"q": "a"}, None, [], "x", {1: "a"}, {"q": {"$regex": "a+"}}, {"q": {"$regex": "("}},
             {"q": {"$nope": 1}}, {"q": {"$literal": {"$x": 1}}}],
    "description": ["find it", None, 4],
    "extra": [1],
}


def _random_gold(rng: random.Random, *, plain: bool) -> Any:
    if rng.random() < 0.05 and not plain:
        return rng.choice(["search", None, 3, ["a"]])
    keys = ["tool", "args", "description"] + ([] if plain else ["extra"])
    item = {key: rng.choice(_GOLD_VALUES[key]) for key in keys if rng.random() < (0.97 if key == "tool" else 0.5)}
    if plain:
        item["tool"] = "search"
        if item.get("args") not in (None, {}, {"q": "a"}) and "$" not in repr(item.get("args")):
            item["args"] = {"q": "a"}
        if "description" in item and not isinstance(item["description"], str):
            item["description"] = "find it"
    return item


def _expected(items: list[Any], *, fast: bool, monkeypatch: pytest.MonkeyPatch) -> Any:
    with monkeypatch.context() as patched:
        if not fast:
            patched.setattr(contracts, "_plain_expected", lambda data, file, prefix: None)
        try:
            return repr(contracts.contract_from_data({"expected": items}, file="gold.json"))
        except InputError as exc:
            return ("error", str(exc), exc.location)


@pytest.mark.parametrize("plain", [True, False])
def test_gold_lists_read_as_the_schema_path_reads_them(plain: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(13)
    for _ in range(400):
        items = [_random_gold(rng, plain=plain) for _ in range(rng.randint(0, 4))]
        fast = _expected(items, fast=True, monkeypatch=monkeypatch)
        assert fast == _expected(items, fast=False, monkeypatch=monkeypatch), items


def test_a_shape_error_after_a_bad_matcher_is_still_reported_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """The schema's error (item 1) comes before the matcher's (item 0), as on the general path."""
    items = [{"tool": "a", "args": {"q": {"$regex": "("}}}, {"tool": ""}]
    assert _expected(items, fast=True, monkeypatch=monkeypatch) == _expected(items, fast=False,
                                                                             monkeypatch=monkeypatch)
    assert "expected[1]" in str(_expected(items, fast=True, monkeypatch=monkeypatch))


def test_plain_gold_lists_skip_the_schema_validator(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []
    real = contracts._validate
    monkeypatch.setattr(contracts, "_validate", lambda *a, **k: (calls.append(a[1]), real(*a, **k)))
    got = contracts.expected_calls([{"tool": "a", "args": {"q": {"$regex": "b+"}}}, {"tool": "b", "description": "d"}])
    assert calls == []
    assert got[0].args is not None and got[0].args["q"].to_json() == {"$regex": "b+"}
    assert got[1].description == "d" and got[1].args is None
