"""``toolscore mcp record`` run as a real subprocess in front of real servers: the bytes
pass unchanged both ways, the session file follows the format as it goes, credentials
are redacted, and killing the relay keeps every call already answered."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from toolscore_mcp.client import MCPStdioClient

pytestmark = pytest.mark.slow  # each test starts the relay (a Python CLI) and a server

RELAY = [sys.executable, "-m", "toolscore_core.cli", "mcp", "record"]
FAKE_AWS_KEY = "AKIAIOSFODNN7EXAMPLE"  # AWS's documented example key id, not a credential


def read_session(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_filesystem_session_like_the_readme_example(filesystem_command, tmp_path: Path, is_gone) -> None:
    project = tmp_path / "acme-api"
    (project / "config").mkdir(parents=True)
    (project / "config" / "settings.json").write_text('{"debug": false}')
    session = tmp_path / "session.json"
    relay = MCPStdioClient([*RELAY, "-o", str(session), "--", *filesystem_command(project)], timeout=20)
    with relay:
        assert relay.server_info["name"] == "secure-filesystem-server"  # through the relay
        assert len(relay.list_tools()) == 14
        denied = relay.call_tool("read_text_file", {"path": "/srv/acme-api/config/settings.json"})
        assert denied.is_error is True
        secret = relay.call_tool("search_files", {"path": str(project), "pattern": f"token={FAKE_AWS_KEY}"})
        assert secret.result is not None
        relay_pid = relay.pid
    assert relay.exit_code == 0  # the server's exit code, after stdin closed
    assert is_gone(relay_pid)
    events = read_session(session)
    header = events[0]
    assert header["toolscore_record"] == "mcp-session" and header["version"] == 1
    assert header["redacted"] is True and header["command"][0] == "node"
    assert header["started_at"].endswith("Z") and len(header["started_at"]) == 24
    methods = [e["msg"].get("method") for e in events if e.get("dir") == "c2s" and "msg" in e]
    assert methods[:4] == ["server/discover", "initialize", "notifications/initialized", "tools/list"]
    calls = [e["call"] for e in events if "call" in e]
    assert [c["tool"] for c in calls] == ["read_text_file", "search_files"]
    first = calls[0]
    assert first["is_error"] is True and "denied" in first["error"].lower()
    assert first["args"] == {"path": "/srv/acme-api/config/settings.json"}
    assert 0 <= first["duration"] < 5 and first["requested_at"] <= events[-1]["t"]
    assert first["result"]["isError"] is True
    text = session.read_text(encoding="utf-8")
    assert FAKE_AWS_KEY not in text and "AKIA…LE" in text
    assert calls[1]["args"]["pattern"] == "token=AKIA…LE"
    ts = [e["t"] for e in events[1:]]
    assert ts == sorted(ts)


def test_the_adapter_reads_the_session_back(filesystem_command, tmp_path: Path) -> None:
    from toolscore_core.kernel.plugins import PluginManager
    from toolscore_core.kernel.traces import load_trace

    session = tmp_path / "session.jsonl"
    with MCPStdioClient([*RELAY, "-o", str(session), "--", *filesystem_command(tmp_path)], timeout=20) as relay:
        relay.call_tool("list_allowed_directories", {})
        relay.call_tool("read_text_file", {"path": "/etc/hostname"})
    trace = load_trace(session, pm=PluginManager(autoload=True, strict=True))
    assert [c.tool for c in trace.calls] == ["list_allowed_directories", "read_text_file"]
    assert [c.is_error for c in trace.calls] == [False, True]


def test_bytes_pass_unchanged_both_ways(misbehaving, tmp_path: Path) -> None:
    raw_log = tmp_path / "server-received.bin"
    session = tmp_path / "s.jsonl"
    sent = (
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
        b'"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
        b'{ "jsonrpc" : "2.0", "method" : "notifications/initialized" }\r\n'   # spacing and CRLF kept
        b'\xff\xfe not utf-8 \xc3\x28 from the client\n'                           # invalid UTF-8 relayed
        b'{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":{"text":"caf\\u00e9 \xe2\x9c\x93"}}}\n'
    )
    proc = subprocess.run([*RELAY, "-o", str(session), "--", *misbehaving("garbage")], input=sent,
                          capture_output=True, timeout=30, env={**os.environ, "MISBEHAVING_RAW_LOG": str(raw_log)})
    assert proc.returncode == 0, proc.stderr
    assert raw_log.read_bytes() == sent  # client -> server: byte for byte
    out = proc.stdout
    # server -> client: its garbage, invalid UTF-8 included, arrives untouched around the answers
    assert out.count(b"\xff\xfe invalid utf-8 \xc3\x28\n") == 2
    assert out.startswith(b"starting up... this is not JSON\n")
    answers = [json.loads(line) for line in out.splitlines() if line.startswith(b'{"jsonrpc"')]
    assert [a.get("id") for a in answers] == [1, None, "a"]
    assert answers[2]["result"]["content"][0]["text"] == "café ✓"
    events = read_session(session)
    raws = [e for e in events if "raw" in e]
    assert {e["dir"] for e in raws} == {"c2s", "s2c"}
    assert any("\ufffd" in e["raw"] and "from the client" in e["raw"] for e in raws)
    call = next(e["call"] for e in events if "call" in e)
    assert call["id"] == "a" and call["is_error"] is False and call["result"]["content"][0]["text"] == "café ✓"


def test_killing_the_relay_keeps_answered_calls_and_unanswered_stay_unknown(misbehaving, tmp_path: Path, is_gone) -> None:
    session = tmp_path / "killed.jsonl"
    client = MCPStdioClient([*RELAY, "-o", str(session), "--", *misbehaving("slow")], timeout=20, close_grace=0.2)
    with client:
        done = client.call_tool("wait", {"seconds": 0}, timeout=5)
        assert done.ok
        pending = client.call_tool("wait", {"seconds": 30}, timeout=0.5)
        assert pending.timed_out
        os.kill(client.pid, signal.SIGKILL)  # the relay only: no chance to tidy up
        deadline = time.monotonic() + 5
        while client.alive and time.monotonic() < deadline:
            time.sleep(0.05)
        relay_pid = client.pid
    assert is_gone(relay_pid)
    events = read_session(session)  # every line complete and parseable
    calls = [e["call"] for e in events if "call" in e]
    assert len(calls) == 1 and calls[0]["args"] == {"seconds": 0} and calls[0]["is_error"] is False
    requests = [e["msg"] for e in events if e.get("dir") == "c2s" and e.get("msg", {}).get("method") == "tools/call"]
    assert [r["params"]["arguments"]["seconds"] for r in requests] == [0, 30]
    from toolscore_core.kernel.plugins import PluginManager
    from toolscore_core.kernel.traces import load_trace

    trace = load_trace(session, pm=PluginManager(autoload=True, strict=True))
    assert [c.is_error for c in trace.calls] == [False, None]  # unknown, never a success


def test_no_redact_keeps_arguments_and_exit_code_is_the_servers(misbehaving, tmp_path: Path) -> None:
    session = tmp_path / "plain.jsonl"
    line = json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                       "params": {"name": "echo", "arguments": {"text": FAKE_AWS_KEY}}}).encode() + b"\n"
    proc = subprocess.run([*RELAY, "-o", str(session), "--no-redact", "--", *misbehaving("crash")],
                          input=line, capture_output=True, timeout=30)
    assert proc.returncode == 3  # the server crashed with 3: so does the relay
    assert b"simulated crash" in proc.stderr  # the server's stderr passes through
    assert proc.stdout == b'{"jsonrpc":"2.0","id":'  # its half line, forwarded as it was
    events = read_session(session)
    assert events[0]["redacted"] is False
    assert FAKE_AWS_KEY in session.read_text()
    assert not [e for e in events if "call" in e]  # never answered: no call line
    assert events[-1] == {"t": events[-1]["t"], "dir": "s2c", "raw": '{"jsonrpc":"2.0","id":'}


@pytest.mark.parametrize("args, message", [
    (["-o", "{out}", "--", "no-such-server-binary-xyz"], "command not found: no-such-server-binary-xyz"),
    (["-o", "{missing}/s.json", "--", sys.executable], "cannot write the session file"),
])
def test_bad_usage_is_one_line_and_exit_2(args, message, tmp_path: Path) -> None:
    filled = [a.format(out=tmp_path / "s.json", missing=tmp_path / "no" / "dir") for a in args]
    proc = subprocess.run([*RELAY, *filled], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2
    assert proc.stderr.startswith("toolscore: error: ") and message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_server_that_ignores_the_end_of_input_is_stopped(misbehaving, tmp_path: Path) -> None:
    """When the client goes away the relay must not linger: the hang server ignores EOF and
    SIGTERM, so it is killed after the grace period and the relay reports 128 + 9."""
    session = tmp_path / "s.jsonl"
    started = time.monotonic()
    proc = subprocess.run([*RELAY, "-o", str(session), "--", *misbehaving("hang")],
                          input=b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n', capture_output=True, timeout=60)
    assert proc.returncode == 128 + signal.SIGKILL
    assert b"ignored the end of its input" in proc.stderr
    assert time.monotonic() - started < 30
    assert json.loads(proc.stdout) == {"jsonrpc": "2.0", "id": 1, "result": {}}
