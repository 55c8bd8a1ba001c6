"""The bundled sample server on the wire (raw JSON-RPC over a real pipe) and through our client:
its deliberate defects are there, and everything else behaves."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from toolscore_mcp.client import open_client
from toolscore_mcp.sample_server import TOOLS, SampleServer

SAMPLE = [sys.executable, "-m", "toolscore_mcp.sample_server"]


def exchange(lines: list[str | bytes]) -> list[dict[str, Any]]:
    """Send raw lines to a fresh server process, close stdin, read every reply."""
    payload = b"".join((line if isinstance(line, bytes) else line.encode("utf-8")) + b"\n" for line in lines)
    proc = subprocess.run(SAMPLE, input=payload, capture_output=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.decode("utf-8").splitlines()]


def request(rid: int, method: str, params: dict[str, Any] | None = None) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message, ensure_ascii=False)


def call(rid: int, name: str, arguments: Any) -> str:
    return request(rid, "tools/call", {"name": name, "arguments": arguments})


def test_handshake_list_and_exit_on_eof() -> None:
    replies = exchange([
        request(1, "initialize", {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t"}}),
        '{"jsonrpc": "2.0", "method": "notifications/initialized"}',
        request(2, "tools/list"),
        request(3, "ping"),
    ])
    assert [r["id"] for r in replies] == [1, 2, 3]  # the notification got no reply
    init = replies[0]["result"]
    assert init["serverInfo"] == {"name": "notes-server", "version": "1.0.0"}
    assert init["protocolVersion"] == "2024-11-05"
    names = [t["name"] for t in replies[1]["result"]["tools"]]
    assert names == ["create_note", "list_notes", "search_notes", "delete_note", "export_notes"]
    assert replies[2]["result"] == {}


def test_deliberate_defects() -> None:
    by_name = {t["name"]: t for t in TOOLS}
    assert len(by_name["search_notes"]["description"]) < 10
    assert "type" not in by_name["delete_note"]["inputSchema"]["properties"]["note_id"]
    replies = exchange([call(1, "export_notes", {"format": "markdown"}), call(2, "export_notes", {"format": "csv"})])
    for reply in replies:
        assert reply["result"]["isError"] is True
        assert reply["result"]["content"][0]["text"] == "export failed: storage backend not configured"


def test_notes_round_trip_with_unicode() -> None:
    replies = exchange([
        call(1, "create_note", {"title": "Grüße 🙂", "body": "fête au café"}),
        call(2, "create_note", {"title": "second"}),
        call(3, "search_notes", {"query": "CAFÉ"}),
        call(4, "list_notes", {"limit": 1}),
        call(5, "delete_note", {"note_id": "n1"}),
        call(6, "delete_note", {"note_id": "n1", "purge": True}),
        call(7, "list_notes", {}),
    ])
    results = {r["id"]: r["result"] for r in replies}
    assert results[1]["structuredContent"] == {"id": "n1"}
    assert [h["title"] for h in results[3]["structuredContent"]["hits"]] == ["Grüße 🙂"]
    assert [n["title"] for n in results[4]["structuredContent"]["notes"]] == ["second"]
    assert results[5]["structuredContent"] == {"deleted": 1}
    assert results[6]["structuredContent"] == {"deleted": 0}  # deleting twice is a no-op, not an error
    assert results[7]["structuredContent"]["total"] == 1
    assert all(r["isError"] is False for key, r in results.items())


def test_invalid_input_is_refused_cleanly() -> None:
    replies = exchange([
        call(1, "create_note", {}),
        call(2, "create_note", {"title": 5}),
        call(3, "create_note", {"title": "x" * 201}),
        call(4, "list_notes", {"limit": 0}),
        call(5, "list_notes", {"limit": True}),
        call(6, "export_notes", {"format": "pdf"}),
        call(7, "delete_note", {"note_id": None}),
        call(8, "create_note", {"title": "t", "surprise": 1}),
        call(9, "create_note", ["not", "an", "object"]),
    ])
    for reply in replies:
        assert reply["result"]["isError"] is True, reply
        assert reply["result"]["content"][0]["text"].startswith("invalid arguments: ")
    assert "missing required argument 'title'" in replies[0]["result"]["content"][0]["text"]


def test_protocol_errors() -> None:
    replies = exchange([
        call(1, "no_such_tool", {}),
        request(2, "resources/list"),
        "this is not json",
        b'{"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"x": "\xff"}}',
        '{"id": 4, "method": "ping"}',
    ])
    assert replies[0]["error"]["code"] == -32602
    assert replies[1]["error"]["code"] == -32601
    assert replies[2] == {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}}
    assert replies[3]["result"] == {}  # invalid UTF-8 inside a string is replaced, not fatal
    assert replies[4]["error"]["code"] == -32600


def test_handle_is_usable_in_process() -> None:
    server = SampleServer()
    assert server.handle({"jsonrpc": "2.0", "method": "notifications/initialized"}) is None
    reply = server.handle({"jsonrpc": "2.0", "id": "a", "method": "tools/call",
                           "params": {"name": "create_note", "arguments": {"title": "t"}}})
    assert reply is not None and reply["result"]["structuredContent"] == {"id": "n1"}


def test_through_our_client_in_both_eras_fallback() -> None:
    with open_client(SAMPLE, timeout=10) as client:
        assert client.era == "handshake"  # it does not speak 2026-07-28: the client fell back
        definition = client.server_definition()
        outcome = client.call_tool("export_notes", {"format": "json"}, timeout=5)
    assert (definition.name, definition.version) == ("notes-server", "1.0.0")
    assert len(definition.tools) == 5
    assert outcome.is_error is True and outcome.error == "export failed: storage backend not configured"
