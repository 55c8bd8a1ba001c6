"""A small, well-behaved stdio MCP server (stdlib only): the action test's passing MCP case.

Why our own: the bundled sample server has defects on purpose, so `mcp test --ci` fails on
it; the action test also needs a server that passes. This one has one read-only tool with a
clear description, a typed schema with a required list, and refuses bad arguments with
``isError`` and a reason, which is what the scorecard grades.
"""

from __future__ import annotations

import json
import sys
from typing import Any

TOOLS = [{
    "name": "get_weather",
    "description": "Return today's weather for a city, as one line of text (temperature in Celsius).",
    "inputSchema": {
        "type": "object",
        "properties": {"city": {"type": "string", "minLength": 1,
                                "description": "City name in English, for example 'Paris'."}},
        "required": ["city"],
        "additionalProperties": False,
    },
    "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True,
                    "openWorldHint": False},
}]


def text(value: str, *, error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}], "isError": error}


def call(arguments: Any) -> dict[str, Any]:
    if not isinstance(arguments, dict) or set(arguments) - {"city"}:
        return text("arguments must be an object with only 'city'", error=True)
    city = arguments.get("city")
    if not isinstance(city, str) or not city.strip():
        return text("'city' is required and must be a non-empty string", error=True)
    return text(f"{city.strip()}: 18 C, light wind")


def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    if method == "initialize":
        return {"result": {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                           "capabilities": {"tools": {}}, "serverInfo": {"name": "tidy-weather", "version": "1.0.0"}}}
    if method == "tools/list":
        return {"result": {"tools": TOOLS}}
    if method == "tools/call":
        if params.get("name") != "get_weather":
            return {"error": {"code": -32602, "message": f"unknown tool {params.get('name')!r}"}}
        return {"result": call(params.get("arguments", {}))}
    if method == "ping":
        return {"result": {}}
    return {"error": {"code": -32601, "message": f"method not found: {method}"}}


def main() -> None:
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "id" not in message:
            continue
        raw = message.get("params")
        params: dict[str, Any] = raw if isinstance(raw, dict) else {}
        reply = {"jsonrpc": "2.0", "id": message["id"], **answer(str(message.get("method")), params)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
