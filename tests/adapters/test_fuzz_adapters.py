"""Hypothesis fuzzing of every registered trace adapter: nothing raises but InputError.

The adapters are collected the way the CLI collects them (installed entry points, strict),
so adapters of every distribution are fuzzed, including ones added later. Three kinds of
input: random JSON built from the keys and values trace formats use (so that inputs get
past the first shape checks), real fixture files with a few values replaced, deleted or
retyped, and fixture files cut at a random byte or with random bytes, read from disk.
"""

from __future__ import annotations

import copy
import math
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolscore_core import InputError, Trace
from toolscore_core.kernel.files import load_data_file
from toolscore_core.kernel.plugins import PluginManager
from toolscore_core.kernel.registry import collect
from toolscore_core.kernel.traces import load_trace_file

FIXTURES = Path(__file__).parent / "fixtures"


# Toolscore's own distributions. A third-party plugin (the example plugin in examples/)
# answers for its own robustness; fuzzing it here would make this suite depend on code
# the project does not ship.
FIRST_PARTY = frozenset({"toolscore-core", "toolscore-adapters", "toolscore-mcp", "toolscore-agent",
                         "toolscore-export"})


def _adapters() -> dict[str, Any]:
    registry = collect(PluginManager(autoload=True, strict=True), "adapters")
    return {entry.name: entry.item for entry in registry.entries() if entry.distribution in FIRST_PARTY}


ADAPTERS = _adapters()
NAMES = sorted(ADAPTERS)


def _fixture_files() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl"))


def _fixture_data() -> list[Any]:
    out = []
    for path in _fixture_files():
        if path.stat().st_size > 200_000:
            continue
        try:
            out.append(load_data_file(path, allow_json_lines=True))
        except InputError:
            continue
    return out


FIXTURE_DATA = _fixture_data()
FIXTURE_BYTES = [p.read_bytes() for p in _fixture_files() if p.stat().st_size <= 200_000]

KEYS = [
    "role", "content", "type", "tool_calls", "function", "name", "arguments", "id", "call_id", "tool_call_id",
    "function_call", "output", "input", "parts", "functionCall", "function_call", "functionResponse",
    "function_response", "response", "args", "candidates", "choices", "message", "messages", "object", "lc",
    "kwargs", "data", "status", "is_error", "tool_use_id", "text", "error", "kind", "part_kind", "tool_name",
    "resourceSpans", "scopeSpans", "spans", "attributes", "jsonrpc", "method", "params", "result",
    "new_items", "raw_item", "model", "usage", "invalid_tool_calls", "additional_kwargs", "duration_ms",
    "automaticFunctionCallingHistory", "generated_items", "tasks_output", "calls", "tool", "events",
]
WORDS = [
    "assistant", "user", "tool", "function", "model", "system", "ai", "human", "tool_use", "tool_result",
    "function_call", "function_call_output", "message", "constructor", "chat.completion", "response",
    "tool-call", "tool-return", "retry-prompt", "request", "text", "output_text", "error", "success",
    "tools/call", "2.0", "{}", "{\"a\": 1}", "{bad", "[1]", "", "execute_tool", "gen_ai.tool.name", "é☕",
]

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10, 10**12), st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(WORDS), st.text(max_size=12),
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=6)), children, max_size=5),
    ),
    max_leaves=30,
)


def _slots(data: Any, limit: int = 3000) -> list[tuple[Any, Any]]:
    """(container, key) of every nested value, breadth first, at most ``limit``."""
    out: list[tuple[Any, Any]] = []
    queue = [data]
    while queue and len(out) < limit:
        node = queue.pop(0)
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            out.append((node, key))
            if isinstance(value, (dict, list)):
                queue.append(value)
    return out


@st.composite
def mutated_fixtures(draw: Any, pool: list[Any] | None = None) -> Any:
    data = copy.deepcopy(draw(st.sampled_from(pool or FIXTURE_DATA)))
    for _ in range(draw(st.integers(1, 3))):
        slots = _slots(data)
        if not slots:
            return draw(json_values)
        parent, key = draw(st.sampled_from(slots))
        action = draw(st.sampled_from(["replace", "delete", "retype"]))
        if action == "replace":
            parent[key] = draw(json_values)
        elif action == "delete":
            del parent[key]
        else:
            value = parent[key]
            parent[key] = draw(st.sampled_from([str(value), [value], {"value": value}, None, 0]))
    return data


def _instance(name: str) -> Any:
    return ADAPTERS[name]() if isinstance(ADAPTERS[name], type) else ADAPTERS[name]


def _own_fixtures(name: str) -> list[Any]:
    """The fixtures this adapter claims: mutating those reaches deep into its load()."""
    adapter = _instance(name)
    own = []
    for data in FIXTURE_DATA:
        try:
            if adapter.detect(data) > 0:
                own.append(data)
        except Exception:  # detect() raising is reported by the fuzz test itself
            continue
    return own


def _check(name: str, data: Any) -> None:
    adapter = _instance(name)
    score = adapter.detect(data)  # must never raise
    assert isinstance(score, (int, float)) and not isinstance(score, bool)
    assert 0.0 <= score <= 1.0 and not math.isnan(score)
    try:
        trace = adapter.load(data)
    except InputError:
        return
    assert isinstance(trace, Trace)


FUZZ = settings(max_examples=150, deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_random_and_mutated_data(name: str) -> None:
    own = _own_fixtures(name)

    @FUZZ
    @given(st.one_of(json_values, mutated_fixtures(), mutated_fixtures(own) if own else json_values))
    def run(data: Any) -> None:
        _check(name, data)

    run()


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_damaged_files(name: str) -> None:
    """Cut or corrupted files, read from disk with --format NAME: InputError or a Trace."""
    pm = PluginManager(autoload=True, strict=True)

    @settings(max_examples=25, deadline=None, database=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow])
    @given(st.sampled_from(FIXTURE_BYTES), st.floats(0, 1), st.binary(max_size=8), st.sampled_from([".json", ".jsonl"]))
    def run(content: bytes, cut: float, noise: bytes, suffix: str) -> None:
        damaged = content[: int(len(content) * cut)] + noise
        fd, name_ = tempfile.mkstemp(suffix=suffix)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(damaged)
            try:
                trace = load_trace_file(Path(name_), format=name, pm=pm)
            except InputError:
                return
            assert isinstance(trace, Trace)
        finally:
            os.unlink(name_)

    run()


def test_every_adapter_is_fuzzed() -> None:
    assert {"openai", "openai-responses", "anthropic", "gemini", "langchain", "langgraph", "custom"} <= set(NAMES)
    assert len(FIXTURE_DATA) >= 18
