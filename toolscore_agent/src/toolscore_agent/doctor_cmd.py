"""``toolscore doctor``: the preflight of a study, as a table (or JSON for machines).

Exit codes: 0 no check failed (warnings, unknowns and skips included); 1 a check failed;
2 a bad option. The checks themselves live in :mod:`toolscore_agent.doctor`; this module
only draws them: a rich table on a terminal, plain aligned lines in a pipe or a CI log
(a box drawn into a log file only makes it harder to grep), JSON with ``--json``.
rich is imported inside the command, never at module top.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from toolscore_core import run_command

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def plain_lines(rows: list[dict[str, str]]) -> list[str]:
    """``check  status  detail`` per row, the first two columns padded to one width."""
    if not rows:
        return []
    width = max(len(row["check"]) for row in rows)
    return [f"{row['check']:<{width}}  {row['status']:<7}  {row['detail']}".rstrip() for row in rows]


_STYLES = {"pass": "green", "warn": "yellow", "fail": "bold red", "unknown": "magenta", "skip": "dim"}


def table_of(rows: list[dict[str, str]]) -> Any:
    """The rich table a terminal shows; each cell is ``Text``, never read as rich markup
    (a server named ``[bold red]`` stays those characters)."""
    from rich.table import Table
    from rich.text import Text

    table = Table("check", "status", "detail", title="Toolscore doctor")
    for row in rows:
        table.add_row(Text(row["check"]), Text(row["status"], style=_STYLES.get(row["status"], "")),
                      Text(row["detail"]))
    return table


@click.command("doctor", context_settings=CONTEXT)
@click.option("--spec", "spec", metavar="FILE", help="A study spec (YAML or JSON) to check, with its server.")
@click.option("--contract", metavar="FILE", help="A gold (contract) file to check.")
@click.option("--server", metavar="CMD|URL",
              help="A server to start instead of the spec's: a command line or an http(s):// URL.")
@click.option("--key", "keys", multiple=True, metavar="NAME",
              help="An environment variable that must be set (repeatable); only its name is ever shown.")
@click.option("--allow-unknown-price", is_flag=True,
              help="A model with no known price is a warning, not a failure (as agent run's flag).")
@click.option("--json", "as_json", is_flag=True, help="Write the checks as a JSON list of {check, status, detail}.")
@run_command
def doctor(spec: str | None, contract: str | None, server: str | None, keys: tuple[str, ...],
           allow_unknown_price: bool, as_json: bool) -> None:
    """Check a study before any paid call: Python and Toolscore, the packages and API keys
    it needs, the spec and contract files, the server (protocol, tools, build, version
    command), a price for every model and the worst case against max_usd.

    \b
    Each check is pass, warn, fail, unknown or skip; any fail exits 1. No model is called;
    the server is started once and the spec's version command is run. Keys are shown by
    name only (set / not set), never their values.

    \b
    Examples:
      toolscore doctor --spec examples/agent_harness/memory-anthropic.yaml
      toolscore doctor --server "python -m my_server" --key MY_TOKEN --json
    """
    from toolscore_agent.doctor import run_doctor
    from toolscore_core.reports.text import json_visible

    report = run_doctor(spec, contract=contract, server=server, keys=keys,
                        allow_unknown_price=allow_unknown_price)
    rows = report.as_list()
    if as_json:
        click.echo(json_visible(json.dumps(rows, indent=2, ensure_ascii=False)))
    else:
        from rich.console import Console

        console = Console(file=sys.stdout)
        if console.is_terminal:
            console.print(table_of(rows))
        else:
            for line in plain_lines(rows):
                click.echo(line)
    raise SystemExit(report.exit_code)


__all__ = ["doctor", "plain_lines", "table_of"]
