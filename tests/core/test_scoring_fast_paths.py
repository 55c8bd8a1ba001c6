"""The scoring's fast paths (issue 12, performance): each slow path coming back fails here, without timing.

Every test counts work (calls of a function, modules imported) instead of measuring time, so
none of them is flaky on a loaded machine, and each would fail if its fast path were removed.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from toolscore_core.kernel import readlimits
from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.model import ExpectedCall, ToolCall
from toolscore_core.scoring import pairing
from toolscore_core.scoring.matchers import parse_matchers
from toolscore_core.scoring.modes import lcs_length

ROOT = Path(__file__).parents[2]
OPENAI_MESSAGES = ROOT / "tests" / "adapters" / "fixtures" / "providers" / "openai_messages.json"


def _plain_case(n: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Calls of 5 tools; one call per tool has a different argument (a 1 x k window per tool)."""
    expected, actual = [], []
    for i in range(n):
        args = {"query": f"item {i}", "page": i % 3}
        expected.append({"tool": f"tool_{i % 5}", "args": args})
        changed = dict(args, page=9) if i < 5 else args
        actual.append({"tool": f"tool_{i % 5}", "args": changed, "result": "ok", "is_error": False})
    return expected, actual


def test_ordinary_trace_imports_neither_numpy_nor_scipy(tmp_path: Path) -> None:
    """One wrong argument per tool is solved without the matrix solver (and without OpenBLAS)."""
    expected, actual = _plain_case(200)
    (tmp_path / "gold.json").write_text(json.dumps(expected))
    (tmp_path / "trace.json").write_text(json.dumps(actual))
    script = textwrap.dedent(f"""
        import json, sys
        from toolscore_core.scoring.evaluation import evaluate, evaluate_trace
        gold, trace = {str(tmp_path / 'gold.json')!r}, {str(tmp_path / 'trace.json')!r}
        a = evaluate(json.load(open(gold)), json.load(open(trace)))
        b = evaluate_trace(gold, trace)
        a.to_dict()
        print(json.dumps({{"numpy": "numpy" in sys.modules, "scipy": "scipy" in sys.modules,
                           "paired": a.metrics["pairing"]["paired"], "score": b.score}}))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["paired"] == 200  # the differing calls were paired, so the window was solved
    assert seen["numpy"] is False and seen["scipy"] is False, seen


def _random_window(rng: random.Random, n: int, m: int) -> tuple[list[ExpectedCall], list[ToolCall]]:
    def args() -> dict[str, Any] | None:
        kind = rng.random()
        if kind < 0.1:
            return None
        if kind < 0.2:
            return {}
        return {k: rng.randint(0, 2) for k in rng.sample(["a", "b", "c", "d"], rng.randint(1, 3))}

    expected = []
    for _ in range(n):
        a = args()
        if a and rng.random() < 0.2:
            a = dict(a, a={"$regex": "^[01]$"})
        expected.append(ExpectedCall(tool="t", args=parse_matchers(a) if a is not None else None))
    actual = [ToolCall(tool="t", args=args(), is_error=rng.random() < 0.2) for _ in range(m)]
    return expected, actual


def test_single_line_windows_agree_with_the_matrix_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(12)
    fast_answers = 0
    for _ in range(400):
        n, m = (1, rng.randint(1, 6)) if rng.random() < 0.5 else (rng.randint(1, 6), 1)
        expected, actual = _random_window(rng, n, m)
        exp_idx, act_idx = list(range(n)), list(range(m))
        fast = pairing._solve_line(exp_idx, act_idx, expected, actual)
        with monkeypatch.context() as patched:
            patched.setattr(pairing, "_solve_line", lambda *_: None)
            reference = pairing._solve_window(exp_idx, act_idx, expected, actual)
        if fast is not None:
            fast_answers += 1
            assert fast == reference, (expected, actual)
    assert fast_answers > 100  # the fast path answered most windows; ties went to the solver


def _count_detect_calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    from toolscore_core.kernel.traces import adapter_registry

    calls: dict[str, int] = {}
    for adapter in adapter_registry().instances():
        if adapter.name == "custom":
            continue
        original = type(adapter).detect

        def counted(self: Any, data: Any, _original: Any = original, _name: str = adapter.name) -> float:
            calls[_name] = calls.get(_name, 0) + 1
            return float(_original(self, data))

        monkeypatch.setattr(type(adapter), "detect", counted)
    return calls


def test_a_plain_call_list_asks_no_other_detector(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolscore_core.kernel.traces import load_trace

    calls = _count_detect_calls(monkeypatch)
    trace = load_trace(_plain_case(1000)[1])
    assert trace.source_format == "custom" and len(trace.calls) == 1000
    assert calls == {}
    # the instrument works: data of another shape goes through every detector
    other = load_trace(json.loads(OPENAI_MESSAGES.read_text()))
    assert other.source_format != "custom"
    assert len(calls) >= 3


def test_a_shallow_file_is_not_walked_and_a_deep_one_still_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    walked: list[int] = []
    original = readlimits.walk
    monkeypatch.setattr(readlimits, "walk", lambda value, **kw: walked.append(1) or original(value, **kw))
    many = json.dumps([{"tool": "t", "args": {"q": "a [ { b", "e": "quote \\\" ]]"}} for _ in range(5000)])
    assert len(readlimits.loads(many)) == 5000
    assert walked == []
    # brackets inside strings cannot hide real nesting
    deep = "[" + ", [".join(['"]"'] * 150) + "]" * 150
    with pytest.raises(InputError, match="nested more than 100 levels"):
        readlimits.loads(deep)
    assert readlimits.loads("[" * 100 + "]" * 100) is not None
    with pytest.raises(InputError, match="nested more than 100 levels"):
        readlimits.loads("[" * 101 + "]" * 101)
    cleaned = readlimits.loads(json.dumps([{"a": [1]}] * 200)[:-1] + ', "\\ud800"]')
    assert cleaned[-1] == "\ufffd"  # lone surrogates are still replaced


def test_the_cli_reads_and_builds_the_gold_file_once(tmp_path: Path, invoke: Any,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from toolscore_core.kernel import files
    from toolscore_core.scoring import contracts

    expected, actual = _plain_case(50)
    gold, trace = tmp_path / "gold.json", tmp_path / "trace.json"
    gold.write_text(json.dumps(expected))
    trace.write_text(json.dumps(actual))
    built: list[int] = []
    read: list[str] = []
    original_build, original_read = contracts.expected_calls, files.load_data_file
    monkeypatch.setattr(contracts, "expected_calls", lambda *a, **kw: built.append(1) or original_build(*a, **kw))
    def counted_read(path: Any, *a: Any, **kw: Any) -> Any:
        read.append(str(path))
        return original_read(path, *a, **kw)

    monkeypatch.setattr(files, "load_data_file", counted_read)
    monkeypatch.setattr(contracts, "load_data_file", counted_read)  # imported by name there
    result = invoke("eval", str(gold), str(trace))
    assert result.exit_code == 0, result.output
    assert len(built) == 1
    assert read.count(str(gold)) == 1 and read.count(str(trace)) == 1


class _CountingList(list):  # type: ignore[type-arg]
    """A list that counts element reads from Python code (list equality itself reads none)."""

    reads = 0

    def __getitem__(self, index: Any) -> Any:
        _CountingList.reads += 1
        return super().__getitem__(index)


def test_equal_sequences_skip_the_lcs_loops() -> None:
    names = [f"tool_{i % 20}" for i in range(50_000)]
    _CountingList.reads = 0
    assert lcs_length(_CountingList(names), _CountingList(names)) == 50_000
    assert _CountingList.reads == 0
    different = _CountingList(names)
    different[-1] = "other"
    assert lcs_length(_CountingList(names), different) == 49_999
    assert _CountingList.reads > 0  # the instrument works: unequal sequences are read element by element


def test_the_fast_exact_row_is_the_row_the_constructor_builds() -> None:
    from toolscore_core.scoring.evaluation import CallPair

    assert pairing._ROW_SOUND  # else every exact pair silently takes the slow constructor
    fast = pairing._exact_row(3, 5, {"q": 1.0}, "same tool `x` with identical arguments")
    slow = CallPair(expected_index=3, actual_index=5, score=1.0, tool_match=True, argument_scores={"q": 1.0},
                    reason="same tool `x` with identical arguments")
    assert fast == slow and repr(fast) == repr(slow)


def test_duplicate_calls_pair_once_each_and_the_succeeded_one_first() -> None:
    expected = [ExpectedCall(tool="t", args={"a": 1}), ExpectedCall(tool="t", args={"a": 1})]
    actual = [ToolCall(tool="t", args={"a": 1}, is_error=True), ToolCall(tool="t", args={"a": 1}, is_error=False),
              ToolCall(tool="t", args={"a": 1}, is_error=False)]
    result = pairing.pair_calls(expected, actual)
    assert result.expected_to_actual[0] == 1 and result.expected_to_actual[1] == 2
