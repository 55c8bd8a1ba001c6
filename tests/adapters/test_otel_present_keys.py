"""``span_call`` asks a span only about the probed keys it holds (``otel_calls._present``,
remembered by the span's key list) instead of testing each key list for disjointness and
looking each key up: these tests hold the calls it makes to the written rules (the first key
of a list with a value, the first non-blank text), on random spans and across the cache."""

from __future__ import annotations

import random
from typing import Any

import pytest

from toolscore_adapters.protocols import otel_calls
from toolscore_adapters.protocols.otel_calls import (
    ARGUMENT_KEYS,
    CALL_ID_KEYS,
    PROVIDER_KEYS,
    RESULT_KEYS,
    SpanCall,
    span_call,
)
from toolscore_adapters.protocols.otel_spans import Span
from toolscore_core import InputError

_METADATA_KEYS = ("jsonrpc.request.id", "mcp.session.id", "gen_ai.tool.type", "rpc.response.status_code")
_POOL = [*ARGUMENT_KEYS, *RESULT_KEYS, *CALL_ID_KEYS, *PROVIDER_KEYS, *_METADATA_KEYS,
         "other", "network.transport", "error.type", "gen_ai.request.model"]
_VALUES: list[Any] = [None, "", "  ", " id-7 ", "text", '{"a": 1}', "{not json", "[1]", {}, {"b": 2}, 3, True]


def _first_key(attributes: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    return next((key for key in keys if attributes.get(key) is not None), None)


def _first_text(attributes: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    texts = (attributes.get(key) for key in keys)
    return next((text.strip() for text in texts if isinstance(text, str) and text.strip()), None)


def _random_span(rng: random.Random) -> Span:
    attributes: dict[str, Any] = {}
    if rng.random() < 0.5:
        attributes["mcp.method.name"] = "tools/call"
    else:
        attributes["gen_ai.operation.name"] = "execute_tool"
    attributes["gen_ai.tool.name"] = "read"
    for key in rng.sample(_POOL, rng.randint(0, 8)):
        attributes[key] = rng.choice(_VALUES)
    if rng.random() < 0.05:  # more attributes than a remembered key list has
        attributes.update((f"filler.{i}", i) for i in range(otel_calls._LONGEST_REMEMBERED))
    keys = list(attributes)
    rng.shuffle(keys)  # the same keys in other orders: other key lists to remember
    attributes = {key: attributes[key] for key in keys}
    return Span("tools/call read", attributes, "a" * 32, "b" * 16, None, 1_000, 2_000, rng.choice([0, 1, 2]),
                None, (), rng.randint(0, 9), "$")


def _check(span: Span) -> None:
    """span_call's answer for ``span`` against the written rules for the keys it probes."""
    a = span.attributes
    argument_key = _first_key(a, ARGUMENT_KEYS)
    if argument_key is not None and type(a[argument_key]) not in (dict, str):
        with pytest.raises(InputError, match="tool-call arguments must be an object"):
            span_call(span)
        return
    call = span_call(span)
    assert isinstance(call, SpanCall)
    fields = call.fields
    assert fields[otel_calls.ID] == _first_text(a, CALL_ID_KEYS)
    assert fields[otel_calls.PROVIDER] == _first_text(a, PROVIDER_KEYS)
    metadata = fields[otel_calls.METADATA]
    assert {k: metadata[k] for k in _METADATA_KEYS if k in metadata} == {
        k: a[k] for k in _METADATA_KEYS if a.get(k) is not None}
    if argument_key is None:
        assert fields[otel_calls.ARGS] is None and "raw_arguments" not in metadata
    elif type(a[argument_key]) is dict:
        assert fields[otel_calls.ARGS] is a[argument_key]
    elif "raw_arguments" in metadata:
        assert metadata["raw_arguments"] == a[argument_key]
    result_key = _first_key(a, RESULT_KEYS)
    if result_key is None:
        assert fields[otel_calls.RESULT] is None
    elif not (isinstance(a[result_key], str) and a[result_key].startswith("{")):
        assert fields[otel_calls.RESULT] == a[result_key]


def test_random_spans_are_read_by_the_written_rules_with_and_without_a_remembered_plan() -> None:
    rng = random.Random(23)
    for i in range(4000):
        span = _random_span(rng)
        if i % 50 == 0:
            otel_calls._PLANS.clear()  # else plans made for other spans are asked too
        _check(span)
        _check(span)  # the plan remembered (if it was not already)
        values = {key: rng.choice(_VALUES) for key in span.attributes}  # same keys, other values
        values["gen_ai.tool.name"] = "read"
        values.update((k, v) for k, v in span.attributes.items() if k in ("mcp.method.name", "gen_ai.operation.name"))
        _check(Span(span.name, values, span.trace_id, span.span_id, None, 1_000, 2_000, 0, None, (), 0, "$"))


def test_the_remembered_plans_stay_bounded_and_right() -> None:
    rng = random.Random(29)
    otel_calls._PLANS.clear()
    for i in range(otel_calls._MAX_PLANS * 2 + 7):
        span = _random_span(rng)
        span.attributes[f"unique.{i}"] = i  # a key list never seen before
        _check(span)
        assert len(otel_calls._PLANS) <= otel_calls._MAX_PLANS


def test_long_keys_are_remembered_within_a_character_budget() -> None:
    """A file's attribute keys are hostile: remembered key lists never hold more than the budget's
    characters of them, and a list alone over the budget is answered but not kept."""
    rng = random.Random(30)
    otel_calls._PLANS.clear()
    otel_calls._planned_chars[0] = 0
    for i in range(40):
        span = _random_span(rng)
        span.attributes[f"{i}." + "k" * 100_000] = i  # 100 kB keys: the budget holds about ten lists
        _check(span)
        kept = sum(len(key) for keys in otel_calls._PLANS for key in keys)
        assert kept <= otel_calls._MAX_PLANNED_CHARS
        assert otel_calls._planned_chars[0] == kept
    assert 1 <= len(otel_calls._PLANS) <= otel_calls._MAX_PLANNED_CHARS // 100_000
    huge = _random_span(rng)
    huge.attributes["h" * (otel_calls._MAX_PLANNED_CHARS + 1)] = 1
    _check(huge)
    assert all(len(key) <= otel_calls._MAX_PLANNED_CHARS for keys in otel_calls._PLANS for key in keys)
