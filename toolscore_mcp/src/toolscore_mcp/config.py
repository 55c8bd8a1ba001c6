"""Server entries of Claude Desktop / Cursor / VS Code style configuration files.

Users already describe their servers in these files, so ``--config FILE --server NAME``
reuses the entry instead of making them retype a command line::

    {"mcpServers": {"notes": {"command": "python", "args": ["server.py"], "env": {...}, "cwd": "..."},
                    "remote": {"url": "http://127.0.0.1:8000/mcp", "headers": {...}}}}

VS Code's ``{"servers": {...}}`` is read the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.files import load_data_file


@attrs.frozen
class ServerEntry:
    """One server of a config file: either a command (stdio) or a URL (HTTP)."""

    name: str
    command: tuple[str, ...] = ()
    env: dict[str, str] = attrs.field(factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = attrs.field(factory=dict)


def server_names(config: dict[str, Any]) -> list[str]:
    servers = config.get("mcpServers", config.get("servers"))
    return sorted(servers) if isinstance(servers, dict) else []


def load_server_entry(path: str | Path, name: str | None) -> ServerEntry:
    """The entry ``name`` of the config file at ``path`` (the only one when ``name`` is None)."""
    data = load_data_file(path)
    key = "mcpServers" if isinstance(data, dict) and "mcpServers" in data else "servers"
    servers = data.get(key) if isinstance(data, dict) else None
    if not isinstance(servers, dict) or not servers:
        raise InputError(
            "no MCP servers in this file", file=path, location="$.mcpServers",
            expected='{"mcpServers": {"NAME": {"command": ..., "args": [...]}}}',
        )
    names = sorted(servers)
    if name is None:
        if len(names) != 1:
            raise InputError(
                f"the file lists {len(names)} servers; choose one with --server",
                file=path, hint=f"Servers: {', '.join(names)}",
            )
        name = names[0]
    if name not in servers:
        raise InputError(f"no server named {name!r}", file=path, location=f"$.{key}",
                         hint=f"Servers in this file: {', '.join(names)}")
    entry = servers[name]
    where = f"$.{key}.{name}"
    if not isinstance(entry, dict):
        raise InputError("the server entry is not an object", file=path, location=where)
    if isinstance(entry.get("url") or entry.get("serverUrl"), str):
        headers = entry.get("headers") or {}
        if not isinstance(headers, dict):
            raise InputError("'headers' is not an object", file=path, location=f"{where}.headers")
        return ServerEntry(name=name, url=entry.get("url") or entry.get("serverUrl"),
                           headers={str(k): str(v) for k, v in headers.items()})
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        raise InputError("the server entry has neither 'command' nor 'url'", file=path, location=where,
                         expected='"command": "node" with "args": [...], or "url": "http://..."')
    args = entry.get("args") or []
    if not isinstance(args, list):
        raise InputError("'args' is not a list", file=path, location=f"{where}.args")
    env = entry.get("env") or {}
    if not isinstance(env, dict):
        raise InputError("'env' is not an object", file=path, location=f"{where}.env")
    cwd = entry.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise InputError("'cwd' is not a string", file=path, location=f"{where}.cwd")
    if cwd is not None and not Path(cwd).is_absolute():
        cwd = str((Path(path).parent / cwd).resolve())
    return ServerEntry(name=name, command=(command, *(str(arg) for arg in args)),
                       env={str(k): str(v) for k, v in env.items()}, cwd=cwd)
