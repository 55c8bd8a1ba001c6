"""A stdio MCP server that misbehaves on purpose, one way per mode (stdlib only, fast start).

    python misbehaving_server.py MODE

Modes:
  hang          tools/call is never answered; SIGTERM and stdin EOF are ignored (needs SIGKILL)
  crash         tools/call kills the process (exit code 3) after half a line of output
  garbage       stray text and invalid UTF-8 on stdout around every answer (answers are right)
  big           tools/call returns a 5 MB text result
  early-exit    prints a complaint on stderr and exits 1 before reading anything
  flood         tools/call first writes 20,000 junk lines to stdout, then answers
  pages         tools/list is split over 3 pages with nextCursor
  loop-pages    tools/list returns the same nextCursor forever
  ask-client    during tools/call sends ping and roots/list to the client, returns the roots
  bad-result    tools/call answers with a result that is a string, not an object
  slow          tools/call answers after the number of seconds in arguments.seconds
  strict        exits (code 4) on any method it does not know, e.g. the server/discover probe
Every mode answers initialize and tools/list normally (except early-exit), and logs each
message it reads to stderr ("recv METHOD PARAMS") so tests can see what the client sent.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "garbage"
OUT = sys.stdout.buffer

TOOLS = [
    {"name": "echo", "description": "Return the text.", "inputSchema": {
        "type": "object", "properties": {"text": {"type": "string", "description": "Text."}}, "required": ["text"]}},
    {"name": "wait", "description": "Answer after some seconds.", "inputSchema": {
        "type": "object", "properties": {"seconds": {"type": "number", "description": "Delay."}}}},
]


def send(message: dict) -> None:
    OUT.write(json.dumps(message).encode() + b"\n")
    OUT.flush()


def garbage() -> None:
    OUT.write(b"starting up... this is not JSON\n")
    OUT.write(b"\xff\xfe invalid utf-8 \xc3\x28\n")
    OUT.write(b"{not json either\n")
    OUT.flush()


RAW_LOG = os.environ.get("MISBEHAVING_RAW_LOG")


def read_message() -> dict | None:
    """The next JSON message on stdin (None at EOF). Every raw line is appended to
    $MISBEHAVING_RAW_LOG when set; lines that are not JSON are skipped."""
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if RAW_LOG:
            with open(RAW_LOG, "ab") as log:
                log.write(line)
        try:
            return json.loads(line)
        except ValueError:
            sys.stderr.write(f"skipped a line that is not JSON: {line[:80]!r}\n")


def tools_list(request: dict) -> None:
    cursor = (request.get("params") or {}).get("cursor")
    if MODE == "pages":
        page = int(cursor or 0)
        tools = [dict(TOOLS[0], name=f"tool_{page}_{i}") for i in range(2)]
        result: dict = {"tools": tools}
        if page < 2:
            result["nextCursor"] = str(page + 1)
        send({"jsonrpc": "2.0", "id": request["id"], "result": result})
    elif MODE == "loop-pages":
        send({"jsonrpc": "2.0", "id": request["id"], "result": {"tools": TOOLS, "nextCursor": "again"}})
    else:
        send({"jsonrpc": "2.0", "id": request["id"], "result": {"tools": TOOLS}})


def tools_call(request: dict) -> None:
    rid = request["id"]
    args = (request.get("params") or {}).get("arguments") or {}
    if MODE == "hang":
        return
    if MODE == "crash":
        OUT.write(b'{"jsonrpc":"2.0","id":')
        OUT.flush()
        sys.stderr.write("fatal: simulated crash in tools/call\n")
        sys.stderr.flush()
        os._exit(3)
    if MODE == "big":
        text = "x" * (5 * 1024 * 1024)
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}]}})
        return
    if MODE == "flood":
        OUT.write(b"junk line that is not a protocol message\n" * 20000)
        OUT.flush()
    if MODE == "ask-client":
        send({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})
        ping_reply = read_message()
        send({"jsonrpc": "2.0", "id": "srv-2", "method": "roots/list"})
        roots_reply = read_message()
        send({"jsonrpc": "2.0", "id": "srv-3", "method": "sampling/createMessage", "params": {}})
        sampling_reply = read_message()
        payload = {"ping": ping_reply, "roots": roots_reply, "sampling": sampling_reply}
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": json.dumps(payload)}]}})
        return
    if MODE == "bad-result":
        send({"jsonrpc": "2.0", "id": rid, "result": "done"})
        return
    if MODE == "slow":
        time.sleep(float(args.get("seconds", 1)))
    if MODE == "garbage":
        garbage()
    send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "calling"}})
    send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": str(args.get("text", "ok"))}]}})


def main() -> None:
    if MODE == "early-exit":
        sys.stderr.write("error: missing configuration file settings.toml\n")
        sys.exit(1)
    if MODE == "hang":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if MODE == "garbage":
        garbage()
    while True:
        request = read_message()
        if request is None:
            if MODE == "hang":
                while True:
                    time.sleep(1)
            return
        method = request.get("method")
        sys.stderr.write(f"recv {method} {json.dumps(request.get('params'))}\n")
        sys.stderr.flush()
        if "id" not in request:
            continue
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": request["id"], "result": {
                "protocolVersion": request["params"]["protocolVersion"],
                "capabilities": {"tools": {}}, "serverInfo": {"name": f"misbehaving-{MODE}", "version": "0.0.1"}}})
        elif method == "tools/list":
            tools_list(request)
        elif method == "tools/call":
            tools_call(request)
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": request["id"], "result": {}})
        elif MODE == "strict":
            sys.stderr.write(f"unknown method {method}: exiting\n")
            sys.exit(4)
        else:
            send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": f"Method not found: {method}"}})


if __name__ == "__main__":
    main()
