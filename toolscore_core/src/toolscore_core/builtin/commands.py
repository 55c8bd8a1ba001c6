"""The core commands, registered like any plugin's (each imported only when it runs)."""

from __future__ import annotations

import click

from toolscore_core.cli.lazy import lazy_command
from toolscore_core.kernel.plugins import hookimpl


@hookimpl
def toolscore_register_commands() -> list[click.Command]:
    return [
        lazy_command("plugins", "toolscore_core.cli.plugins_cmd:plugins",
                     "List installed plugins: distributions, versions, what each registers."),
        lazy_command("eval", "toolscore_core.cli.eval_cmd:eval_command",
                     "Score a trace against the expected tool calls (gold file)."),
        lazy_command("regression", "toolscore_core.cli.regression_cmd:regression_command",
                     "Compare a new trace with a saved baseline; exit 1 on regression."),
        lazy_command("validate", "toolscore_core.cli.validate_cmd:validate",
                     "Show what format a trace file is detected as and the calls read from it."),
    ]
