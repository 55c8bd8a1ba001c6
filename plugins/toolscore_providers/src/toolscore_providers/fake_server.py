"""A scripted model server on 127.0.0.1, for offline tests of providers and agents.

Why a real HTTP server rather than a fake client object: it lets the real ``openai`` and
``anthropic`` SDKs do everything they do in production (build the request, send headers,
parse the answer into their models, raise their own exceptions for 429 and 529), so a test
proves the provider works with the SDK, not with our idea of it. Nothing here calls out.

Each POST to ``/v1/responses``, ``/v1/chat/completions``, ``/v1/messages`` or a Gemini
``.../models/<model>:generateContent`` takes the next entry of the script (one queue, in order, whatever the endpoint) and answers it in that
API's shape:

- ``{"text": "...", "calls": [{"tool": NAME, "args": {...}}], "stop": ..., "usage": {...}}``:
  a model turn. ``calls`` entries may give ``raw_args`` (argument text sent as it is: a
  truncated or malformed call) and ``id``. ``stop`` is ``end_turn``, ``tool_use``,
  ``max_tokens`` or ``refusal`` (rendered in each API's words) or any raw value; by default
  ``tool_use`` with calls, else ``end_turn``. ``usage`` is ``{"input_tokens", "output_tokens",
  "cached_tokens"}`` (defaults 100, 20, 0), or ``null`` to send none.
- ``{"error": STATUS, "message": ..., "type": ..., "code": ..., "headers": {...}}``: an API
  error in the endpoint's error shape (``headers`` such as ``{"retry-after": "1"}``).
- ``{"raw": TEXT, "status": 200, "content_type": ...}``: a body sent as it is (malformed).
- ``"delay": SECONDS`` in any entry waits before answering.

An exhausted script answers 400 saying so. Every request is recorded in ``requests``
(path, headers with credentials hidden, parsed JSON body).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import attrs

#: Largest request body accepted (a test's requests are small; this bounds a runaway).
MAX_BODY = 16 * 1024 * 1024
_SECRET_HEADERS = ("authorization", "x-api-key", "api-key", "openai-organization", "openai-project",
                   "x-goog-api-key")
_DEFAULT_USAGE = {"input_tokens": 100, "output_tokens": 20, "cached_tokens": 0}
_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error",
                500: "api_error", 503: "api_error", 529: "overloaded_error"}
# Normalised stop -> (Responses status/incomplete reason, chat finish_reason, Anthropic stop_reason)
_STOPS = {"end_turn": ("completed", "stop", "end_turn"), "tool_use": ("completed", "tool_calls", "tool_use"),
          "max_tokens": ("max_output_tokens", "length", "max_tokens"),
          "refusal": ("content_filter", "content_filter", "refusal")}


@attrs.frozen
class RecordedRequest:
    """One request the server received: ``body`` is the parsed JSON (``None`` if not JSON)."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    raw: bytes = attrs.field(repr=False)


class FakeModelServer:
    """A threaded HTTP server on 127.0.0.1 (a free port) answering from ``script``.

    Use as a context manager; ``base_url`` (``http://127.0.0.1:PORT/v1``) suits both SDKs
    (the Anthropic SDK's added ``/v1`` is tolerated). ``requests`` lists what arrived.
    """

    def __init__(self, script: Iterable[Mapping[str, Any]] = (), *, host: str = "127.0.0.1",
                 port: int = 0) -> None:
        self._script: deque[dict[str, Any]] = deque(dict(e) for e in script)
        self._lock = threading.Lock()
        self.requests: list[RecordedRequest] = []
        self._counter = 0
        self._httpd = ThreadingHTTPServer((host, port), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def push(self, *entries: Mapping[str, Any]) -> None:
        """Append entries to the script (e.g. between two phases of a test)."""
        with self._lock:
            self._script.extend(dict(e) for e in entries)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._script)

    def start(self) -> FakeModelServer:
        if self._thread is None:
            # A short poll interval: stopping waits for one poll, and tests stop servers often.
            self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                            name="fake-model-server", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> FakeModelServer:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    # -- answering -----------------------------------------------------------------------

    def _next(self) -> tuple[dict[str, Any] | None, int]:
        with self._lock:
            self._counter += 1
            return (self._script.popleft() if self._script else None), self._counter

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def answer(self, api: str, body: Any) -> tuple[int, dict[str, str], bytes]:
        """Status, headers and body for one request to ``api`` (responses|chat|messages)."""
        entry, n = self._next()
        if entry is None:
            return _error(api, 400, "the fake model server's script is exhausted", None, None)
        if entry.get("delay"):
            time.sleep(float(entry["delay"]))
        if "raw" in entry:
            headers = {"content-type": str(entry.get("content_type", "application/json"))}
            return int(entry.get("status", 200)), headers, str(entry["raw"]).encode("utf-8")
        if "error" in entry:
            status, headers, data = _error(api, int(entry["error"]), str(entry.get("message", "error")),
                                           entry.get("type"), entry.get("code"))
            headers.update({str(k): str(v) for k, v in (entry.get("headers") or {}).items()})
            return status, headers, data
        model = body.get("model") if isinstance(body, dict) else None
        render = {"responses": _responses, "chat": _chat, "messages": _messages, "gemini": _gemini}[api]
        return 200, {"content-type": "application/json"}, json.dumps(render(entry, n, model)).encode()


