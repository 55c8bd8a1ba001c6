"""One tool, two spellings: ``mcp__<server>__<tool>`` and ``<tool>``.

The Claude Agent SDK (and Claude Code) shows a tool served over MCP as
``mcp__shop__refund_order``; its adapter reads the call as ``refund_order`` (the qualified
name kept in ``metadata["qualified_name"]`` and the server in ``metadata["mcp_server"]``).
A gold or policy file written by copying the name the SDK shows must still match, and a bare
name must keep matching, so both spellings name the same tool, unless the two sides name
different servers (``mcp__a__x`` is not ``mcp__b__x``).

Expected calls are aligned to the trace's spelling once, before pairing, so every metric and
report sees one name and the exact-name fast paths stay as they are. Forbidden rules compare
per call instead (:func:`same_tool`): a rule must catch every spelling, never pick one.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from toolscore_core.kernel.model import ExpectedCall, ToolCall

PREFIX = "mcp__"


def split_qualified(name: str) -> tuple[str, str] | None:
    """``"mcp__shop__refund_order"`` -> ``("shop", "refund_order")``; a bare name -> None."""
    if not name.startswith(PREFIX):
        return None
    server, sep, tool = name[len(PREFIX):].partition("__")
    if not sep or not server or not tool:
        return None
    return server, tool


def _call_server(call: ToolCall) -> tuple[str | None, str]:
    """(server or None when unknown, bare tool name) of an actual call."""
    qualified = split_qualified(call.tool)
    if qualified is not None:
        return qualified
    server = call.metadata.get("mcp_server") if call.metadata else None
    return (server if isinstance(server, str) else None), call.tool


def same_tool(name: str, call: ToolCall) -> bool:
    """Whether ``name`` (from a gold or policy file) names the tool ``call`` called.

    Equal names, or the same bare tool where at most one side names a server or both name
    the same one. A side that names no server matches any server.
    """
    if name == call.tool:
        return True
    if not name.startswith(PREFIX) and not call.tool.startswith(PREFIX) and not call.metadata:
        return False  # fast path: two different bare names
    qualified = split_qualified(name)
    want_server, want_tool = qualified if qualified is not None else (None, name)
    call_server, call_tool = _call_server(call)
    if want_tool != call_tool:
        return False
    return want_server is None or call_server is None or want_server == call_server


def align_expected(expected: Sequence[ExpectedCall], calls: Sequence[ToolCall]) -> tuple[ExpectedCall, ...]:
    """Expected calls renamed to the spelling the trace uses for the same tool.

    A name the trace uses as written is kept. A qualified gold name becomes the bare name
    the trace uses (when no call names a different server); a bare gold name becomes the one
    qualified name the trace uses for it (several servers with that tool: ambiguous, kept).
    """
    expected = tuple(expected)
    if not any(e.tool.startswith(PREFIX) for e in expected) and not any(c.tool.startswith(PREFIX) for c in calls):
        return expected  # the common case: nobody spells a qualified name
    names = {c.tool for c in calls}
    servers: dict[str, set[str | None]] = {}  # bare tool -> servers the trace names for it
    spellings: dict[str, set[str]] = {}  # bare tool -> qualified names the trace uses
    for call in calls:
        server, tool = _call_server(call)
        servers.setdefault(tool, set()).add(server)
        if call.tool != tool:
            spellings.setdefault(tool, set()).add(call.tool)
    aligned = []
    for e in expected:
        name = e.tool
        if name not in names:
            qualified = split_qualified(name)
            if qualified is not None:
                server, tool = qualified
                if tool in names and (None in servers[tool] or server in servers[tool]):
                    name = tool
            elif len(spellings.get(name, ())) == 1:
                name = next(iter(spellings[name]))
        aligned.append(e if name == e.tool else attrs.evolve(e, tool=name))
    return tuple(aligned)


__all__ = ["align_expected", "same_tool", "split_qualified"]
