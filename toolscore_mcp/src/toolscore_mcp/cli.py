"""The ``toolscore mcp`` group. Each subcommand lives in its own module and is imported
only when it runs (``toolscore mcp --help`` imports none of them)."""

from __future__ import annotations

import click

from toolscore_core import lazy_command


@click.group("mcp", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
def mcp() -> None:
    """Grade, lint, list and record MCP servers.

    TARGET is a command that starts a stdio server ("python server.py", "npx -y pkg"), or
    an http(s):// URL of a Streamable HTTP endpoint, or --config FILE --server NAME for an
    entry of a Claude Desktop / Cursor configuration file.
    """


for _command in (
    lazy_command("list", "toolscore_mcp.commands.list_cmd:list_command",
                 "List a server's tools with their parameters and token cost."),
    lazy_command("lint", "toolscore_mcp.commands.lint_cmd:lint_command",
                 "Lint a server's tool definitions (schema hygiene, poisoning, stale references)."),
    lazy_command("test", "toolscore_mcp.commands.test_cmd:test_command",
                 "Run generated scenarios against a server and grade it A-F."),
    lazy_command("record", "toolscore_mcp.commands.record_cmd:record_command",
                 "Relay a stdio server unchanged and record every tool call to a file."),
):
    mcp.add_command(_command)
