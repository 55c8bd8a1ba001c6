"""A Streamable HTTP MCP server (stdlib sockets) that is hostile on purpose, one way per run.

    python http_hostile_server.py MODE [--at initialize|list|call]

It prints ``PORT <n>`` on stdout once it listens on 127.0.0.1. Every request up to the
stage named by ``--at`` is answered properly (``initialize`` by default: even the start-up
is hostile; ``list``: start-up works and ``tools/list`` is hostile; ``call``: only
``tools/call`` is); from there on each request gets MODE:

- ``silent``           reads the request and never answers (the connection stays open);
- ``trickle-headers``  sends the status line, then a header one byte every half second;
- ``sse-keepalive``    opens an SSE reply and sends a ``: keep-alive`` comment every 0.3 s;
- ``huge-length``      announces ``Content-Length: 4294967296`` (4 GB) of JSON and trickles it;
- ``huge-json``        streams 1 GiB of JSON body as fast as it can (no Content-Length);
- ``huge-sse``         streams one SSE ``data:`` line of 1 GiB as fast as it can.

Raw sockets rather than ``http.server``, because the point is to misbehave below HTTP's
own framing (half-sent headers, lengths that lie). One thread per connection; the process
ends on SIGTERM.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from typing import Any

MODES = ("silent", "trickle-headers", "sse-keepalive", "huge-length", "huge-json", "huge-sse")
STAGES = ("initialize", "list", "call")
CHUNK = b"x" * (1024 * 1024)
HUGE = 1024 * len(CHUNK)  # 1 GiB
TOOLS = [{"name": "probe", "description": "Echoes its text back.",
          "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "maxLength": 20}},
                          "required": ["text"]}}]


def hostile_stage(method: str) -> str:
    if method == "tools/call":
        return "call"
    if method == "tools/list":
        return "list"
    return "initialize"


def read_request(conn: socket.socket, buffer: bytearray) -> tuple[str, dict[str, str], bytes] | None:
    """One HTTP request off the connection (None when the client hung up)."""
    while b"\r\n\r\n" not in buffer:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        buffer += chunk
    head, _, rest = bytes(buffer).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0") or 0)
    body = bytearray(rest)
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        body += chunk
    buffer[:] = body[length:]
    return lines[0].split(" ")[0], headers, bytes(body[:length])


def send(conn: socket.socket, status: str, body: bytes, content_type: str | None = "application/json",
         extra: str = "") -> None:
    head = f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\n{extra}"
    if content_type:
        head += f"Content-Type: {content_type}\r\n"
    conn.sendall(head.encode("latin-1") + b"\r\n" + body)


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    """The proper answer to a request (None: it is a notification or a response)."""
    if "id" not in message or "method" not in message:
        return None
    method = message["method"]
    if method == "initialize":
        result: dict[str, Any] = {"protocolVersion": message["params"]["protocolVersion"],
                                  "capabilities": {"tools": {}}, "serverInfo": {"name": "hostile", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        text = str((message.get("params") or {}).get("arguments", {}).get("text", ""))
        result = {"content": [{"type": "text", "text": text}]}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": f"no {method}"}}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def misbehave(conn: socket.socket, mode: str) -> None:
    """Never returns normally: it ends when the client hangs up (a send or recv fails)."""
    if mode == "silent":
        while conn.recv(65536):
            pass
        return
    if mode == "trickle-headers":
        conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
        while True:
            time.sleep(0.5)
            conn.sendall(b"a")
    if mode == "sse-keepalive":
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n")
        while True:
            conn.sendall(b": keep-alive\n\n")
            time.sleep(0.3)
    if mode == "huge-length":
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4294967296\r\n\r\n[")
        while True:
            conn.sendall(b" " * 1024)
            time.sleep(0.1)
    if mode == "huge-json":
        conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{"x": "')
    else:  # huge-sse
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\ndata: ")
    sent = 0
    while sent < HUGE:
        conn.sendall(CHUNK)
        sent += len(CHUNK)


def serve(conn: socket.socket, mode: str, at: str) -> None:
    buffer = bytearray()
    try:
        with conn:
            while (request := read_request(conn, buffer)) is not None:
                verb, _headers, body = request
                if verb == "GET":
                    send(conn, "405 Method Not Allowed", b"", None)
                    continue
                if verb == "DELETE":
                    send(conn, "200 OK", b"", None)
                    continue
                message = json.loads(body)
                method = str(message.get("method", ""))
                is_request = "id" in message and "method" in message
                if is_request and STAGES.index(hostile_stage(method)) >= STAGES.index(at):
                    misbehave(conn, mode)
                    return
                reply = answer(message)
                if reply is None:
                    send(conn, "202 Accepted", b"", None)
                else:
                    send(conn, "200 OK", json.dumps(reply).encode(), extra="Mcp-Session-Id: hostile-1\r\n")
    except OSError:
        pass  # the client hung up, as it should


def main(argv: list[str]) -> int:
    mode = argv[0] if argv else "silent"
    at = argv[argv.index("--at") + 1] if "--at" in argv else "initialize"
    if mode not in MODES or at not in STAGES:
        print(f"usage: http_hostile_server.py {'|'.join(MODES)} [--at {'|'.join(STAGES)}]", file=sys.stderr)
        return 2
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(f"PORT {listener.getsockname()[1]}", flush=True)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn, mode, at), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
