"""``python -m toolscore.mcp.sample_server``: the bundled notes server, under the documented path.

The server itself is ``toolscore_mcp.sample_server`` (in toolscore-mcp); this module runs
it, so a command line copied from the docs, such as
``MCPStdioClient(["python", "-m", "toolscore.mcp.sample_server"])``, starts the same server.
Without toolscore-mcp it prints one line naming the package to install and exits 2 (a usage
error), instead of a traceback that an MCP client would only see as a server that died.
Its public names (``SampleServer``, ``TOOLS``, ...) are also reachable here, lazily.
"""

from __future__ import annotations

import sys
from typing import Any

from toolscore._lazy import FeatureUnavailableError, missing_attribute, resolve

DISTRIBUTION = "toolscore-mcp"
_SERVER_MODULE = "toolscore_mcp.sample_server"
#: The server module's public names, forwarded on first use.
_NAMES = frozenset(
    {"ArgumentError", "NotesStore", "PROTOCOL_VERSIONS", "SERVER_NAME", "SERVER_VERSION", "SampleServer",
     "TOOLS", "validate"}
)


def main() -> int:
    """Serve on stdin/stdout until stdin closes; 2 when toolscore-mcp is not installed."""
    try:
        serve = resolve(f"{__name__}.main", _SERVER_MODULE, DISTRIBUTION, "main")
    except FeatureUnavailableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    serve()
    return 0


def __getattr__(name: str) -> Any:
    if name not in _NAMES:
        raise missing_attribute(__name__, name)
    return resolve(f"{__name__}.{name}", _SERVER_MODULE, DISTRIBUTION, name)


if __name__ == "__main__":
    sys.exit(main())
