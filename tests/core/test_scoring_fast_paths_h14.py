"""Fast paths of issue 12 in the built-in metrics and the secret scanner: each one gives
exactly what the plain computation gives.

The plain computations are written out here as they stood before the fast paths, and both
are run on random pairings (missing, failed, denied, unknown and retried calls) and on a
fixture shaped like the benchmark's trace, so a fast path that drifts fails here.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from typing import Any

import pytest

from toolscore_core.builtin.metrics import RequiredCallRecall, SelectionAccuracy, _Retries
from toolscore_core.kernel.model import ExpectedCall, ToolCall, Trace
from toolscore_core.scoring.evaluation import EvaluationContext
from toolscore_core.scoring.pairing import pair_calls

TOOLS = ["search", "fetch", "write", "delete"]


class _OldRetries(_Retries):
    """``_Retries`` as it was built before: by a walk of the whole trace."""

    def __init__(self, calls: Any, spare: set[int]) -> None:
        by_tool: dict[str, list[int]] = {}
        for k, call in enumerate(calls):
            if k in spare and call.is_error is not True and not call.denied:
                by_tool.setdefault(call.tool, []).append(k)
        self._by_tool = by_tool
        self._next: dict[str, list[int]] = {}


def _old_recall(context: Any) -> dict[str, Any]:
    """RequiredCallRecall before the fast path: a step per expected call."""
    calls = context.calls
    completed: list[int] = []
    failed: list[int] = []
    missing: list[int] = []
    unknown: list[int] = []
    retried: list[int] = []
    pairs = context.pairing.expected_to_actual
    spare = set(range(len(calls))).difference(j for j in pairs if j is not None)
    retries: _OldRetries | None = None
    for i, j in enumerate(pairs):
        if j is None:
            missing.append(i)
            continue
        call = calls[j]
        ok = call.is_error is not True and not call.denied
        if not ok:
            retries = retries or _OldRetries(calls, spare)
            retry = retries.take(call.tool, j)
            if retry is not None:
                retried.append(i)
                call, ok = calls[retry], True
        (completed if ok else failed).append(i)
        if ok and call.is_error is None:
            unknown.append(i)
    n = len(context.expected)
    details = {"completed": len(completed), "required": n, "missing": missing[:50], "failed": failed[:50],
               "unknown_outcome": len(unknown), "outcomes_recorded": context.outcomes_recorded}
    if retried:
        details["retried"] = retried[:50]
    return {"value": 1.0 if n == 0 else len(completed) / n, "details": details}


def _old_selection(context: Any) -> tuple[Any, int]:
    tools = {e.tool for e in context.expected}
    right = sum(1 for c in context.calls if c.tool in tools)
    n, m = len(context.expected), len(context.calls)
    value = (1.0 if n == 0 and m == 0 else 0.0) if n == 0 or m == 0 else right / m
    return value, right


def _context(expected: list[ExpectedCall], calls: list[ToolCall]) -> EvaluationContext:
    return EvaluationContext(expected=tuple(expected), trace=Trace(calls=calls), pairing=pair_calls(expected, calls),
                             outcomes_recorded=any(c.is_error is not None or c.denied for c in calls))


def _random_case(rng: random.Random) -> tuple[list[ExpectedCall], list[ToolCall]]:
    expected = [ExpectedCall(tool=rng.choice(TOOLS), args={"q": rng.randrange(4)})
                for _ in range(rng.randrange(0, 40))]
    calls = [ToolCall(tool=rng.choice([*TOOLS, "other"]), args={"q": rng.randrange(4)},
                      is_error=rng.choice([False, False, False, True, None]), denied=rng.random() < 0.1)
             for _ in range(rng.randrange(0, 50))]
    return expected, calls


def _fixture_case(n: int) -> tuple[list[ExpectedCall], list[ToolCall]]:
    """The benchmark's shape: some calls edited, some of another tool, one in 100 failed."""
    expected, calls = [], []
    for i in range(n):
        args = {"query": f"item {i}", "page": i % 7}
        expected.append(ExpectedCall(tool=f"tool_{i % 20}", args=args))
        call_args = {**args, "query": f"item {i} (edited)"} if i % 10 == 3 else args
        calls.append(ToolCall(tool="other_tool" if i % 50 == 7 else f"tool_{i % 20}", args=call_args,
                              is_error=i % 100 == 11))
    return expected, calls


