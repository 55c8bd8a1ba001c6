"""A single-threaded stdio MCP server (stdlib only) that one of its nine tools can wedge.

    python wedging_server.py [--tag TEXT] [--silent]

One loop reads stdin and answers each request before it reads the next, as many small
servers do, so a tool that blocks stops the whole server, ping included:

- ``sleepy``   sleeps 120 s before answering (the server answers nothing meanwhile);
- ``crasher``  ends the process with exit code 3 on any call;
- ``bulky``    answers 5 MB of text;
- ``echo``, ``multiply``, ``shout``, ``measure``, ``mirror``, ``greet``: validate their
  arguments against their schema and answer; the controls.

``--silent``: read stdin and never answer anything, ``initialize`` included (a server that
never finishes starting). ``--tag`` is ignored: it marks the command line so a test can
find leftover processes.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

TEXT = {"type": "string", "description": "Some text", "maxLength": 40}
NUMBER = {"type": "integer", "description": "A whole number", "minimum": 0, "maximum": 1000}


def tool(description: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {"description": description,
            "inputSchema": {"type": "object", "properties": properties, "required": list(properties),
                            "additionalProperties": False}}


TOOLS: dict[str, dict[str, Any]] = {
    "sleepy": tool("Thinks for a long time about the text, then answers it.", {"text": TEXT}),
    "crasher": tool("Counts the words of the text.", {"text": TEXT}),
    "bulky": tool("Expands the text into a long report.", {"text": TEXT}),
    "echo": tool("Answers the text unchanged.", {"text": TEXT}),
    "multiply": tool("Multiplies two whole numbers.", {"a": NUMBER, "b": NUMBER}),
    "shout": tool("Answers the text in capital letters.", {"text": TEXT}),
    "measure": tool("Answers how many characters the text has.", {"text": TEXT}),
    "mirror": tool("Answers the text reversed.", {"text": TEXT}),
    "greet": tool("Answers a greeting for the name.", {"name": TEXT}),
}


def problem(schema: dict[str, Any], args: Any) -> str | None:
    """Why the arguments do not fit the schema, or None."""
    if not isinstance(args, dict):
        return "arguments must be an object"
    properties = schema["properties"]
    for name in schema["required"]:
        if name not in args:
            return f"missing {name}"
    for name, value in args.items():
        spec = properties.get(name)
        if spec is None:
            return f"unknown argument {name}"
        if spec["type"] == "integer":
            if not isinstance(value, int) or isinstance(value, bool):
                return f"{name} must be a whole number"
            if not spec["minimum"] <= value <= spec["maximum"]:
                return f"{name} is out of range"
        elif not isinstance(value, str):
            return f"{name} must be a string"
        elif len(value) > spec["maxLength"]:
            return f"{name} is too long"
    return None


def text(value: str, is_error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}], "isError": is_error}


def call(name: str, args: Any) -> dict[str, Any]:
    if name == "crasher":
        sys.stderr.write("crasher: giving up\n")
        sys.stderr.flush()
        os._exit(3)
    if name == "sleepy":
        time.sleep(120)
    wrong = problem(TOOLS[name]["inputSchema"], args)
    if wrong:
        return text(f"invalid arguments: {wrong}", is_error=True)
    if name == "bulky":
        return text("report " * 750_000)  # about 5 MB
    if name == "multiply":
        return text(str(args["a"] * args["b"]))
    if name == "shout":
        return text(args["text"].upper())
    if name == "measure":
        return text(str(len(args["text"])))
    if name == "mirror":
        return text(args["text"][::-1])
    if name == "greet":
        return text(f"Hello, {args['name']}!")
    return text(args.get("text", ""))


def handle(message: dict[str, Any]) -> dict[str, Any] | None:
    if "id" not in message:
        return None
    method = message.get("method")
    request_id = message["id"]
    if method == "initialize":
        result: dict[str, Any] = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                                  "serverInfo": {"name": "wedging-server", "version": "1.0.0"}}
    elif method == "tools/list":
        result = {"tools": [{"name": name, **spec} for name, spec in TOOLS.items()]}
    elif method == "tools/call":
        params = message.get("params") or {}
        if params.get("name") not in TOOLS:
            return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32602, "message": "unknown tool"}}
        result = call(params["name"], params.get("arguments"))
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "method not found"}}
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def main() -> None:
    silent = "--silent" in sys.argv[1:]
    for line in sys.stdin:
        if silent or not line.strip():
            continue
        reply = handle(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
