"""Record real MCP traffic with the npm reference server-memory over stdio (offline).

Why: the ``mcp`` and ``jsonrpc`` adapters must be tested on what a real server says, not on
JSON typed by hand. This script speaks JSON-RPC to
``.cache/mcp-servers/node_modules/@modelcontextprotocol/server-memory`` line by line, and writes
what went over the pipe in the shapes the adapters read:

* ``memory_session.jsonl``: the ``toolscore mcp record`` format (``toolscore_mcp.recorder``):
  header, every message as a ``{"t", "dir", "msg"}`` line, and a ``"call"`` line per answered
  ``tools/call``;
* ``memory_session_msgs_only.jsonl``: the same session without the ``call`` lines, cut off
  right after the last ``tools/call`` request (as a relay killed mid-call leaves it);
* ``memory_traffic.json`` (a JSON list of messages), ``memory_traffic.jsonl`` (one message per
  line) and ``memory_traffic_dir.jsonl`` (``{"dir", "msg"}`` lines): raw JSON-RPC traces.

Run: ``.venv/bin/python tests/adapters/make_fixtures_mcp.py`` (needs ``make servers``).
Timestamps are measured but rounded, so regenerated files differ only in timings.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent / "fixtures" / "mcp"
SERVERS = Path(os.environ.get("TOOLSCORE_MCP_SERVERS", ROOT / ".cache" / "mcp-servers"))
MEMORY = SERVERS / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"


class Recorder:
    """A minimal stdio relay: send a message, wait for the reply, log both directions."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.command = command
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, env=env)
        self.started = time.monotonic()
        self.events: list[dict[str, Any]] = []
        self.pending: dict[Any, tuple[float, dict[str, Any]]] = {}
        self._buffer = b""

    def _t(self) -> float:
        return round(time.monotonic() - self.started, 4)

    def send(self, msg: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.events.append({"t": self._t(), "dir": "c2s", "msg": msg})
        if msg.get("method") == "tools/call":
            self.pending[msg["id"]] = (self._t(), msg)
        self.process.stdin.write((json.dumps(msg) + "\n").encode())
        self.process.stdin.flush()

    def _read_line(self, timeout: float) -> bytes | None:
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.process.stdout], [], [], left)[0]:
                return None
            chunk = os.read(self.process.stdout.fileno(), 65536)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def request(self, msg: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        self.send(msg)
        while True:
            line = self._read_line(timeout)
            if line is None:
                raise RuntimeError(f"no answer to {msg.get('method')} within {timeout}s")
            reply = json.loads(line)
            self.events.append({"t": self._t(), "dir": "s2c", "msg": reply})
            if reply.get("id") == msg["id"] and "method" not in reply:
                self._call_line(reply)
                return reply

    def _call_line(self, reply: dict[str, Any]) -> None:
        if reply["id"] not in self.pending:
            return
        requested_at, request = self.pending.pop(reply["id"])
        params = request.get("params", {})
        call: dict[str, Any] = {"id": reply["id"], "tool": params.get("name"), "args": params.get("arguments", {})}
        if "error" in reply:
            call.update(result=None, is_error=True, error=reply["error"].get("message"))
        else:
            result = reply.get("result", {})
            is_error = result.get("isError") is True
            texts = [b.get("text") for b in result.get("content", []) if b.get("type") == "text"]
            call.update(result=result, is_error=is_error, error=(texts[0] if texts else "error") if is_error else None)
        t = self._t()
        call.update(duration=round(t - requested_at, 4), requested_at=requested_at)
        self.events.append({"t": t, "call": call})

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def record_memory_session() -> Recorder:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "MEMORY_FILE_PATH": str(Path(tmp) / "memory.jsonl")}
        rec = Recorder(["node", str(MEMORY)], env)
        try:
            rec.request({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "toolscore-fixtures", "version": "0.1.0"}}})
            rec.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            rec.request({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
            rec.request({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "create_entities", "arguments": {"entities": [
                    {"name": "Ada", "entityType": "person", "observations": ["writes programs"]},
                    {"name": "Zürich", "entityType": "city", "observations": ["on a lake"]}]}}})
            rec.request({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
                "name": "create_relations", "arguments": {"relations": [
                    {"from": "Ada", "to": "Zürich", "relationType": "lives_in"}]}}})
            rec.request({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
                "name": "search_nodes", "arguments": {"query": "Ada"}}})
            # a wrong argument type and an unknown tool: the server's own error answers
            rec.request({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
                "name": "open_nodes", "arguments": {"names": "Ada"}}})
            rec.request({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {
                "name": "teleport", "arguments": {"to": "Mars"}}})
            rec.request({"jsonrpc": "2.0", "id": 7, "method": "ping"})
            rec.request({"jsonrpc": "2.0", "id": 9, "method": "prompts/list"})  # not offered: -32601
            # arguments that are not an object: a JSON-RPC error answer, not a CallToolResult
            rec.request({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {
                "name": "search_nodes", "arguments": "Ada"}})
            rec.request({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {
                "name": "read_graph", "arguments": {}}})
        finally:
            rec.close()
    return rec


def _write_lines(path: Path, items: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8")


def main() -> None:
    rec = record_memory_session()
    OUT.mkdir(parents=True, exist_ok=True)
    header = {"toolscore_record": "mcp-session", "version": 1, "started_at": "2026-12-02T12:00:00.000Z",
              "command": ["node", ".cache/mcp-servers/node_modules/@modelcontextprotocol/server-memory/dist/index.js"],
              "redacted": True}
    _write_lines(OUT / "memory_session.jsonl", [header, *rec.events])
    # msgs only, cut right after the last tools/call request was relayed (its answer never came)
    msgs = [e for e in rec.events if "msg" in e]
    last_call = max(i for i, e in enumerate(msgs) if e["msg"].get("method") == "tools/call")
    _write_lines(OUT / "memory_session_msgs_only.jsonl", [header, *msgs[: last_call + 1]])
    raw = [e["msg"] for e in msgs]
    (OUT / "memory_traffic.json").write_text(json.dumps(raw, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    _write_lines(OUT / "memory_traffic.jsonl", raw)
    _write_lines(OUT / "memory_traffic_dir.jsonl", [{"dir": e["dir"], "msg": e["msg"]} for e in msgs])
    print(f"wrote {len(rec.events)} events to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
