"""``toolscore approve``: mark pending snapshots as reviewed baselines.

Exit codes: 0 approved (or nothing was pending: not a failure); 2 an unknown name (nothing
is approved then, so a typo never half-applies a list) or bad usage.
"""

from __future__ import annotations

import click

from toolscore_core import run_command
from toolscore_pytest.commands._common import (
    CONTEXT,
    dir_option,
    open_store,
    quoted,
    shown,
    unknown_names,
)


@click.command("approve", context_settings=CONTEXT)
@click.argument("names", nargs=-1, metavar="NAME...")
@click.option("--all", "approve_all", is_flag=True, help="Approve all pending snapshots.")
@dir_option
@run_command
def approve(names: tuple[str, ...], approve_all: bool, directory: str | None) -> None:
    """Approve one or more snapshots for use as a baseline.

    \b
    Review first: `toolscore snapshots show NAME` prints the recorded calls.
    Every name is checked before any is approved: an unknown one is an error
    (exit 2) that suggests close names, and nothing changes.

    \b
    Examples:
      toolscore approve tests/test_agent.py::test_books_a_flight
      toolscore approve --all           # approve every pending snapshot
    """
    from toolscore_core import InputError

    if not names and not approve_all:
        raise InputError("name the snapshots to approve, or give --all",
                         hint="`toolscore snapshots list --pending` shows what waits for review")
    if names and approve_all:
        raise InputError("give snapshot names or --all, not both")
    store = open_store(directory)
    if approve_all:
        done = store.approve_all()
        if not done:
            click.echo("No pending snapshots - nothing to approve.")
            return
        for snapshot in done:
            click.echo(f"approved {quoted(snapshot.name)} ({len(snapshot.calls)} call(s))")
        click.echo(f"Approved {len(done)} snapshot(s) in {shown(str(store.root))}.")
        return
    current = {s.name: s for s in store.list()}
    missing = [n for n in dict.fromkeys(names) if n not in current]
    if missing:
        raise unknown_names(missing, current, store.root)
    approved = 0
    for name in dict.fromkeys(names):
        if current[name].approved:
            click.echo(f"already approved {quoted(name)}")
            continue
        store.approve(name)
        approved += 1
        click.echo(f"approved {quoted(name)} ({len(current[name].calls)} call(s))")
    if approved:
        click.echo(f"Approved {approved} snapshot(s).")
    else:
        click.echo("Nothing was pending - nothing to approve.")
