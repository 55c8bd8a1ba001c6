"""Fuzz the protocol adapters with inputs shaped like their formats (random JSON rarely gets
past the first check): detect() never raises, load() raises nothing but InputError."""

from __future__ import annotations

import contextlib
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolscore_adapters.protocols.jsonrpc import JsonRpcAdapter
from toolscore_adapters.protocols.mcp_session import McpSessionAdapter
from toolscore_adapters.protocols.otel import OtelAdapter
from toolscore_core import InputError

SETTINGS = settings(max_examples=int(os.environ.get("TOOLSCORE_FUZZ_EXAMPLES", "60")), deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=12))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)), max_leaves=8)
keys = st.sampled_from([
    "gen_ai.operation.name", "gen_ai.tool.name", "gen_ai.tool.call.id", "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result", "error.type", "mcp.method.name", "openinference.span.kind", "tool.name",
    "input.value", "input.mime_type", "ai.toolCall.name", "ai.toolCall.args", "tool_arguments", "x",
    "gen_ai.output.messages", "gen_ai.input.messages", "ai.response.text",
])
attribute_values = st.one_of(
    st.fixed_dictionaries({"stringValue": st.one_of(st.sampled_from(
        ["execute_tool", "tools/call", "TOOL", "tool_error", "{}", '{"a": 1}', "[1]", "{bad", "",
         '[{"role": "assistant", "parts": [{"type": "tool_call", "id": " c1", "name": "t", "arguments": "{}"}]}]',
         '[{"parts": [{"type": "tool_call_response", "id": 3, "response": 1}, {"type": "text", "content": 2}]}]',
         '[{"parts": [{"type": "tool_call", "name": "t", "arguments": "[1]"}, {"type": "tool_call", "name": ""}]}]']),
        st.text(max_size=10))}),
    st.fixed_dictionaries({"intValue": st.one_of(st.integers(), st.text(max_size=5))}),
    st.fixed_dictionaries({"doubleValue": st.one_of(st.floats(), st.sampled_from(["NaN", "x"]))}),
    st.fixed_dictionaries({"boolValue": st.booleans()}),
    st.fixed_dictionaries({"kvlistValue": st.fixed_dictionaries({"values": st.lists(
        st.fixed_dictionaries({"key": st.text(max_size=5), "value": st.fixed_dictionaries({"stringValue": st.text(max_size=5)})}),
        max_size=2)})}),
    json_values,
)
attributes = st.lists(st.fixed_dictionaries({"key": st.one_of(keys, scalars), "value": attribute_values}), max_size=6)
ids = st.one_of(st.none(), st.sampled_from(["FxDPUyesQ1o=", "0102030405060708", "zz", ""]), st.integers())
times = st.one_of(st.none(), st.integers(min_value=-5, max_value=10**19), st.text(max_size=6))
spans = st.fixed_dictionaries(
    {"attributes": st.one_of(attributes, json_values)},
    optional={"name": st.one_of(st.sampled_from(["execute_tool x", "tools/call", "ai.toolCall", "running tool"]), scalars),
              "spanId": ids, "parentSpanId": ids, "traceId": ids, "startTimeUnixNano": times,
              "endTimeUnixNano": times, "kind": scalars,
              "status": st.one_of(json_values, st.fixed_dictionaries({"code": st.sampled_from([0, 1, 2, 7, "STATUS_CODE_ERROR", "x"])}, optional={"message": scalars})),
              "events": st.one_of(json_values, st.lists(st.fixed_dictionaries({"name": st.just("exception"), "attributes": attributes}), max_size=2))},
)
requests = st.fixed_dictionaries({"resourceSpans": st.lists(st.fixed_dictionaries(
    {"scopeSpans": st.one_of(st.lists(st.fixed_dictionaries({"spans": st.lists(spans, max_size=4)}), max_size=2), json_values)}),
    max_size=2)})


def _check(adapter: Any, data: Any) -> None:
    score = adapter.detect(data)
    assert 0.0 <= score <= 1.0
    with contextlib.suppress(InputError):  # any other exception fails the test
        adapter.load(data)


@pytest.mark.slow
@SETTINGS
@given(st.one_of(requests, st.lists(requests, max_size=2), st.lists(spans, max_size=3), json_values))
def test_otel_adapter_survives_otlp_shaped_input(data: Any) -> None:
    _check(OtelAdapter(), data)


messages = st.fixed_dictionaries(
    {"jsonrpc": st.sampled_from(["2.0", "1.0"])},
    optional={"id": st.one_of(st.integers(0, 3), st.text(max_size=2), st.none(), st.lists(st.integers(), max_size=1)),
              "method": st.one_of(st.sampled_from(["tools/call", "tools/list", "initialize"]), scalars),
              "params": st.one_of(st.fixed_dictionaries({}, optional={"name": scalars, "arguments": json_values}), json_values),
              "result": st.one_of(json_values, st.fixed_dictionaries({"content": st.lists(json_values, max_size=2)},
                                                                    optional={"isError": scalars, "structuredContent": json_values})),
              "error": json_values},
)
wrapped = st.fixed_dictionaries({"dir": st.sampled_from(["c2s", "s2c", "up"]), "msg": messages},
                                optional={"t": scalars})
calls = st.fixed_dictionaries({}, optional={
    "id": scalars, "tool": scalars, "args": json_values, "result": json_values, "is_error": scalars,
    "error": scalars, "duration": scalars, "requested_at": scalars})
events = st.one_of(wrapped, st.fixed_dictionaries({"call": st.one_of(calls, json_values)}, optional={"t": scalars}),
                   st.fixed_dictionaries({"raw": st.text(max_size=5)}), json_values)
headers = st.fixed_dictionaries({"toolscore_record": st.just("mcp-session"), "version": st.one_of(st.just(1), scalars)})


@pytest.mark.slow
@SETTINGS
@given(st.one_of(st.lists(st.one_of(messages, wrapped, st.lists(messages, max_size=2)), max_size=6), messages, json_values))
def test_jsonrpc_adapter_survives_message_shaped_input(data: Any) -> None:
    _check(JsonRpcAdapter(), data)


@pytest.mark.slow
@SETTINGS
@given(st.one_of(st.tuples(headers, st.lists(events, max_size=6)).map(lambda hv: [hv[0], *hv[1]]), headers, json_values))
def test_mcp_session_adapter_survives_session_shaped_input(data: Any) -> None:
    _check(McpSessionAdapter(), data)
