"""Fast paths of issue 12 (cheaper ordinary evaluations): each gives what the general path gives.

Every test runs the fast path and the general or written-out computation on random and
hand-picked inputs and compares the answers, so a fast path that drifts fails here.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from toolscore_core.kernel.model import ToolCall
from toolscore_core.scoring import secrets
from toolscore_core.scoring.behaviour import efficiency
from toolscore_core.scoring.matchers import canonical
from toolscore_core.scoring.secrets import find_secrets


class _Text(str):
    """A str subclass: never taken for a plain str by a fast path."""


_STRINGS = ["item 1", "query", "", "a=b", "sk-" + "Ab3" * 8, "https://u:p@h", "eyJhbGciOi.eyJzdWIi.c2ln",
            "Bearer " + "t" * 20, "ghp_" + "a" * 36, "x" * 300, "\x00", "sk-ant-" + "a1B2" * 6]


_ODD_KEYS: list[Any] = [1, 2.5, None, _Text("query")]
_ODD_VALUES: list[Any] = [["x"], {"n": "sk-" + "Ab3" * 8}, {"n": "x"}, _Text("a=b"), _Text("x"), ("t",), b"a=b"]


def _arguments(rng: random.Random, clean: bool) -> Any:
    """Flat argument dicts of plain values, with anchors in them unless ``clean``."""
    args: dict[Any, Any] = {}
    for _ in range(rng.randrange(1, 4)):
        key = rng.choice(["query", "page", "exact"] if clean else ["query", "page", "token=", "sk-" + "Ab3" * 8])
        if rng.random() < 0.5:
            args[key] = rng.choice(_STRINGS[:3] if clean else _STRINGS)
        else:
            args[key] = rng.choice([0, 7, 2.5, float("nan"), True, False, None, 10**40])
    return args


def _odd(rng: random.Random) -> Any:
    """One argument value a batch-wide pass must not take for a flat dict (or a flat dict it must)."""
    roll = rng.randrange(6)
    if roll == 0:
        return rng.choice([None, {}, [{"q": "x"}], "q=1"])
    if roll == 1:
        return {rng.choice(_ODD_KEYS): "x", "page": 1}
    if roll == 2:
        return {"query": rng.choice(_ODD_VALUES)}
    if roll == 3:
        return {"query": rng.choice(_ODD_VALUES), "page": rng.choice(_ODD_KEYS)}
    return {"query": "item", "n": rng.choice([1, 1.5, True, None])}


def _batches(rng: random.Random, size: int, dirty: float) -> list[Any]:
    """``size`` argument dicts, mostly clean, with a few odd ones (at most one in some batches)."""
    arguments = [_arguments(rng, clean=rng.random() >= dirty) for _ in range(size)]
    for _ in range(rng.choice([0, 1, 1, 2, 5])):
        if arguments:
            arguments[rng.randrange(size)] = _odd(rng)
    return arguments


def _calls_to_scan_reference(arguments: Sequence[Any]) -> Iterator[int]:
    """The batch rule written out call by call (the loop the batch-wide passes replace)."""
    for start in range(0, len(arguments), secrets._BATCH):
        batch = arguments[start:start + secrets._BATCH]
        texts: list[str] = []
        deep = []
        for args in batch:
            flat = type(args) is dict and all(
                type(k) is str and (type(v) is str or type(v) in secrets._SKIP) for k, v in args.items())
            deep.append(not flat)
            if flat:
                texts.extend(s for kv in args.items() for s in kv if type(s) is str)
        joined = "\x00".join(texts)
        if any(anchor in joined for anchor in secrets._ANCHORS):
            yield from (start + k for k, args in enumerate(batch) if args)
        else:
            yield from (start + k for k, d in enumerate(deep) if d and batch[k])


def test_calls_to_scan_gives_the_indexes_of_the_call_by_call_rule() -> None:
    rng = random.Random(1301)
    for dirty in (0.0, 0.0, 0.001, 0.01, 0.1, 1.0):
        for size in (0, 1, 3, 255, 256, 257, 900, 900):
            arguments = _batches(rng, size, dirty)
            got = list(secrets.calls_to_scan(arguments))
            assert got == list(_calls_to_scan_reference(arguments)), (dirty, size)
            # and the point of it: every call with a credential is among them
            assert {i for i, a in enumerate(arguments) if a and find_secrets(a)} <= set(got)


def test_calls_to_scan_sees_one_anchor_in_a_key_or_a_value_of_a_clean_batch() -> None:
    for text in [s for s in _STRINGS if find_secrets(s) or s == "a=b"]:
        for args in ({"q": text, "page": 2}, {text: 1}, {"q": 1.5, "r": text}):
            arguments: list[Any] = [{"query": "item", "page": 2, "exact": True} for _ in range(600)]
            arguments[300] = args
            assert list(secrets.calls_to_scan(arguments)) == list(_calls_to_scan_reference(arguments))
            assert 300 in set(secrets.calls_to_scan(arguments)), (text, args)


def test_searched_anchors_find_what_every_anchor_finds() -> None:
    for anchor in secrets._ANCHORS:
        assert any(searched in anchor for searched in secrets._SEARCHED), anchor


def _call(rng: random.Random) -> ToolCall:
    """A call with any outcome: failed, denied, unknown, with metadata, a duration or none."""
    outcome = rng.choice([True, False, None, None, False, False])
    metadata = rng.choice([{}, {}, {}, {"cost": 1}, {"arguments_error": "not valid JSON", "raw_arguments": "{"}])
    return ToolCall(tool=rng.choice(["a", "b", "c"]), args=rng.choice([{"q": 1}, {"q": 2}, {}, None, {"q": [1]}]),
                    is_error=outcome, error="boom" if outcome else None, denied=rng.random() < 0.05,
                    duration=rng.choice([None, 0.5, 2]), metadata=metadata)


def _efficiency_reference(calls: list[ToolCall]) -> dict[str, Any]:
    """The figures of ``efficiency`` from their definitions, one call at a time."""
    keys = [(c.tool, canonical(c.args)) for c in calls]
    failed = [i for i, c in enumerate(calls) if c.is_error is True]
    retries = []
    for i in range(len(calls)):
        before = [j for j in range(i) if calls[j].tool == calls[i].tool]
        if before and calls[before[-1]].is_error is True and keys[before[-1]] == keys[i]:
            retries.append(i)
    durations = [c.duration for c in calls if c.duration is not None]
    return {
        "total_calls": len(calls), "error_count": len(failed),
        "denied_count": sum(1 for c in calls if c.denied),
        "unknown_outcome_count": sum(1 for c in calls if c.is_error is None and not c.denied),
        "retry_after_error_count": len(retries),
        "identical_call_count": sum(1 for i, k in enumerate(keys) if k in keys[:i]),
        "total_duration": sum(durations) if durations else None,
        "failed_calls": failed[:50], "blind_retries": retries[:50],
        "invalid_arguments_count": sum(1 for c in calls if c.metadata and "arguments_error" in c.metadata),
        "loops": sorted(n for n in Counter(keys).values() if n >= 3),
    }


def test_efficiency_gives_the_figures_of_their_definitions() -> None:
    rng = random.Random(1302)
    for _ in range(300):
        calls = [_call(rng) for _ in range(rng.randrange(0, 40))]
        if rng.random() < 0.3:  # mostly clean runs too, where the shortcuts skip work
            calls = [ToolCall(tool=f"t{i % 3}", args={"q": i}, is_error=False) for i in range(30)] + calls[:2]
        keys = [(c.tool, canonical(c.args)) for c in calls]
        figures, findings = efficiency(calls, keys)
        want = _efficiency_reference(calls)
        got = {name: figures[name] for name in want if name != "loops"}
        got["loops"] = sorted(f.details["count"] for f in findings if f.code == "loop")
        assert got == want
