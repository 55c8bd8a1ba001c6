"""The ``mcp`` adapter: session files written by ``toolscore mcp record``.

The format (written by ``toolscore_mcp.recorder``) is JSON Lines: a header
``{"toolscore_record": "mcp-session", "version": 1, ...}``, then ``{"t", "dir", "msg"}`` lines
(the relayed JSON-RPC), ``{"t", "dir", "raw"}`` lines (output that was not JSON) and
``{"t", "call": {...}}`` lines written when a ``tools/call`` got its answer. The recorder
appends: a file may hold several sessions, each starting with its own header line.

``call`` lines are the recorder's verdict and win. A ``tools/call`` request with neither a
``call`` line nor a response (the relay was killed mid-call) is still a call, with an
unknown outcome. A file with messages but no ``call`` lines is rebuilt by pairing the
messages, which gives the same calls. Calls are ordered by when they were requested.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, ClassVar, TypeGuard

import attrs

from toolscore_adapters.protocols.jsonl_stream import TORN_KEY, first_line, iter_json_lines
from toolscore_adapters.protocols.jsonrpc_pairing import DIRECTIONS, Message, arguments, tool_calls
from toolscore_adapters.protocols.mcp_result import (
    looks_like_call_tool_result,
    read_call_tool_result,
)
from toolscore_core import InputError, ToolCall, Trace, TraceAdapter
from toolscore_core.kernel.formats import (
    MCP_SESSION_KEY,
    MCP_SESSION_KIND,
    MCP_SESSION_VERSION,
    MCP_SESSION_VERSIONS_READ,
)


def is_header(value: Any) -> TypeGuard[dict[str, Any]]:
    return isinstance(value, dict) and value.get(MCP_SESSION_KEY) == MCP_SESSION_KIND


class McpSessionAdapter(TraceAdapter):
    name: ClassVar[str] = "mcp"
    description: ClassVar[str] = "MCP session recordings from `toolscore mcp record` (JSON Lines)"

    def detect(self, data: Any) -> float:
        if isinstance(data, (list, tuple)) and data and is_header(data[0]):
            return 1.0
        return 0.9 if is_header(data) else 0.0  # a header alone: a session with no traffic

    def detect_path(self, path: Path, head: bytes) -> float:
        return 1.0 if is_header(first_line(head)) else 0.0

    def load(self, data: Any) -> Trace:
        if is_header(data):
            data = [data]
        if not isinstance(data, (list, tuple)) or not data or not is_header(data[0]):
            from toolscore_adapters.protocols.jsonrpc import JsonRpcAdapter

            rpc = JsonRpcAdapter()
            if rpc.detect(data) > 0:  # plain JSON-RPC traffic: tool-scorer 1.10.0's format="mcp" read it too
                return rpc.load(data)
            raise InputError("is not a `toolscore mcp record` session (no header line)", location="line 1",
                             expected=f'a first line {{"{MCP_SESSION_KEY}": "{MCP_SESSION_KIND}", "version": {MCP_SESSION_VERSION}, ...}}')
        return _read(((i + 1, item) for i, item in enumerate(data)), self.name)

    def load_path(self, path: Path) -> Trace:
        torn: list[str] = []  # a recorder killed mid-line leaves a cut-off last line: skipped, and said
        lines = iter_json_lines(path, expected="one JSON object per line (a `toolscore mcp record` session)",
                                torn=torn)
        try:
            trace = _read(lines, self.name)
        except InputError as exc:
            raise exc.with_file(path) from None
        if torn:
            trace = attrs.evolve(trace, metadata={**trace.metadata, TORN_KEY: torn[0]})
        return trace


def _read(lines: Iterable[tuple[int, Any]], fmt: str) -> Trace:
    """Read one file of sessions: ``mcp record`` appends, so each header line starts a
    session of its own (its ids and its clock ``t`` start afresh), read in file order."""
    iterator = iter(lines)
    number, header = next(iterator, (1, None))
    if not is_header(header):
        raise InputError("is not a `toolscore mcp record` session (no header line)", location=f"line {number}")
    headers: list[dict[str, Any]] = []
    calls: list[ToolCall] = []
    counts = {"messages": 0, "raw_lines": 0, "call_lines": 0}
    while header is not None:
        _check_version(header, number)
        headers.append(header)
        session_calls, header, number = _read_session(iterator, counts)
        calls.extend(session_calls)
    metadata: dict[str, Any] = {"header": _header_metadata(headers[0]), **counts}
    if len(headers) > 1:
        metadata["sessions"] = [_header_metadata(item) for item in headers]
    return Trace(calls=calls, source_format=fmt, metadata=metadata)


def _header_metadata(header: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in header.items() if k != MCP_SESSION_KEY}


def _check_version(header: dict[str, Any], number: int) -> None:
    version = header.get("version")
    if version not in MCP_SESSION_VERSIONS_READ:
        raise InputError(f"session format version {version!r} is not supported", location=f"line {number}",
                         expected=f"version {', '.join(map(str, MCP_SESSION_VERSIONS_READ))}",
                         hint="Upgrade toolscore-adapters, or record the session again")


def _read_session(iterator: Iterator[tuple[int, Any]], counts: dict[str, int]) -> tuple[list[ToolCall], Any, int]:
    """The calls of one session, then the next session's header and its line (None at the end)."""
    recorded: list[tuple[int, ToolCall, float | None]] = []
    messages: list[Message] = []
    next_header: Any = None
    number = 0
    for number, line in iterator:
        where = f"line {number}"
        if is_header(line):
            next_header = line
            break
        if not isinstance(line, dict):
            raise InputError(f"an event must be an object, not {type(line).__name__}", location=where)
        if "call" in line:
            call, requested_at = _call_line(line["call"], where)
            recorded.append((number, call, requested_at if requested_at is not None else _t(line)))
            counts["call_lines"] += 1
        elif "msg" in line:
            direction = line.get("dir")
            if direction not in DIRECTIONS:
                raise InputError(f"'dir' must be \"c2s\" or \"s2c\", not {direction!r}", location=where)
            counts["messages"] += 1
            messages.append(Message(msg=line["msg"], where=where, direction=direction, t=_t(line)))
        elif "raw" in line:
            counts["raw_lines"] += 1
        else:
            raise InputError("event line is none of msg, raw or call", location=where,
                             expected='{"t", "dir", "msg"}, {"t", "dir", "raw"} or {"t", "call"}')
    return _combine(recorded, tool_calls(messages)), next_header, number


