"""Hook implementations of toolscore-agent: the only module its entry points name.

It stays cheap to import (``toolscore --help`` imports it): the ``agent`` command is lazy,
so the harness, the MCP clients, the providers' SDKs and rich load only when it runs.
"""

from __future__ import annotations

from typing import Any

from toolscore_core import hookimpl, lazy_command


@hookimpl
def toolscore_register_commands() -> list[Any]:
    return [lazy_command("agent", "toolscore_agent.cli:agent",
                         "Run agent studies: tasks x arms x repetitions against an MCP server.")]


@hookimpl
def toolscore_register_guards() -> list[Any]:
    """The harness's guard kinds (rules, allow_tools, python), registered like a third party's."""
    from toolscore_agent.guards import AllowToolsGuard, PythonGuard, RulesGuard

    return [RulesGuard, AllowToolsGuard, PythonGuard]
