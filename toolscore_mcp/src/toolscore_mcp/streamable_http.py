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
- a timeout covers the whole exchange (a server trickling keep-alives cannot stretch it);
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
from toolscore_mcp.session import MODERN_VERSION, NAME_BEARING_METHODS, MCPClient
from toolscore_mcp.sse import parse_events

_HEADER_SAFE = re.compile(r"^[\x20-\x7E]*$")
MAX_ERROR_BODY = 2000


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
        **options: Any,
    ) -> None:
        super().__init__(timeout=timeout, **options)
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
        return f"server at {self.url}"

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
        self.http = httpx.Client(headers=headers, follow_redirects=False, trust_env=False)
        return self

    def close(self) -> None:
        """DELETE the session (if the server issued one) and close the connection pool."""
        http = self.http
        if http is None:
            return
        listen_http, self._listen_http = self._listen_http, None
        if listen_http is not None:
            listen_http.close()  # ends the GET stream's read in the listener thread
        if self.session_id is not None:
            with contextlib.suppress(httpx.HTTPError):
                http.delete(self.url, headers=self._headers(None), timeout=2.0)
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
                for message in self._stream_messages(response.iter_lines()):
                    self._route(message, object())  # matches no request of ours
        except (httpx.HTTPError, RuntimeError, OSError, ValueError):
            pass  # closed by close(), or the server went away: requests will say so

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

    def _post(self, message: dict[str, Any], deadline: float) -> Any:
        """Open a POST stream (the caller closes it)."""
        if self.http is None:
            self.start()
        assert self.http is not None
        remaining = max(0.05, deadline - time.monotonic())
        request = self.http.build_request(
            "POST", self.url, json=message, headers=self._headers(message),
            timeout=httpx.Timeout(remaining, connect=min(remaining, 10.0)),
        )
        try:
            return self.http.send(request, stream=True)
        except httpx.ConnectError as exc:
            if not self._initialized:
                raise MCPConnectionError(
                    f"cannot connect to {self.url}: {_reason(exc)}",
                    hint="Check that the server is running and the URL (host, port, path)",
                ) from None
            raise MCPServerGone(f"the server at {self.url} stopped accepting connections: {_reason(exc)}") from None
        except httpx.TimeoutException:
            raise MCPTimeoutError(str(message.get("method")), remaining) from None
        except httpx.HTTPError as exc:
            raise MCPServerGone(f"HTTP request failed: {_reason(exc)}") from None

    def _exchange(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        method = str(request.get("method"))
        deadline = time.monotonic() + timeout
        response = self._post(request, deadline)
        try:
            self.last_status = response.status_code
            session = response.headers.get("mcp-session-id")
            if session and method == "initialize":
                self.session_id = session
            if response.status_code >= 400:
                raise _http_error(response, method)
            content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if content_type == "text/event-stream":
                found = self._read_stream(response, request["id"], deadline, method)
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
        finally:
            response.close()

    def _read_json(self, response: httpx.Response, request_id: Any, method: str) -> dict[str, Any] | None:
        body = response.read()
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

    def _read_stream(self, response: httpx.Response, request_id: Any, deadline: float, method: str) -> dict[str, Any] | None:
        def lines_until_deadline() -> Iterator[str]:
            for line in response.iter_lines():  # keep-alive comments count against the deadline
                if time.monotonic() > deadline:
                    raise httpx.ReadTimeout("deadline")
                yield line

        for message in self._stream_messages(lines_until_deadline()):
            reply = self._route(message, request_id)
            if reply is not None:
                return reply
        return None

    def _stream_messages(self, lines: Iterable[str]) -> Iterator[Any]:
        """Each JSON-RPC message carried by an SSE stream, a batch split into its messages.

        Both streams a server may talk on (a POST's reply and the standalone GET) read the
        same way, so they share this; an event whose data is not JSON is noted as noise and
        skipped, because a server's stray output must not end the exchange.
        """
        for event in parse_events(lines):
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
            else:
                self.notifications.append(message)
            return None
        if "result" in message or "error" in message:
            if message.get("id") == request_id and type(message.get("id")) is type(request_id):
                return message
            self.late_responses += 1
            return None
        self._note_noise(json.dumps(message)[:300])
        return None

    def _send_notification(self, message: dict[str, Any]) -> None:
        """POST a notification or a response to a server request (202 expected)."""
        deadline = time.monotonic() + min(self.timeout, 10.0)
        response = self._post(message, deadline)
        try:
            self.last_status = response.status_code
            response.read()
            if response.status_code >= 400:
                raise _http_error(response, str(message.get("method", "response")))
        except httpx.HTTPError as exc:
            raise MCPServerGone(f"HTTP request failed: {_reason(exc)}") from None
        finally:
            response.close()


def _reason(exc: Exception) -> str:
    text = str(exc).strip()
    if "Connection refused" in text or "connection refused" in text.lower():
        return "connection refused"
    return text or type(exc).__name__


def _http_error(response: httpx.Response, method: str) -> Exception:
    """A JSON-RPC error body becomes MCPRemoteError (with the status), anything else a
    protocol error naming the status and the start of the body."""
    body = response.read()[:MAX_ERROR_BODY]
    text = body.decode("utf-8", errors="replace")
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("error"), dict):
        error = data["error"]
        return MCPRemoteError(error.get("code"), str(error.get("message", "")), error.get("data"),
                              http_status=response.status_code)
    return MCPProtocolError(f"{method}: HTTP {response.status_code} {text[:200].strip()}")
