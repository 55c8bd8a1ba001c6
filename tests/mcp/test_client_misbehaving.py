"""Servers that hang, crash, print garbage, flood or exit early: every one is reported,
none hangs the client (wall time is bounded), and every process is reaped."""

from __future__ import annotations

import json
import time

import pytest

from toolscore_mcp.client import MCPStdioClient
from toolscore_mcp.errors import MCPConnectionError, MCPProtocolError


def test_a_tool_that_never_answers_costs_only_its_timeout(misbehaving, is_gone) -> None:
    started = time.monotonic()
    client = MCPStdioClient(misbehaving("hang"), timeout=5, close_grace=0.3)
    with client:
        outcome = client.call_tool("echo", {"text": "hi"}, timeout=0.5)
        assert outcome.timed_out and outcome.is_error is None and outcome.result is None
        assert 0.5 <= outcome.duration < 1.5
        # the request was cancelled, and the session still works
        assert client.list_tools()[0]["name"] == "echo"
        pid = client.pid
    # the server ignores EOF and SIGTERM: close() escalates to SIGKILL
    assert is_gone(pid)
    assert time.monotonic() - started < 6


def test_a_timed_out_request_is_cancelled(misbehaving) -> None:
    with MCPStdioClient(misbehaving("hang"), timeout=5, close_grace=0.2) as client:
        outcome = client.call_tool("echo", {"text": "hi"}, timeout=0.3)
        assert outcome.timed_out
        client.request("ping", timeout=2)  # the server has read everything sent before
        time.sleep(0.1)
        cancelled = [line for line in client.stderr_text.splitlines() if "notifications/cancelled" in line]
        assert len(cancelled) == 1
        assert json.loads(cancelled[0].split(" ", 2)[2])["requestId"] == 3  # 1 server/discover, 2 initialize


def test_a_late_answer_to_a_cancelled_request_is_dropped(misbehaving) -> None:
    with MCPStdioClient(misbehaving("slow"), timeout=5) as client:
        outcome = client.call_tool("wait", {"seconds": 1.5}, timeout=0.3)
        assert outcome.timed_out
        # the late answer arrives while the next call waits: it must not be taken for it
        after = client.call_tool("echo", {"text": "after"})
        assert after.result["content"][0]["text"] == "after"
        assert client.late_responses == 1


def test_a_crash_mid_call_is_reported_as_crashed(misbehaving, is_gone) -> None:
    with MCPStdioClient(misbehaving("crash"), timeout=5) as client:
        started = time.monotonic()
        outcome = client.call_tool("echo", {"text": "hi"})
        assert outcome.crashed and outcome.result is None and outcome.is_error is None
        assert "exited with code 3" in (outcome.error or "")
        assert time.monotonic() - started < 2
        assert not client.alive
        assert "simulated crash" in client.stderr_text
        pid = client.pid
    assert is_gone(pid)


def test_garbage_and_invalid_utf8_on_stdout_are_tolerated_and_reported(misbehaving) -> None:
    with MCPStdioClient(misbehaving("garbage"), timeout=5) as client:
        outcome = client.call_tool("echo", {"text": "still works ✓"})
        assert outcome.ok and outcome.result["content"][0]["text"] == "still works ✓"
        assert client.noise_count >= 6
        assert any("not JSON" in line for line in client.noise)
        assert any("\ufffd" in line for line in client.noise)  # invalid UTF-8, replaced
        assert [n["method"] for n in client.notifications] == ["notifications/message"]


def test_a_5_mb_result_arrives_whole(misbehaving) -> None:
    with MCPStdioClient(misbehaving("big"), timeout=10) as client:
        outcome = client.call_tool("echo", {"text": "x"})
        assert outcome.ok
        assert len(outcome.result["content"][0]["text"]) == 5 * 1024 * 1024


def test_a_flood_of_junk_lines_is_counted_not_kept(misbehaving) -> None:
    with MCPStdioClient(misbehaving("flood"), timeout=10) as client:
        outcome = client.call_tool("echo", {"text": "after the flood"})
        assert outcome.ok
        assert client.noise_count == 20000
        assert len(client.noise) == 50


