"""SessionRecorder on its own: pairing by id per direction, JSON-RPC errors, batches,
unanswered requests, redaction, and one flushed line per event."""

from __future__ import annotations

import io
import json

from toolscore_mcp.recorder import SessionRecorder


class CountingStream(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.flushes = 0

    def flush(self) -> None:
        self.flushes += 1
        super().flush()


def lines(stream: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def msg(obj: dict) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def test_pairs_by_id_per_direction_and_keeps_errors() -> None:
    out = CountingStream()
    rec = SessionRecorder(out, ["server", "--flag"])
    rec.line("c2s", msg({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "a", "arguments": {"x": 1}}}))
    # the server's own request reuses id 1; the client's answer to it is not a tool result
    rec.line("s2c", msg({"jsonrpc": "2.0", "id": 1, "method": "roots/list"}))
    rec.line("c2s", msg({"jsonrpc": "2.0", "id": 1, "result": {"roots": []}}))
    rec.line("c2s", msg({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "b", "arguments": {}}}))
    rec.line("c2s", msg({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "never", "arguments": {}}}))
    rec.line("s2c", msg({"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "Invalid params: x"}}))
    rec.line("s2c", msg({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "nope"}], "isError": True}}))
    events = lines(out)
    assert out.flushes == len(events) == 1 + 7 + 2
    calls = [e["call"] for e in events if "call" in e]
    assert [(c["tool"], c["is_error"], c["error"]) for c in calls] == [
        ("b", True, "Invalid params: x"), ("a", True, "nope")]
    assert calls[0]["error_code"] == -32602 and calls[0]["result"] is None
    assert calls[1]["args"] == {"x": 1} and calls[1]["duration"] >= 0
    assert set(rec.unanswered) == {("int", 3)}  # never answered: no call line


def test_batches_raw_lines_and_redaction() -> None:
    out = io.StringIO()
    rec = SessionRecorder(out, ["srv", "--token", "ghp_" + "a" * 36])
    batch = [{"jsonrpc": "2.0", "id": "x", "method": "tools/call",
              "params": {"name": "login", "arguments": {"key": "AKIAIOSFODNN7EXAMPLE"}}}]
    rec.line("c2s", json.dumps(batch).encode() + b"\r\n")
    rec.line("s2c", b"\xffnot json AKIAIOSFODNN7EXAMPLE\n")
    rec.line("s2c", b"   \n")  # blank: nothing recorded
    rec.line("s2c", msg({"jsonrpc": "2.0", "id": "x", "result": {"content": [{"type": "text", "text": "ok"}]}}))
    text = out.getvalue()
    assert "AKIAIOSFODNN7EXAMPLE" not in text and "ghp_" + "a" * 36 not in text
    events = lines(out)
    assert events[0]["redacted"] is True and events[0]["command"][2].startswith("ghp_")
    assert isinstance(events[1]["msg"], list)
    assert events[2] == {"t": events[2]["t"], "dir": "s2c", "raw": "\ufffdnot json AKIA…LE"}
    assert events[-1]["call"]["args"] == {"key": "AKIA…LE"} and events[-1]["call"]["is_error"] is False
    assert len(events) == 5


def test_without_redaction_everything_is_kept() -> None:
    out = io.StringIO()
    rec = SessionRecorder(out, ["srv"], redact=False)
    rec.line("c2s", msg({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": "t", "arguments": {"k": "AKIAIOSFODNN7EXAMPLE"}}}))
    assert "AKIAIOSFODNN7EXAMPLE" in out.getvalue()
    assert lines(out)[0]["redacted"] is False
