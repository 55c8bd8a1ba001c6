"""The Streamable HTTP client against server-everything, the Python SDK server (both eras)
and our own recording server (headers, SSE quirks, broken replies)."""

from __future__ import annotations

import time

import httpx
import pytest

from toolscore_mcp.client import MCPHttpClient, open_client
from toolscore_mcp.errors import MCPConnectionError


def test_everything_over_streamable_http(everything_http: str) -> None:
    with MCPHttpClient(everything_http, timeout=15) as client:
        assert client.era == "handshake" and client.protocol_version == "2025-11-25"
        assert client.session_id  # issued at initialize, sent afterwards
        assert client.server_info["name"] == "mcp-servers/everything"
        assert len(client.list_tools()) == 13
        echo = client.call_tool("echo", {"message": "über"})
        assert echo.ok and echo.result["content"][0]["text"] == "Echo: über"
        slow = client.call_tool("trigger-long-running-operation", {"duration": 0.3, "steps": 3},
                                meta={"progressToken": "p1"})
        assert slow.ok
        progress = [n for n in client.notifications if n["method"] == "notifications/progress"]
        assert [n["params"]["progress"] for n in progress] == [1, 2, 3]  # SSE events before the result
        invalid = client.call_tool("get-sum", {"a": "one"})
        assert invalid.is_error is True and "-32602" in (invalid.error or "")
        session = client.session_id
    # DELETE ended the session: the server no longer knows it
    reply = httpx.post(everything_http, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                       headers={"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25",
                                "Accept": "application/json, text/event-stream"})
    assert reply.status_code in (400, 404)


def test_python_sdk_server_over_http_modern_era(py_modern_http: str) -> None:
    with MCPHttpClient(py_modern_http, timeout=15) as client:
        assert client.era == "modern" and client.protocol_version == "2026-07-28"
        assert client.session_id is None  # the 2026 era is stateless
        # the server checks Mcp-Method / Mcp-Name against the body: a mismatch would be -32020
        added = client.call_tool("add", {"a": 20, "b": 22})
        assert added.ok and added.result["structuredContent"] == {"result": 42}
        unicode_name = client.call_tool("ünknown", {})
        assert unicode_name.is_error is True  # header base64-wrapped, so the server could compare it


def test_python_sdk_server_over_http_handshake_era(py_modern_http: str) -> None:
    with MCPHttpClient(py_modern_http, timeout=15, era="handshake") as client:
        assert client.era == "handshake" and client.session_id
        assert client.call_tool("echo", {"text": "hi"}).result["content"][0]["text"] == "hi"


def test_headers_session_and_sse_quirks(probe_http, monkeypatch) -> None:
    server, url = probe_http
    monkeypatch.setenv("PROBE_TOKEN", "Bearer s3cr3t")
    client = MCPHttpClient(url, headers={"X-Team": "qa"}, header_env={"Authorization": "PROBE_TOKEN"}, timeout=5)
    with client:
        assert client.era == "handshake"  # discover refused with HTTP 400: fallback
        assert client.server_info == {"name": "probe", "version": "9"}  # priming event skipped, CRLF parsed
        outcome = client.call_tool("echo", {"x": 1})
        assert outcome.ok and outcome.result["content"][0]["text"] == '{"x": 1}'
        assert client.notifications[-1]["method"] == "notifications/progress"
    seen = server.seen
    assert [s["message"].get("method") for s in seen] == [
        "server/discover", "initialize", "notifications/initialized", "tools/call"]
    call_headers = {k.lower(): v for k, v in seen[-1]["headers"].items()}
    assert call_headers["mcp-session-id"] == "probe-session-1"
    assert call_headers["mcp-protocol-version"] == "2025-11-25"
    assert call_headers["authorization"] == "Bearer s3cr3t"
    assert call_headers["x-team"] == "qa"
    assert "mcp-session-id" not in {k.lower() for k in seen[1]["headers"]}
    assert server.deleted == ["probe-session-1"]


def test_broken_replies_are_outcomes_not_exceptions(probe_http) -> None:
    _, url = probe_http
    with MCPHttpClient(url, timeout=5) as client:
        dropped = client.call_tool("drop", {})
        assert dropped.crashed and dropped.result is None
        started = time.monotonic()
        hung = client.call_tool("hang", {}, timeout=0.5)
        assert hung.timed_out and time.monotonic() - started < 2  # keep-alives don't extend it
        odd = client.call_tool("notjson", {})
        assert odd.protocol_error and "text/plain" in odd.protocol_error


def test_a_request_from_the_server_on_the_reply_stream_is_answered(probe_http, tmp_path) -> None:
    server, url = probe_http
    roots = [{"uri": tmp_path.as_uri(), "name": "tmp"}]
    with MCPHttpClient(url, timeout=5, roots=roots) as client:
        outcome = client.call_tool("ask", {})
        assert outcome.ok and outcome.result["content"][0]["text"] == "asked"
    answers = [s["message"] for s in server.seen if "method" not in s["message"]]
    assert answers == [{"jsonrpc": "2.0", "id": "srv-7", "result": {"roots": roots}}]
    init = next(s["message"] for s in server.seen if s["message"].get("method") == "initialize")
    assert init["params"]["capabilities"] == {"roots": {"listChanged": False}}


def test_a_missing_header_env_var_is_a_clear_error(probe_http, monkeypatch) -> None:
    _, url = probe_http
    monkeypatch.delenv("NO_SUCH_TOKEN_VAR", raising=False)
    with pytest.raises(MCPConnectionError, match="NO_SUCH_TOKEN_VAR"):
        MCPHttpClient(url, header_env={"Authorization": "NO_SUCH_TOKEN_VAR"}).start()


def test_connection_refused_is_a_clear_error(unused_port: int) -> None:
    started = time.monotonic()
    with pytest.raises(MCPConnectionError) as info, MCPHttpClient(f"http://127.0.0.1:{unused_port}/mcp", timeout=5):
        pass
    assert "connection refused" in str(info.value)
    assert time.monotonic() - started < 3


def test_open_client_picks_http_for_urls(everything_http: str) -> None:
    client = open_client(everything_http, timeout=15)
    assert isinstance(client, MCPHttpClient)


def test_roots_reach_the_server_over_the_standalone_get_stream(everything_http: str, tmp_path) -> None:
    """server-everything asks roots/list right after initialized, on the GET stream; its
    get-roots-list tool then shows what we answered."""
    roots = [{"uri": tmp_path.as_uri(), "name": "work-dir"}]
    started = time.monotonic()
    with MCPHttpClient(everything_http, timeout=15, roots=roots) as client:
        deadline = time.monotonic() + 5
        while not client.server_requests and time.monotonic() < deadline:
            time.sleep(0.05)
        assert client.listen_status == 200
        assert [r["method"] for r in client.server_requests] == ["roots/list"]
        shown = client.call_tool("get-roots-list", {})
        assert shown.ok and tmp_path.as_uri() in shown.result["content"][0]["text"]
    assert time.monotonic() - started < 10  # close() ends the GET stream promptly
