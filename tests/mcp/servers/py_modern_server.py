"""A small server on the official Python ``mcp`` SDK (2.x), used to test the 2026-07-28 era.

mcp 2.x answers ``server/discover`` (the stateless 2026-07-28 era) as well as the older
``initialize`` handshake, so one server exercises both code paths of our clients.

    python py_modern_server.py                         # stdio
    python py_modern_server.py --http --port N [--json-response] [--stateless]

HTTP always binds 127.0.0.1.
"""

from __future__ import annotations

import argparse

from mcp.server.mcpserver import MCPServer

server = MCPServer(
    "py-modern",
    version="1.2.3",
    instructions="Use add for sums and echo to repeat text.",
)


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers and return the sum."""
    return a + b


@server.tool()
def echo(text: str) -> str:
    """Return the given text unchanged."""
    return text


@server.tool()
def fail(message: str) -> str:
    """Always raises, to show how the SDK reports a failing tool."""
    raise ValueError(message)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", action="store_true")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--json-response", action="store_true")
    parser.add_argument("--stateless", action="store_true")
    args = parser.parse_args()
    if args.http:
        server.run(
            "streamable-http",
            host="127.0.0.1",
            port=args.port,
            json_response=args.json_response,
            stateless_http=args.stateless,
        )
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
