"""The transport-independent half of an MCP client: eras, requests, tools, outcomes.

:class:`MCPClient` holds everything that is the same over stdio and Streamable HTTP:
choosing the protocol era, numbering requests, the ``_meta`` envelope of the 2026-07-28
era, answering the requests a server sends back (``ping``, ``roots/list``), following
``tools/list`` pagination, and turning a ``tools/call`` into a :class:`CallOutcome` that
says exactly what happened (answered, tool error, JSON-RPC error, timeout, crash, protocol
violation) instead of raising. The transports (``stdio.py``, ``streamable_http.py``) only
move messages.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections.abc import Callable
from typing import Any

import attrs

from toolscore_core.kernel.model import ServerDefinition, ToolDefinition
from toolscore_mcp.errors import (
    MCPConnectionError,
    MCPError,
    MCPProtocolError,
    MCPRemoteError,
    MCPServerGone,
    MCPTimeoutError,
)

#: Versions of the ``initialize`` handshake era we speak, newest first.
HANDSHAKE_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
#: The stateless era: ``server/discover`` and a ``_meta`` envelope on every request.
MODERN_VERSION = "2026-07-28"
META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
#: Requests whose params name a tool/prompt/resource (mirrored in the Mcp-Name header).
NAME_BEARING_METHODS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}

CLIENT_INFO = {"name": "toolscore", "version": "0.1.0"}
METHOD_NOT_FOUND = -32601
MAX_NOISE_KEPT = 50
#: Notifications kept per session (the most recent; older ones are counted and dropped):
#: a server flooding progress messages must not grow the client without bound.
MAX_NOTIFICATIONS_KEPT = 1000
MAX_NOTIFICATION_BYTES_KEPT = 16 * 1024 * 1024
MAX_SERVER_REQUESTS_KEPT = 1000
MAX_TOOL_PAGES = 1000

ServerRequestHandler = Callable[[dict[str, Any]], dict[str, Any]]


@attrs.define(slots=True)
class CallOutcome:
    """What one ``tools/call`` produced. Exactly one story is true:

    - answered: ``result`` is the CallToolResult dict, ``is_error`` is its ``isError``
      (``False`` when absent) and ``error`` the first text block when it is an error;
    - JSON-RPC error: ``result`` None, ``is_error`` True, ``error`` the message,
      ``error_code`` the code (``-32602`` is a clean invalid-params rejection);
    - timed out: ``timed_out`` True, ``is_error`` None (unknown), the request was cancelled;
    - crashed: ``crashed`` True (the server exited or dropped the connection mid-call);
    - protocol violation: ``protocol_error`` says what was wrong with the answer.

    ``duration`` is wall time in seconds from sending the request to the outcome.
    """

    result: dict[str, Any] | None = None
    is_error: bool | None = None
    error: str | None = None
    duration: float = 0.0
    timed_out: bool = False
    protocol_error: str | None = None
    crashed: bool = False
    error_code: int | None = None

    @property
    def ok(self) -> bool:
        """The tool answered and did not report an error."""
        return self.result is not None and self.is_error is False and self.protocol_error is None


class MCPClient:
    """Base class of :class:`~toolscore_mcp.client.MCPStdioClient` and
    :class:`~toolscore_mcp.client.MCPHttpClient`; see ``toolscore_mcp.client`` for the API.
    """

    transport = "abstract"

    def __init__(
        self,
        *,
        timeout: float = 30.0,
        era: str = "auto",
        roots: list[dict[str, Any]] | None = None,
        capabilities: dict[str, Any] | None = None,
        request_handlers: dict[str, ServerRequestHandler] | None = None,
        client_info: dict[str, Any] | None = None,
    ) -> None:
        if era not in ("auto", "handshake", "modern"):
            raise ValueError("era must be 'auto', 'handshake' or 'modern'")
        self.timeout = float(timeout)
        self.requested_era = era
        self.roots = roots
        self.client_capabilities: dict[str, Any] = (
            dict(capabilities) if capabilities is not None else ({"roots": {"listChanged": False}} if roots is not None else {})
        )
        self.client_info = dict(client_info or CLIENT_INFO)
        self.request_handlers: dict[str, ServerRequestHandler] = dict(request_handlers or {})
        # What the server told us.
        self.era: str | None = None
        self.protocol_version: str | None = None
        self.server_info: dict[str, Any] = {}
        self.capabilities: dict[str, Any] = {}
        self.instructions: str | None = None
        self.discover_result: dict[str, Any] | None = None
        # What happened on the wire besides answers.
        self.notifications: list[dict[str, Any]] = []
        self.server_requests: list[dict[str, Any]] = []
        self.noise: list[str] = []
        self.noise_count = 0
        self.notifications_dropped = 0
        self._notification_sizes: list[int] = []
        self._notification_bytes = 0
        self.late_responses = 0
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    # -- context manager ---------------------------------------------------------------
    def __enter__(self) -> MCPClient:
        self.start()
        try:
            self.initialize()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transport hooks (subclasses) --------------------------------------------------
    def start(self) -> MCPClient:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    @property
    def alive(self) -> bool:
        raise NotImplementedError

    @property
    def stderr_text(self) -> str:
        return ""

    def describe(self) -> str:
        """A short human name of the target, for messages."""
        return self.transport

    def _exchange(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send ``request`` and return the response message with its id, or raise
        MCPTimeoutError / MCPServerGone / MCPProtocolError."""
        raise NotImplementedError

    def _send_notification(self, message: dict[str, Any]) -> None:
        raise NotImplementedError

    def _restart(self) -> None:
        """Start a fresh server process (stdio); transports that cannot simply return."""

    # -- messages ----------------------------------------------------------------------
    def next_id(self) -> int:
        with self._lock:
            return next(self._ids)

    def _meta_envelope(self) -> dict[str, Any]:
        return {
            META_PROTOCOL_VERSION: MODERN_VERSION,
            META_CLIENT_INFO: self.client_info,
            META_CLIENT_CAPABILITIES: self.client_capabilities,
        }

    def _with_envelope(self, params: dict[str, Any] | None) -> dict[str, Any] | None:
        if self.era != "modern":
            return params
        out = dict(params or {})
        out["_meta"] = {**self._meta_envelope(), **(out.get("_meta") or {})}
        return out

    def _keep_notification(self, message: dict[str, Any], size: int) -> None:
        """Keep a notification (``size``: its length on the wire) within the count and byte
        budgets, dropping the oldest in batches so a flood costs amortised O(1) each."""
        self.notifications.append(message)
        self._notification_sizes.append(size)
        self._notification_bytes += size
        if len(self.notifications) <= 2 * MAX_NOTIFICATIONS_KEPT and self._notification_bytes <= MAX_NOTIFICATION_BYTES_KEPT:
            return
        drop = max(0, len(self.notifications) - MAX_NOTIFICATIONS_KEPT)
        freed = sum(self._notification_sizes[:drop])
        while drop < len(self.notifications) - 1 and self._notification_bytes - freed > MAX_NOTIFICATION_BYTES_KEPT // 2:
            freed += self._notification_sizes[drop]
            drop += 1
        del self.notifications[:drop]
        del self._notification_sizes[:drop]
        self._notification_bytes -= freed
        self.notifications_dropped += drop

    def _note_noise(self, text: str) -> None:
        self.noise_count += 1
        if len(self.noise) < MAX_NOISE_KEPT:
            self.noise.append(text[:300])

    def _answer_server_request(self, message: dict[str, Any]) -> dict[str, Any]:
        """The response to a request the server sent us (ping, roots/list, ...)."""
        method = message.get("method")
        if len(self.server_requests) < MAX_SERVER_REQUESTS_KEPT:
            self.server_requests.append(message)
        handler = self.request_handlers.get(str(method))
        try:
            if handler is not None:
                result = handler(message.get("params") or {})
            elif method == "ping":
                result = {}
            elif method == "roots/list":
                result = {"roots": list(self.roots or [])}
            else:
                return {"jsonrpc": "2.0", "id": message.get("id"),
                        "error": {"code": METHOD_NOT_FOUND, "message": f"Method not found: {method}"}}
        except Exception as exc:  # a user handler failed: tell the server, keep going
            return {"jsonrpc": "2.0", "id": message.get("id"), "error": {"code": -32603, "message": str(exc)}}
        return {"jsonrpc": "2.0", "id": message.get("id"), "result": result}

    def _cancel(self, request_id: Any, reason: str) -> None:
        """Tell the server we gave up on a request (best effort)."""
        with contextlib.suppress(MCPError):
            self._send_notification({
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": self._with_envelope({"requestId": request_id, "reason": reason}),
            })

    def request(self, method: str, params: dict[str, Any] | None = None, timeout: float | None = None) -> dict[str, Any]:
        """Send a JSON-RPC request and return its ``result``.

        Raises MCPRemoteError (a JSON-RPC error answer), MCPTimeoutError (no answer in
        time; a ``notifications/cancelled`` was sent), MCPServerGone, MCPProtocolError.
        """
        request_id = self.next_id()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        params = self._with_envelope(params)
        if params is not None:
            message["params"] = params
        limit = self.timeout if timeout is None else float(timeout)
        try:
            response = self._exchange(message, limit)
        except MCPTimeoutError:
            self._cancel(request_id, f"no response within {limit:g} s")
            raise
        return _result_of(response, method)

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        params = self._with_envelope(params)
        if params is not None:
            message["params"] = params
        self._send_notification(message)

    # -- lifecycle ---------------------------------------------------------------------
    def initialize(self, *, era: str | None = None) -> dict[str, Any]:
        """Open the session in the best era the server speaks and return its answer.

        ``auto`` first sends ``server/discover`` (2026-07-28); any error or refusal falls
        back to the ``initialize`` handshake (newest version first). A stdio server that
        died on the probe is restarted once before the handshake.

        Start-up as a whole costs at most ``timeout``: in ``auto`` the probe may use half of
        it (at most 15 s) and the handshake what is left, so a server that never answers
        costs the user the bound they chose, not the sum of every attempt.
        """
        era = era or self.requested_era
        started = time.monotonic()
        probe_timed_out = False
        if era in ("auto", "modern"):
            try:
                return self._discover(self.timeout if era == "modern" else min(self.timeout / 2, 15.0))
            except MCPServerGone as exc:
                if era == "modern":
                    raise self._gone_before_init(exc, "server/discover") from None
                self._restart()
            except MCPTimeoutError as exc:
                if era == "modern":
                    raise MCPConnectionError(f"{self.describe()}: no answer to server/discover within {exc.timeout:g} s") from None
                probe_timed_out = True
            except (MCPRemoteError, MCPProtocolError) as exc:
                if era == "modern":
                    raise MCPConnectionError(f"{self.describe()} does not speak the {MODERN_VERSION} era: {exc}") from None
        left = max(0.05, self.timeout - (time.monotonic() - started))
        return self._handshake(left, probe_timed_out=probe_timed_out)

    def _discover(self, timeout: float) -> dict[str, Any]:
        self.era = "modern"
        try:
            result = self.request("server/discover", {}, timeout=timeout)
            versions = result.get("supportedVersions")
            if not isinstance(versions, list) or MODERN_VERSION not in versions:
                raise MCPProtocolError(f"server/discover offers {versions!r}, not {MODERN_VERSION}")
        except BaseException:
            self.era = None
            raise
        self.discover_result = result
        self.protocol_version = MODERN_VERSION
        meta_value = result.get("_meta")
        meta: dict[str, Any] = meta_value if isinstance(meta_value, dict) else {}
        info = meta.get(META_SERVER_INFO) or result.get("serverInfo") or {}
        self.server_info = dict(info) if isinstance(info, dict) else {}
        caps = result.get("capabilities")
        self.capabilities = dict(caps) if isinstance(caps, dict) else {}
        instructions = result.get("instructions")
        self.instructions = instructions if isinstance(instructions, str) else None
        return result

    def _handshake(self, timeout: float | None = None, *, probe_timed_out: bool = False) -> dict[str, Any]:
        self.era = "handshake"
        params = {
            "protocolVersion": HANDSHAKE_VERSIONS[0],
            "capabilities": self.client_capabilities,
            "clientInfo": self.client_info,
        }
        try:
            result = self.request("initialize", params, timeout=timeout)
        except MCPServerGone as exc:
            self.era = None
            raise self._gone_before_init(exc, "initialize") from None
        except MCPTimeoutError as exc:
            self.era = None
            asked = "server/discover or initialize" if probe_timed_out else "initialize"
            raise MCPConnectionError(
                f"{self.describe()}: no answer to {asked} within {self.timeout if probe_timed_out else exc.timeout:g} s"
                " (waiting for the server to start)",
                hint=("Check that the command starts an MCP server on stdio, or raise --timeout" if self.transport == "stdio"
                      else "Check that the URL is an MCP endpoint that answers, or raise --timeout"),
            ) from None
        except MCPRemoteError as exc:
            self.era = None
            raise MCPConnectionError(f"{self.describe()} refused initialize: {exc.message}") from None
        except MCPProtocolError as exc:
            self.era = None
            raise MCPConnectionError(f"{self.describe()} did not answer initialize properly: {exc}") from None
        version = result.get("protocolVersion")
        self.protocol_version = version if isinstance(version, str) else None
        info = result.get("serverInfo")
        self.server_info = dict(info) if isinstance(info, dict) else {}
        caps = result.get("capabilities")
        self.capabilities = dict(caps) if isinstance(caps, dict) else {}
        instructions = result.get("instructions")
        self.instructions = instructions if isinstance(instructions, str) else None
        self._before_initialized()
        self.notify("notifications/initialized")
        return result

    def _before_initialized(self) -> None:
        """Hook: the session exists but the server has not been told yet (HTTP opens its
        GET stream here, so requests the server sends right after ``initialized`` arrive)."""

    def _gone_before_init(self, exc: MCPServerGone, method: str) -> MCPConnectionError:
        from toolscore_core.scoring.secrets import redact_command

        # redacted whole, then cut: a key cut in two by the cut would not be recognised
        tail = redact_command(self.stderr_text.strip())[-400:]
        code = f" with code {exc.server_exit_code}" if exc.server_exit_code is not None else ""
        return MCPConnectionError(
            f"{self.describe()} exited{code} before answering {method}",
            hint=f"Its stderr ends with: {tail}" if tail else "It printed nothing on stderr",
        )

    # -- tools -------------------------------------------------------------------------
    def list_tools(self, *, timeout: float | None = None) -> list[dict[str, Any]]:
        """Every tool definition, following ``nextCursor`` pages (a repeated cursor is a
        protocol error rather than an endless loop)."""
        tools: list[dict[str, Any]] = []
        cursor: Any = None
        seen: set[str] = set()
        for _ in range(MAX_TOOL_PAGES):
            result = self.request("tools/list", {"cursor": cursor} if cursor is not None else {}, timeout=timeout)
            page = result.get("tools")
            if not isinstance(page, list):
                raise MCPProtocolError(f"tools/list result has no 'tools' list: {_short(result)}")
            tools.extend(tool for tool in page if isinstance(tool, dict))
            cursor = result.get("nextCursor")
            if cursor in (None, ""):
                return tools
            if str(cursor) in seen:
                raise MCPProtocolError(f"tools/list repeats the cursor {cursor!r}")
            seen.add(str(cursor))
        raise MCPProtocolError(f"tools/list has more than {MAX_TOOL_PAGES} pages")

    def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        meta: dict[str, Any] | None = None,
    ) -> CallOutcome:
        """Call a tool; never raises for anything the server does (see CallOutcome)."""
        params: dict[str, Any] = {"name": name, "arguments": {} if arguments is None else arguments}
        if meta:
            params["_meta"] = dict(meta)
        started = time.monotonic()
        try:
            result = self.request("tools/call", params, timeout=timeout)
        except MCPTimeoutError as exc:
            return CallOutcome(error=str(exc), duration=time.monotonic() - started, timed_out=True)
        except MCPRemoteError as exc:
            code = exc.code if isinstance(exc.code, int) and not isinstance(exc.code, bool) else None
            return CallOutcome(is_error=True, error=exc.message, error_code=code, duration=time.monotonic() - started)
        except MCPServerGone as exc:
            return CallOutcome(error=str(exc), duration=time.monotonic() - started, crashed=True)
        except MCPProtocolError as exc:
            return CallOutcome(protocol_error=str(exc), duration=time.monotonic() - started)
        duration = time.monotonic() - started
        problem = _call_result_problem(result)
        flag = result.get("isError", False)
        is_error = flag if isinstance(flag, bool) else None
        error = _first_text(result) if is_error else None
        return CallOutcome(result=result, is_error=is_error, error=error, duration=duration, protocol_error=problem)

    def server_definition(self, tools: list[dict[str, Any]] | None = None) -> ServerDefinition:
        """The server as lint rules see it (lists the tools unless given)."""
        if tools is None:
            tools = self.list_tools()
        return ServerDefinition(
            name=_str_or_none(self.server_info.get("name")),
            version=_str_or_none(self.server_info.get("version")),
            instructions=self.instructions,
            protocol_version=self.protocol_version,
            tools=tuple(tool_definition(tool) for tool in tools),
        )


