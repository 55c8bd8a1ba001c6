"""The loop the raw test servers share: newline-delimited JSON-RPC 2.0 on stdin/stdout.

Each server only says what a method answers (``handle(method, params) -> result``, or
:class:`RpcError` for an error reply); reading, skipping notifications and garbage,
writing and flushing are here. Stdlib only, so a server starts as fast as Python does.
Servers run as scripts (``python servers/x.py``), so this module is found beside them.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any


class RpcError(Exception):
    """An error reply: ``{"code": code, "message": message}``."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def no_method(method: str) -> RpcError:
    return RpcError(-32601, f"no method {method}")


def initialize_result(params: dict[str, Any], name: str, version: str, instructions: str | None = None) -> dict[str, Any]:
    """The usual ``initialize`` answer: the client's protocol version echoed, tools offered."""
    result: dict[str, Any] = {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                              "capabilities": {"tools": {}}, "serverInfo": {"name": name, "version": version}}
    if instructions is not None:
        result["instructions"] = instructions
    return result


def serve(handle: Callable[[str, dict[str, Any]], dict[str, Any]]) -> None:
    """Answer every request on stdin until it closes; notifications get no answer."""
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "id" not in message:
            continue
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        try:
            reply["result"] = handle(str(message.get("method")), params)
        except RpcError as exc:
            reply["error"] = {"code": exc.code, "message": exc.message}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
