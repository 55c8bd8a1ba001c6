"""``toolscore demo``: grade the bundled sample server, offline, in seconds, with no setup.

The sample (``python -m toolscore_mcp.sample_server``) is our own in-memory notes server,
so its destructive tool is safe to call: the demo runs with ``--allow-destructive``.
"""

from __future__ import annotations

import sys

import click

from toolscore_core.cli import App, run_command

HINT = """
Now point it at your own server:
  toolscore mcp test "python your_server.py"
  toolscore mcp test --config claude_desktop_config.json --server my-server
Add --report md -o SCORECARD.md for a report, --fail-under B or --ci to gate a build."""


@click.command("demo", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--report", metavar="FORMAT", help="console (default), md, html or json.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), metavar="FILE", help="Write the report to FILE.")
@click.pass_context
@run_command
def demo(ctx: click.Context, report: str | None, output: str | None) -> None:
    """Grade the bundled sample MCP server (a notes server with two defects on purpose).

    No install, no API key, no network: it starts the sample server with this Python,
    runs the same scorecard as `toolscore mcp test`, and prints it.
    """
    from toolscore_mcp.commands.test_cmd import (
        exporter_for,
        grade_target,
        report_format,
        write_report,
    )
    from toolscore_mcp.scorecard.runner import RunOptions

    app = ctx.ensure_object(App)
    fmt = report_format(report, output)
    exporter = exporter_for(app, fmt)
    command = [sys.executable, "-m", "toolscore_mcp.sample_server"]
    card = grade_target(app, command, config_file=None, server_name=None,
                        options=RunOptions(allow_destructive=True, timeout=10.0, deadline=60.0),
                        show_progress=False)
    if output is not None:
        write_report(exporter, card, output)
        write_report(exporter_for(app, "console"), card, None)
    else:
        write_report(exporter, card, None)
    if fmt == "console" or output is not None:
        click.echo(HINT)
