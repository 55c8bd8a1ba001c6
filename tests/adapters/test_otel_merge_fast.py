"""The otel adapter's short cuts against the rules they stand for: a merged MCP call built field by
field is what ``attrs.evolve`` builds (every field it does not merge is the outer call's), and the first key or string of a list found after a
disjointness test is what the plain loop finds."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import attrs

from toolscore_adapters.protocols import otel_calls
from toolscore_adapters.protocols.otel_calls import (
    SpanCall,
    _first_key,
    _first_str,
    _first_text,
    _merge,
)
from toolscore_core import ToolCall

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "otel"


def test_the_merge_passes_every_field_of_both_classes() -> None:
    """A field added to ToolCall or SpanCall must be added to ``_merge`` (which spells them out)."""
    assert [f.name for f in attrs.fields(ToolCall)] == [
        "tool", "args", "id", "result", "structured_result", "is_error", "error", "duration", "denied",
        "denied_reason", "provider", "index", "metadata"]
    assert [f.name for f in attrs.fields(SpanCall)] == [
        "fields", "convention", "start_ns", "order", "trace_id", "span_id", "parent_id"]


def test_the_field_indexes_are_the_tool_call_fields() -> None:
    """``SpanCall.fields`` are ToolCall's arguments in its order: each index names its field."""
    names = [f.name.upper() for f in attrs.fields(ToolCall)]
    assert [getattr(otel_calls, name) for name in names] == list(range(len(names)))


MERGED = ("args", "id", "result", "structured_result", "is_error", "error", "duration", "provider", "metadata")


def evolved(outer: SpanCall, merged: SpanCall) -> SpanCall:
    """What ``attrs.evolve`` builds from ``outer`` with the values ``_merge`` chose: every other
    field is the outer call's (as the merge was first written)."""
    call = attrs.evolve(outer.call, **{name: getattr(merged.call, name) for name in MERGED})
    return attrs.evolve(outer, fields=list(attrs.astuple(call, recurse=False)), start_ns=merged.start_ns,
                        order=merged.order)


def random_span_call(rng: random.Random) -> SpanCall:
    pick = rng.choice
    call = ToolCall(
        tool=pick(["read", "write"]), args=pick([None, {}, {"a": 1}]), id=pick([None, "", "c1"]),
        result=pick([None, "", "ok", [1]]), structured_result=pick([None, {"s": 1}]), is_error=pick([None, True, False]),
        error=pick([None, "", "boom"]), duration=pick([None, 0.0, 0.5, 2, float("nan"), -1.0]),
        denied=pick([False, True]), denied_reason=pick([None, "no"]), provider=pick([None, "", "mcp"]),
        index=pick([None, 0, 3]), metadata=pick([{}, {"span_id": "s1"}, {"span_id": "s2", "x": 1}]),
    )
    return SpanCall(fields=list(attrs.astuple(call, recurse=False)), convention=pick(["genai", "mcp"]), start_ns=pick([None, 0, 5, 9]),
                    order=rng.randint(0, 9), trace_id=pick([None, "t"]), span_id=pick([None, "s1"]),
                    parent_id=pick([None, "p"]))


def test_a_merged_call_is_what_evolve_builds() -> None:
    rng = random.Random(5)
    for _ in range(3000):
        outer, mcp = random_span_call(rng), random_span_call(rng)
        fast = _merge(outer, mcp)
        slow = evolved(outer, fast)
        assert repr(fast) == repr(slow) and repr(fast.call) == repr(slow.call)
        assert fast.call.metadata == {**mcp.call.metadata, **outer.call.metadata,
                                      "merged_mcp_span": mcp.call.metadata.get("span_id")}


def test_the_fixture_with_mcp_and_genai_spans_merges_them() -> None:
    from toolscore_core.kernel.traces import load_trace_file

    trace = load_trace_file(FIXTURES / "mcp_spans.json")
    merged = [c for c in trace.calls if "merged_mcp_span" in c.metadata]
    assert merged and merged[0].id == "call_read_1" and merged[0].result == "- buy milk"


def reference_first_str(attributes: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    texts = (attributes.get(key) for key in keys)
    return next((text.strip() for text in texts if isinstance(text, str) and text.strip()), None)


def reference_first_key(attributes: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    return next((key for key in keys if attributes.get(key) is not None), None)


def test_first_key_and_string_are_the_plain_loops_on_random_attributes() -> None:
    rng = random.Random(9)
    lists = (otel_calls.TOOL_NAME_KEYS, otel_calls.CALL_ID_KEYS, otel_calls.ARGUMENT_KEYS, otel_calls.RESULT_KEYS,
             otel_calls.PROVIDER_KEYS)
    names = [k for keys in lists for k in keys] + ["other", "gen_ai.operation.name", "tool"]
    for _ in range(5000):
        attributes = {rng.choice(names): rng.choice([None, "", "  ", " x ", "v", 1, {"a": 1}])
                      for _ in range(rng.randint(0, 6))}
        for keys in (*lists, ("args", "other"), ()):  # a tuple not among the module's lists too
            assert _first_str(attributes, keys, frozenset(keys)) == reference_first_str(attributes, keys)
            assert _first_text(attributes, keys) == reference_first_str(attributes, keys)
            assert _first_key(attributes, keys) == reference_first_key(attributes, keys)