def test_a_server_that_exits_before_initialize_is_a_clear_error(misbehaving, is_gone) -> None:
    client = MCPStdioClient(misbehaving("early-exit"), timeout=5)
    started = time.monotonic()
    with pytest.raises(MCPConnectionError) as info, client:
        pass
    message = str(info.value)
    assert "exited with code 1 before answering" in message
    assert "missing configuration file settings.toml" in message  # its stderr, quoted
    assert time.monotonic() - started < 5
    assert client.process is None


def test_a_command_that_does_not_exist_is_a_clear_error() -> None:
    with pytest.raises(MCPConnectionError, match="command not found: no-such-mcp-server-xyz"):
        MCPStdioClient("no-such-mcp-server-xyz --flag").start()


def test_pagination_is_followed_and_a_cursor_loop_is_an_error(misbehaving) -> None:
    with MCPStdioClient(misbehaving("pages"), timeout=5) as client:
        assert [t["name"] for t in client.list_tools()] == [
            "tool_0_0", "tool_0_1", "tool_1_0", "tool_1_1", "tool_2_0", "tool_2_1"]
    with MCPStdioClient(misbehaving("loop-pages"), timeout=5) as client, \
            pytest.raises(MCPProtocolError, match="repeats the cursor"):
        client.list_tools()


def test_server_to_client_requests_are_answered(misbehaving, tmp_path) -> None:
    roots = [{"uri": tmp_path.as_uri(), "name": "tmp"}]
    with MCPStdioClient(misbehaving("ask-client"), timeout=5, roots=roots) as client:
        outcome = client.call_tool("echo", {"text": "x"})
        replies = json.loads(outcome.result["content"][0]["text"])
        assert replies["ping"] == {"jsonrpc": "2.0", "id": "srv-1", "result": {}}
        assert replies["roots"]["result"] == {"roots": roots}
        assert replies["sampling"]["error"]["code"] == -32601
        assert [r["method"] for r in client.server_requests] == ["ping", "roots/list", "sampling/createMessage"]


def test_a_result_that_is_not_an_object_is_a_protocol_error(misbehaving) -> None:
    with MCPStdioClient(misbehaving("bad-result"), timeout=5) as client:
        outcome = client.call_tool("echo", {"text": "x"})
        assert outcome.protocol_error and "not an object" in outcome.protocol_error
        assert not outcome.ok


def test_a_server_that_dies_on_the_discover_probe_is_restarted_for_the_handshake(misbehaving, is_gone) -> None:
    client = MCPStdioClient(misbehaving("strict"), timeout=5)
    with client:
        assert client.era == "handshake" and client.server_info["name"] == "misbehaving-strict"
        assert client.call_tool("echo", {"text": "second life"}).ok
        assert "unknown method" not in client.stderr_text  # the new process has not failed
        pid = client.pid
    assert is_gone(pid)
    with pytest.raises(MCPConnectionError, match="exited with code 4 before answering server/discover"):
        MCPStdioClient(misbehaving("strict"), timeout=5, era="modern").__enter__()


EXPECTED = {
    "hang": "timed_out", "slow": "timed_out", "crash": "crashed", "bad-result": "protocol_error",
    "garbage": "ok+noise", "flood": "ok+noise", "big": "ok",
}


@pytest.mark.parametrize("mode", sorted(EXPECTED))
def test_every_misbehaviour_is_reported_bounded_and_reaped(misbehaving, is_gone, mode: str) -> None:
    started = time.monotonic()
    client = MCPStdioClient(misbehaving(mode), timeout=5, close_grace=0.3)
    with client:
        outcome = client.call_tool("wait" if mode == "slow" else "echo", {"text": "x", "seconds": 10}, timeout=2)
        seen = {
            "timed_out": outcome.timed_out,
            "crashed": outcome.crashed,
            "protocol_error": bool(outcome.protocol_error),
            "ok+noise": outcome.ok and client.noise_count > 0,
            "ok": outcome.ok and client.noise_count == 0,
        }
        assert [name for name, flag in seen.items() if flag] == [EXPECTED[mode]], outcome
        pid = client.pid
    assert pid is not None and is_gone(pid)
    assert time.monotonic() - started < 8
