"""The ``mcp`` adapter on sessions recorded from the real server-memory (make_fixtures_mcp.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import toolscore_test_providers_support as S

from toolscore_adapters.protocols.mcp_session import McpSessionAdapter
from toolscore_core import InputError
from toolscore_core.kernel.traces import load_trace, load_trace_file

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "mcp"
SESSION = FIXTURES / "memory_session.jsonl"
OUTCOMES = [
    ("create_entities", False), ("create_relations", False), ("search_nodes", False),
    ("open_nodes", True), ("teleport", True), ("search_nodes", True), ("read_graph", False),
]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write(path: Path, items: list[Any]) -> Path:
    path.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8")
    return path


def _essence(trace: Any) -> list[tuple[Any, ...]]:
    return [(c.id, c.tool, c.args, c.result, c.structured_result, c.is_error, c.error) for c in trace]


def test_recorded_session_is_detected_from_its_header_and_reads_only_tool_calls(adapter_pm: Any) -> None:
    lines = _lines(SESSION)
    methods = [e["msg"].get("method") for e in lines[1:] if "msg" in e]
    assert {"initialize", "notifications/initialized", "tools/list", "ping", "prompts/list"} <= set(methods)
    assert McpSessionAdapter().detect_path(SESSION, SESSION.read_bytes()[:65536]) == 1.0
    trace = load_trace_file(SESSION, pm=adapter_pm)
    assert trace.source_format == "mcp"
    assert [(c.tool, c.is_error) for c in trace] == OUTCOMES
    assert len(trace) == methods.count("tools/call")
    assert trace.metadata["call_lines"] == 7 and trace.metadata["header"]["redacted"] is True


def test_results_errors_and_durations_come_from_the_call_lines() -> None:
    trace = McpSessionAdapter().load(_lines(SESSION))
    created = trace[0]
    assert created.args["entities"][1]["name"] == "Zürich"  # unicode survives
    assert created.structured_result["entities"][0]["name"] == "Ada"
    assert '"name": "Ada"' in created.result  # the text content block
    assert trace[3].error.startswith("MCP error -32602: Input validation error")
    assert trace[4].error == "MCP error -32602: Tool teleport not found"
    calls_by_id = {e["call"]["id"]: e["call"] for e in _lines(SESSION) if "call" in e}
    assert [c.duration for c in trace] == [calls_by_id[int(c.id)]["duration"] for c in trace]


def test_json_rpc_error_and_non_object_arguments() -> None:
    failed = McpSessionAdapter().load(_lines(SESSION))[5]
    assert failed.tool == "search_nodes" and failed.is_error is True
    assert failed.args is None and failed.metadata["raw_arguments"] == "Ada"
    assert '"invalid_type"' in failed.error


def test_messages_alone_rebuild_the_same_calls(tmp_path: Path) -> None:
    lines = _lines(SESSION)
    without_calls = _write(tmp_path / "s.jsonl", [e for e in lines if "call" not in e])
    adapter = McpSessionAdapter()
    assert _essence(adapter.load_path(without_calls)) == _essence(adapter.load(lines))
    calls_only = _write(tmp_path / "c.jsonl", [e for e in lines if "msg" not in e])
    assert _essence(adapter.load_path(calls_only)) == _essence(adapter.load(lines))


def test_a_call_cut_off_by_a_killed_relay_is_unknown_not_a_success() -> None:
    cut = McpSessionAdapter().load(_lines(FIXTURES / "memory_session_msgs_only.jsonl"))
    full = McpSessionAdapter().load(_lines(SESSION))
    assert _essence(cut)[:-1] == _essence(full)[:-1]
    last = cut[-1]
    assert (last.tool, last.is_error, last.result, last.error) == ("read_graph", None, None, None)
    assert not last.succeeded


def test_calls_are_ordered_by_request_time_not_line_order(tmp_path: Path) -> None:
    lines = _lines(SESSION)
    header, events = lines[0], lines[1:]
    shuffled = _write(tmp_path / "r.jsonl", [header, *reversed([e for e in events if "call" in e])])
    assert [(c.tool, c.is_error) for c in McpSessionAdapter().load_path(shuffled)] == OUTCOMES


def test_parsed_session_list_is_claimed_by_detect(adapter_pm: Any) -> None:
    lines = _lines(SESSION)
    assert McpSessionAdapter().detect(lines) == 1.0
    assert McpSessionAdapter().detect(lines[1:]) == 0.0
    assert [(c.tool, c.is_error) for c in load_trace(lines, pm=adapter_pm)] == OUTCOMES


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda ls: [{**ls[0], "version": 2}, *ls[1:]], "version 2 is not supported"),
        (lambda ls: [ls[0], {"t": 1, "dir": "sideways", "msg": ls[1]["msg"]}], "'dir' must be"),
        (lambda ls: [ls[0], {"t": 1, "call": {"args": {}}}], "call line has no tool name"),
        (lambda ls: [ls[0], {"t": 1, "note": "?"}], "none of msg, raw or call"),
        (lambda ls: [ls[0], ["not", "an", "event"]], "an event must be an object"),
    ],
)
def test_broken_sessions_are_input_errors_naming_the_line(tmp_path: Path, mutate: Any, message: str) -> None:
    path = _write(tmp_path / "bad.jsonl", mutate(_lines(SESSION)))
    with pytest.raises(InputError) as err:
        McpSessionAdapter().load_path(path)
    text = str(err.value)
    assert message in text
    assert ("at line 1" if "version" in message else "at line 2") in text
    assert str(path) in text


def test_truncated_empty_and_invalid_utf8_files(tmp_path: Path, adapter_pm: Any) -> None:
    text = SESSION.read_bytes()
    truncated = tmp_path / "truncated.jsonl"
    truncated.write_bytes(text[: len(text) - 40])
    cut = load_trace_file(truncated, pm=adapter_pm)  # read up to the last complete line (issue 8, item 21)
    assert len(cut) == len(load_trace_file(SESSION, pm=adapter_pm))
    assert "the last line is cut off" in cut.metadata["torn_tail"]
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(InputError, match="empty"):
        load_trace_file(empty, pm=adapter_pm)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(text.split(b"\n", 1)[0] + b"\n" + b'{"t": 1, "dir": "raw", "raw": "\xff\xfe"}\n')
    with pytest.raises(InputError, match="UTF-8") as err:
        load_trace_file(bad, pm=adapter_pm)
    assert "line 2" in str(err.value)


def test_raw_lines_are_counted_not_read_as_calls(tmp_path: Path) -> None:
    lines = _lines(SESSION)
    path = _write(tmp_path / "raw.jsonl", [lines[0], {"t": 0.01, "dir": "s2c", "raw": "Debugger listening"}, *lines[1:]])
    trace = McpSessionAdapter().load_path(path)
    assert trace.metadata["raw_lines"] == 1 and len(trace) == 7


def test_a_fresh_recording_of_the_real_server_reads_the_same(tmp_path: Path, adapter_pm: Any) -> None:
    module = S.fixture_script("make_fixtures_mcp.py")
    if shutil.which("node") is None or not module.MEMORY.exists():
        pytest.fail("node or server-memory is not installed (run `make servers`)")
    rec = module.record_memory_session()
    header = {"toolscore_record": "mcp-session", "version": 1, "started_at": "2026-12-02T12:00:00.000Z",
              "command": ["node", "server-memory"], "redacted": True}
    path = _write(tmp_path / "live.json", [header, *rec.events])  # .json suffix, JSONL content
    live = load_trace_file(path, pm=adapter_pm)
    assert live.source_format == "mcp"
    assert [(c.tool, c.args, c.is_error, c.error) for c in live] == [
        (c.tool, c.args, c.is_error, c.error) for c in McpSessionAdapter().load(_lines(SESSION))]


@pytest.mark.slow
def test_a_session_written_by_toolscore_mcp_record_reads_back(tmp_path: Path, adapter_pm: Any) -> None:
    """The writer of the format (the relay behind `toolscore mcp record`) and this reader agree,
    and pairing its messages alone gives the same calls as its `call` lines."""
    import sys

    from toolscore_mcp.client import MCPStdioClient

    module = S.fixture_script("make_fixtures_mcp.py")
    if shutil.which("node") is None or not module.MEMORY.exists():
        pytest.fail("node or server-memory is not installed (run `make servers`)")
    session = tmp_path / "session.json"
    relay = [sys.executable, "-m", "toolscore_core.cli", "mcp", "record", "-o", str(session), "--"]
    env_server = ["env", f"MEMORY_FILE_PATH={tmp_path / 'memory.jsonl'}", "node", str(module.MEMORY)]
    with MCPStdioClient([*relay, *env_server], timeout=20) as client:
        client.call_tool("create_entities", {"entities": [{"name": "Ada", "entityType": "person", "observations": []}]})
        client.call_tool("open_nodes", {"names": "Ada"})  # wrong type: the server answers isError
        client.call_tool("read_graph", {})
    trace = load_trace_file(session, pm=adapter_pm)
    assert trace.source_format == "mcp"
    assert [(c.tool, c.is_error) for c in trace] == [("create_entities", False), ("open_nodes", True), ("read_graph", False)]
    assert trace.metadata["call_lines"] == 3
    assert "Invalid arguments for tool open_nodes" in trace[1].error
    rebuilt = _write(tmp_path / "msgs.jsonl", [e for e in _lines(session) if "call" not in e])
    assert _essence(McpSessionAdapter().load_path(rebuilt)) == _essence(trace)
