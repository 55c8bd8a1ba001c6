"""The model round-trips through JSON and keeps unknown as None."""

from __future__ import annotations

import json

from toolscore_core.kernel.model import (
    Contract,
    ExpectedCall,
    Finding,
    ForbiddenRule,
    ServerDefinition,
    ToolCall,
    ToolDefinition,
    Trace,
    from_json_data,
    to_json_data,
)


def roundtrip(obj):
    data = json.loads(json.dumps(to_json_data(obj)))
    return from_json_data(data, type(obj))


def test_toolcall_roundtrip_keeps_every_field():
    call = ToolCall(tool="read_file", args={"path": "a.txt", "n": [1, 2]}, id="c1", result="hi",
                    is_error=False, duration=0.25, provider="openai", metadata={"k": "v"})
    assert roundtrip(call) == call


def test_unknown_outcome_stays_none_and_is_not_success():
    call = ToolCall(tool="x")
    assert call.is_error is None
    assert not call.succeeded
    assert roundtrip(call).is_error is None


def test_toolcall_mapping_access_matches_attributes():
    call = ToolCall(tool="t", args={"a": 1}, is_error=True, error="boom")
    assert call["tool"] == "t" and call["args"] == {"a": 1}
    assert call["is_error"] is True and call["error"] == "boom"
    assert "tool" in call


def test_trace_and_contract_roundtrip():
    trace = Trace(calls=[ToolCall(tool="a"), ToolCall(tool="b", args=None)], final_answer="done",
                  source_format="custom")
    assert roundtrip(trace) == trace
    assert roundtrip(trace).calls[1].args is None
    contract = Contract(expected=[ExpectedCall(tool="a", args={"x": 1}), ExpectedCall(tool="b")],
                        forbidden=[ForbiddenRule(tool="rm", reason="no")], weights={"selection_accuracy": 1.0},
                        min_score=0.9, mode="strict")
    assert roundtrip(contract) == contract


def test_finding_and_server_roundtrip():
    finding = Finding(severity="error", code="x-y", message="m", call_index=2, evidence="AKIA…LE")
    assert roundtrip(finding) == finding
    server = ServerDefinition(name="s", version="1", tools=[ToolDefinition(name="t", input_schema={"type": "object"})])
    assert roundtrip(server) == server
    assert server.tool_names() == ["t"]
