"""The scoring passes after pairing (issue 12): each shortcut gives what the general path gives.

Every test runs the shortcut and a general or written-out computation on random traces
(outcomes mixed, denied calls, errors, unicode, nested arguments, credentials planted in
keys and values) and on every trace fixture, and compares the answers exactly.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import attrs
import pytest

from toolscore_core.kernel.model import Finding, ToolCall
from toolscore_core.kernel.traces import load_trace_file
from toolscore_core.scoring import secrets
from toolscore_core.scoring.behaviour import efficiency, security
from toolscore_core.scoring.matchers import canonical
from toolscore_core.scoring.modes import (
    _first_difference,
    _known_symbols,
    _shared_symbols,
    lcs_length,
)
from toolscore_core.scoring.secrets import find_secrets

ROOT = Path(__file__).resolve().parents[2]


class _Text(str):
    """A str subclass: a key of this type is never scanned, a value of it is."""


_SECRETS = ["sk-" + "Ab3" * 8, "ghp_" + "a" * 36, "AKIA" + "ABCDEFGHIJ234567", "xoxb-" + "1234567890ab",
            "sk_live_" + "a1" * 8, "eyJhbGciOiJI.eyJzdWIiOjE.c2lnbmF0dXJl", "https://user:hunter22@db.example",
            "https://h/x?api_key=abc123", "Bearer " + "t0k" * 6, "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n"]
_NEAR = ["sk-my-task", "ghp_short", "AKIA", "eyJ", "a=b", "x://", "bearer", "EARER ", "xox-", "k_live_", "-----",
         "é=ü", "日本語", "\x00", "_", "-", ":", "A", "J", "E", "r"]
_PLAIN = ["item 1", "query", "", "page two", "Ünïcode ✓", "x" * 300, "sk", "gh", "ASIA"]


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if roll < 0.45:
        return rng.choice(_PLAIN + _NEAR + (_SECRETS if rng.random() < 0.3 else []))
    if roll < 0.7:
        return rng.choice([0, 7, -2, 2.5, float("nan"), True, False, None, 10**40])
    if roll < 0.8 and depth < 2:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(3))]
    if roll < 0.9 and depth < 2:
        return {rng.choice(["a", "b", "token"]): _value(rng, depth + 1)}
    return _Text(rng.choice(_PLAIN + _NEAR + _SECRETS))


def _arguments(rng: random.Random) -> Any:
    if rng.random() < 0.05:
        return rng.choice([None, {}, "a=b", ["sk-" + "Ab3" * 8]])
    args: dict[Any, Any] = {}
    for _ in range(rng.randrange(1, 4)):
        roll = rng.random()
        key: Any = rng.choice(["query", "page", "exact", "ünï"])
        if roll < 0.05:
            key = rng.choice(_SECRETS + _NEAR)
        elif roll < 0.08:
            key = rng.choice([1, 2.5, None, _Text("query"), _Text("sk-" + "Ab3" * 8)])
        args[key] = _value(rng)
    return args


def _call(rng: random.Random, tools: list[str]) -> ToolCall:
    """A call with any outcome (failed, denied, unknown), any metadata and duration."""
    outcome = rng.choice([True, False, None, None, False, False])
    metadata = rng.choice([{}, {}, {}, {"cost": 1}, {"arguments_error": "not valid JSON", "raw_arguments": "{"}])
    return ToolCall(tool=rng.choice(tools), args=_arguments(rng), is_error=outcome,
                    error="boom sk-" + "Ab3" * 8 if outcome else None, denied=rng.random() < 0.05,
                    duration=rng.choice([None, 0.5, 2]), metadata=metadata)


def _fixture_traces() -> list[tuple[ToolCall, ...]]:
    found = sorted((ROOT / "tests" / "adapters" / "fixtures").rglob("*.json*"))
    found += sorted(p for p in (ROOT / "tests" / "core" / "fixtures").rglob("*.json")
                    if p.name != "gold.json" and not p.parent.name.startswith("baseline"))
    traces = []
    for path in found:
        try:
            traces.append(load_trace_file(path).calls)
        except Exception:  # a fixture that does not read as a trace has no calls to compare
            continue
    assert len(traces) > 20
    return traces


def _random_traces(seed: int, count: int) -> list[list[ToolCall]]:
    rng = random.Random(seed)
    traces = []
    for _ in range(count):
        size = rng.choice([0, 1, 5, 40, 255, 256, 257, 600])
        calls = [_call(rng, ["a", "b", "mcp__s__c"]) for _ in range(size)]
        if rng.random() < 0.5:  # mostly clean: every shortcut applies
            clean = [ToolCall(tool=f"t{i % 4}", args={"query": f"item {i}", "page": i % 3, "exact": i % 2 == 0},
                              is_error=i % 17 == 3 or None if i % 5 else False, denied=i % 23 == 1)
                     for i in range(size)]
            calls = clean + calls[:rng.choice([0, 0, 1, 2])]
        traces.append(calls)
    return traces


# --- security: the anchor probes and the batch keys -------------------------------------


def test_probed_anchor_search_answers_as_every_anchor_searched() -> None:
    rng = random.Random(5101)
    pieces = _PLAIN + _NEAR + _SECRETS + list(secrets._ANCHORS)
    for _ in range(3000):
        texts = [rng.choice(pieces)[rng.randrange(3):] for _ in range(rng.randrange(4))]
        joined = "\x00".join(texts)
        assert secrets._has_anchor(texts) == any(anchor in joined for anchor in secrets._SEARCHED), texts


def test_every_searched_anchor_has_its_probe() -> None:
    grouped = [anchor for probe, group in secrets._PROBED for anchor in group if probe in anchor]
    assert sorted(grouped) == sorted(secrets._SEARCHED)


def _security_reference(calls: list[ToolCall] | tuple[ToolCall, ...]) -> list[dict[str, Any]]:
    """Every call's arguments scanned whole: the path the batch shortcuts skip."""
    return [{"index": i, "tool": c.tool, "path": hit.path, "kind": hit.kind, "preview": hit.preview}
            for i, c in enumerate(calls) for hit in find_secrets(c.args)]