def _handler_for(server: FakeModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet in tests
            return

        def do_POST(self) -> None:  # http.server's naming
            length = int(self.headers.get("content-length") or 0)
            if length > MAX_BODY:
                self._send(413, {"content-type": "text/plain"}, b"request too large")
                return
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            headers = {k.lower(): ("[redacted]" if k.lower() in _SECRET_HEADERS else v)
                       for k, v in self.headers.items()}
            path = self.path.split("?", 1)[0]
            server._record(RecordedRequest("POST", path, headers, body, raw))
            api = ("responses" if path.endswith("/responses") else "chat"
                   if path.endswith("/chat/completions") else "messages"
                   if path.endswith("/messages") else "gemini"
                   if path.endswith(":generateContent") else None)
            if api is None:
                self._send(404, {"content-type": "application/json"},
                           json.dumps({"error": {"message": f"no route {path}"}}).encode())
                return
            if api == "gemini":  # Gemini names the model in the path, not the body
                body = {**(body if isinstance(body, dict) else {}), "model": path.rsplit("/", 1)[-1].split(":")[0]}
            self._send(*server.answer(api, body))

        def _send(self, status: int, headers: dict[str, str], data: bytes) -> None:
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _error(api: str, status: int, message: str, kind: Any, code: Any) -> tuple[int, dict[str, str], bytes]:
    kind = kind or _ERROR_TYPES.get(status, "api_error")
    if api == "messages":
        body: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": message},
                                "request_id": "req_fake"}
    elif api == "gemini":
        body = {"error": {"code": status, "message": message, "status": code or _GEMINI_STATUS.get(status, "UNKNOWN")}}
    else:
        body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
    return status, {"content-type": "application/json"}, json.dumps(body).encode()


def _calls(entry: Mapping[str, Any], n: int) -> list[tuple[str, str, Any]]:
    """``(id, name, arguments)`` of an entry's calls; arguments a dict or raw text."""
    out = []
    for i, call in enumerate(entry.get("calls") or (), start=1):
        args = call["raw_args"] if "raw_args" in call else call.get("args", {})
        out.append((str(call.get("id") or f"call_{n}_{i}"), str(call["tool"]), args))
    return out


def _stop(entry: Mapping[str, Any], has_calls: bool, column: int) -> str:
    stop = entry.get("stop") or ("tool_use" if has_calls else "end_turn")
    return _STOPS[stop][column] if stop in _STOPS else str(stop)


def _usage(entry: Mapping[str, Any]) -> dict[str, int] | None:
    if "usage" in entry and entry["usage"] is None:
        return None
    return {**_DEFAULT_USAGE, **(entry.get("usage") or {})}


def _text_args(args: Any) -> str:
    return args if isinstance(args, str) else json.dumps(args)


def _responses(entry: Mapping[str, Any], n: int, model: Any) -> dict[str, Any]:
    calls = _calls(entry, n)
    output: list[dict[str, Any]] = []
    if entry.get("text") is not None:
        output.append({"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
                       "content": [{"type": "output_text", "text": entry["text"], "annotations": []}]})
    output += [{"type": "function_call", "id": f"fc_{cid}", "call_id": cid, "name": name,
                "arguments": _text_args(args), "status": "completed"} for cid, name, args in calls]
    stop = _stop(entry, bool(calls), 0)
    incomplete = stop not in ("completed", "failed", "in_progress", "cancelled", "queued")
    usage = _usage(entry)
    return {
        "id": f"resp_{n}", "object": "response", "created_at": int(time.time()), "model": model,
        "status": "incomplete" if incomplete else stop,
        "incomplete_details": {"reason": stop} if incomplete else None, "error": None,
        "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "usage": None if usage is None else {
            "input_tokens": usage["input_tokens"], "output_tokens": usage["output_tokens"],
            "input_tokens_details": {"cached_tokens": usage["cached_tokens"]},
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": usage["input_tokens"] + usage["output_tokens"]},
    }


