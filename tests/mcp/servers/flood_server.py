"""A stdio MCP server that floods its client, one way per mode (stdlib only).

    python flood_server.py MODE

Every mode answers initialize and tools/list; the flood happens inside tools/call, whose
``arguments`` size it:

  notifications  writes notifications/progress messages (``message`` of ``text_bytes``
                 bytes, default 2,000) as fast as the client reads them, for ``seconds``
                 seconds, then answers
  huge-line      answers with one line of ``megabytes`` MB (a text result), written in
                 pieces so the server itself stays small; the next call is answered normally
  ping-flood     sends ``count`` ping requests without reading a single answer, then
                 answers the call (a client that queues every answer grows without bound)

The answer to tools/call reports how many messages were written: {"written": N}.
"""

from __future__ import annotations

import json
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "notifications"
OUT = sys.stdout.buffer
TOOLS = [{"name": "flood", "description": "Flood the client, then answer.",
          "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number"}}}}]


def send(message: dict) -> None:
    OUT.write(json.dumps(message).encode() + b"\n")
    OUT.flush()


def answer(rid: object, written: int) -> None:
    send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": json.dumps({"written": written})}]}})


def notifications(rid: object, args: dict) -> None:
    text = "n" * int(args.get("text_bytes", 2000))
    block = b"".join(
        json.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                    "params": {"progressToken": "flood", "progress": i, "message": text}}).encode() + b"\n"
        for i in range(100))
    written = 0
    stop = time.monotonic() + float(args.get("seconds", 3))
    while time.monotonic() < stop:
        OUT.write(block)
        written += 100
    OUT.flush()
    answer(rid, written)


def huge_line(rid: object, args: dict) -> None:
    size = int(float(args.get("megabytes", 100)) * 1024 * 1024)
    OUT.write(b'{"jsonrpc":"2.0","id":' + json.dumps(rid).encode() + b',"result":{"content":[{"type":"text","text":"')
    piece = b"h" * (1024 * 1024)
    for _ in range(size // len(piece)):
        OUT.write(piece)
    OUT.write(b'"}]}}\n')
    OUT.flush()


def ping_flood(rid: object, args: dict) -> None:
    count = int(args.get("count", 20000))
    for start in range(0, count, 1000):
        OUT.write(b"".join(json.dumps({"jsonrpc": "2.0", "id": f"ping-{i}", "method": "ping"}).encode() + b"\n"
                           for i in range(start, min(count, start + 1000))))
    OUT.flush()
    answer(rid, count)


def main() -> None:
    calls = 0
    for line in sys.stdin.buffer:
        try:
            request = json.loads(line)
        except ValueError:
            continue
        method = request.get("method")
        if "id" not in request or not isinstance(method, str):
            continue  # a notification, or a client's answer to one of our pings
        rid = request["id"]
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {
                "protocolVersion": request["params"]["protocolVersion"], "capabilities": {"tools": {}},
                "serverInfo": {"name": f"flood-{MODE}", "version": "0.0.1"}}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
        elif method == "tools/call":
            calls += 1
            args = (request.get("params") or {}).get("arguments") or {}
            if calls > 1:
                answer(rid, 0)  # only the first call floods
            elif MODE == "notifications":
                notifications(rid, args)
            elif MODE == "huge-line":
                huge_line(rid, args)
            elif MODE == "ping-flood":
                ping_flood(rid, args)
        else:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}})


if __name__ == "__main__":
    main()
