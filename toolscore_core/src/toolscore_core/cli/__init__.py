"""The ``toolscore`` command: a click group composed from the ``toolscore.commands`` plugins.

The root imports only click and the kernel's plugin manager. Core commands are built-in
plugins like any other (``toolscore_core.builtin.commands``), and every command is a
:class:`~toolscore_core.cli.lazy.LazyCommand` until it runs.
"""

from __future__ import annotations

import os
import sys
from typing import Any, NoReturn

import click

from toolscore_core import __version__
from toolscore_core.cli._app import App
from toolscore_core.cli.lazy import LazyCommand, lazy_command

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class ToolscoreGroup(click.Group):
    """Root group: its commands come from the ``commands`` registry.

    A plugin command that reuses a core command's name is refused (with a warning) rather
    than silently replacing it, which is what click's ``add_command`` would do.
    """

    def _table(self, ctx: click.Context) -> dict[str, click.Command]:
        app = ctx.ensure_object(App)
        cached = getattr(app, "command_table", None)
        if cached is not None:
            return cached
        registry = app.registry("commands")
        table = {entry.name: entry.item for entry in registry.entries()}
        for refused in registry.refused:
            click.echo(
                f"toolscore: warning: plugin {refused.distribution} ({refused.plugin}) registers "
                f"command {refused.name!r}, which is a core command; ignored",
                err=True,
            )
        app.command_table = table
        return table

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self._table(ctx))

    def invoke(self, ctx: click.Context) -> Any:
        # click turns Ctrl-C into "Aborted!" and exit 1, the code of a failed check; a CI
        # step must be able to tell "stopped" from "failed", so it is 130 (128 + SIGINT).
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            _interrupted()

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        from toolscore_core.kernel.errors import PluginConflictError

        try:
            command = self._table(ctx).get(cmd_name)
            if command is None:
                ctx.ensure_object(App).registry("commands").get_or_none(cmd_name)
        except PluginConflictError as exc:
            raise click.UsageError(str(exc)) from None
        if isinstance(command, LazyCommand):
            return command.resolve()
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Listing must not import the commands: use the registered (lazy) objects directly.
        rows = [
            (name, cmd.get_short_help_str(limit=formatter.width - 6 - len(name)))
            for name, cmd in sorted(self._table(ctx).items())
            if not cmd.hidden
        ]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=ToolscoreGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, "-V", "--version", prog_name="toolscore", message="%(prog)s %(version)s")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Deterministic, offline health-check for LLM tool calling.

    Score an agent's tool calls against what the task needed, grade and lint an MCP
    server, and read what agents really did from SDK objects, MCP recordings and
    OpenTelemetry spans. No LLM judge, no network, no API cost.

    \b
    Examples:
      toolscore demo                           grade the bundled sample MCP server
      toolscore eval gold.json trace.json      score a trace against the gold calls
      toolscore mcp test "python server.py"    grade your own MCP server
      toolscore plugins                        what is installed, and what is broken

    Exit codes: 0 ok, 1 the check failed, 2 bad usage or input, 3 stopped by budget,
    130 interrupted (Ctrl-C).
    """
    ctx.ensure_object(App)


def main(argv: list[str] | None = None) -> Any:
    """Console-script entry point: a Toolscore error becomes one paragraph and its exit code."""
    try:
        return cli.main(args=argv, prog_name="toolscore", standalone_mode=True)
    except KeyboardInterrupt:  # outside a command (while the group itself is set up)
        _interrupted()
    except Exception as exc:  # a ToolscoreError raised outside click's own handling (result callbacks)
        # imported here, not at the top: `toolscore --help` never needs the errors module
        from toolscore_core.kernel.errors import ToolscoreError

        if not isinstance(exc, ToolscoreError):
            raise
        _fail(exc)
    return None


#: Exit code after Ctrl-C (128 + SIGINT, as shells report it).
INTERRUPTED = 130


def _interrupted() -> NoReturn:
    print("toolscore: interrupted", file=sys.stderr)
    raise SystemExit(INTERRUPTED)


def _fail(exc: BaseException) -> None:
    print(f"toolscore: error: {exc}", file=sys.stderr)
    raise SystemExit(_exit_code_of(exc))


def _exit_code_of(exc: BaseException) -> int:
    """The exit code an error asks for (``ToolscoreError.exit_code``: 2 input, 3 budget), 2
    when it names none: each error says its own, so no command hard-codes a list of them."""
    code = getattr(exc, "exit_code", 2)
    return code if isinstance(code, int) and not isinstance(code, bool) else 2


#: Characters of an error message printed (one paragraph; a quoted value can be huge).
ERROR_LIMIT = 4000


def run_command(fn: Any) -> Any:
    """Decorator for command bodies: a ToolscoreError -> message on stderr + its exit code
    (2 for an InputError, 3 for BudgetStopped).

    click's standalone mode prints its own usage errors; ours must read the same way, with
    no traceback. ``TOOLSCORE_DEBUG=1`` re-raises for debugging.
    """
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from toolscore_core.kernel.errors import ToolscoreError

        try:
            return fn(*args, **kwargs)
        except ToolscoreError as exc:
            if os.environ.get("TOOLSCORE_DEBUG"):
                raise
            from toolscore_core.reports.text import visible

            # An error message can quote a server, a trace or a file: redacted, one line,
            # control characters visible, like every other outside text we print.
            click.echo(f"toolscore: error: {visible(str(exc), ERROR_LIMIT)}", err=True)
            raise SystemExit(_exit_code_of(exc)) from None

    return wrapper


__all__ = ["App", "LazyCommand", "ToolscoreGroup", "cli", "lazy_command", "main", "run_command"]
