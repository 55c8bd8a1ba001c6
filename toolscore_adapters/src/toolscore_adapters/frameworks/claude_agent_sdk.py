"""Claude Agent SDK runs (format ``claude-agent-sdk``).

Reads every form a run is kept in:

- the live list collected from ``query()`` / ``ClaudeSDKClient.receive_response()``
  (SystemMessage, AssistantMessage, UserMessage, ResultMessage objects);
- that list saved with ``dataclasses.asdict`` (optionally with a ``"_type"`` class name per
  message). Its content blocks lose their type tag, so they are told apart by their keys:
  ``input`` marks a tool use, ``tool_use_id`` a tool result, ``text`` a text block;
- the CLI's ``--output-format stream-json`` lines (``{"type": "assistant", "message": {...}}``);
- Claude Code's session transcript lines and ``get_session_messages()`` results, which share
  the ``type`` + ``message`` shape; their other entry types are skipped. When entries carry
  timestamps, a call's duration is the time from its tool use to its result.

Results pair with calls by ``tool_use_id``. ``is_error: true`` is a failure; a result
without it (``None`` or missing on the wire) is a success, and a tool use with no result is
unknown. Custom tools are named ``mcp__<server>__<tool>``: the bare tool name is used (the
``tool_use_meta`` of stream frames names it too) and the full name is kept in
``metadata["qualified_name"]``; set ``strip_mcp_prefix = False`` to keep full names.
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from typing import Any, ClassVar

import attrs

from toolscore_adapters._common import from_package, result_text, to_plain
from toolscore_adapters.frameworks._shared import (
    dicts,
    iso_time,
    parse_json_text,
    peek_text,
    tag,
    where,
)
from toolscore_core import InputError, ToolCall, Trace, TraceAdapter

_MESSAGE_CLASSES = frozenset({"AssistantMessage", "UserMessage", "ResultMessage", "SystemMessage", "StreamEvent",
                              "SessionMessage", "RateLimitEvent", "TaskStartedMessage", "TaskProgressMessage",
                              "TaskNotificationMessage", "TaskUpdatedMessage", "HookEventMessage"})
_FRAME_TYPES = frozenset({"assistant", "user", "system", "result", "stream_event", "rate_limit_event"})
_RESULT_KEYS = frozenset({"subtype", "duration_ms", "num_turns", "session_id"})


class ClaudeAgentSDKAdapter(TraceAdapter):
    """Claude Agent SDK message lists, stream-json lines and session transcripts."""

    name: ClassVar[str] = "claude-agent-sdk"
    description: ClassVar[str] = "Claude Agent SDK message lists, stream-json output and session transcripts"
    strip_mcp_prefix: ClassVar[bool] = True

    def detect(self, data: Any) -> float:
        if isinstance(data, (list, tuple)) and data and all(from_package(m, "claude_agent_sdk") for m in data):
            return 1.0
        head = peek_text(data)
        if head is not None:
            marked = '"session_id"' in head or '"sessionId"' in head
            return 0.9 if marked and '"type"' in head and '"message"' in head else 0.0
        if not isinstance(data, list) or not data:
            return 0.0
        entries = dicts(data)
        if len(entries) != len(data):
            return 0.0
        if sum(1 for e in entries if tag(e, "_type") in _MESSAGE_CLASSES) * 2 > len(entries):
            return 0.95
        framed = [e for e in entries if e.get("type") in ("assistant", "user") and isinstance(e.get("message"), dict)]
        if framed and all(isinstance(e.get("type"), str) for e in entries):
            distinctive = any("session_id" in e or "sessionId" in e or "tool_use_meta" in e for e in entries)
            return 0.95 if distinctive else 0.7
        if any(set(e) >= _RESULT_KEYS for e in entries):
            return 0.9
        if any("parent_tool_use_id" in e and "content" in e and "role" not in e for e in entries):
            return 0.8
        return 0.0

    def load(self, data: Any) -> Trace:
        if isinstance(data, (bytes, bytearray, memoryview, str)):
            data = parse_json_text(data, what="the Claude Agent SDK messages")
        if isinstance(data, dict):
            data = [data]
        if not isinstance(data, (list, tuple)):
            raise InputError("is not a Claude Agent SDK message list",
                             expected="the messages from query(), stream-json lines or a session transcript")
        if not data:  # an empty run is a trace with no calls, as tool-scorer 1.10.0 read it
            return Trace(calls=[], source_format=self.name)
        entries = [_live(m) if from_package(m, "claude_agent_sdk") else m for m in data]
        return _Reader(strip=self.strip_mcp_prefix).read(entries)


def _live(message: Any) -> dict[str, Any]:
    plain = to_plain(message)
    if not isinstance(plain, dict):
        return {}
    return {"_type": type(message).__name__, **plain}


class _Reader:
    def __init__(self, *, strip: bool) -> None:
        self.strip = strip
        self.calls: list[ToolCall] = []
        self.started: dict[str, datetime] = {}
        self.results: dict[str, dict[str, Any]] = {}
        self.bare_names: dict[str, str] = {}
        self.final_text: str | None = None
        self.result_text: str | None = None
        self.metadata: dict[str, Any] = {}

    def read(self, entries: list[Any]) -> Trace:
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict):
                raise InputError(f"a message must be an object, not {type(entry).__name__}", location=where(i))
            kind, content, path = _classify(entry, i)
            stamp = iso_time(entry.get("timestamp"))
            if kind == "assistant":
                metas = entry.get("tool_use_meta")
                for meta in metas if isinstance(metas, list) else ():
                    if isinstance(meta, dict) and isinstance(meta.get("id"), str) and isinstance(meta.get("tool_name"), str):
                        self.bare_names[meta["id"]] = meta["tool_name"]
                self._assistant(content, path, entry, stamp)
            elif kind == "user":
                self._user(content, path, stamp)
            elif kind == "result":
                self._result_message(entry)
        calls = []
        for call in self.calls:
            found = self.results.get(call.id) if call.id is not None else None
            fields = attrs.asdict(call, recurse=False)
            if call.id in self.bare_names and self.strip:
                fields["tool"] = self.bare_names[call.id]
            calls.append(ToolCall(**{**fields, **found}) if found else ToolCall(**fields))
        final = self.result_text if self.result_text is not None else self.final_text
        if not calls and final is None:
            raise InputError("holds no tool use and no assistant text",
                             expected="AssistantMessage / assistant frames with tool_use blocks")
        return Trace(calls=calls, final_answer=final, source_format=ClaudeAgentSDKAdapter.name, metadata=self.metadata)

    def _assistant(self, content: Any, path: tuple[str | int, ...], entry: dict[str, Any], stamp: datetime | None) -> None:
        if not isinstance(content, list):
            return
        texts = []
        for j, block in enumerate(content):
            if not isinstance(block, dict):
                continue
            block_type = block.get("type")
            if block_type == "tool_use" or (block_type is None and {"id", "name", "input"} <= set(block)):
                self.calls.append(self._call(block, (*path, j), entry))
                if stamp is not None and isinstance(block.get("id"), str):
                    self.started[block["id"]] = stamp
            elif (block_type == "text" or block_type is None) and isinstance(block.get("text"), str):
                texts.append(block["text"])
        if texts and not entry.get("parent_tool_use_id"):
            self.final_text = "".join(texts)

    def _call(self, block: dict[str, Any], path: tuple[str | int, ...], entry: dict[str, Any]) -> ToolCall:
        name = block.get("name")
        if not isinstance(name, str) or not name:
            raise InputError(f"a tool use needs a name, not {name!r}", location=where(*path, "name"))
        args = block.get("input")
        if args is not None and not isinstance(args, dict):
            raise InputError(f"a tool use's input must be an object, not {type(args).__name__}",
                             location=where(*path, "input"))
        metadata: dict[str, Any] = {}
        tool = name
        parts = name.split("__", 2)
        if len(parts) == 3 and parts[0] == "mcp" and parts[1] and parts[2]:
            metadata = {"qualified_name": name, "mcp_server": parts[1]}
            if self.strip:
                tool = parts[2]
        if entry.get("parent_tool_use_id"):
            metadata["parent_tool_use_id"] = entry["parent_tool_use_id"]
        call_id = block.get("id")
        return ToolCall(tool=tool, args=args, id=call_id if isinstance(call_id, str) else None, metadata=metadata)

    def _user(self, content: Any, path: tuple[str | int, ...], stamp: datetime | None) -> None:
        if not isinstance(content, list):
            return  # a prompt given as a plain string
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_result" or (block.get("type") is None and "tool_use_id" in block):
                use_id = block.get("tool_use_id")
                if not isinstance(use_id, str):
                    continue
                text = result_text(block.get("content"))
                failed = block.get("is_error") is True
                found: dict[str, Any] = {"result": text, "is_error": failed,
                                         "error": (text if isinstance(text, str) else str(text)) if failed else None}
                begun = self.started.get(use_id)
                if begun is not None and stamp is not None:
                    with contextlib.suppress(TypeError):  # naive and aware timestamps mixed
                        found["duration"] = max(0.0, (stamp - begun).total_seconds())
                self.results[use_id] = found

    def _result_message(self, entry: dict[str, Any]) -> None:
        if isinstance(entry.get("result"), str):
            self.result_text = entry["result"]
        for key in ("session_id", "subtype", "is_error", "duration_ms", "num_turns", "total_cost_usd", "stop_reason"):
            if entry.get(key) is not None:
                self.metadata[key] = entry[key]


def _classify(entry: dict[str, Any], i: int) -> tuple[str, Any, tuple[str | int, ...]]:
    """(kind, content blocks, path of the content) for one message in any of the forms."""
    cls = entry.get("_type")
    message = entry.get("message")
    if isinstance(message, dict) and entry.get("type") in ("assistant", "user"):
        return entry["type"], message.get("content"), (i, "message", "content")
    if cls == "AssistantMessage":
        return "assistant", entry.get("content"), (i, "content")
    if cls == "UserMessage":
        return "user", entry.get("content"), (i, "content")
    if cls == "ResultMessage" or entry.get("type") == "result" or set(entry) >= _RESULT_KEYS:
        return "result", None, (i,)
    if cls is None and "type" not in entry and entry.get("role") in ("assistant", "user"):
        # a Messages-API dict ({"role": "assistant", "content": [...]}), as tool-scorer 1.10.0 read it
        return entry["role"], entry.get("content"), (i, "content")
    if cls is None and "type" not in entry and "content" in entry and "role" not in entry:
        if "model" in entry:
            return "assistant", entry.get("content"), (i, "content")
        if "tool_use_result" in entry or "parent_tool_use_id" in entry:
            return "user", entry.get("content"), (i, "content")
        blocks = entry.get("content")
        if isinstance(blocks, list) and any(isinstance(b, dict) and b.get("type") == "tool_use" for b in blocks):
            return "assistant", blocks, (i, "content")  # only the model asks for a tool
    return "other", None, (i,)
