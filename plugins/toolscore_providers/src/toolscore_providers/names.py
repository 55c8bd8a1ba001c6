"""Tool names the model APIs accept, mapped from MCP names and back by table lookup.

Why: MCP only recommends short ``[A-Za-z0-9_.-]`` names, and real servers send dots,
slashes, spaces and names over 64 characters, while OpenAI and Anthropic refuse anything
outside ``^[A-Za-z0-9_-]{1,64}$``. A name that is already valid stays as it is (readable, and
prompts stay byte-identical); any other name is sanitised, cut and suffixed with a hash of
the original, so distinct MCP names never collide (sanitising alone would turn ``a.b`` and
``a/b`` into the same ``a_b``). The mapping depends only on the tool list, so every request of
a run, and every run of a study, uses the same names; reversing is a lookup, never parsing.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import Any

_VALID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
_BAD_CHAR = re.compile(r"[^A-Za-z0-9_-]")
MAX_NAME = 64
_KEEP = 55  # characters kept before "_" + 8 hex digits


def _digest(name: str, length: int) -> str:
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:length]


def _candidate(name: str, taken: set[str]) -> str:
    if _VALID.match(name) and name not in taken:
        return name
    clean = _BAD_CHAR.sub("_", name)
    if not clean[:1].isalpha():
        clean = "t_" + clean
    for hex_len in range(8, 65):
        keep = min(_KEEP, MAX_NAME - 1 - hex_len)
        if keep < 1:
            break
        wire = f"{clean[:keep]}_{_digest(name, hex_len)}"
        if wire not in taken:
            return wire
    raise ValueError(f"cannot find a unique API name for tool {name!r}")


class ToolNameMap:
    """MCP tool name <-> the name sent to the API, for one tool list.

    ``to_wire`` gives the API name of an MCP tool; ``to_mcp`` the MCP name of a name the
    model used, or ``None`` for a name that is not in the list (a hallucinated tool, to be
    answered with a tool error). ``renamed`` lists only the names that changed, which is what
    a run record needs next to each call (``provider_name``).
    """

    __slots__ = ("_to_mcp", "_to_wire")

    def __init__(self, names: Iterable[str]) -> None:
        self._to_wire: dict[str, str] = {}
        self._to_mcp: dict[str, str] = {}
        unique = list(dict.fromkeys(names))
        # Valid names first, so a renamed tool can never take the name of one that is valid.
        for name in sorted(unique, key=lambda n: not bool(_VALID.match(n))):
            wire = _candidate(name, set(self._to_mcp))
            self._to_wire[name] = wire
            self._to_mcp[wire] = name

    @classmethod
    def for_tools(cls, tools: Iterable[Any]) -> ToolNameMap:
        """The map of a tool list (``ToolDefinition`` objects or plain names)."""
        return cls(t if isinstance(t, str) else t.name for t in tools)

    @classmethod
    def identity(cls) -> ToolNameMap:
        """A map that renames nothing (providers that have no naming rules)."""
        return cls(())

    def to_wire(self, mcp_name: str) -> str:
        """The API name of ``mcp_name`` (a name outside the list is mapped on its own)."""
        found = self._to_wire.get(mcp_name)
        return found if found is not None else _candidate(mcp_name, set())

    def to_mcp(self, wire_name: str) -> str | None:
        """The MCP name behind ``wire_name``; ``None`` when the list has no such tool."""
        return self._to_mcp.get(wire_name)

    @property
    def renamed(self) -> dict[str, str]:
        """``{mcp_name: wire_name}`` for each name that had to change."""
        return {m: w for m, w in self._to_wire.items() if m != w}

    def as_dict(self) -> dict[str, str]:
        """``{mcp_name: wire_name}`` for every tool (JSON-safe, for a record)."""
        return dict(self._to_wire)

    def __len__(self) -> int:
        return len(self._to_wire)

    def __repr__(self) -> str:
        return f"ToolNameMap({len(self)} tool(s), {len(self.renamed)} renamed)"
