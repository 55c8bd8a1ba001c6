"""A small notes server with two defects on purpose, for ``toolscore demo``.

Why it exists: a first-time user should see a real scorecard in seconds, with no server of
their own, no network and no SDK. So this is a stdlib-only MCP server speaking raw
newline-delimited JSON-RPC 2.0 over stdio (``python -m toolscore_mcp.sample_server``).

Its defects are the kind the scorecard is built to catch:

* ``export_notes`` fails on every valid call ("storage backend not configured");
* ``delete_note`` declares ``note_id`` without a JSON-schema ``type``;
* ``search_notes`` has a description shorter than 10 characters.

Everything else behaves well: invalid arguments are refused with ``isError`` and a short
reason, unknown tools and methods get the matching JSON-RPC errors, and nothing is ever
written to disk (the notes live in memory for one process).
"""

from __future__ import annotations

import contextlib
import json
import sys
from typing import Any, TextIO, cast

SERVER_NAME = "notes-server"
SERVER_VERSION = "1.0.0"
PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")

# Kept compact on purpose: every definition is sent to the model on every turn, and the
# scorecard reports what each one costs (about 80, 59, 48, 52 and 64 estimated tokens).
TOOLS: list[dict[str, Any]] = [
    {
        "name": "create_note",
        "description": "Create a note with a title and an optional body, then return the new note's id.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "title": {"type": "string", "description": "Title of the note", "maxLength": 200},
                "body": {"type": "string", "description": "Text of the note"},
            },
            "required": ["title"],
        },
    },
    {
        "name": "list_notes",
        "description": "List notes, newest first.",
        "inputSchema": {
            "type": "object",
            "properties": {"limit": {"type": "integer", "description": "Max", "minimum": 1, "maximum": 100}},
            "required": [],
        },
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "search_notes",
        "description": "Search.",  # defect: too short to tell a model what the tool does
        "inputSchema": {
            "type": "object",
            "properties": {"query": {"type": "string", "description": "Text", "minLength": 1, "maxLength": 99}},
            "required": ["query"],
        },
    },
    {
        "name": "delete_note",
        "description": "Delete a note.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "note_id": {"description": "Note id"},  # defect: no "type"
                "purge": {"type": "boolean", "description": "Purge"},
            },
            "required": ["note_id"],
        },
    },
    {
        "name": "export_notes",
        "description": "Export all notes as a file.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "format": {"type": "string", "enum": ["markdown", "json", "csv"], "description": "Format"},
            },
            "required": ["format"],
        },
        "annotations": {"readOnlyHint": True},
    },
]

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


class ArgumentError(ValueError):
    """Arguments that do not match the tool's input schema (reported with ``isError``)."""


def _check_type(name: str, value: Any, spec: dict[str, Any]) -> None:
    expected = spec.get("type")
    if expected is None:
        return
    allowed = _JSON_TYPES[expected]
    if isinstance(value, bool) and expected in ("integer", "number"):
        raise ArgumentError(f"'{name}' must be {expected}, got boolean")
    if not isinstance(value, allowed):
        raise ArgumentError(f"'{name}' must be {expected}, got {type(value).__name__}")
    value = cast(Any, value)  # checked above; keep mypy from narrowing to ``object``
    if expected == "string":
        if len(value) < spec.get("minLength", 0):
            raise ArgumentError(f"'{name}' must have at least {spec['minLength']} characters")
        if "maxLength" in spec and len(value) > spec["maxLength"]:
            raise ArgumentError(f"'{name}' must have at most {spec['maxLength']} characters")
        if "enum" in spec and value not in spec["enum"]:
            raise ArgumentError(f"'{name}' must be one of {', '.join(spec['enum'])}")
    if expected in ("integer", "number"):
        if "minimum" in spec and value < spec["minimum"]:
            raise ArgumentError(f"'{name}' must be >= {spec['minimum']}")
        if "maximum" in spec and value > spec["maximum"]:
            raise ArgumentError(f"'{name}' must be <= {spec['maximum']}")
    if expected == "array":
        item_spec = spec.get("items", {})
        for position, item in enumerate(value):
            _check_type(f"{name}[{position}]", item, item_spec)


