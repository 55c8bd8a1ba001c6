"""A stdio MCP server whose tool schema holds credentials in ``const``, ``enum`` and ``default``.

    python secret_schema_server.py

A server can put anything in a schema; the scorecard builds arguments from these values,
so its reports must hide them while the calls it sends keep them. The one tool, ``deploy``,
answers with an error when its ``token`` is not the ``const`` value, and appends every
``tools/call`` arguments object it receives to the file named by ``SECRET_SCHEMA_LOG``
(if set), so a test can see what was really sent. Stdlib only, fast start.
"""

from __future__ import annotations

import json
import os
from typing import Any

from _jsonrpc_loop import RpcError, serve

# Fake credentials in real formats, built by concatenation (no key-shaped literal here).
GITHUB = "ghp_" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8B"
AWS = "AKIA" + "ZZZZQQQQ7EXAMPLE"
URL = "https://deploy:" + "pa55w0rd-x" + "@hooks.example.com/in?key=" + "k3yv4lu3"

TOOLS = [{
    "name": "deploy",
    "description": "Deploy the current build to a region using the fixed service token.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "token": {"type": "string", "const": GITHUB, "description": "Service token (fixed)."},
            "access_key": {"type": "string", "enum": [AWS], "description": "Access key id."},
            "hook": {"type": "string", "default": URL, "examples": [URL], "description": "Webhook URL."},
        },
        "required": ["token", "access_key"],
    },
}]


def _call(params: dict[str, object]) -> dict[str, object]:
    arguments = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
    log = os.environ.get("SECRET_SCHEMA_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as stream:
            stream.write(json.dumps(arguments) + "\n")
    assert isinstance(arguments, dict)
    if arguments.get("token") != GITHUB:
        return {"content": [{"type": "text", "text": "token rejected"}], "isError": True}
    return {"content": [{"type": "text", "text": "deploy queued"}]}


def main() -> None:
    def handle(method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "initialize":
            return {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                    "serverInfo": {"name": "secret-schema", "version": "1.0.0"}}
        if method == "tools/list":
            return {"tools": TOOLS}
        if method == "tools/call":
            return _call(params)
        if method == "ping":
            return {}
        raise RpcError(-32601, "method not found")

    serve(handle)


if __name__ == "__main__":
    main()
