"""The ``jsonrpc`` adapter on raw traffic recorded from the real server-memory (make_fixtures_mcp.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from toolscore_adapters.protocols.jsonrpc import JsonRpcAdapter
from toolscore_adapters.protocols.mcp_session import McpSessionAdapter
from toolscore_core import InputError
from toolscore_core.kernel.traces import load_trace_file

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "mcp"
OUTCOMES = [
    ("create_entities", False), ("create_relations", False), ("search_nodes", False),
    ("open_nodes", True), ("teleport", True), ("search_nodes", True), ("read_graph", False),
]


def _messages() -> list[dict[str, Any]]:
    return json.loads((FIXTURES / "memory_traffic.json").read_text(encoding="utf-8"))


def _essence(trace: Any) -> list[tuple[Any, ...]]:
    return [(c.id, c.tool, c.args, c.result, c.structured_result, c.is_error, c.error) for c in trace]


@pytest.mark.parametrize("name", ["memory_traffic.json", "memory_traffic.jsonl", "memory_traffic_dir.jsonl"])
def test_every_shape_is_detected_and_reads_the_same_calls(name: str, adapter_pm: Any) -> None:
    trace = load_trace_file(FIXTURES / name, pm=adapter_pm)
    assert trace.source_format == "jsonrpc"
    assert [(c.tool, c.is_error) for c in trace] == OUTCOMES
    assert _essence(trace) == _essence(JsonRpcAdapter().load(_messages()))


def test_same_calls_as_the_recorded_session() -> None:
    session = [json.loads(line) for line in (FIXTURES / "memory_session.jsonl").read_text(encoding="utf-8").splitlines()]
    assert _essence(JsonRpcAdapter().load(_messages())) == _essence(McpSessionAdapter().load(session))


def test_only_tools_call_requests_are_calls() -> None:
    messages = _messages()
    requests = [m for m in messages if "method" in m]
    assert sum(m["method"] == "tools/call" for m in requests) == 7 < len(requests)
    trace = JsonRpcAdapter().load(messages)
    assert len(trace) == 7 and trace.metadata["answered"] == 7
    no_calls = [m for m in messages if m.get("method") != "tools/call"
                and m.get("id") not in {r["id"] for r in requests if r["method"] == "tools/call"}]
    assert len(JsonRpcAdapter().load(no_calls)) == 0  # initialize, tools/list, ping, notifications


def test_errors_isError_and_json_rpc_error() -> None:
    trace = JsonRpcAdapter().load(_messages())
    assert trace[4].error == "MCP error -32602: Tool teleport not found"
    rpc_error = trace[5]
    assert rpc_error.is_error is True and rpc_error.metadata["jsonrpc_error_code"] == -32603
    assert rpc_error.args is None and rpc_error.metadata["raw_arguments"] == "Ada"


def test_an_unanswered_request_is_unknown() -> None:
    messages = [m for m in _messages() if not (m.get("id") == 8 and "result" in m)]
    trace = JsonRpcAdapter().load(messages)
    assert trace[-1].tool == "read_graph" and trace[-1].is_error is None and trace[-1].result is None
    assert trace.metadata["answered"] == 6


def test_server_requests_with_the_same_id_do_not_answer_a_call() -> None:
    lines = [json.loads(line) for line in (FIXTURES / "memory_traffic_dir.jsonl").read_text(encoding="utf-8").splitlines()]
    at = next(i for i, e in enumerate(lines) if e["msg"].get("id") == 4 and "result" in e["msg"])
    # the server asks the client for its roots with its own id 4; the client answers it
    server_request = {"dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 4, "method": "roots/list"}}
    client_answer = {"dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 4, "result": {"roots": []}}}
    mixed = [*lines[:at], server_request, client_answer, *lines[at:]]
    assert _essence(JsonRpcAdapter().load(mixed)) == _essence(JsonRpcAdapter().load(lines))


def test_batched_messages_are_paired() -> None:
    messages = _messages()
    first_call = next(i for i, m in enumerate(messages) if m.get("method") == "tools/call")
    batched = [*messages[:first_call], [messages[first_call], messages[first_call + 1]], *messages[first_call + 2:]]
    assert _essence(JsonRpcAdapter().load(batched)) == _essence(JsonRpcAdapter().load(messages))


def test_detection_leaves_other_formats_alone() -> None:
    adapter = JsonRpcAdapter()
    assert adapter.detect(_messages()) == 0.9
    session = [json.loads(line) for line in (FIXTURES / "memory_session.jsonl").read_text(encoding="utf-8").splitlines()]
    for other in ([], {}, session, [{"tool": "x", "args": {}}], {"resourceSpans": []}, "jsonrpc", None,
                  [{"jsonrpc": "1.0", "method": "x"}]):
        assert adapter.detect(other) == 0.0


def test_bad_messages_are_input_errors_with_their_place() -> None:
    messages = copy.deepcopy(_messages())
    call = next(m for m in messages if m.get("method") == "tools/call")
    del call["params"]["name"]
    with pytest.raises(InputError, match=r"does not name its tool"):
        JsonRpcAdapter().load(messages)
    with pytest.raises(InputError, match=r"\$\[1\].*not a JSON-RPC 2.0 message"):
        JsonRpcAdapter().load([_messages()[0], {"hello": "world"}])
    with pytest.raises(InputError, match="not a list of JSON-RPC messages"):
        JsonRpcAdapter().load("tools/call")


def test_json_lines_traffic_is_streamed_and_errors_name_the_line(tmp_path: Path, adapter_pm: Any) -> None:
    adapter = JsonRpcAdapter()
    for name in ("memory_traffic.jsonl", "memory_traffic_dir.jsonl"):
        path = FIXTURES / name
        assert adapter.detect_path(path, path.read_bytes()[:65536]) == 0.9
        trace = adapter.load_path(path)
        assert _essence(trace) == _essence(JsonRpcAdapter().load(_messages()))
        assert trace.metadata["messages"] == len(_messages())
    listed = FIXTURES / "memory_traffic.json"  # a JSON list: parsed whole, not streamed
    assert adapter.detect_path(listed, listed.read_bytes()[:65536]) == 0.0
    lines = (FIXTURES / "memory_traffic_dir.jsonl").read_text(encoding="utf-8").splitlines()
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join([*lines[:3], '{"dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 2, "method": "tools/call"}}',
                                 *lines[3:]]) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_trace_file(broken, pm=adapter_pm)
    assert "line 4, msg" in str(err.value) and "no 'params' object" in str(err.value) and str(broken) in str(err.value)


def test_only_a_first_line_holding_an_object_is_parsed_for_detection() -> None:
    from toolscore_adapters.protocols.jsonl_stream import first_line

    message = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}'
    assert first_line(b"\xef\xbb\xbf \n " + message + b"\n[1]") == {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    assert first_line(b"[" + message + b"]") is None  # a JSON array trace: some other adapter's
    assert first_line(message[:-1]) is None and first_line(b"") is None and first_line(b'"text"\n') is None
