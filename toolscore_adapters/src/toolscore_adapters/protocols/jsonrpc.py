"""The ``jsonrpc`` adapter: raw JSON-RPC 2.0 traffic between an MCP client and server.

Accepted: a JSON list of messages, JSON Lines of messages, or JSON Lines of
``{"dir": "c2s"|"s2c", "msg": {...}}`` wrappers (``t`` seconds optional); batches (a list of
messages in one line) too. Only ``tools/call`` requests are calls (see ``jsonrpc_pairing``).
A recording with the ``toolscore mcp record`` header is the ``mcp`` adapter's.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, ClassVar

from toolscore_adapters.protocols.jsonl_stream import TORN_KEY, first_line, iter_json_lines
from toolscore_adapters.protocols.jsonrpc_pairing import (
    Message,
    is_message,
    is_wrapped,
    tool_calls,
)
from toolscore_core import InputError, Trace, TraceAdapter


def _is_item(value: Any) -> bool:
    return is_message(value) or is_wrapped(value) or (
        isinstance(value, list) and bool(value) and all(is_message(v) for v in value))


class JsonRpcAdapter(TraceAdapter):
    name: ClassVar[str] = "jsonrpc"
    description: ClassVar[str] = "raw JSON-RPC 2.0 traffic (MCP): a list or JSON Lines of messages"

    def detect(self, data: Any) -> float:
        if is_message(data):
            return 0.5  # one message: JSON-RPC, but hardly a trace
        if isinstance(data, (list, tuple)) and data and all(_is_item(v) for v in data):
            return 0.9
        return 0.0

    def detect_path(self, path: Path, head: bytes) -> float:
        """Claim JSON Lines traffic (streamed by :meth:`load_path`); a JSON list is judged parsed."""
        first = first_line(head)
        return 0.9 if isinstance(first, dict) and _is_item(first) else 0.0

    def load(self, data: Any) -> Trace:
        if is_message(data):
            data = [data]
        if not isinstance(data, (list, tuple)):
            raise InputError(f"is not a list of JSON-RPC messages ({type(data).__name__})", location="$",
                             expected='[{"jsonrpc": "2.0", "id": 1, "method": "tools/call", ...}, ...]')
        return self._trace(_messages(enumerate(data), "$[{}]"), len(data))

    def load_path(self, path: Path) -> Trace:
        torn: list[str] = []  # a cut-off last line is skipped, and said (metadata TORN_KEY)
        lines = iter_json_lines(path, expected="one JSON-RPC message (or {\"dir\", \"msg\"} object) per line",
                                torn=torn)
        counted = _Counter(lines)
        try:
            trace = self._trace(_messages(counted, "line {}"), counted)
        except InputError as exc:
            raise exc.with_file(path) from None
        if torn:
            trace.metadata[TORN_KEY] = torn[0]
        return trace

    def _trace(self, messages: Iterator[Message], count: int | _Counter) -> Trace:
        found = tool_calls(messages)
        found.sort(key=lambda c: c[1])  # request order is the call order
        answered = sum(1 for _, _, c in found if c.is_error is not None)
        return Trace(calls=[c for _, _, c in found], source_format=self.name,
                     metadata={"messages": int(count), "tool_calls": len(found), "answered": answered})


class _Counter:
    """Passes ``(number, value)`` pairs through, counting them (the message count of a stream)."""

    def __init__(self, items: Iterator[tuple[int, Any]]) -> None:
        self._items = items
        self.count = 0

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        for item in self._items:
            self.count += 1
            yield item

    def __int__(self) -> int:
        return self.count


def _messages(items: Iterable[tuple[int, Any]], place: str) -> Iterator[Message]:
    for i, item in items:
        where = place.format(i)
        if is_wrapped(item):
            t = item.get("t")
            t = float(t) if isinstance(t, (int, float)) and not isinstance(t, bool) else None
            inner = f"{where}.msg" if where.startswith("$") else f"{where}, msg"
            yield Message(msg=item["msg"], where=inner, direction=item["dir"], t=t)
        elif is_message(item) or (isinstance(item, list) and all(is_message(v) for v in item)):
            yield Message(msg=item, where=where)
        else:
            raise InputError("is not a JSON-RPC 2.0 message", location=where,
                             expected='{"jsonrpc": "2.0", ...} or {"dir": "c2s", "msg": {...}}')
