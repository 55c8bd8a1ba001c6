"""Commands that import their implementation only when they run.

``toolscore --help`` lists every command, core and plugin, with its one-line help. If
listing a command meant importing it, the help screen would pay for every SDK a command
uses. A :class:`LazyCommand` carries its name and short help, and imports
``"package.module:attribute"`` only when click resolves it to run it (or to show its own
``--help``).
"""

from __future__ import annotations

import importlib
from typing import Any

import click


class LazyCommand(click.Command):
    """A placeholder for a click command defined elsewhere and imported on first use."""

    def __init__(self, name: str, target: str, short_help: str, *, hidden: bool = False) -> None:
        super().__init__(name, short_help=short_help, help=short_help, hidden=hidden)
        self.target = target
        self._resolved: click.Command | None = None

    def resolve(self) -> click.Command:
        """Import the real command (once) and return it, named as registered."""
        if self._resolved is None:
            module_name, _, attr = self.target.partition(":")
            module = importlib.import_module(module_name)
            command: Any = getattr(module, attr or "cli")
            if not isinstance(command, click.Command):
                raise TypeError(f"{self.target} is not a click command")
            command.name = self.name
            self._resolved = command
        return self._resolved

    # Anything that needs the real command (running it, its own --help) resolves it.
    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        return self.resolve().make_context(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        return self.resolve().invoke(ctx)

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        return self.resolve().get_params(ctx)

    def get_short_help_str(self, limit: int = 45) -> str:
        return self.short_help or ""


def lazy_command(name: str, target: str, short_help: str, *, hidden: bool = False) -> LazyCommand:
    """A command named ``name`` whose implementation is the click command at ``target``
    (``"package.module:attribute"``), imported only when it runs.

    Plugins return these from ``toolscore_register_commands`` so that listing the CLI's
    commands stays cheap::

        @hookimpl
        def toolscore_register_commands():
            return [lazy_command("mcp", "my_plugin.cli:mcp", "Grade an MCP server")]
    """
    return LazyCommand(name, target, short_help, hidden=hidden)
