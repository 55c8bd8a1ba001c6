"""``from toolscore.mcp import MCPStdioClient``: the MCP clients under the documented path.

The clients live in the toolscore-mcp distribution (``toolscore_mcp.client``); this package
names them lazily, so ``import toolscore.mcp`` costs nothing and, when toolscore-mcp is not
installed, using a name says ``pip install toolscore-mcp``. Also here: ``toolscore.mcp.agent``
(the agent harness) and ``python -m toolscore.mcp.sample_server`` (the bundled notes server).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from toolscore._lazy import missing_attribute, resolve

if TYPE_CHECKING:
    from toolscore.mcp import agent as agent
    from toolscore.mcp import sample_server as sample_server
    from toolscore_mcp.client import CallOutcome as CallOutcome
    from toolscore_mcp.client import MCPClient as MCPClient
    from toolscore_mcp.client import MCPConnectionError as MCPConnectionError
    from toolscore_mcp.client import MCPError as MCPError
    from toolscore_mcp.client import MCPHttpClient as MCPHttpClient
    from toolscore_mcp.client import MCPProtocolError as MCPProtocolError
    from toolscore_mcp.client import MCPRemoteError as MCPRemoteError
    from toolscore_mcp.client import MCPServerGone as MCPServerGone
    from toolscore_mcp.client import MCPStdioClient as MCPStdioClient
    from toolscore_mcp.client import MCPTimeoutError as MCPTimeoutError
    from toolscore_mcp.client import open_client as open_client

DISTRIBUTION = "toolscore-mcp"
_CLIENT_MODULE = "toolscore_mcp.client"

#: The public client API of toolscore-mcp, as its ``client`` module documents it.
_NAMES: tuple[str, ...] = (
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
)
_SUBMODULES = frozenset({"agent", "sample_server"})

__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name not in _NAMES:
        raise missing_attribute(__name__, name)
    value = resolve(f"{__name__}.{name}", _CLIENT_MODULE, DISTRIBUTION, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*__all__, *_SUBMODULES})