def _check(expected: list[ExpectedCall], calls: list[ToolCall]) -> None:
    context = _context(expected, calls)
    pairs = context.pairing
    assert all(pairs.actual_to_expected[j] == i for i, j in enumerate(pairs.expected_to_actual) if j is not None)
    assert sum(i is not None for i in pairs.actual_to_expected) == pairs.paired_count
    new = RequiredCallRecall().compute(context)
    assert {"value": new.value, "details": new.details} == _old_recall(context)
    assert list(new.details) == list(_old_recall(context)["details"])  # same key order: same bytes
    value, right = _old_selection(context)
    selection = SelectionAccuracy().compute(context)
    assert (selection.value, selection.details["right_tool_calls"]) == (value, right)
    assert type(selection.details["right_tool_calls"]) is int


def test_required_call_recall_matches_the_plain_walk_on_random_pairings() -> None:
    rng = random.Random(14)
    seen = {"missing": 0, "failed": 0, "retried": 0, "unknown": 0}
    for _ in range(600):
        expected, calls = _random_case(rng)
        _check(expected, calls)
        details = _old_recall(_context(expected, calls))["details"]
        seen["missing"] += bool(details["missing"])
        seen["failed"] += bool(details["failed"])
        seen["retried"] += "retried" in details
        seen["unknown"] += bool(details["unknown_outcome"])
    assert min(seen.values()) > 20, seen  # every branch was exercised, many times


@pytest.mark.parametrize("n", [0, 1, 120, 700])
def test_required_call_recall_matches_the_plain_walk_on_the_benchmark_shape(n: int) -> None:
    _check(*_fixture_case(n))


LAZY_GROUPS = "_vendor_compiled, _blocks, _jwt, _placed, _mixed, _quick, _flags"
CLEAN_RUN = f"""
from toolscore_core.kernel.model import ToolCall
from toolscore_core.scoring import secrets
from toolscore_core.scoring.behaviour import security
security([ToolCall(tool="search", args={{"query": f"item {{i}}", "page": i}}) for i in range(600)])
print(sum(group.cache_info().currsize for group in ({', '.join('secrets.' + g for g in LAZY_GROUPS.split(', '))})))
"""


def test_a_clean_trace_compiles_no_secret_pattern() -> None:
    """The point of compiling lazily: a trace with no anchor never pays for the regexes."""
    out = subprocess.run([sys.executable, "-c", CLEAN_RUN], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "0"


def _patterns(value: Any) -> list[Any]:
    """The regexes inside a lazily built value (a pattern, or nested tuples holding some)."""
    if isinstance(value, tuple):
        return [p for item in value for p in _patterns(item)]
    return [value] if isinstance(value, re.Pattern) else []


def test_the_old_pattern_names_still_resolve_to_compiled_patterns() -> None:
    from toolscore_core.scoring import secrets

    assert len(secrets._LAZY) == 16
    assert all(_patterns(getattr(secrets, name)) for name in secrets._LAZY)
    assert len(_patterns(secrets._VENDOR_COMPILED)) > 20
    assert secrets._QUICK is secrets._quick()  # compiled once, the same object each time
    with pytest.raises(AttributeError):
        _ = secrets._NOT_A_PATTERN
    assert secrets.scan_text("key AKIA" + "A" * 16) == [("aws_access_key_id", 4, 24)]
    assert secrets.redact_command(["srv", "--token", "abc"]) == ["srv", "--token", "…"]
