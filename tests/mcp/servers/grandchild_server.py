"""A stdio MCP server that leaves a background process holding its pipes (stdlib only).

    python grandchild_server.py MODE

At start it spawns ``sleep 300`` with the server's own stdin, stdout and stderr, so the
pipes stay open after the server itself is gone: a client that waits for end-of-file on
them, or joins its reader threads without a bound, hangs for five minutes. The
grandchild's pid is appended (one line per server started) to $GRANDCHILD_PID_FILE when
set, so tests can check that it was ended too.

Modes:
  stay       answers initialize, tools/list and tools/call; exits at stdin EOF (the
             grandchild lives on)
  stubborn   like ``stay`` but ignores SIGTERM and stdin EOF (only SIGKILL ends it)
  exit-now   answers initialize, then exits on its first tools/call (the grandchild keeps
             stdout open, so the client never sees EOF)
  escape     like ``stay`` but the grandchild starts its own session (``setsid``), out of
             reach of a signal to the server's process group: only a client that never
             waits on the pipes without a bound gets away
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "stay"
OUT = sys.stdout.buffer
TOOLS = [{"name": "echo", "description": "Return the text.", "inputSchema": {
    "type": "object", "properties": {"text": {"type": "string", "description": "Text to return."}}}}]


def send(message: dict) -> None:
    OUT.write(json.dumps(message).encode() + b"\n")
    OUT.flush()


def spawn_grandchild() -> None:
    child = subprocess.Popen(["sleep", "300"], stdin=sys.stdin, stdout=sys.stdout, stderr=sys.stderr,
                             start_new_session=MODE == "escape")
    pid_file = os.environ.get("GRANDCHILD_PID_FILE")
    if pid_file:
        with open(pid_file, "a") as handle:
            handle.write(f"{child.pid}\n")


def main() -> None:
    if MODE == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    spawn_grandchild()
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
                "serverInfo": {"name": f"grandchild-{MODE}", "version": "0.0.1"}}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": request["id"], "result": {"tools": TOOLS}})
        elif method == "tools/call":
            if MODE == "exit-now":
                os._exit(0)
            text = str(((request.get("params") or {}).get("arguments") or {}).get("text", "ok"))
            send({"jsonrpc": "2.0", "id": request["id"], "result": {"content": [{"type": "text", "text": text}]}})
        else:
            send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": f"Method not found: {method}"}})
    if MODE == "stubborn":
        while True:
            time.sleep(1)


if __name__ == "__main__":
    main()
