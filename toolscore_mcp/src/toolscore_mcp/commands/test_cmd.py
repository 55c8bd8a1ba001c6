"""``toolscore mcp test``: run generated scenarios against a server and grade it A-F.

Exit codes: 0 graded (and at or above ``--fail-under``; with ``--ci``, no blocking
issues), 1 below the bar or blocking issues under ``--ci``, 2 the server could not be
started or reached, or an option is wrong.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from toolscore_core.cli import App, run_command
from toolscore_core.cli.params import Seconds
from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.exporters import find_exporter
from toolscore_mcp.commands._target import target_words

REPORT_FORMATS = ("console", "md", "html", "json")
#: Start-up bound when --timeout is not given (``npx -y`` may download the server first).
STARTUP_SECONDS = 30.0
GRADES = ("A", "B", "C", "D", "F")
_EXTENSIONS = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".json": "json", ".txt": "console"}


def _scenarios(value: str) -> int | None:
    if value.strip().lower() == "all":
        return None
    try:
        number = int(value)
    except ValueError:
        raise InputError(f"--scenarios {value!r} is not a number", expected="a whole number >= 2, or 'all'") from None
    if number < 2:
        raise InputError(f"--scenarios {number} is too small", expected="a whole number >= 2, or 'all'")
    return number


def _fail_under(value: str | None) -> str | None:
    if value is None:
        return None
    grade = value.strip().upper()
    if grade not in GRADES:
        raise InputError(f"--fail-under {value!r} is not a grade", expected="one of A, B, C, D, F")
    return grade


def report_format(report: str | None, output: str | None) -> str:
    """The report format: ``--report``, else guessed from ``--output``'s extension."""
    if report:
        return report.strip().lower()
    if output:
        suffix = Path(output).suffix.lower()
        if suffix in _EXTENSIONS:
            return _EXTENSIONS[suffix]
        raise InputError(f"cannot tell the report format from {output!r}",
                         hint="Add --report md, html or json")
    return "console"


def exporter_for(app: App, fmt: str) -> Any:
    return find_exporter("scorecard", fmt, registry=app.registry("exporters"))


def write_report(exporter: Any, card: Any, output: str | None) -> None:
    """To ``output`` (UTF-8) or standard output."""
    if output is None:
        exporter.export(card, sys.stdout)
        return
    from toolscore_core.kernel.files import write_atomic

    path = Path(output)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot write the report ({exc.strerror})", file=path) from None
    write_atomic(path, lambda stream: exporter.export(card, stream), what="the report")
    click.echo(f"toolscore: scorecard report written to {path}", err=True)


def verdict_markdown(card: Any, *, failed: bool, reasons: list[str]) -> str:
    """The ``--ci`` job-summary block: the verdict, why, then the Markdown scorecard."""
    from toolscore_mcp.scorecard.reports import render_markdown

    head = "## ❌ MCP server check failed" if failed else "## ✅ MCP server check passed"
    lines = [head, ""] + [f"- {reason}" for reason in reasons] + ([""] if reasons else [])
    return "\n".join(lines) + render_markdown(card, heading="###") + "\n"


