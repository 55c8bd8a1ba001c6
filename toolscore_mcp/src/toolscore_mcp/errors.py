"""What can go wrong when talking to an MCP server, as exceptions a caller can tell apart.

All of them are :class:`~toolscore_core.kernel.errors.ToolscoreError`, so a CLI command that lets
one escape prints one short line and exits 2 instead of a traceback. Problems a user causes
before a session exists (a command that is not found, a server that exits before it
answers ``initialize``, a refused HTTP connection, a bad config entry) are
:class:`MCPConnectionError`, an :class:`~toolscore_core.kernel.errors.InputError`.
"""

from __future__ import annotations

from typing import Any

from toolscore_core.kernel.errors import InputError, ToolscoreError


class MCPError(ToolscoreError):
    """Base class of every error raised by the MCP clients."""


class MCPConnectionError(MCPError, InputError):
    """The server could not be started or reached, or it went away before the handshake."""


class MCPServerGone(MCPError):
    """The server exited or dropped the connection while a request was in flight.

    ``server_exit_code`` is the server process's own exit status (stdio), not ours:
    ``exit_code`` on every Toolscore error is what the CLI exits with.
    """

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        self.server_exit_code = exit_code


class MCPTimeoutError(MCPError):
    """No response arrived within the request's timeout (the request was cancelled)."""

    def __init__(self, method: str, timeout: float) -> None:
        super().__init__(f"{method}: no response within {timeout:g} s")
        self.method = method
        self.timeout = timeout


class MCPRemoteError(MCPError):
    """The server answered with a JSON-RPC error object."""

    def __init__(self, code: Any, message: str, data: Any = None, *, http_status: int | None = None) -> None:
        super().__init__(f"JSON-RPC error {code}: {message}")
        self.code = code
        self.message = message
        self.data = data
        self.http_status = http_status


class MCPProtocolError(MCPError):
    """The server answered, but not with something the protocol allows."""


__all__ = [
    "MCPConnectionError",
    "MCPError",
    "MCPProtocolError",
    "MCPRemoteError",
    "MCPServerGone",
    "MCPTimeoutError",
]
