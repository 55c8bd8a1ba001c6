"""Hook implementations of toolscore-pytest for Toolscore: the only module its ``toolscore.*``
entry point names (pytest's own entry point names :mod:`toolscore_pytest.pytest_plugin`).

It imports nothing heavy: every command is lazy, so ``toolscore --help`` stays cheap.
"""

from __future__ import annotations

from typing import Any

from toolscore_core import hookimpl, lazy_command


@hookimpl
def toolscore_register_commands() -> list[Any]:
    commands: list[Any] = [
        lazy_command("approve", "toolscore_pytest.commands.approve_cmd:approve",
                     "Approve pending snapshots (by name, or --all) as baselines."),
        lazy_command("snapshots", "toolscore_pytest.commands.snapshots_cmd:snapshots",
                     "List, show, diff and delete recorded snapshots."),
        lazy_command("record", "toolscore_pytest.commands.record_cmd:record",
                     "Record a pending snapshot from a trace file or by running any command."),
    ]
    commands.append(lazy_command("init", "toolscore_pytest.init.init_cmd:init",
                                 "Detect your agent framework and scaffold a passing snapshot test suite."))
    return commands