def validate(schema: dict[str, Any], args: Any) -> dict[str, Any]:
    """Check ``args`` against one of our (simple, flat) input schemas."""
    if not isinstance(args, dict):
        raise ArgumentError("arguments must be an object")
    properties: dict[str, Any] = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in args:
            raise ArgumentError(f"missing required argument '{name}'")
    for name, value in args.items():
        if name not in properties:
            raise ArgumentError(f"unknown argument '{name}'")
        _check_type(name, value, properties[name])
    return args


class NotesStore:
    """The server's state: notes in memory, numbered from 1."""

    def __init__(self) -> None:
        self.notes: dict[str, dict[str, Any]] = {}
        self._next_id = 1

    def create_note(self, title: str, body: str = "") -> dict[str, Any]:
        note_id = f"n{self._next_id}"
        self._next_id += 1
        self.notes[note_id] = {"id": note_id, "title": title, "body": body}
        return {"id": note_id}

    def list_notes(self, limit: int = 20) -> dict[str, Any]:
        notes = list(reversed(self.notes.values()))
        return {"notes": notes[:limit], "total": len(notes)}

    def search_notes(self, query: str) -> dict[str, Any]:
        words = query.lower().split()
        hits = [n for n in self.notes.values() if all(w in (n["title"] + " " + n["body"]).lower() for w in words)]
        return {"hits": hits[:10]}

    def delete_note(self, note_id: Any, purge: bool = False) -> dict[str, Any]:
        if not isinstance(note_id, str):
            # The schema forgot the type (on purpose); the handler still needs a string.
            raise ArgumentError("'note_id' must be a note id such as 'n1'")
        removed = self.notes.pop(note_id, None)
        return {"deleted": 1 if removed else 0}

    def export_notes(self, format: str) -> dict[str, Any]:
        raise RuntimeError("export failed: storage backend not configured")


class SampleServer:
    """Answers one JSON-RPC message at a time; ``serve`` loops over a text stream."""

    def __init__(self) -> None:
        self.store = NotesStore()
        self.tools = {tool["name"]: tool for tool in TOOLS}

    def handle(self, message: Any) -> dict[str, Any] | None:
        """The reply to one parsed message, or ``None`` for notifications."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return _error(None, -32600, "invalid request: expected a JSON-RPC 2.0 object")
        method = message.get("method")
        request_id = message.get("id")
        is_notification = "id" not in message
        if is_notification:
            return None
        params = message.get("params") or {}
        if method == "initialize":
            offered = params.get("protocolVersion") if isinstance(params, dict) else None
            version = offered if offered in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0]
            return _result(request_id, {
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": SERVER_NAME, "version": SERVER_VERSION},
            })
        if method == "ping":
            return _result(request_id, {})
        if method == "tools/list":
            return _result(request_id, {"tools": TOOLS})
        if method == "tools/call":
            return self._call(request_id, params)
        return _error(request_id, -32601, f"method not found: {method}")

    def _call(self, request_id: Any, params: Any) -> dict[str, Any]:
        name = params.get("name") if isinstance(params, dict) else None
        if name not in self.tools:
            return _error(request_id, -32602, f"unknown tool: {name}")
        try:
            args = validate(self.tools[name]["inputSchema"], params.get("arguments", {}))
            payload = getattr(self.store, str(name))(**args)
        except ArgumentError as exc:
            return _result(request_id, _tool_error(f"invalid arguments: {exc}"))
        except RuntimeError as exc:
            return _result(request_id, _tool_error(str(exc)))
        text = json.dumps(payload, ensure_ascii=False)
        return _result(request_id, {"content": [{"type": "text", "text": text}],
                                    "structuredContent": payload, "isError": False})

    def serve(self, stdin: TextIO, stdout: TextIO) -> None:
        for line in stdin:
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                reply: dict[str, Any] | None = _error(None, -32700, "parse error")
            else:
                reply = self.handle(message)
            if reply is not None:
                stdout.write(json.dumps(reply, ensure_ascii=False) + "\n")
                stdout.flush()


def _result(request_id: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def _tool_error(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def main() -> None:
    """Serve on stdin/stdout until stdin closes (UTF-8 regardless of the locale)."""
    stdin = open(sys.stdin.fileno(), encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
    stdout = open(sys.stdout.fileno(), "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    with contextlib.suppress(KeyboardInterrupt, BrokenPipeError):
        SampleServer().serve(stdin, stdout)


if __name__ == "__main__":
    main()
