"""Hook implementations of toolscore-mcp: lint rules, report formats and the `mcp` commands.

The only module named by this distribution's entry points. It must stay cheap to import:
``toolscore --help`` imports it, so clients and httpx are imported inside commands.
"""

from __future__ import annotations

from typing import Any

from toolscore_core import hookimpl


@hookimpl
def toolscore_register_lint_rules() -> list[Any]:
    return []


@hookimpl
def toolscore_register_exporters() -> list[Any]:
    return []


@hookimpl
def toolscore_register_commands() -> list[Any]:
    return []