def _chat(entry: Mapping[str, Any], n: int, model: Any) -> dict[str, Any]:
    calls = _calls(entry, n)
    message: dict[str, Any] = {"role": "assistant", "content": entry.get("text")}
    if calls:
        message["tool_calls"] = [{"id": cid, "type": "function",
                                  "function": {"name": name, "arguments": _text_args(args)}}
                                 for cid, name, args in calls]
    usage = _usage(entry)
    return {
        "id": f"chatcmpl-{n}", "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "finish_reason": _stop(entry, bool(calls), 1), "message": message}],
        "usage": None if usage is None else {
            "prompt_tokens": usage["input_tokens"], "completion_tokens": usage["output_tokens"],
            "total_tokens": usage["input_tokens"] + usage["output_tokens"],
            "prompt_tokens_details": {"cached_tokens": usage["cached_tokens"]}},
    }


def _messages(entry: Mapping[str, Any], n: int, model: Any) -> dict[str, Any]:
    calls = _calls(entry, n)
    content: list[dict[str, Any]] = []
    if entry.get("text") is not None:
        content.append({"type": "text", "text": entry["text"]})
    for cid, name, args in calls:
        if isinstance(args, str):  # raw text: an object when it parses, else sent as it is
            with contextlib.suppress(ValueError):
                args = json.loads(args)
        content.append({"type": "tool_use", "id": cid.replace("call_", "toolu_", 1), "name": name,
                        "input": args})
    usage = _usage(entry)
    return {
        "id": f"msg_{n}", "type": "message", "role": "assistant", "model": model, "content": content,
        "stop_reason": _stop(entry, bool(calls), 2), "stop_sequence": None,
        "usage": None if usage is None else {
            "input_tokens": usage["input_tokens"] - usage["cached_tokens"],
            "output_tokens": usage["output_tokens"], "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": usage["cached_tokens"]},
    }


_GEMINI_STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
                  429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}
_GEMINI_FINISH = {"end_turn": "STOP", "tool_use": "STOP", "max_tokens": "MAX_TOKENS", "refusal": "SAFETY"}


def _gemini(entry: Mapping[str, Any], n: int, model: Any) -> dict[str, Any]:
    """A ``generateContent`` answer: text and ``functionCall`` parts, ``usageMetadata``."""
    calls = _calls(entry, n)
    parts: list[dict[str, Any]] = []
    if entry.get("text") is not None:
        parts.append({"text": entry["text"]})
    for cid, name, args in calls:
        if isinstance(args, str):
            with contextlib.suppress(ValueError):
                args = json.loads(args)
        parts.append({"functionCall": {"id": cid, "name": name, "args": args}})
    stop = entry.get("stop") or ("tool_use" if calls else "end_turn")
    usage = _usage(entry)
    return {
        "candidates": [{"index": 0, "content": {"role": "model", "parts": parts},
                        "finishReason": _GEMINI_FINISH.get(stop, str(stop))}],
        "modelVersion": model, "responseId": f"gen_{n}",
        "usageMetadata": None if usage is None else {
            "promptTokenCount": usage["input_tokens"], "candidatesTokenCount": usage["output_tokens"],
            "cachedContentTokenCount": usage["cached_tokens"],
            "totalTokenCount": usage["input_tokens"] + usage["output_tokens"]},
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m toolscore_providers.fake_server --script FILE [--port N]``."""
    parser = argparse.ArgumentParser(prog="python -m toolscore_providers.fake_server",
                                     description="Serve a scripted model API on 127.0.0.1.")
    parser.add_argument("--script", required=True, help="a JSON file: a list of script entries")
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    options = parser.parse_args(argv)
    try:
        with open(options.script, encoding="utf-8") as handle:
            script = json.load(handle)
    except (OSError, ValueError) as exc:
        print(f"{options.script}: cannot read the script: {exc}", file=sys.stderr)
        return 2
    if not isinstance(script, list) or not all(isinstance(e, dict) for e in script):
        print(f"{options.script}: the script must be a JSON list of objects", file=sys.stderr)
        return 2
    with FakeModelServer(script, port=options.port) as server:
        print(f"serving {len(script)} scripted answer(s) at {server.base_url}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
