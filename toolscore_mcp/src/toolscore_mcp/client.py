"""MCP clients for Toolscore: stdio and Streamable HTTP, both protocol eras.

Public API (also ``toolscore.MCPStdioClient`` / ``toolscore.MCPHttpClient``)::

    from toolscore_mcp.client import MCPStdioClient, MCPHttpClient, open_client

    with MCPStdioClient("node server.js --root /tmp", env={"K": "v"}, cwd=".", timeout=30) as c:
        tools = c.list_tools()                       # list[dict], nextCursor pages followed
        outcome = c.call_tool("add", {"a": 1, "b": 2}, timeout=5)
        outcome.ok, outcome.result, outcome.is_error, outcome.error, outcome.duration

    with MCPHttpClient("http://127.0.0.1:3001/mcp", header_env={"Authorization": "MY_TOKEN_VAR"}) as c:
        ...

    with open_client("python server.py") as c: ...          # or an http(s):// URL
    with open_client(None, config="claude_desktop_config.json", server="notes") as c: ...

Entering the context starts the server (or connects) and runs :meth:`initialize`; leaving
it closes the session and always reaps the process. Without ``with``: ``c.start();
c.initialize(); ...; c.close()``.

Constructors
  ``MCPStdioClient(command, *, env=None, cwd=None, timeout=30.0, close_grace=1.0,
  max_message_bytes=64 MiB, launcher=None, **options)``: a longer stdout line is skipped and
  the call it answered fails as a protocol error (``oversized_messages`` counts them).
  ``command`` is a string split like a shell (shlex) or an argv list; ``env`` is added to
  the current environment.
  ``MCPHttpClient(url, *, headers=None, header_env=None, timeout=30.0, listen=None, **options)``
  ``header_env`` maps a header name to the NAME of an environment variable holding its
  value (read at start, never logged). ``listen`` opens the standalone GET stream on which
  a server sends requests of its own (default: when client capabilities are offered).
  Common ``options``: ``era="auto"|"handshake"|"modern"``; ``roots=[{"uri": "file:///x",
  "name": "x"}]`` (answered to ``roots/list`` and advertised as a capability);
  ``capabilities={...}`` (client capabilities, overrides the default); ``request_handlers=
  {"sampling/createMessage": fn}`` for other server-to-client requests.

Methods
  ``start()`` / ``close()``; ``initialize(era=None)``: ``auto`` sends ``server/discover``
  first (the 2026-07-28 era: ``_meta`` envelope on every request, and over HTTP the
  ``MCP-Protocol-Version``/``Mcp-Method``/``Mcp-Name`` headers) and falls back to the
  ``initialize`` handshake (offering 2025-11-25) when the server does not speak it.
  ``list_tools(timeout=None) -> list[dict]``.
  ``call_tool(name, arguments, *, timeout=None, meta=None) -> CallOutcome`` never raises for
  what the server does: see :class:`CallOutcome` (result, is_error, error, error_code,
  duration, timed_out, protocol_error, crashed). A timed-out request is cancelled with
  ``notifications/cancelled``.
  ``request(method, params=None, timeout=None) -> dict`` for anything else (raises
  MCPRemoteError / MCPTimeoutError / MCPServerGone / MCPProtocolError).
  ``notify(method, params=None)``.
  ``server_definition(tools=None) -> toolscore_core.kernel.model.ServerDefinition``.

Attributes
  ``era`` ("modern"/"handshake"), ``protocol_version``, ``server_info``, ``capabilities``,
  ``instructions``, ``alive``, ``stderr_text`` (stdio: the server's stderr, kept apart),
  ``noise`` (first 50 stray stdout lines that were not JSON-RPC, invalid UTF-8 replaced)
  and ``noise_count``, ``notifications`` (the latest 1,000 received; ``notifications_dropped``
  counts older ones), ``server_requests``
  (requests the server sent us; ping -> {}, roots/list -> {"roots": roots}, anything else
  -> method not found), ``late_responses`` (answers that came after their request timed
  out), ``pid`` and ``exit_code`` (stdio), ``session_id``, ``last_status`` and
  ``listen_status`` (HTTP).

Errors a user can cause before a session exists (command not found, server exits before
answering, connection refused, a bad config entry) raise :class:`MCPConnectionError`, an
InputError: the CLI prints one line and exits 2.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolscore_core.kernel.errors import InputError
from toolscore_mcp.errors import (
    MCPConnectionError,
    MCPError,
    MCPProtocolError,
    MCPRemoteError,
    MCPServerGone,
    MCPTimeoutError,
)
from toolscore_mcp.session import (
    HANDSHAKE_VERSIONS,
    MODERN_VERSION,
    CallOutcome,
    MCPClient,
    tool_definition,
)
from toolscore_mcp.stdio import MCPStdioClient

if TYPE_CHECKING:
    from toolscore_mcp.streamable_http import MCPHttpClient


def __getattr__(name: str) -> Any:
    # httpx is imported only by code that uses the HTTP client.
    if name == "MCPHttpClient":
        from toolscore_mcp.streamable_http import MCPHttpClient

        return MCPHttpClient
    raise AttributeError(name)


def is_url(target: str) -> bool:
    return target.startswith(("http://", "https://"))


def open_client(
    target: str | list[str] | tuple[str, ...] | None,
    *,
    config: str | Path | None = None,
    server: str | None = None,
    timeout: float = 30.0,
    **options: Any,
) -> MCPClient:
    """A client (not started yet) for ``target`` or for a config file entry.

    ``target``: an ``http(s)://`` URL (Streamable HTTP), a command line split like a shell,
    or an argv list. ``config`` + ``server``: an entry of a Claude Desktop / Cursor file
    (``server`` may be left out when the file lists exactly one).
    """
    if config is not None:
        if target:
            raise InputError("give either a server TARGET or --config, not both")
        from toolscore_mcp.config import load_server_entry

        entry = load_server_entry(config, server)
        if entry.url is not None:
            from toolscore_mcp.streamable_http import MCPHttpClient

            return MCPHttpClient(entry.url, headers=entry.headers, timeout=timeout, **options)
        return MCPStdioClient(list(entry.command), env=entry.env or None, cwd=entry.cwd, timeout=timeout, **options)
    if server is not None:
        raise InputError("--server needs --config FILE", hint="Name the config file that defines the server")
    if target is None or (isinstance(target, str) and not target.strip()) or (not isinstance(target, str) and not target):
        raise InputError(
            "no server given",
            hint='Pass a command ("python server.py"), an http(s):// URL, or --config FILE --server NAME',
        )
    if isinstance(target, str):
        if is_url(target.strip()):
            from toolscore_mcp.streamable_http import MCPHttpClient

            return MCPHttpClient(target.strip(), timeout=timeout, **options)
        try:
            argv = shlex.split(target)
        except ValueError as exc:
            raise InputError(f"cannot split the server command {target!r}: {exc}",
                             hint="Check the quotes") from None
    else:
        argv = [str(part) for part in target]
        if len(argv) == 1 and is_url(argv[0]):
            from toolscore_mcp.streamable_http import MCPHttpClient

            return MCPHttpClient(argv[0], timeout=timeout, **options)
        if len(argv) == 1:
            return open_client(argv[0], timeout=timeout, **options)
    return MCPStdioClient(argv, timeout=timeout, **options)


__all__ = [
    "HANDSHAKE_VERSIONS",
    "MODERN_VERSION",
    "CallOutcome",
    "MCPClient",
    "MCPConnectionError",
    "MCPError",
    "MCPHttpClient",
    "MCPProtocolError",
    "MCPRemoteError",
    "MCPServerGone",
    "MCPStdioClient",
    "MCPTimeoutError",
    "open_client",
    "tool_definition",
]