def progress_reporter(enabled: bool, *, log_lines: bool = False) -> tuple[Any, Any, Any]:
    """An (update, activity, stop) triple: a progress bar on stderr that names what it waits
    for ("calling tool X (scenario 3/12)"), or with ``log_lines`` one stderr line per step
    for a CI log (where a bar cannot draw), or nothing. A run that seems stuck must say on
    what; the text comes from the server (tool names), so it is shown with ``visible``."""
    from toolscore_core.reports.text import visible

    if log_lines:
        def say(text: str) -> None:
            click.echo(f"toolscore: {visible(text, 200)}", err=True)

        return None, say, lambda: None
    if not enabled:
        return None, None, lambda: None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(TextColumn("testing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   TextColumn("{task.description}", markup=False),
                   console=Console(file=sys.stderr), transient=True)
    task = bar.add_task("", total=None)
    bar.start()

    def update(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    def activity(text: str) -> None:
        bar.update(task, description=visible(text, 80))

    return update, activity, bar.stop


@click.command("test", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.argument("target", nargs=-1, metavar="[TARGET]...")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), metavar="FILE",
              help="Claude Desktop / Cursor config file that defines the server (with --server).")
@click.option("--server", "server_name", metavar="NAME", help="Server entry in --config FILE.")
@click.option("--report", metavar="FORMAT", help="console (default), md, html or json.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write the report to FILE (the console scorecard is still printed).")
@click.option("--fail-under", "fail_under", metavar="GRADE", help="Exit 1 when the grade is below GRADE (A-F).")
@click.option("--ci", is_flag=True,
              help="Write the verdict to $GITHUB_STEP_SUMMARY (when set), no progress bar, exit 1 on blocking issues.")
@click.option("--concurrency", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Calls in flight at once.")
@click.option("--timeout", type=Seconds(0.05, inclusive=True), default=10.0, show_default=True,
              help="Seconds to wait for one call (a timed-out call is cancelled). When given, also the "
                   f"bound on the server's start-up (default: {STARTUP_SECONDS:g} s).")
@click.option("--deadline", type=Seconds(1, inclusive=True), default=300.0, show_default=True,
              help="Seconds for the whole command, start-up included.")
@click.option("--scenarios", "scenarios", default="6", show_default=True, metavar="N|all",
              help="Scenarios per tool (half happy-path, half edge cases), or 'all' generated ones.")
@click.option("--no-edge-cases", is_flag=True,
              help="Only happy-path calls: no edge cases (empty, boundary, wrong-type arguments).")
@click.option("--max-timeouts", type=click.IntRange(1, 100), default=2, show_default=True,
              help="Timeouts of one tool before its other scenarios are skipped.")
@click.option("--allow-destructive", is_flag=True,
              help="Also call tools that delete or write, by annotation or name (delete, drop, create, write, "
                   "move, set ...). Use a disposable instance.")
@click.pass_context
@run_command
def test_command(ctx: click.Context, target: tuple[str, ...], config_file: str | None, server_name: str | None,
                 report: str | None, output: str | None, fail_under: str | None, ci: bool, concurrency: int,
                 timeout: float, deadline: float, scenarios: str, max_timeouts: int,
                 allow_destructive: bool, no_edge_cases: bool = False) -> None:
    """Grade TARGET A-F: generated happy-path and edge-case calls, lint, token cost.

    TARGET is a command that starts a stdio server (one quoted string, or its words after
    --), or an http(s):// URL of a Streamable HTTP endpoint; or use --config FILE --server NAME.

    \b
    Examples:
      toolscore mcp test "python my_server.py"
      toolscore mcp test -- python -m my_package.server --verbose
      toolscore mcp test --config claude_desktop_config.json --server my-server
      toolscore mcp test "node dist/index.js" --report md -o SCORECARD.md --fail-under B
      toolscore mcp test http://127.0.0.1:3001/mcp --concurrency 4 --ci
    """
    from toolscore_mcp.scorecard.runner import RunOptions

    started = time.monotonic()  # --deadline counts from here: start-up is part of the run
    app = ctx.ensure_object(App)
    bar = _fail_under(fail_under)
    fmt = report_format(report, output)
    exporter = exporter_for(app, fmt)
    console = exporter_for(app, "console") if fmt != "console" or output else None
    options = RunOptions(scenarios_per_tool=_scenarios(scenarios), concurrency=concurrency, timeout=timeout,
                         deadline=deadline, allow_destructive=allow_destructive, max_timeouts=max_timeouts,
                         started_at=started, edge_cases=not no_edge_cases)
    timeout_given = ctx.get_parameter_source("timeout") not in (ParameterSource.DEFAULT, None)
    card = grade_target(app, target_words(target), config_file=config_file, server_name=server_name, options=options,
                        show_progress=not ci and sys.stderr.isatty(), log_lines=ci,
                        startup_timeout=timeout if timeout_given else None)
    if output is not None:
        write_report(exporter, card, output)
        if console is not None:
            write_report(console, card, None)
    else:
        write_report(exporter, card, None)
    reasons: list[str] = []
    if bar is not None and GRADES.index(card.grade) > GRADES.index(bar):
        reasons.append(f"grade {card.grade} is below --fail-under {bar}")
    if ci and card.blocking:
        reasons.append(f"{len(card.blocking)} blocking issue(s) (errors) to fix")
    if ci:
        _append_summary(verdict_markdown(card, failed=bool(reasons), reasons=reasons))
    if reasons:
        click.echo("toolscore: FAIL: " + "; ".join(reasons), err=True)
        ctx.exit(1)


def grade_target(app: App, target: str | list[str] | None, *, config_file: str | None, server_name: str | None,
                 options: Any, show_progress: bool, log_lines: bool = False,
                 startup_timeout: float | None = None) -> Any:
    """Open the server, grade it, always close it.

    Start-up (start, ``initialize``) may take ``startup_timeout`` seconds (default: the
    larger of STARTUP_SECONDS and the call timeout: ``npx`` may download first), never
    more than the run's deadline: a server that never answers costs the bound the user set.
    """
    from toolscore_mcp.client import open_client
    from toolscore_mcp.scorecard.api import grade_client

    # Only option parsing ran before this: the deadline as given is the bound to name.
    startup = min(startup_timeout if startup_timeout is not None else max(STARTUP_SECONDS, options.timeout),
                  options.deadline)
    client = open_client(target, config=config_file, server=server_name, timeout=startup)
    update, activity, stop = progress_reporter(show_progress, log_lines=log_lines)
    try:
        if activity is not None:
            activity(f"waiting for the server to start (initialize, up to {startup:g} s)")
        with client:
            return grade_client(client, options, lint_rules=app.registry("lint_rules").instances(),
                                progress=update, target=_label(target, config_file, server_name),
                                activity=activity)
    finally:
        stop()


def _label(target: str | list[str] | None, config_file: str | None, server_name: str | None) -> str:
    """The server as every report names it: its command line or URL, secrets in it hidden."""
    import shlex

    from toolscore_core.scoring.secrets import redact_command

    if isinstance(target, list):
        return shlex.join(redact_command(target))
    return redact_command(target) if target else f"{config_file} --server {server_name or '(only entry)'}"


def _append_summary(text: str) -> None:
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as stream:
            stream.write(text)
    except OSError as exc:
        raise InputError(f"cannot append to $GITHUB_STEP_SUMMARY ({exc.strerror})", file=path) from None
