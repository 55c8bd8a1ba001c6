"""``toolscore snapshots``: list, show, diff and remove recorded snapshots.

A snapshot is one file holding its calls and whether it is approved (tool-scorer 1.10.0's
layout, kept so existing snapshot folders work). There is therefore no second, pending
copy to compare an approved one with: ``diff`` compares a snapshot with a trace file the
user gives (``--against``), scored by the public ``evaluate`` API, which is what a replay
would report for that trace.

Exit codes: 0 done (``diff``: no difference); 1 ``diff`` found a difference; 2 an unknown
name, a bad trace file or bad usage.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import click

from toolscore_core import run_command
from toolscore_pytest.commands._common import (
    CONTEXT,
    dir_option,
    display_path,
    open_store,
    quoted,
    shown,
    shown_value,
    state,
    table,
    unknown_names,
)

if TYPE_CHECKING:
    from toolscore_pytest.store import Snapshot, SnapshotStore


def _get(store: SnapshotStore, name: str) -> Snapshot:
    snapshot = store.load(name)
    if snapshot is None:
        raise unknown_names([name], [s.name for s in store.list()], store.root)
    return snapshot


def _json_out(data: Any) -> None:
    """JSON with every non-ASCII character escaped: the same data, but printing it cannot
    drive a terminal (escape sequences and bidi overrides in a name stay ``\\u`` escapes)."""
    click.echo(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=True))


@click.group("snapshots", context_settings=CONTEXT)
def snapshots() -> None:
    """List, inspect, compare and delete recorded snapshots.

    \b
    Examples:
      toolscore snapshots list --pending
      toolscore snapshots show tests/test_agent.py::test_books_a_flight
      toolscore snapshots diff NAME --against trace.json
      toolscore snapshots rm NAME --yes
    """


@snapshots.command("list", context_settings=CONTEXT)
@click.option("--pending", is_flag=True, help="Show only pending (unapproved) snapshots.")
@click.option("--json", "as_json", is_flag=True, help="Write one JSON list (name, state, calls, source, file).")
@dir_option
@run_command
def list_snapshots(pending: bool, as_json: bool, directory: str | None) -> None:
    """List all recorded snapshots: state, name, number of calls, source and file."""
    store = open_store(directory)
    found = store.pending() if pending else store.list()
    rows: list[dict[str, Any]] = [{"name": s.name, "state": state(s), "calls": len(s.calls), "source": s.source,
                                   "file": display_path(store.path_for(s.name))} for s in found]
    if as_json:
        _json_out(rows)
        return
    if not rows:
        what = "pending snapshots" if pending else "snapshots"
        click.echo(f"No {what} in {shown(str(store.root))}.")
        return
    cells = [[r["state"], shown(r["name"], 80), str(r["calls"]), shown(r["source"], 20), shown(r["file"], 100)]
             for r in rows]
    for line in table(["STATE", "NAME", "CALLS", "SOURCE", "FILE"], cells):
        click.echo(line)
    waiting = sum(1 for r in rows if r["state"] == "pending")
    click.echo(f"{len(rows)} snapshot(s), {waiting} pending approval.")


@snapshots.command("show", context_settings=CONTEXT)
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Write the snapshot as JSON (calls in full).")
@dir_option
@run_command
def show(name: str, as_json: bool, directory: str | None) -> None:
    """Show the tool calls and metadata of snapshot NAME."""
    store = open_store(directory)
    snapshot = _get(store, name)
    path = store.path_for(name)
    if as_json:
        _json_out({"name": snapshot.name, "state": state(snapshot), "source": snapshot.source,
                   "file": display_path(path), "options": dict(snapshot.options),
                   "calls": [dict(c) for c in snapshot.calls]})
        return
    click.echo(f"Snapshot: {shown(snapshot.name, 300)}  ({state(snapshot)})")
    click.echo(f"Source:   {shown(snapshot.source, 40)}")
    click.echo(f"File:     {shown(display_path(path), 300)}")
    if snapshot.options:
        click.echo(f"Options:  {shown_value(dict(snapshot.options), 300)}")
    click.echo(f"Calls:    {len(snapshot.calls)}")
    if snapshot.calls:
        click.echo("")
        rows = [[str(i), shown(c.get("tool"), 60), shown_value(c.get("args", {}))]
                for i, c in enumerate(snapshot.calls, 1)]
        for line in table(["#", "TOOL", "ARGS"], rows):
            click.echo(line)
    if not snapshot.approved:
        click.echo("")
        click.echo(f"Pending: approve it with `toolscore approve {shown(name, 300)}`.")


def _diff_rows(evaluation: Any, expected: tuple[dict[str, Any], ...], actual: list[Any]) -> list[list[str]]:
    rows = []
    for pair in evaluation.pairs:
        want = expected[pair.expected_index] if pair.expected_index is not None else None
        got = actual[pair.actual_index] if pair.actual_index is not None else None
        if want is None:
            status = "extra"
        elif got is None:
            status = "missing"
        elif not pair.tool_match:
            status = "wrong tool"
        elif pair.mismatches or pair.score < 1.0:
            status = "args differ"
        else:
            status = "same"
        rows.append([
            str(pair.expected_index + 1) if pair.expected_index is not None else "-",
            f"{shown(want.get('tool'), 40)} {shown_value(want.get('args', {}), 60)}" if want else "-",
            f"{shown(got.tool, 40)} {shown_value(got.args, 60)}" if got is not None else "-",
            status,
        ])
    return rows


@snapshots.command("diff", context_settings=CONTEXT)
@click.argument("name")
@click.option("--against", "against", metavar="FILE", default=None,
              help="The trace to compare with (any format the trace loader reads).")
@click.option("-f", "--format", "fmt", metavar="NAME", default=None,
              help="The trace format of FILE (default: detected).")
@dir_option
@run_command
def diff(name: str, against: str | None, fmt: str | None, directory: str | None) -> None:
    """Compare snapshot NAME with the calls of a trace file (--against FILE).

    \b
    A snapshot is one file (approved or pending, never both), so there is no second
    version of it to compare with: diff scores the trace's calls against the snapshot's
    calls with Toolscore's evaluate(), as a replay would, and prints each expected call
    next to the actual one. Exit 0 when they match, 1 when they differ.

    \b
    Example:
      toolscore snapshots diff tests/test_agent.py::test_books_a_flight --against run.json
    """
    from toolscore_core import InputError, evaluate, load_trace

    if against is None:
        raise InputError("give the trace to compare with: --against FILE",
                         hint="A snapshot is one file, so diff compares it with a trace "
                         "(`toolscore snapshots show NAME` prints it alone)")
    store = open_store(directory)
    snapshot = _get(store, name)
    from pathlib import Path

    trace = load_trace(Path(against), format=fmt)
    expected = tuple(snapshot.calls)
    options = snapshot.options or {}
    mode = options.get("mode") if isinstance(options.get("mode"), str) else None
    evaluation = evaluate([{"tool": c["tool"], "args": c.get("args", {})} for c in expected], trace, mode=mode)
    rows = _diff_rows(evaluation, expected, list(trace.calls))
    click.echo(f"Snapshot {quoted(name)} ({state(snapshot)}, {len(expected)} call(s)) "
               f"vs {shown(against, 200)} ({len(trace.calls)} call(s))")
    for line in table(["#", "SNAPSHOT (expected)", "TRACE (actual)", "STATUS"], rows):
        click.echo(line)
    same = all(r[3] == "same" for r in rows) and len(expected) == len(trace.calls)
    click.echo(f"score {evaluation.score:.2f} ({evaluation.grade})")
    if same:
        click.echo("No difference: a replay of this trace would pass.")
        return
    click.echo("The trace differs from the snapshot.")
    sys.exit(1)


@snapshots.command("rm", context_settings=CONTEXT)
@click.argument("names", nargs=-1, metavar="NAME...")
@click.option("--all-pending", is_flag=True, help="Delete every pending (unapproved) snapshot.")
@click.option("-y", "--yes", is_flag=True, help="Skip the confirmation prompt.")
@dir_option
@run_command
def rm(names: tuple[str, ...], all_pending: bool, yes: bool, directory: str | None) -> None:
    """Delete snapshots by name (or every pending one with --all-pending).

    Asks first unless --yes; without a terminal to ask on, --yes is required.
    Every name is checked first: an unknown one is an error and nothing is deleted.
    """
    from toolscore_core import InputError

    if not names and not all_pending:
        raise InputError("name the snapshots to delete, or give --all-pending")
    store = open_store(directory)
    current = {s.name: s for s in store.list()}
    wanted = list(dict.fromkeys(names))
    missing = [n for n in wanted if n not in current]
    if missing:
        raise unknown_names(missing, current, store.root)
    chosen = [current[n] for n in wanted]
    if all_pending:
        chosen += [s for s in current.values() if not s.approved and s.name not in wanted]
    if not chosen:
        click.echo("No pending snapshots - nothing to delete.")
        return
    listing = ", ".join(quoted(s.name) for s in chosen)
    if not yes:
        if not sys.stdin.isatty():
            raise InputError(f"would delete {len(chosen)} snapshot(s) ({listing}) without asking",
                             hint="Pass --yes to delete without a prompt")
        if not click.confirm(f"Delete {len(chosen)} snapshot(s): {listing}?", default=False):
            click.echo("Nothing deleted.")
            return
    for snapshot in chosen:
        store.delete(snapshot.name)
        click.echo(f"deleted {quoted(snapshot.name)} ({state(snapshot)})")
