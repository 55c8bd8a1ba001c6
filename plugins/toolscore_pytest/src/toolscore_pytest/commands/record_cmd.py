"""``toolscore record``: store tool calls as a pending snapshot, from a trace or a live run.

Two modes:

- ``--from-trace FILE --name NAME``: the calls of any trace the public loader reads.
- ``-- CMD ...``: run the command with recording on. The child gets ``TOOLSCORE_RECORD=1``
  (a pytest child's ``toolscore_snapshot`` fixture then records, even under CI) and our
  ``sitecustomize`` first on ``PYTHONPATH``, which captures the JSON responses of model API
  calls made through httpx (the openai, anthropic and google-genai SDKs). After the child
  exits, the captured responses are read by the trace loader and their tool calls, in
  order, become one pending snapshot. The child's exit code is the command's.

Exit codes: the child's (``-- CMD``); 0 recorded (``--from-trace``); 1 nothing was recorded;
2 bad usage, a bad trace file, or a snapshot that exists without ``--update``.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from toolscore_core import run_command
from toolscore_pytest.commands._common import CONTEXT, display_path, open_store, quoted, shown

if TYPE_CHECKING:
    from toolscore_pytest.store import Snapshot, SnapshotStore

RECORD_ENV = "TOOLSCORE_RECORD"
UPDATE_ENV = "TOOLSCORE_RECORD_UPDATE"  # tool-scorer 1.10.0's name, read by the pytest plugin
SNAPSHOT_DIR_ENV = "TOOLSCORE_SNAPSHOT_DIR"  # where a pytest child writes, given --dir
#: How long a child may take to stop after Ctrl-C was forwarded before it is killed.
STOP_GRACE = 10.0
_SLUG = re.compile(r"[^A-Za-z0-9._-]+")


def _refuse_existing(store: SnapshotStore, name: str, update: bool) -> None:
    from toolscore_core import InputError

    if not update and store.load(name) is not None:
        raise InputError(f"snapshot {quoted(name)} already exists ({shown(display_path(store.path_for(name)))})",
                         hint="Pass --update to overwrite it (it is then pending approval again)")


def _save(store: SnapshotStore, name: str, calls: Any, source: str) -> Snapshot:
    from toolscore_pytest.store import Snapshot

    snapshot = Snapshot(name=name, calls=tuple(calls), approved=False, source=source)
    store.save(snapshot)
    return snapshot


def _report_saved(store: SnapshotStore, snapshot: Snapshot) -> None:
    click.echo(f"Recorded snapshot {quoted(snapshot.name)} ({len(snapshot.calls)} call(s)) - pending approval.")
    click.echo(f"  file: {shown(display_path(store.path_for(snapshot.name)), 300)}")
    click.echo(f"Review it with `toolscore snapshots show {shown(snapshot.name, 300)}`, "
               f"then `toolscore approve {shown(snapshot.name, 300)}`.")


def derive_name(command: tuple[str, ...]) -> str:
    """A snapshot name from the command: ``python agent.py --fast`` -> ``record-python-agent.py--fast``."""
    words = [_SLUG.sub("-", Path(word).name if os.sep in word else word).strip("-") for word in command[:4]]
    name = "-".join(w for w in words if w)[:60].strip("-.")
    return f"record-{name or 'command'}"


@click.command("record", context_settings={**CONTEXT, "ignore_unknown_options": True,
                                           "allow_interspersed_args": False})
@click.argument("cmd", nargs=-1, type=click.UNPROCESSED, metavar="[-- CMD...]")
@click.option("--from-trace", "from_trace", metavar="FILE", default=None,
              help="Load the calls from a trace file instead of running a command.")
@click.option("--name", default=None, help="Snapshot name (required with --from-trace; "
              "with a command, derived from it when not given).")
@click.option("-f", "--format", "fmt", metavar="NAME", default=None,
              help="Trace format of --from-trace FILE (default: detected; 'auto' too).")
@click.option("--update", is_flag=True, help="Overwrite an existing snapshot (it becomes pending again); "
              "a pytest child re-records and re-approves its snapshots.")
@click.option("--dir", "directory", metavar="PATH", default=None,
              help="Snapshot store directory (default: .toolscore/snapshots in the project root).")
@click.pass_context
@run_command
def record(ctx: click.Context, cmd: tuple[str, ...], from_trace: str | None, name: str | None,
           fmt: str | None, update: bool, directory: str | None) -> None:
    """Record tool calls as a pending snapshot.

    \b
    Trace mode - the calls of an existing trace file (any format Toolscore reads):
      toolscore record --from-trace trace.json --name my_snap [--format openai]

    \b
    Command mode - run any command with recording on:
      toolscore record --name booking -- python agent.py
      toolscore record -- python -m pytest tests/
    The child runs with TOOLSCORE_RECORD=1 (pytest's toolscore_snapshot fixture then
    records pending snapshots, even with CI set) and Python children capture the JSON
    responses of model calls made with the openai, anthropic or google-genai SDKs
    (through httpx; no request headers are kept). Streamed responses are counted but
    not captured. The command's exit code is passed through.

    After recording, review with `toolscore snapshots show NAME` and approve with
    `toolscore approve NAME`.
    """
    from toolscore_core import InputError

    if name is not None and not name.strip():
        raise InputError("--name must not be empty")
    store = open_store(directory)
    if from_trace is not None:
        if cmd:
            raise InputError("give --from-trace FILE or a command after --, not both")
        if name is None:
            raise InputError("--from-trace needs --name NAME", hint="e.g. --name my_snap")
        _record_trace(store, Path(from_trace), name, fmt, update)
        return
    if fmt is not None:
        raise InputError("--format is only used with --from-trace")
    if not cmd:
        raise InputError("give a command to run after --, or --from-trace FILE --name NAME",
                         hint="e.g. toolscore record -- python -m pytest tests/")
    ctx.exit(_record_command(store, cmd, name, update, pass_dir=directory is not None))


def _record_trace(store: SnapshotStore, path: Path, name: str, fmt: str | None, update: bool) -> None:
    from toolscore_core import load_trace

    _refuse_existing(store, name, update)
    trace = load_trace(path, format=fmt)
    calls = [{"tool": str(c.tool), "args": dict(c.args) if isinstance(c.args, dict) else {}} for c in trace.calls]
    _report_saved(store, _save(store, name, calls, "trace"))


def child_env(capture_file: Path, update: bool, snapshot_dir: Path | None = None) -> dict[str, str]:
    """The child's environment: recording on, and our sitecustomize first on PYTHONPATH.

    ``snapshot_dir`` (given with ``--dir``) reaches a pytest child as ``TOOLSCORE_SNAPSHOT_DIR``,
    so its fixture writes where this command looks; without ``--dir`` the child keeps its own
    setting (``--toolscore-snapshot-dir`` or the ini value).
    """
    from toolscore_pytest.commands.capture import CAPTURE_ENV, SITE_DIR

    env = dict(os.environ)
    env[RECORD_ENV] = "1"
    if update:
        env[UPDATE_ENV] = "1"
    if snapshot_dir is not None:
        env[SNAPSHOT_DIR_ENV] = str(snapshot_dir.resolve())
    env[CAPTURE_ENV] = str(capture_file)
    existing = env.get("PYTHONPATH")
    env["PYTHONPATH"] = str(SITE_DIR) + (os.pathsep + existing if existing else "")
    return env


def _run(cmd: tuple[str, ...], env: dict[str, str]) -> int:
    """Run the child and return its exit code; Ctrl-C and SIGTERM reach it exactly once."""
    from toolscore_core import InputError

    try:
        child = subprocess.Popen(list(cmd), env=env)
    except FileNotFoundError:
        raise InputError(f"command not found: {shown(cmd[0])}", hint="Check the command after --") from None
    except PermissionError:
        raise InputError(f"command is not executable: {shown(cmd[0])}") from None
    restore = _forward_sigterm(child)
    try:
        code = _wait(child)
    finally:
        restore()
    return 128 - code if code < 0 else code  # killed by signal N -> 128 + N, as shells say


def _terminal_signalled_child() -> bool:
    """Whether a Ctrl-C we got also reached the child: the terminal sends it to its whole
    foreground process group, which the child shares with us when we are in it. Sent to us
    alone (a CI runner, ``kill -INT``), it must be passed on."""
    if not hasattr(os, "tcgetpgrp"):
        return True  # Windows: Ctrl-C goes to every process of the console
    for fd in (0, 1, 2):
        try:
            if os.isatty(fd):
                return os.tcgetpgrp(fd) == os.getpgrp()
        except OSError:
            continue
    return False


def _wait(child: subprocess.Popen[bytes]) -> int:
    try:
        return child.wait()
    except KeyboardInterrupt:
        if child.poll() is None and not _terminal_signalled_child():
            child.send_signal(signal.SIGINT)
    # Let the child finish its own cleanup; a second Ctrl-C, or a child that ignores the
    # first for STOP_GRACE seconds, kills it.
    try:
        return child.wait(timeout=STOP_GRACE)
    except (subprocess.TimeoutExpired, KeyboardInterrupt):
        child.kill()
        return child.wait()


def _forward_sigterm(child: subprocess.Popen[bytes]) -> Any:
    """Pass SIGTERM on to the child while it runs (a CI job being cancelled); returns the
    function that puts the previous handler back."""
    def forward(signum: int, _frame: Any) -> None:
        if child.poll() is None:
            child.send_signal(signum)

    try:
        previous = signal.signal(signal.SIGTERM, forward)
    except (ValueError, OSError):  # not the main thread: leave signals alone
        return lambda: None
    return lambda: signal.signal(signal.SIGTERM, previous)


def _state(store: SnapshotStore) -> dict[str, tuple[Snapshot, int]]:
    """Each snapshot with its file's modification time: a pending snapshot that a pytest
    child re-records with the same calls is rewritten (new time), so it counts as recorded."""
    state: dict[str, tuple[Snapshot, int]] = {}
    for snapshot in store.list():
        try:
            stamp = store.path_for(snapshot.name).stat().st_mtime_ns
        except OSError:
            stamp = 0
        state[snapshot.name] = (snapshot, stamp)
    return state


def _record_command(store: SnapshotStore, cmd: tuple[str, ...], name: str | None, update: bool,
                    pass_dir: bool = False) -> int:
    from toolscore_pytest.commands.capture import read_capture

    target = name or derive_name(cmd)
    _refuse_existing(store, target, update)
    before = _state(store)
    click.echo(f"toolscore: recording: {shown(' '.join(cmd), 300)}", err=True)
    with tempfile.TemporaryDirectory(prefix="toolscore-record-") as folder:
        capture_file = Path(folder) / "capture.jsonl"
        code = _run(cmd, child_env(capture_file, update, store.root if pass_dir else None))
        captured = read_capture(capture_file)
    after = _state(store)
    by_test = [snapshot for key, (snapshot, stamp) in after.items() if before.get(key) != (snapshot, stamp)]
    saved = None
    if captured.calls and (name is not None or not by_test):
        saved = _save(store, target, captured.calls, "record")
    click.echo("")
    if by_test:
        click.echo(f"The command recorded {len(by_test)} snapshot(s):")
        for snapshot in by_test:
            click.echo(f"  {quoted(snapshot.name)} ({len(snapshot.calls)} call(s), "
                       f"{'approved' if snapshot.approved else 'pending'})")
        if captured.calls and saved is None:
            click.echo(f"  ({len(captured.calls)} captured call(s) belong to those tests: no combined "
                       "snapshot saved; give --name to keep one)")
    if saved is not None:
        _report_saved(store, saved)
    elif captured.responses and not captured.calls and not by_test:
        click.echo(f"Read {captured.responses} model response(s), but none asked for a tool call.")
    if captured.streamed:
        click.echo(f"note: {captured.streamed} streamed model response(s) were not captured: record reads "
                   "whole JSON responses only (call the model without stream=True while recording).")
    if captured.unreadable:
        click.echo(f"note: {captured.unreadable} captured response(s) could not be read as a model response.")
    if saved is None and not by_test:
        click.echo(
            "toolscore: nothing recorded. Check that the command makes model calls from Python with the "
            "openai, anthropic or google-genai SDK (through httpx, not streamed), that Python is not "
            "started with -I, -E or -S (they skip PYTHONPATH or sitecustomize), or that its pytest tests use the "
            "toolscore_snapshot fixture.", err=True)
        waiting = [snapshot for snapshot, _ in after.values() if not snapshot.approved]
        if waiting:
            # An unchanged pending snapshot is not rewritten, so a second recording of the
            # same tests changes nothing: say what is already waiting.
            click.echo(f"toolscore: {len(waiting)} snapshot(s) recorded earlier are still pending approval "
                       "(`toolscore snapshots list --pending`).", err=True)
        return code or 1
    if (by_test and any(not s.approved for s in by_test)) or saved is not None:
        click.echo("Approve with `toolscore approve --all` (or by name) after review.")
    return code