@pytest.mark.parametrize("seed", [5102, 5103])
def test_security_finds_what_scanning_every_call_finds(seed: int) -> None:
    for calls in _random_traces(seed, 60):
        figures, findings = security(calls)
        want = _security_reference(calls)
        assert figures["secrets"] == want
        assert figures["secret_count"] == len(want)
        assert [f.call_index for f in findings] == [w["index"] for w in want][:len(findings)]


def test_security_on_every_fixture_finds_what_scanning_every_call_finds() -> None:
    for calls in _fixture_traces():
        assert security(calls)[0]["secrets"] == _security_reference(calls)


def test_one_planted_credential_in_a_clean_trace_is_found() -> None:
    for planted in _SECRETS:
        for where in ("value", "key", "nested"):
            calls = [ToolCall(tool="t", args={"query": f"item {i}", "page": i}) for i in range(700)]
            args = {"q": planted} if where == "value" else {planted: 1} if where == "key" else {"q": [{"x": planted}]}
            calls[400] = ToolCall(tool="t", args=args)
            figures, _ = security(calls)
            assert figures["secrets"] == _security_reference(calls) != [], (planted, where)


# --- sequence: the cheap upper bound of the LCS ---------------------------------------


def _lcs_reference(a: list[Any], b: list[Any]) -> int:
    """The whole table, filled from the ends (suffix lengths), as written in a textbook."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in reversed(range(len(a))):
        for k in reversed(range(len(b))):
            table[i][k] = table[i + 1][k + 1] + 1 if a[i] == b[k] else max(table[i + 1][k], table[i][k + 1])
    return table[0][0]


def test_lcs_length_with_foreign_symbols_matches_the_table() -> None:
    rng = random.Random(5104)
    for _ in range(400):
        alphabet = [f"t{k}" for k in range(rng.choice([1, 3, 20]))]
        a = [rng.choice(alphabet) for _ in range(rng.randrange(0, 60))]
        b = list(a)
        for _ in range(rng.randrange(0, 12)):  # substitutions, insertions, deletions, foreign tools
            roll = rng.random()
            at = rng.randrange(len(b) + 1)
            foreign = rng.choice(["other", "x", "y", *[f"f{k}" for k in range(12)]])
            if roll < 0.4 and at < len(b):
                b[at] = foreign
            elif roll < 0.7:
                b.insert(at, rng.choice([*alphabet, foreign]))
            elif b:
                del b[min(at, len(b) - 1)]
        assert lcs_length(a, b) == _lcs_reference(a, b), (a, b)
        assert _lcs_reference(a, b) <= _known_symbols(a, b)
        assert _shared_symbols(a, b) <= _known_symbols(a, b)
        assert _known_symbols(a, b) == _known_symbols(tuple(a), tuple(b))  # the counting and the set path agree


def test_first_difference_is_where_a_walk_one_symbol_at_a_time_stops() -> None:
    rng = random.Random(5107)
    for _ in range(3000):
        a = [rng.choice("abc") for _ in range(rng.randrange(1, 150))]
        b = list(a)
        i = rng.randrange(len(a))
        j = i
        step = rng.randrange(1, len(a) - i + 1)
        at = i + rng.randrange(step)
        b[at] = "x"  # one difference below step at least, maybe more after it
        for k in range(at + 1, len(b)):
            if rng.random() < 0.1:
                b[k] = "y"
        walked = 0
        while a[i + walked] == b[j + walked]:
            walked += 1
        assert _first_difference(a, i, b, j, step) == walked == at - i


def test_lcs_length_of_every_fixture_against_its_reverse_matches_the_table() -> None:
    for calls in _fixture_traces():
        names = [c.tool for c in calls]
        other = [n if k % 3 else "other_tool" for k, n in enumerate(reversed(names))]
        assert lcs_length(names, other) == _lcs_reference(names, other)


# --- efficiency: keys built only when an argument set repeats -------------------------


def _efficiency_general(calls: list[ToolCall] | tuple[ToolCall, ...]) -> tuple[dict[str, Any], list[Finding]]:
    return efficiency(calls, [(c.tool, canonical(c.args)) for c in calls])


@pytest.mark.parametrize("seed", [5105, 5106])
def test_efficiency_from_argument_keys_gives_what_call_keys_give(seed: int) -> None:
    rng = random.Random(seed)
    for calls in _random_traces(seed, 60):
        if calls and rng.random() < 0.5:  # repeats, failed repeats (blind retries) and loops
            calls = calls + [calls[rng.randrange(len(calls))] for _ in range(rng.randrange(1, 6))]
        want = _efficiency_general(calls)
        figures, findings = efficiency(calls, arg_keys=[canonical(c.args) for c in calls])
        assert (figures, findings) == want
        figures, findings = efficiency(calls)
        assert (figures, findings) == want


def test_efficiency_of_every_fixture_gives_what_call_keys_give() -> None:
    for calls in _fixture_traces():
        for trace in (calls, calls + calls[:3], calls + calls[:1] * 3):
            figures, findings = efficiency(trace, arg_keys=[canonical(c.args) for c in trace])
            assert (figures, findings) == _efficiency_general(trace)


# --- findings: past the cap, one counted placeholder per code -------------------------


def _differing(rng: random.Random, size: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Expected and actual calls with every kind of score finding: mismatches, failures,
    denials, unknown outcomes, calls of other tools, missing and extra calls."""
    expected, actual = [], []
    for i in range(size):
        tool = rng.choice(["a", "b", "c"])
        args = {"q": f"item {i % 7}", "n": rng.choice([1, 2, "é"])}
        expected.append({"tool": tool, "args": args})
        roll = rng.random()
        if roll < 0.1:
            continue  # missing
        call: dict[str, Any] = {"tool": tool if roll > 0.2 else "z", "args": dict(args),
                                "result": "ok", "is_error": rng.choice([False, False, None])}
        if rng.random() < 0.4:
            call["args"]["q"] = "other"
        if rng.random() < 0.2:
            call.update(is_error=True, error="boom", result=None)
        elif rng.random() < 0.05:
            call["denied"] = True
        actual.append(call)
        if rng.random() < 0.1:
            actual.append({"tool": rng.choice(["a", "y"]), "args": {"q": "extra"}, "result": "ok"})
    return expected, actual


