"""A stdlib MCP server whose tools each misbehave in one known way, for the scorecard tests.

Tools (selected with ``--tools a,b,...``; default: all):

- ``ok_echo``        validates its input and answers: the control.
- ``hang``           never answers (the server keeps serving other requests).
- ``crash_negative`` exits the whole process when ``n`` < 0 (its out-of-range edge case).
- ``accept_all``     answers success to anything, never validating.
- ``error_success``  answers "Error: database is locked" with isError false.
- ``huge``           answers 2 MB of text.
- ``weird_schema``   an empty enum and a $ref that points nowhere.
- ``counter``        read-only and idempotent, but every call changes its answer.
- ``bump`` / ``stats`` both read-only; calling ``bump`` changes what ``stats`` returns.
- ``bad_shape``      answers with 'content' that is not a list (a protocol violation).

``--no-restart FILE``: when crash_negative crashes it leaves FILE behind, and a server
started while FILE exists exits at once (a server that cannot be brought back).

Every request id that gets a ``notifications/cancelled`` is written to stderr as
``cancelled <id>``, so tests can check that timed-out calls are cancelled.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

INT_N = {"type": "integer", "description": "A number", "minimum": 0, "maximum": 1000}
TEXT = {"type": "string", "description": "Some text", "maxLength": 50}

TOOLS: dict[str, dict[str, Any]] = {
    "ok_echo": {"description": "Echo the text back, checked against the schema.",
                "inputSchema": {"type": "object", "properties": {"text": TEXT}, "required": ["text"]}},
    "hang": {"description": "Never answers, whatever it is given.",
             "inputSchema": {"type": "object", "properties": {"text": TEXT}, "required": ["text"]}},
    "crash_negative": {"description": "Halves a number; crashes the server on negatives.",
                       "inputSchema": {"type": "object", "properties": {"n": INT_N}, "required": ["n"]}},
    "accept_all": {"description": "Counts things but never checks its arguments.",
                   "inputSchema": {"type": "object", "properties": {"n": INT_N}, "required": ["n"]}},
    "error_success": {"description": "Reads a row but reports errors as success.",
                      "inputSchema": {"type": "object", "properties": {"n": INT_N}, "required": ["n"]}},
    "huge": {"description": "Returns a very large answer for any valid input.",
             "inputSchema": {"type": "object", "properties": {"text": TEXT}, "required": ["text"]}},
    "weird_schema": {"description": "A tool whose schema the generator cannot satisfy.",
                     "inputSchema": {"type": "object", "properties": {
                         "mode": {"type": "string", "enum": [], "description": "Nothing fits"},
                         "ref": {"$ref": "#/$defs/missing", "description": "Points nowhere"}},
                         "required": ["mode"]}},
    "counter": {"description": "Claims to be read-only and idempotent but counts its calls.",
                "inputSchema": {"type": "object", "properties": {"text": TEXT}, "required": ["text"]},
                "annotations": {"readOnlyHint": True, "idempotentHint": True}},
    "bump": {"description": "Claims to be read-only but bumps the shared counter.",
             "inputSchema": {"type": "object", "properties": {}}, "annotations": {"readOnlyHint": True}},
    "stats": {"description": "Reports the shared counter; truly read-only.",
              "inputSchema": {"type": "object", "properties": {}}, "annotations": {"readOnlyHint": True}},
    "bad_shape": {"description": "Answers with a malformed result.",
                  "inputSchema": {"type": "object", "properties": {"text": TEXT}, "required": ["text"]}},
}


def check(schema: dict[str, Any], args: Any) -> str | None:
    """A reason the arguments are invalid, or None."""
    if not isinstance(args, dict):
        return "arguments must be an object"
    props = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in args:
            return f"missing {name}"
    for name, value in args.items():
        spec = props.get(name)
        if spec is None:
            return f"unknown argument {name}"
        if spec.get("type") == "integer":
            if not isinstance(value, int) or isinstance(value, bool):
                return f"{name} must be an integer"
            if value < spec.get("minimum", value) or value > spec.get("maximum", value):
                return f"{name} out of range"
        if spec.get("type") == "string":
            if not isinstance(value, str):
                return f"{name} must be a string"
            if len(value) > spec.get("maxLength", len(value)):
                return f"{name} too long"
    return None


def text_result(text: str, is_error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


class Server:
    def __init__(self, names: list[str]) -> None:
        self.tools = {name: TOOLS[name] for name in names}
        self.calls = 0
        self.bumps = 0

    def call(self, name: str, args: Any) -> dict[str, Any] | None:
        tool = self.tools[name]
        if name == "accept_all":
            return text_result("counted 3 things")
        if name == "error_success":
            return text_result("Error: database is locked")
        if name == "hang":
            return None
        if name == "crash_negative" and isinstance(args, dict) and isinstance(args.get("n"), int) and args["n"] < 0:
            if MARKER:
                open(MARKER, "w").close()
            sys.stderr.write("crash_negative: giving up\n")
            sys.stderr.flush()
            os._exit(3)
        problem = check(tool["inputSchema"], args)
        if problem:
            return text_result(f"invalid arguments: {problem}", is_error=True)
        if name == "bump":
            self.bumps += 1
            return text_result("ok")
        if name == "stats":
            return text_result(f"bumps: {self.bumps}")
        if name == "bad_shape":
            return {"content": "just a string", "isError": False}
        if name == "huge":
            return text_result("z" * 2_000_000)
        if name == "counter":
            self.calls += 1
            return text_result(f"call number {self.calls}")
        return text_result(json.dumps(args))

    def handle(self, message: dict[str, Any]) -> dict[str, Any] | None:
        method = message.get("method")
        if "id" not in message:
            if method == "notifications/cancelled":
                sys.stderr.write(f"cancelled {message.get('params', {}).get('requestId')}\n")
                sys.stderr.flush()
            return None
        rid = message["id"]
        if method == "initialize":
            result: dict[str, Any] = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                                      "serverInfo": {"name": "faulty-server", "version": "0.0.1"}}
        elif method == "tools/list":
            result = {"tools": [{"name": n, **t} for n, t in self.tools.items()]}
        elif method == "tools/call":
            params = message.get("params") or {}
            if params.get("name") not in self.tools:
                return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "unknown tool"}}
            answer = self.call(params["name"], params.get("arguments"))
            if answer is None:
                return None
            result = answer
        elif method == "ping":
            result = {}
        else:
            return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "method not found"}}
        return {"jsonrpc": "2.0", "id": rid, "result": result}


MARKER: str | None = None


def main() -> None:
    global MARKER
    names = list(TOOLS)
    args = sys.argv[1:]
    while len(args) >= 2:
        option, value, args = args[0], args[1], args[2:]
        if option == "--tools":
            names = [n for n in value.split(",") if n]
        elif option == "--no-restart":
            MARKER = value
            if os.path.exists(MARKER):
                sys.exit(4)
    server = Server(names)
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = server.handle(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
