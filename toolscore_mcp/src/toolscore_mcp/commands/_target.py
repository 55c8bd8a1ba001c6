"""The options every ``toolscore mcp`` command uses to name a server, and the session
that comes of them.

    @click.command()
    @server_target_options
    @run_command
    def my_command(target, config_file, server_name, timeout): ...
        with connect(target, config_file, server_name, timeout) as client: ...

TARGET is a command line ("python server.py", quoted as one argument, or several
arguments after ``--``), an http(s):// URL, or absent with ``--config FILE --server NAME``.
Anything that goes wrong while connecting becomes an InputError (exit 2, one line).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import click

from toolscore_core.cli.params import Seconds

if TYPE_CHECKING:
    from toolscore_mcp.session import MCPClient

F = TypeVar("F", bound=Callable[..., Any])


def server_target_options(fn: F) -> F:
    """Add TARGET..., --config FILE, --server NAME and --timeout SECONDS to a command.

    The command receives ``target`` (a tuple of words; one word is split like a shell),
    ``config_file``, ``server_name`` and ``timeout``.
    """
    fn = click.option("--timeout", type=Seconds(), default=30.0, show_default=True, metavar="SECONDS",
                      help="Seconds to wait for each answer from the server, and for its start-up as a whole.")(fn)
    fn = click.option("--server", "server_name", metavar="NAME", help="Server entry in --config FILE.")(fn)
    fn = click.option("--config", "config_file", type=click.Path(dir_okay=False), metavar="FILE",
                      help="Claude Desktop / Cursor / VS Code config file that defines the server.")(fn)
    return click.argument("target", nargs=-1, metavar="[TARGET]...")(fn)


def target_words(target: tuple[str, ...] | list[str] | str | None) -> str | list[str] | None:
    """One word stays a command line (shell-split later); several are an argv."""
    if target is None or isinstance(target, str):
        return target
    words = list(target)
    if not words:
        return None
    return words[0] if len(words) == 1 else words


@contextmanager
def connect(target: Any, config_file: str | None, server_name: str | None, timeout: float,
            **options: Any) -> Iterator[MCPClient]:
    """A started, initialized client; closed (process reaped) on exit."""
    from toolscore_core.kernel.errors import InputError
    from toolscore_mcp.client import open_client
    from toolscore_mcp.errors import MCPError

    client = open_client(target_words(target), config=config_file, server=server_name, timeout=timeout, **options)
    try:
        client.start()
        client.initialize()
    except InputError:
        client.close()
        raise
    except MCPError as exc:
        client.close()
        raise InputError(f"could not open a session with the {client.describe()}: {exc}") from None
    try:
        yield client
    finally:
        client.close()