def _findings_both_ways(monkeypatch: pytest.MonkeyPatch, expected: Any, actual: Any) -> None:
    """The findings with every one of them given a builder (the general path) and with those
    past the cap only counted are the same, byte for byte."""
    from toolscore_core.scoring import evaluation as evaluation_module

    dumps = []
    for build_all in (True, False):
        monkeypatch.setattr(evaluation_module, "BUILD_ALL_LATER", build_all)
        dumps.append([attrs.asdict(f) for f in evaluation_module.evaluate(expected, actual).findings])
    assert dumps[0] == dumps[1]


@pytest.mark.parametrize("cap", [1, 3, 20])
def test_findings_past_the_cap_counted_once_are_the_findings_built_one_by_one(
        cap: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolscore_core.scoring import evaluation as evaluation_module

    monkeypatch.setattr(evaluation_module, "MAX_FINDINGS_PER_CODE", cap)
    rng = random.Random(5108 + cap)
    for size in (0, 1, 5, 30, 200, 600):
        _findings_both_ways(monkeypatch, *_differing(rng, size))


def test_findings_of_every_fixture_past_a_small_cap_are_the_findings_built_one_by_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from toolscore_core.scoring import evaluation as evaluation_module

    monkeypatch.setattr(evaluation_module, "MAX_FINDINGS_PER_CODE", 1)
    for calls in _fixture_traces():
        gold = [{"tool": c.tool, "args": c.args} for c in reversed(calls) if isinstance(c.args, dict)][:-1]
        _findings_both_ways(monkeypatch, gold or [{"tool": "nothing"}], list(calls))
