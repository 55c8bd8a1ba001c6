"""Names and versions of the file formats that one distribution writes and another reads.

The ``mcp record`` session file is written by toolscore-mcp and read by the ``mcp``
adapter of toolscore-adapters. Those two must agree on its header, yet neither may import
the other (features share through the kernel only), so the header's constants live here.
A reader that meets a version it does not list refuses the file rather than guess.
"""

from __future__ import annotations

__all__ = ["MCP_SESSION_KEY", "MCP_SESSION_KIND", "MCP_SESSION_VERSION", "MCP_SESSION_VERSIONS_READ", "TORN_TAIL_KEY"]

#: The header line's key naming which Toolscore record a file holds.
MCP_SESSION_KEY = "toolscore_record"
#: Its value for a session recorded by ``toolscore mcp record``.
MCP_SESSION_KIND = "mcp-session"
#: The version a writer puts in the header (``"version"``); raise it on a breaking change.
MCP_SESSION_VERSION = 1
#: Every version a reader understands.
MCP_SESSION_VERSIONS_READ: tuple[int, ...] = (1,)

#: ``Trace.metadata`` key an adapter sets when it skipped a cut-off last line of a JSON Lines
#: file (its value: one sentence for a person); the CLI prints it as a warning on stderr.
TORN_TAIL_KEY = "torn_tail"
