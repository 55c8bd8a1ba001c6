"""Writes a ``toolscore mcp record`` session file as the traffic happens.

Format (the contract with the ``mcp`` adapter of toolscore-adapters), JSON Lines, UTF-8,
append-only, one flushed line per event so a killed relay loses nothing already written:

- the header, first line of each session (sessions are appended one after another): ``{"toolscore_record": "mcp-session", "version": 1,
  "started_at": "2026-12-02T12:00:00.000Z", "command": [...], "redacted": true}``;
- ``{"t": 0.0123, "dir": "c2s"|"s2c", "msg": {...}}``: a JSON-RPC message as relayed
  (``t`` = seconds since ``started_at``);
- ``{"t": ..., "dir": ..., "raw": "..."}``: a line that was not JSON (invalid UTF-8 shown
  as U+FFFD here; the relay itself forwards the original bytes);
- ``{"t": ..., "call": {"id", "tool", "args", "result", "is_error", "error", "duration",
  "requested_at"}}``: written when a ``tools/call`` gets its response or JSON-RPC error
  (``error_code`` is added for a JSON-RPC error). A request never answered gets no call
  line: readers treat it as unknown, never as a success.

Credentials in messages, raw lines and calls are replaced by their preview (``AKIA…LE``,
``toolscore_core.scoring.secrets``) unless the session is recorded with ``redact=False``.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import datetime, timezone
from typing import IO, Any

from toolscore_core.kernel.formats import MCP_SESSION_KEY, MCP_SESSION_KIND, MCP_SESSION_VERSION


def _utc_stamp() -> str:
    now = datetime.now(timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


class SessionRecorder:
    """Pairs requests with responses by id and appends each event to ``stream``.

    Thread-safe: the relay feeds it from its two directions at once. Ids are paired per
    direction (a client request is answered by the server, and the server's own requests
    by the client), so the two id spaces never collide.
    """

    def __init__(self, stream: IO[str], command: list[str], *, redact: bool = True) -> None:
        self.stream = stream
        self.where = getattr(stream, "name", "") or ""  # for messages about the file
        self.redact = redact
        self.started = time.monotonic()
        self.calls_written = 0
        self.unanswered: dict[Any, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._redactor = None
        from toolscore_core.scoring.secrets import redact_command

        if redact:
            from toolscore_core.scoring.secrets import redact as redact_value

            self._redactor = redact_value
        self._write({MCP_SESSION_KEY: MCP_SESSION_KIND, "version": MCP_SESSION_VERSION, "started_at": _utc_stamp(),
                     "command": redact_command(list(command)) if redact else list(command), "redacted": redact})

    def now(self) -> float:
        return round(time.monotonic() - self.started, 6)

    def _clean(self, value: Any) -> Any:
        return self._redactor(value) if self._redactor is not None else value

    def _write(self, event: dict[str, Any]) -> None:
        line = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
        self.stream.write(line + "\n")  # callers hold self._lock (or run before any thread)
        self.stream.flush()

    # -- feeding ------------------------------------------------------------------------
    def line(self, direction: str, data: bytes) -> None:
        """Record one line of traffic (``direction`` "c2s" or "s2c"), as bytes.

        Both directions feed this at once; the lock makes each line's time and its place
        in the file agree, so ``t`` never goes backwards in the file."""
        with self._lock:
            self._line(direction, data, self.now())

    def _line(self, direction: str, data: bytes, t: float) -> None:
        stripped = data.strip()
        if not stripped:
            return
        try:
            message = json.loads(stripped.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):  # nested too deep to read: kept as text
            text = stripped.decode("utf-8", errors="replace")
            self._write({"t": t, "dir": direction, "raw": self._clean(text)})
            return
        if not isinstance(message, (dict, list)):
            self._write({"t": t, "dir": direction, "raw": self._clean(stripped.decode("utf-8"))})
            return
        self._write({"t": t, "dir": direction, "msg": self._clean(message)})
        for item in message if isinstance(message, list) else [message]:
            if isinstance(item, dict):
                self._pair(direction, item, t)

    def _pair(self, direction: str, message: dict[str, Any], t: float) -> None:
        if direction == "c2s" and message.get("method") == "tools/call" and "id" in message:
            raw_params = message.get("params")
            params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
            self.unanswered[_key(message["id"])] = {
                "id": message["id"], "tool": params.get("name"), "args": params.get("arguments"), "requested_at": t}
            return
        if direction != "s2c" or "method" in message or "id" not in message:
            return
        request = self.unanswered.pop(_key(message["id"]), None)
        if request is None:
            return
        call: dict[str, Any] = {"id": request["id"], "tool": request["tool"], "args": request["args"]}
        if "error" in message:
            error = message["error"] if isinstance(message["error"], dict) else {"message": str(message["error"])}
            call.update(result=None, is_error=True, error=str(error.get("message", "")))
            if isinstance(error.get("code"), int):
                call["error_code"] = error["code"]
        else:
            result = message.get("result")
            flag = result.get("isError") if isinstance(result, dict) else None
            is_error = flag is True
            call.update(result=result, is_error=is_error, error=_first_text(result) if is_error else None)
        call["duration"] = round(t - request["requested_at"], 6)
        call["requested_at"] = request["requested_at"]
        self._write({"t": t, "call": self._clean(call)})
        self.calls_written += 1


def _first_text(result: Any) -> str | None:
    content = result.get("content") if isinstance(result, dict) else None
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                return block["text"]
    return None


def _key(request_id: Any) -> tuple[str, Any]:
    return (type(request_id).__name__, request_id if not isinstance(request_id, (dict, list)) else json.dumps(request_id))
