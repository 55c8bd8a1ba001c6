"""Read a saved tool list into a ServerDefinition, so lint runs with no live server.

Accepted shapes (JSON or YAML), so whatever a user has at hand works:

- a ``tools/list`` result: ``{"tools": [...]}``, optionally with ``serverInfo`` and
  ``instructions`` (an ``initialize`` result merged in) next to it;
- a whole JSON-RPC response: ``{"jsonrpc": "2.0", "id": 1, "result": {"tools": [...]}}``;
- a bare list of tool objects;
- ``{"initialize": {...}, "tools": {"definitions": [...]}}`` (a handshake probe's dump);
- ``toolscore mcp list --json`` output: ``{"server": {...}, "instructions": ..., "tools":
  [...]}`` where each tool is its whole wire definition plus our ``parameters`` and
  ``tokens`` summary (ignored here). A listing with only the summary (no ``inputSchema``,
  as older versions wrote it) is refused with how to get a full one: linting it would
  report schema errors the server does not have.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.model import ServerDefinition, ToolDefinition


def load_saved_tools(path: str | Path) -> ServerDefinition:
    """The server described by the file at ``path``; a bad shape names the place."""
    from toolscore_core.kernel.files import load_data_file

    data = load_data_file(path)
    try:
        return server_from_data(data)
    except InputError as exc:
        raise exc.with_file(path) from None


def server_from_data(data: Any) -> ServerDefinition:
    from toolscore_mcp.session import tool_definition

    info: Any = {}
    instructions = None
    protocol = None
    where = "$"
    if isinstance(data, dict) and isinstance(data.get("result"), dict) and "jsonrpc" in data:
        data, where = data["result"], "$.result"
    if isinstance(data, dict) and isinstance(data.get("initialize"), dict):
        init = data["initialize"]
        info = init.get("serverInfo") if isinstance(init.get("serverInfo"), dict) else {}
        instructions = init.get("instructions")
        protocol = init.get("protocolVersion")
    if isinstance(data, dict):
        if isinstance(data.get("serverInfo"), dict):
            info = data["serverInfo"]
        elif isinstance(data.get("server"), dict):  # `toolscore mcp list --json`
            info = data["server"]
        instructions = data.get("instructions", instructions)
        protocol = data.get("protocolVersion", data.get("protocol_version", protocol))
        tools = data.get("tools")
        if isinstance(tools, dict) and isinstance(tools.get("definitions"), list):
            tools, where = tools["definitions"], f"{where}.tools.definitions"
        else:
            where = f"{where}.tools"
    else:
        tools = data
    if not isinstance(tools, list):
        raise InputError("no list of tools found", location=where,
                         expected='a tools/list result {"tools": [...]} or a list of tool objects')
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str) or not tool["name"]:
            raise InputError("a tool needs a non-empty 'name' string", location=f"{where}[{i}]")
        if "inputSchema" not in tool and "input_schema" in tool:
            tools[i] = {**tool, "inputSchema": tool["input_schema"]}
        elif "inputSchema" not in tool and "parameters" in tool and "tokens" in tool:
            raise InputError(f"tool {tool['name']!r} has a parameter summary but no 'inputSchema'",
                             location=f"{where}[{i}]",
                             hint="This is `toolscore mcp list --json` output of an older version; save the "
                                  "list again with this version (`toolscore mcp list --json SERVER > tools.json`)")
    definitions: list[ToolDefinition] = [tool_definition(tool) for tool in tools]
    return ServerDefinition(
        name=str(info["name"]) if info.get("name") is not None else None,
        version=str(info["version"]) if info.get("version") is not None else None,
        instructions=instructions if isinstance(instructions, str) else None,
        protocol_version=protocol if isinstance(protocol, str) else None,
        tools=definitions,
    )