def _t(line: dict[str, Any]) -> float | None:
    t = line.get("t")
    return float(t) if isinstance(t, (int, float)) and not isinstance(t, bool) else None


def _call_line(raw: Any, where: str) -> tuple[ToolCall, float | None]:
    if not isinstance(raw, dict):
        raise InputError("'call' must be an object", location=where)
    tool = raw.get("tool")
    if not isinstance(tool, str) or not tool:
        raise InputError(f"call line has no tool name ({tool!r})", location=f"{where}: call.tool")
    metadata: dict[str, Any] = {"jsonrpc_id": raw.get("id")}
    if isinstance(raw.get("error_code"), int):
        metadata["jsonrpc_error_code"] = raw["error_code"]  # the recorder keeps a JSON-RPC error's code
    args = arguments(raw.get("args"), metadata)
    result = raw.get("result")
    structured = None
    is_error = raw.get("is_error")
    error = raw.get("error")
    if looks_like_call_tool_result(result):
        result, structured, result_is_error, result_error = read_call_tool_result(result)
        if is_error is None:
            is_error, error = result_is_error, error or result_error
    if is_error is not None and not isinstance(is_error, bool):
        raise InputError("'is_error' must be true or false", location=f"{where}: call.is_error")
    if error is not None and not isinstance(error, str):
        error = str(error)
    if is_error is None:
        is_error = bool(error) if (error or "result" in raw) else None
    duration = raw.get("duration")
    if duration is not None and (isinstance(duration, bool) or not isinstance(duration, (int, float))):
        raise InputError("'duration' must be a number of seconds", location=f"{where}: call.duration")
    requested_at = raw.get("requested_at")
    requested = float(requested_at) if isinstance(requested_at, (int, float)) and not isinstance(requested_at, bool) else None
    call = ToolCall(tool=tool, args=args, id=None if raw.get("id") is None else str(raw["id"]), result=result,
                    structured_result=structured, is_error=is_error, error=error if is_error else None,
                    duration=None if duration is None else float(duration), metadata=metadata)
    return call, requested


def _combine(recorded: list[tuple[int, ToolCall, float | None]],
             from_messages: list[tuple[float | None, int, ToolCall]]) -> list[ToolCall]:
    """``call`` lines, plus requests the recorder never wrote a ``call`` line for, by request time."""
    with_ids = {c.id for _, c, _ in recorded if c.id is not None}
    merged: list[tuple[float, int, ToolCall]] = []
    for number, call, requested_at in recorded:
        merged.append((requested_at if requested_at is not None else float("inf"), number, call))
    seen: set[str] = set()
    for requested_at, position, call in from_messages:
        if call.id is not None and call.id in with_ids and call.id not in seen:
            seen.add(call.id)  # the recorder's verdict for this request is already in
            continue
        merged.append((requested_at if requested_at is not None else float("inf"), -1_000_000 + position, call))
    merged.sort(key=lambda item: (item[0], item[1]))
    return [call for _, _, call in merged]