def tool_definition(tool: dict[str, Any]) -> ToolDefinition:
    """A wire tool dict as a ToolDefinition (odd shapes kept, not rejected: lint judges them)."""
    schema = tool.get("inputSchema")
    output = tool.get("outputSchema")
    annotations = tool.get("annotations")
    meta = tool.get("_meta")
    return ToolDefinition(
        name=str(tool.get("name", "")),
        description=tool.get("description") if isinstance(tool.get("description"), str) else None,
        input_schema=dict(schema) if isinstance(schema, dict) else {},
        output_schema=dict(output) if isinstance(output, dict) else None,
        annotations=dict(annotations) if isinstance(annotations, dict) else {},
        title=tool.get("title") if isinstance(tool.get("title"), str) else None,
        meta=dict(meta) if isinstance(meta, dict) else {},
    )


def _result_of(response: dict[str, Any], method: str) -> dict[str, Any]:
    if "error" in response:
        error = response["error"]
        if not isinstance(error, dict):
            raise MCPProtocolError(f"{method}: 'error' is not an object: {_short(error)}")
        return_code = error.get("code")
        raise MCPRemoteError(return_code, str(error.get("message", "")), error.get("data"))
    if "result" not in response:
        raise MCPProtocolError(f"{method}: response has neither 'result' nor 'error'")
    result = response["result"]
    if not isinstance(result, dict):
        raise MCPProtocolError(f"{method}: 'result' is not an object: {_short(result)}")
    return result


def _call_result_problem(result: dict[str, Any]) -> str | None:
    content = result.get("content")
    if "isError" in result and not isinstance(result["isError"], bool):
        return f"isError is {_short(result['isError'])}, not a boolean"
    if content is None and "structuredContent" not in result:
        return "the result has no 'content'"
    if content is not None and not isinstance(content, list):
        return "'content' is not a list"
    if isinstance(content, list):
        for index, block in enumerate(content):
            if not isinstance(block, dict) or not isinstance(block.get("type"), str):
                return f"content[{index}] has no 'type'"
    return None


def _first_text(result: dict[str, Any]) -> str | None:
    content = result.get("content")
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                return block["text"]
    return None


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
