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
                         "Run agent studies: tasks x arms x repetitions against an MCP server."),
            lazy_command("doctor", "toolscore_agent.doctor_cmd:doctor",
                         "Check a study before any paid call: packages, keys, server, prices, budget."),
            lazy_command("regrade", "toolscore_agent.regrade_cmd:regrade",
                         "Grade recorded runs again with a new spec; runs no model."),
            lazy_command("compare", "toolscore_agent.compare_cmd:compare",
                         "Compare the arms of a study: pass rates with intervals, cost per pass, a paired test.")]


@hookimpl
def toolscore_register_guards() -> list[Any]:
    """The harness's guard kinds (rules, allow_tools, python), registered like a third party's."""
    from toolscore_agent.guards import AllowToolsGuard, PythonGuard, RulesGuard

    return [RulesGuard, AllowToolsGuard, PythonGuard]
