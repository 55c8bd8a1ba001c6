"""A stdio MCP server whose answers to tools/call are malformed, one way per mode (stdlib only).

    python weird_id_server.py MODE

On every tools/call it first writes the malformed message of its MODE, then (except in
``deep-answer``) the correct answer, so a client whose reader survived gets it:

  object-id    a response whose id is an object:  {"id": {"call": 1}, "result": {}}
  array-id     a response whose id is an array:   {"id": [1], "result": {}}
  bool-id      a response whose id is true
  float-id     a response whose id is 1.5
  deep-noise   100,000 nested arrays with no id (the JSON reader's recursion limit)
  deep-answer  the answer to the call itself, its result 100,000 arrays deep; the NEXT
               call is answered normally
"""

from __future__ import annotations

import json
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "object-id"
OUT = sys.stdout.buffer
DEPTH = 100_000
TOOLS = [{"name": "echo", "description": "Return the text.", "inputSchema": {
    "type": "object", "properties": {"text": {"type": "string", "description": "Text to return."}}}}]
WEIRD = {
    "object-id": {"call": 1},
    "array-id": [1],
    "bool-id": True,
    "float-id": 1.5,
}


def send_raw(data: bytes) -> None:
    OUT.write(data + b"\n")
    OUT.flush()


def send(message: dict) -> None:
    send_raw(json.dumps(message).encode())


def tools_call(request: dict, calls: int) -> None:
    rid = request["id"]
    text = str(((request.get("params") or {}).get("arguments") or {}).get("text", "ok"))
    if MODE in WEIRD:
        send({"jsonrpc": "2.0", "id": WEIRD[MODE], "result": {"content": [{"type": "text", "text": "weird"}]}})
    elif MODE == "deep-noise":
        send_raw(b"[" * DEPTH + b"]" * DEPTH)
    elif MODE == "deep-answer" and calls == 1:
        send_raw(b'{"jsonrpc":"2.0","id":' + json.dumps(rid).encode() + b',"result":' + b"[" * DEPTH + b"]" * DEPTH + b"}")
        return
    send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}]}})


def main() -> None:
    calls = 0
    for line in sys.stdin.buffer:
        try:
            request = json.loads(line)
        except ValueError:
            continue
        if "id" not in request:
            continue
        method = request.get("method")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": request["id"], "result": {
                "protocolVersion": request["params"]["protocolVersion"], "capabilities": {"tools": {}},
                "serverInfo": {"name": f"weird-{MODE}", "version": "0.0.1"}}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": request["id"], "result": {"tools": TOOLS}})
        elif method == "tools/call":
            calls += 1
            tools_call(request, calls)
        else:
            send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": f"Method not found: {method}"}})


if __name__ == "__main__":
    main()
