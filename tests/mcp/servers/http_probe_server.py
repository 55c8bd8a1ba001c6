"""A Streamable HTTP MCP server of our own (stdlib only) that records what clients send.

It answers like the real servers do, with the quirks they have: an SSE priming event with
empty data and CRLF line ends (TS SDK >= 2025-11-25), a 202 with a JSON content type and
an empty body for notifications (Python SDK), and a session id. Some tools misbehave:
``drop`` closes the connection mid-reply, ``hang`` never finishes its reply, ``notjson``
answers with text/plain, ``ask`` sends a ``roots/list`` request on the reply stream. Every request's method, headers and body are kept in
``server.seen`` so tests can check the headers a client sent.

Run in a test thread: ``server, url = start_probe_server()`` ... ``server.shutdown()``.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SESSION = "probe-session-1"
TOOLS = [{"name": name, "description": f"{name} tool", "inputSchema": {"type": "object"}}
         for name in ("echo", "drop", "hang", "notjson", "ask")]


class ProbeServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), ProbeHandler)
        self.seen: list[dict[str, Any]] = []
        self.deleted: list[str | None] = []


class ProbeHandler(BaseHTTPRequestHandler):
    server: ProbeServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def do_DELETE(self) -> None:
        self.server.deleted.append(self.headers.get("Mcp-Session-Id"))
        self._reply(200, b"", None)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        message = json.loads(body)
        self.server.seen.append({"headers": dict(self.headers), "message": message})
        method = message.get("method")
        if "id" not in message or "method" not in message:  # notification or response: accepted
            self._reply(202, b"", "application/json")
            return
        if method == "initialize":
            result = {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                      "serverInfo": {"name": "probe", "version": "9"}}
            self._sse(message["id"], result, priming=True, session=True)
        elif method == "tools/list":
            payload = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": TOOLS}}).encode()
            self._reply(200, payload, "application/json")
        elif method == "tools/call":
            self._call(message)
        elif method == "ping":
            self._sse(message["id"], {})
        else:  # server/discover and the rest: refused like the TS SDK over HTTP
            error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": "Bad Request: Server not initialized"}}
            self._reply(400, json.dumps(error).encode(), "application/json")

    def _call(self, message: dict[str, Any]) -> None:
        name = message["params"]["name"]
        if name == "drop":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"event: message\r\ndata: {\"jsonrpc\"")
            self.wfile.flush()
            self.close_connection = True
            return
        if name == "hang":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for _ in range(100):  # keep-alive comments, never a result
                try:
                    self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.1)
            return
        if name == "ask":  # a server-to-client request on the reply stream, before the result
            ask = {"jsonrpc": "2.0", "id": "srv-7", "method": "roots/list"}
            self._sse(message["id"], {"content": [{"type": "text", "text": "asked"}]}, before=[ask])
            return
        if name == "notjson":
            self._reply(200, b"hello", "text/plain")
            return
        progress = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1, "progressToken": "t"}}
        result = {"content": [{"type": "text", "text": json.dumps(message["params"].get("arguments"))}]}
        self._sse(message["id"], result, before=[progress])

    def _sse(self, rid: Any, result: dict[str, Any], *, priming: bool = False, session: bool = False,
             before: list[dict[str, Any]] | None = None) -> None:
        chunks = []
        if priming:
            chunks.append(b"id: prime-1\r\ndata: \r\n\r\n")
        for note in before or []:
            chunks.append(b"event: message\r\ndata: " + json.dumps(note).encode() + b"\r\n\r\n")
        chunks.append(b"event: message\r\nid: ev-2\r\ndata: "
                      + json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode() + b"\r\n\r\n")
        payload = b"".join(chunks)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(payload)))
        if session:
            self.send_header("mcp-session-id", SESSION)
        self.end_headers()
        self.wfile.write(payload)

    def _reply(self, status: int, payload: bytes, content_type: str | None) -> None:
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def start_probe_server() -> tuple[ProbeServer, str]:
    server = ProbeServer()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/mcp"
