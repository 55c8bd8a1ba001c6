"""MCP over Streamable HTTP (httpx): one POST per message, JSON or SSE replies.

What the transport does, and why:

- every POST accepts ``application/json, text/event-stream``; an SSE reply is read event
  by event, so notifications sent before the result (progress, log messages) are kept and
  requests the server sends on the stream (``roots/list``, ``ping``) are answered with a
  POST of their own;
- the ``Mcp-Session-Id`` the server issues at ``initialize`` is sent on every later
  request, and ``MCP-Protocol-Version`` once it is negotiated; ``close()`` sends DELETE so
  the server can drop the session;
- in the 2026-07-28 era every request also carries ``MCP-Protocol-Version: 2026-07-28``,
  ``Mcp-Method`` and (tools/call, prompts/get, resources/read) ``Mcp-Name``, which such
  servers check against the body;
- header values can come from environment variables (``header_env``), so a token never
  has to appear on a command line or in a log;
- a timeout covers the whole exchange: every socket operation of a request honours one
  wall-clock deadline (``http_deadline``), so a server trickling its headers or sending
  SSE keep-alives cannot stretch it; a timed-out request is cancelled from a short-lived
  thread with a deadline of its own, so a server that stopped answering costs no more;
- no reply is buffered whole: a body, an SSE line and an SSE event are each capped at
  ``max_message_bytes`` (default 64 MiB, as stdio's lines), and a reply over the cap is a
  protocol error naming the cap;
- with ``listen`` (default: when the client offers capabilities such as roots) a
  background GET stream receives the requests a server starts on its own and answers them.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import httpx

from toolscore_mcp.errors import (
    MCPConnectionError,
    MCPError,
    MCPProtocolError,
    MCPRemoteError,
    MCPServerGone,
    MCPTimeoutError,
)
from toolscore_mcp.http_deadline import DeadlineTransport, deadline
from toolscore_mcp.session import MODERN_VERSION, NAME_BEARING_METHODS, MCPClient
from toolscore_mcp.sse import OversizedEvent, capped_lines, parse_events

_HEADER_SAFE = re.compile(r"^[\x20-\x7E]*$")
MAX_ERROR_BODY = 2000
#: Largest reply body, SSE line or SSE event we hold (the stdio transport's line cap).
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
#: Longest wait for a best-effort message: a cancellation, the closing DELETE.
COURTESY_SECONDS = 2.0


def header_value(value: str) -> str:
    """A value safe for an HTTP header (non-ASCII wrapped as ``=?base64?...?=``, as the
    2026-07-28 transport specifies for Mcp-Name)."""
    if _HEADER_SAFE.fullmatch(value) and value == value.strip():
        return value
    return f"=?base64?{base64.b64encode(value.encode('utf-8')).decode('ascii')}?="


class MCPHttpClient(MCPClient):
    """A client for a Streamable HTTP endpoint (see ``toolscore_mcp.client``)."""

    transport = "http"

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        header_env: Mapping[str, str] | None = None,
        timeout: float = 30.0,
        listen: bool | None = None,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
        **options: Any,
    ) -> None:
        super().__init__(timeout=timeout, **options)
        self.max_message_bytes = int(max_message_bytes)
        self._courtesy: list[threading.Thread] = []
        # The standalone GET stream carries requests the server starts on its own (roots/list
        # after initialized). Opened by default only when we offer capabilities to ask about.
        self.listen = bool(self.client_capabilities) if listen is None else listen
        self._listener: threading.Thread | None = None
        self._listen_http: httpx.Client | None = None
        self.url = url
        self.extra_headers = dict(headers or {})
        self.header_env = dict(header_env or {})
        self.session_id: str | None = None
        self.http: httpx.Client | None = None
        self.last_status: int | None = None
        self.listen_status: int | None = None
        self._initialized = False

    def describe(self) -> str:
        """The server as error messages name it: its URL with password and secret query values hidden."""
        return f"server at {self._shown_url}"

    @property
    def _shown_url(self) -> str:
        from toolscore_core.scoring.secrets import redact_command

        return redact_command(self.url)

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> MCPHttpClient:
        if self.http is not None:
            return self
        headers = dict(self.extra_headers)
        for name, variable in self.header_env.items():
            value = os.environ.get(variable)
            if value is None:
                raise MCPConnectionError(
                    f"the environment variable {variable} (for the {name} header) is not set",
                    hint=f"Export {variable}=... before running",
                )
            headers[name] = value
        self.http = httpx.Client(headers=headers, follow_redirects=False, trust_env=False,
                                 transport=DeadlineTransport())
        return self

    def close(self) -> None:
        """DELETE the session (if the server issued one) and close the connection pool."""
        http = self.http
        if http is None:
            return
        listen_http, self._listen_http = self._listen_http, None
        if listen_http is not None:
            listen_http.close()  # ends the GET stream's read in the listener thread
        wait_until = time.monotonic() + COURTESY_SECONDS / 2
        for thread in self._courtesy:  # a cancellation still on its way gets a moment
            thread.join(timeout=max(0.0, wait_until - time.monotonic()))
        self._courtesy = []
        if self.session_id is not None:
            with contextlib.suppress(httpx.HTTPError), deadline(time.monotonic() + COURTESY_SECONDS):
                http.delete(self.url, headers=self._headers(None), timeout=COURTESY_SECONDS)
        if self._listener is not None:
            self._listener.join(timeout=2.0)
            self._listener = None
        http.close()
        self.http = None

    def _before_initialized(self) -> None:
        if self.listen and self.session_id is not None:
            self._start_listener()

    def _start_listener(self) -> None:
        assert self.http is not None
        self._listen_http = httpx.Client(headers=dict(self.http.headers), trust_env=False,
                                         timeout=httpx.Timeout(None, connect=5.0))
        self._listener = threading.Thread(target=self._listen_loop, args=(self._listen_http,),
                                          name="mcp-http-get", daemon=True)
        self._listener.start()

    def _listen_loop(self, client: httpx.Client) -> None:
        """Read the GET stream until the server ends it or close() closes the client."""
        headers = self._headers(None)
        headers["Accept"] = "text/event-stream"
        try:
            with client.stream("GET", self.url, headers=headers) as response:
                self.listen_status = response.status_code
                if response.status_code != 200:
                    return  # 405: the server offers no standalone stream, which is allowed
                for message in self._stream_messages(response.iter_bytes()):
                    self._route(message, object())  # matches no request of ours
        except (httpx.HTTPError, RuntimeError, OSError, ValueError):
            pass  # closed by close(), an oversized event, or the server went away: requests will say so

    @property
    def alive(self) -> bool:
        return self.http is not None

    # -- wire --------------------------------------------------------------------------
    def _headers(self, message: dict[str, Any] | None) -> dict[str, str]:
        headers = {"Accept": "application/json, text/event-stream"}
        if self.session_id is not None:
            headers["Mcp-Session-Id"] = self.session_id
        if self.era == "modern":
            headers["MCP-Protocol-Version"] = MODERN_VERSION
            method = message.get("method") if message else None
            if isinstance(method, str):
                headers["Mcp-Method"] = method
                key = NAME_BEARING_METHODS.get(method)
                params = message.get("params") if message else None
                if key and isinstance(params, dict) and isinstance(params.get(key), str):
                    headers["Mcp-Name"] = header_value(params[key])
        elif self.protocol_version is not None:
            headers["MCP-Protocol-Version"] = self.protocol_version
        return headers

    def _post(self, message: dict[str, Any], until: float, http: httpx.Client | None = None) -> Any:
        """Open a POST stream (the caller closes it, inside ``deadline(until)``)."""
        if http is None:
            if self.http is None:
                self.start()
            http = self.http
        assert http is not None
        remaining = max(0.05, until - time.monotonic())
        request = http.build_request(
            "POST", self.url, json=message, headers=self._headers(message),
            timeout=httpx.Timeout(remaining, connect=min(remaining, 10.0)),
        )
        try:
            return http.send(request, stream=True)
        except httpx.ConnectError as exc:
            if not self._initialized:
                raise MCPConnectionError(
                    f"cannot connect to {self._shown_url}: {_reason(exc)}",
                    hint="Check that the server is running and the URL (host, port, path)",
                ) from None
            raise MCPServerGone(
                f"the server at {self._shown_url} stopped accepting connections: {_reason(exc)}") from None
        except httpx.TimeoutException:
            raise MCPTimeoutError(str(message.get("method")), remaining) from None
        except httpx.HTTPError as exc:
            raise MCPServerGone(f"HTTP request failed: {_reason(exc)}") from None

    def _exchange(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        method = str(request.get("method"))
        until = time.monotonic() + timeout
        with deadline(until):
            return self._exchange_until(request, method, timeout, until)

    def _exchange_until(self, request: dict[str, Any], method: str, timeout: float, until: float) -> dict[str, Any]:
        try:
            response = self._post(request, until)
        except MCPTimeoutError:
            raise MCPTimeoutError(method, timeout) from None
        try:
            self.last_status = response.status_code
            session = response.headers.get("mcp-session-id")
            if session and method == "initialize":
                self.session_id = session
            if response.status_code >= 400:
                raise _http_error(response, method)
            content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if content_type == "text/event-stream":
                found = self._read_stream(response, request["id"], method)
            elif content_type == "application/json":
                found = self._read_json(response, request["id"], method)
            else:
                raise MCPProtocolError(
                    f"{method}: HTTP {response.status_code} with content type {content_type or 'none'}, "
                    "expected application/json or text/event-stream"
                )
            if found is None:
                raise MCPServerGone(f"{method}: the server closed the reply without answering")
            if method == "initialize" or self.era == "modern":
                self._initialized = True
            return found
        except httpx.TimeoutException:
            raise MCPTimeoutError(method, timeout) from None
        except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
            raise MCPServerGone(f"{method}: the connection broke mid-reply ({_reason(exc)})") from None
        except OversizedEvent as exc:
            raise MCPProtocolError(f"{method}: refused the reply: {exc}") from None
        finally:
            response.close()

    def _read_body(self, response: httpx.Response, method: str) -> bytes:
        """The whole body, or a protocol error as soon as it is known to be over the cap
        (an announced Content-Length is refused before a byte is read)."""
        limit = self.max_message_bytes
        announced = response.headers.get("content-length", "")
        if announced.isdigit() and int(announced) > limit:
            raise MCPProtocolError(f"{method}: refused the reply: it announces {int(announced):,} bytes, "
                                   f"over the {limit:,}-byte limit per message")
        body = bytearray()
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) > limit:
                raise MCPProtocolError(f"{method}: refused the reply: it is over the {limit:,}-byte limit per message")
        return bytes(body)

    def _read_json(self, response: httpx.Response, request_id: Any, method: str) -> dict[str, Any] | None:
        body = self._read_body(response, method)
        try:
            data = json.loads(body)
        except ValueError:
            raise MCPProtocolError(f"{method}: the JSON reply is not valid JSON: {body[:120]!r}") from None
        found = None
        for message in data if isinstance(data, list) else [data]:
            reply = self._route(message, request_id)
            if reply is not None:
                found = reply
        return found

    def _read_stream(self, response: httpx.Response, request_id: Any, method: str) -> dict[str, Any] | None:
        # Keep-alive comments count against the request's deadline: the transport's reads do.
        for message in self._stream_messages(response.iter_bytes()):
            reply = self._route(message, request_id)
            if reply is not None:
                return reply
        return None

    def _stream_messages(self, chunks: Iterable[bytes]) -> Iterator[Any]:
        """Each JSON-RPC message carried by an SSE stream, a batch split into its messages.

        Both streams a server may talk on (a POST's reply and the standalone GET) read the
        same way, so they share this; an event whose data is not JSON is noted as noise and
        skipped, because a server's stray output must not end the exchange. A line or an
        event over ``max_message_bytes`` raises :class:`~toolscore_mcp.sse.OversizedEvent`.
        """
        limit = self.max_message_bytes
        for event in parse_events(capped_lines(chunks, limit), max_event_chars=limit):
            try:
                message = json.loads(event.data)
            except ValueError:
                self._note_noise(event.data)
                continue
            yield from message if isinstance(message, list) else [message]

    def _route(self, message: Any, request_id: Any) -> dict[str, Any] | None:
        """Return ``message`` if it answers ``request_id``; handle anything else."""
        if not isinstance(message, dict):
            self._note_noise(json.dumps(message)[:300])
            return None
        if "method" in message:
            if "id" in message:
                try:
                    self._send_notification(self._answer_server_request(message))
                except MCPError as exc:  # the server refused our answer: note it, keep reading
                    self._note_noise(f"answer to {message.get('method')} refused: {exc}")
            else:  # kept within the session's budgets, as over stdio: a flood must not grow us
                self._keep_notification(message, len(json.dumps(message, default=str)))
            return None
        if "result" in message or "error" in message:
            if message.get("id") == request_id and type(message.get("id")) is type(request_id):
                return message
            self.late_responses += 1
            return None
        self._note_noise(json.dumps(message)[:300])
        return None

    def _send_notification(self, message: dict[str, Any], *, limit: float | None = None,
                           http: httpx.Client | None = None) -> None:
        """POST a notification or a response to a server request (202 expected), within
        ``limit`` seconds (default: the timeout, at most 10 s) for the whole exchange."""
        until = time.monotonic() + (min(self.timeout, 10.0) if limit is None else limit)
        with deadline(until):
            response = self._post(message, until, http)
            try:
                self.last_status = response.status_code
                if response.status_code >= 400:
                    raise _http_error(response, str(message.get("method", "response")))
                for _ in response.iter_bytes():  # a 202 has no body worth keeping: read, drop
                    pass
            except httpx.TimeoutException:
                raise MCPTimeoutError(str(message.get("method", "response")), until - time.monotonic()) from None
            except httpx.HTTPError as exc:
                raise MCPServerGone(f"HTTP request failed: {_reason(exc)}") from None
            finally:
                response.close()

    def _cancel(self, request_id: Any, reason: str) -> None:
        """Send ``notifications/cancelled`` from a short-lived thread (best effort).

        The request just timed out, so the server may well have stopped answering; waiting
        for it here would add a second timeout to the first. The thread has a deadline of
        its own and uses the pool it was started with, never one opened after close().
        """
        http = self.http
        if http is None:
            return
        message = {"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": self._with_envelope({"requestId": request_id, "reason": reason})}
        limit = min(self.timeout, COURTESY_SECONDS)

        def send() -> None:
            with contextlib.suppress(MCPError, httpx.HTTPError, RuntimeError, OSError):
                self._send_notification(message, limit=limit, http=http)

        thread = threading.Thread(target=send, name="mcp-http-cancel", daemon=True)
        self._courtesy = [t for t in self._courtesy if t.is_alive()] + [thread]
        thread.start()


def _reason(exc: Exception) -> str:
    """Why a request failed, in words fit to print (httpx can quote the URL it used)."""
    from toolscore_core.scoring.secrets import redact_command

    text = str(exc).strip()
    if "Connection refused" in text or "connection refused" in text.lower():
        return "connection refused"
    return redact_command(text) if text else type(exc).__name__


def _http_error(response: httpx.Response, method: str) -> Exception:
    """A JSON-RPC error body becomes MCPRemoteError (with the status), anything else a
    protocol error naming the status and the start of the body (at most MAX_ERROR_BODY
    bytes are read: an error page can be as large as a server likes)."""
    body = bytearray()
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) >= MAX_ERROR_BODY:
            break
    text = bytes(body[:MAX_ERROR_BODY]).decode("utf-8", errors="replace")
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("error"), dict):
        error = data["error"]
        return MCPRemoteError(error.get("code"), str(error.get("message", "")), error.get("data"),
                              http_status=response.status_code)
    return MCPProtocolError(f"{method}: HTTP {response.status_code} {text[:200].strip()}")
