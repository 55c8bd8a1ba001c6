"""``toolscore mcp list``: what a server offers, and what its definitions cost.

Each tool with its parameters (name, type, required, description) and an estimated token
count (``toolscore_mcp.tokens``), so a user sees at a glance which tools are expensive and
which parameters lack a type or a description. Plain text that reads the same in a
terminal and in a CI log; ``--json`` for scripts. The JSON keeps each tool's whole
definition and the server's instructions, so it is also the ``tools.json`` that
``toolscore mcp lint --from-json`` reads (``lint.saved``).
"""

from __future__ import annotations

import json
from typing import Any

import click

from toolscore_core.cli import run_command
from toolscore_mcp.commands._target import server_target_options

DESCRIPTION_WIDTH = 72


@click.command("list", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@server_target_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of text.")
@run_command
def list_command(target: tuple[str, ...], config_file: str | None, server_name: str | None,
                 timeout: float, as_json: bool) -> None:
    """List the tools of TARGET with their parameters and estimated token cost.

    \b
    Examples:
      toolscore mcp list "python server.py"
      toolscore mcp list -- npx -y @modelcontextprotocol/server-memory
      toolscore mcp list http://127.0.0.1:3001/mcp --json
      toolscore mcp list --config claude_desktop_config.json --server notes
    """
    from toolscore_core.kernel.errors import InputError
    from toolscore_mcp.commands._target import connect
    from toolscore_mcp.errors import MCPError

    with connect(target, config_file, server_name, timeout) as client:
        try:
            tools = client.list_tools()
        except MCPError as exc:
            raise InputError(f"the server did not list its tools: {exc}") from None
        listing = build_listing(client, tools)
    if as_json:
        from toolscore_core.reports.text import json_visible

        click.echo(json_visible(json.dumps(listing, indent=2, ensure_ascii=False)))
    else:
        click.echo(render_text(listing))


def parameter_type(schema: Any) -> str:
    """A short type label: ``string``, ``integer|null``, ``array<string>``, ``enum``, or
    ``?`` when the schema gives no type at all."""
    if not isinstance(schema, dict):
        return "?"
    kind = schema.get("type")
    if isinstance(kind, list):
        label = "|".join(str(k) for k in kind)
    elif isinstance(kind, str):
        label = kind
    elif "enum" in schema:
        label = "enum"
    elif "anyOf" in schema or "oneOf" in schema:
        options = schema.get("anyOf") or schema.get("oneOf") or []
        label = "|".join(parameter_type(option) for option in options) or "?"
    elif "$ref" in schema:
        label = str(schema["$ref"]).rsplit("/", 1)[-1]
    else:
        label = "?"
    if label == "array":
        label = f"array<{parameter_type(schema.get('items')) if 'items' in schema else '?'}>"
    return label


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def build_listing(client: Any, tools: list[dict[str, Any]]) -> dict[str, Any]:
    from toolscore_mcp.tokens import estimate_tokens

    rows = []
    for tool in tools:
        schema = _dict(tool.get("inputSchema"))
        properties = _dict(schema.get("properties"))
        required_value = schema.get("required")
        required = required_value if isinstance(required_value, list) else []
        parameters = [
            {
                "name": name,
                "type": parameter_type(prop),
                "required": name in required,
                "description": prop.get("description") if isinstance(prop, dict) else None,
            }
            for name, prop in properties.items()
        ]
        # The whole wire definition (inputSchema, annotations ...) and then our summary, so
        # the file is also a tools.json for `toolscore mcp lint --from-json`.
        rows.append({
            **tool,
            "name": tool.get("name"),
            "description": tool.get("description"),
            "parameters": parameters,
            "tokens": estimate_tokens(tool),
        })
    return {
        "server": dict(client.server_info),
        "protocol_version": client.protocol_version,
        "era": client.era,
        "transport": client.transport,
        "instructions": client.instructions,
        "tools": rows,
        "tool_count": len(rows),
        "definition_tokens": sum(row["tokens"] for row in rows),
        "instructions_tokens": estimate_tokens(client.instructions),
        "token_estimate": "about 4 ASCII characters per token of compact JSON",
    }


def _one_line(text: Any, width: int) -> str:
    if not isinstance(text, str) or not text.strip():
        return ""
    from toolscore_core.reports.text import safe_text

    return safe_text(text, width)


def _shown(value: Any, limit: int = 200) -> str:
    # Every name and version a server sends is outside text: redacted, control characters
    # written as escapes (no ESC, OSC 52 or bidi override reaches the terminal), bounded.
    from toolscore_core.reports.text import visible

    return visible(str(value), limit)


def render_text(listing: dict[str, Any]) -> str:
    server = listing["server"]
    name = _shown(server.get("name") or "(unnamed server)")
    version = f" {_shown(server['version'], 60)}" if server.get("version") else ""
    lines = [
        f"{name}{version} · protocol {_shown(listing['protocol_version'], 40)} over {listing['transport']}"
        f" · {listing['tool_count']} tools",
        "",
    ]
    for tool in listing["tools"]:
        lines.append(f"{_shown(tool['name'])}  (~{tool['tokens']:,} tokens)")
        description = _one_line(tool["description"], DESCRIPTION_WIDTH)
        lines.append(f"  {description}" if description else "  (no description)")
        params = tool["parameters"]
        if not params:
            lines.append("    (no parameters)")
        else:
            names = [_shown(p["name"], 80) for p in params]
            types = [_shown(p["type"], 60) for p in params]
            name_width = max(len(n) for n in names)
            type_width = max(len(t) for t in types)
            for param, shown_name, shown_type in zip(params, names, types, strict=True):
                flag = "required" if param["required"] else "optional"
                text = _one_line(param["description"], 60) or "(no description)"
                lines.append(f"    {shown_name:<{name_width}}  {shown_type:<{type_width}}  {flag:<8}  {text}")
        lines.append("")
    lines.append(
        f"Total: {listing['tool_count']} tools, ~{listing['definition_tokens']:,} tokens of definitions"
        f" + ~{listing['instructions_tokens']:,} tokens of instructions (estimated)"
    )
    return "\n".join(lines)
