"""Pairing JSON-RPC 2.0 requests with their responses, and reading ``tools/call`` out of them.

Shared by the ``jsonrpc`` adapter (raw traffic) and the ``mcp`` adapter (session files whose
``call`` lines are missing). The rules, from the MCP spec and the
`toolscore mcp record` format (see ``toolscore_mcp.recorder``):

* only a ``tools/call`` request is a tool call: ``initialize``, ``tools/list``, ``ping``,
  notifications and requests the server sends to the client never are;
* a response belongs to the outstanding request with the same id, answered in the other
  direction (when directions are known: server-initiated requests use their own ids);
* ``isError: true`` in the result and a JSON-RPC ``error`` are both failures;
* a request that never got an answer is unknown (``is_error=None``), never a success.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs

from toolscore_adapters.protocols.mcp_result import (
    looks_like_call_tool_result,
    read_call_tool_result,
)
from toolscore_core import InputError, ToolCall

C2S, S2C = "c2s", "s2c"
DIRECTIONS = (C2S, S2C)


@attrs.frozen(slots=True)
class Message:
    """One JSON-RPC message with what the file knew about it."""

    msg: Any  # a message, or a batch (list) of them
    where: str
    direction: str | None = None
    t: float | None = None


def is_message(value: Any) -> bool:
    """A JSON-RPC 2.0 request, notification or response."""
    return (isinstance(value, dict) and value.get("jsonrpc") == "2.0"
            and ("method" in value or "result" in value or "error" in value))


def is_wrapped(value: Any) -> bool:
    """A ``{"dir": "c2s"|"s2c", "msg": {...}}`` line (``t`` optional)."""
    return (isinstance(value, dict) and value.get("dir") in DIRECTIONS
            and (is_message(value.get("msg")) or _is_batch(value.get("msg"))))


def _is_batch(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(is_message(v) for v in value)


def arguments(raw: Any, metadata: dict[str, Any]) -> dict[str, Any] | None:
    """``params.arguments`` as the call's args. Missing means no arguments (MCP's default);
    a value that is not an object is kept in ``metadata["raw_arguments"]`` and args are None:
    the server rejects such a call, and there is no honest dict to show for it."""
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return raw
    metadata["raw_arguments"] = raw
    return None


def _id_key(value: Any) -> str | None:
    if value is None or isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    return f"{type(value).__name__}:{value}"


def _outcome(response: dict[str, Any]) -> dict[str, Any]:
    """The fields of a ToolCall that a tools/call response decides."""
    if "error" in response:
        error = response.get("error")
        message = error.get("message") if isinstance(error, dict) else None
        code = error.get("code") if isinstance(error, dict) else None
        text = message if isinstance(message, str) and message else f"JSON-RPC error {code}"
        return {"is_error": True, "error": text, "result": None, "structured_result": None,
                "metadata": {"jsonrpc_error_code": code}}
    result = response.get("result")
    if looks_like_call_tool_result(result):
        text, structured, is_error, error = read_call_tool_result(result)
        return {"is_error": is_error, "error": error, "result": text, "structured_result": structured,
                "metadata": {}}
    return {"is_error": False, "error": None, "result": result, "structured_result": None, "metadata": {}}


def tool_calls(messages: Iterable[Message]) -> list[tuple[float | None, int, ToolCall]]:
    """``(requested_at, position, call)`` for every ``tools/call`` request, answered or not."""
    pending: dict[tuple[str | None, str], int] = {}
    calls: list[tuple[float | None, int, ToolCall]] = []
    for item in messages:
        batch = item.msg if isinstance(item.msg, list) else [item.msg]
        for msg in batch:
            if not isinstance(msg, dict):
                raise InputError(f"a JSON-RPC message must be an object, not {type(msg).__name__}",
                                 location=item.where)
            method = msg.get("method")
            key = _id_key(msg.get("id"))
            if method is not None:
                if method == "tools/call" and key is not None and item.direction in (None, C2S):
                    pending[(item.direction, key)] = len(calls)
                    calls.append((item.t, len(calls), _request_call(msg, item.where)))
                continue
            if key is None:
                continue  # an error about an unparseable request has no id to pair with
            request_direction = {S2C: C2S, C2S: S2C}.get(item.direction or "")
            index = pending.pop((request_direction, key), None)
            if index is None:
                continue  # the answer to some other request (initialize, tools/list, roots/list ...)
            requested_at, position, call = calls[index]
            outcome = _outcome(msg)
            duration = None
            if requested_at is not None and item.t is not None and item.t >= requested_at:
                duration = round(item.t - requested_at, 6)
            calls[index] = (requested_at, position, attrs.evolve(
                call, is_error=outcome["is_error"], error=outcome["error"], result=outcome["result"],
                structured_result=outcome["structured_result"], duration=duration,
                metadata={**call.metadata, **outcome["metadata"]}))
    return calls


def _request_call(msg: dict[str, Any], where: str) -> ToolCall:
    params = msg.get("params")
    if not isinstance(params, dict):
        raise InputError("tools/call request has no 'params' object", location=where,
                         expected='{"method": "tools/call", "params": {"name": TOOL, "arguments": {...}}}')
    name = params.get("name")
    if not isinstance(name, str) or not name:
        raise InputError("tools/call request does not name its tool (params.name)", location=where)
    metadata: dict[str, Any] = {"jsonrpc_id": msg.get("id")}
    args = arguments(params.get("arguments"), metadata)
    return ToolCall(tool=name, args=args, id=str(msg.get("id")), is_error=None, metadata=metadata)
