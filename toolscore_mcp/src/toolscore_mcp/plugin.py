"""Hook implementations of toolscore-mcp: lint rules, report formats and the `mcp` commands.

The only module named by this distribution's entry points. It must stay cheap to import:
``toolscore --help`` imports it, so the hook bodies import their implementation modules,
and the commands are lazy (clients and httpx load only when a command runs).
"""

from __future__ import annotations

from typing import Any

from toolscore_core import hookimpl, lazy_command


@hookimpl
def toolscore_register_lint_rules() -> list[Any]:
    from toolscore_mcp.lint.rules import builtin_rules

    return builtin_rules()


@hookimpl
def toolscore_register_exporters() -> list[Any]:
    from toolscore_mcp.lint.reports import EXPORTERS as LINT_EXPORTERS
    from toolscore_mcp.scorecard.reports import EXPORTERS as SCORECARD_EXPORTERS

    return [*LINT_EXPORTERS, *SCORECARD_EXPORTERS]


@hookimpl
def toolscore_register_commands() -> list[Any]:
    return [
        lazy_command("mcp", "toolscore_mcp.cli:mcp", "Grade, lint, list and record MCP servers."),
        lazy_command("demo", "toolscore_mcp.commands.demo_cmd:demo",
                     "Grade the bundled sample MCP server, offline, in seconds."),
    ]
