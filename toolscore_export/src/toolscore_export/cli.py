"""``toolscore export``: write neutral run records, and check a records file.

``toolscore export --format aef SOURCE... -o records.jsonl`` is the main use, so the group
runs its ``runs`` command when the first word is not a subcommand: the options and sources
go to it. Exit codes: 0 written (or, for ``validate``, the file and its manifest are
intact); 1 ``validate`` found tampering; 2 bad input or options (one paragraph naming the
file and the line, never a traceback). Records, hashes and the sources' parsing load only
when a command runs.
"""

from __future__ import annotations

from typing import Any

import click

from toolscore_core import run_command

HELP = ["-h", "--help"]
CONTEXT: dict[str, Any] = {"help_option_names": HELP, "max_content_width": 100}
DEFAULT = "runs"


class ExportGroup(click.Group):
    """A group whose default command is ``runs``: ``toolscore export --format aef runs.jsonl -o out``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in HELP:
            args = [DEFAULT, *args]
        return super().parse_args(ctx, args)


@click.group("export", cls=ExportGroup, context_settings=CONTEXT)
def export() -> None:
    """Export runs as neutral, hashed run records (toolscore.run-record v1) for evaluation platforms.

    \b
    Examples:
      toolscore export --format aef runs.jsonl -o records.jsonl
      toolscore export --format aef trace.json --gold gold.json -o records.jsonl
      toolscore export --format aef session.jsonl receipt.json -o records.jsonl
      toolscore export validate records.jsonl

    Sources are runs files of `toolscore agent run`, trace files of any installed adapter
    format (an `mcp record` session is one), and evaluation receipts (Evaluation.to_dict()).
    Beside the output goes OUTPUT.manifest.json: the sources, their SHA-256, the tool
    version and the output's SHA-256.
    """


@export.command(DEFAULT, context_settings=CONTEXT)
@click.argument("sources", nargs=-1, required=True, metavar="SOURCE...")
@click.option("--format", "fmt", default="aef", show_default=True, metavar="FORMAT",
              help="The record format (an installed run-record exporter).")
@click.option("-o", "--output", required=True, metavar="FILE", help="The records file (its manifest goes beside it).")
@click.option("--gold", metavar="FILE", help="Score trace sources against this gold file (runs and receipts are scored already).")
@click.option("--trace-format", metavar="NAME", help="Read trace sources as this adapter format instead of detecting it.")
@click.pass_context
@run_command
def runs(ctx: click.Context, sources: tuple[str, ...], fmt: str, output: str, gold: str | None,
         trace_format: str | None) -> None:
    """Write one run record per run of SOURCE... to FILE, with FILE.manifest.json beside it.

    \b
    A cell run more than once (a retry, a resumed study) is exported once, by its latest
    row, as every reader of runs files counts it; `attempts` says how many rows it had.
    """
    from toolscore_core.cli import App
    from toolscore_export.export import export_runs

    app = ctx.ensure_object(App)

    def torn(line: Any) -> None:
        click.echo(f"toolscore: warning: {line.describe()}", err=True)

    result = export_runs(sources, output, fmt=fmt, gold=gold, trace_format=trace_format,
                         pm=app.pm, on_torn=torn)
    click.echo(f"{result.records} record(s) written to {result.output}; manifest {result.manifest_file}")


@export.command("validate", context_settings=CONTEXT)
@click.argument("file", metavar="FILE")
@click.option("--no-manifest", is_flag=True, help="Check the records only, for a file that has no manifest.")
@run_command
def validate(file: str, no_manifest: bool) -> None:
    """Check every record of FILE (schema and hashes) and FILE.manifest.json.

    Exit 0: intact. Exit 1: something changed since export (each problem names its line).
    Exit 2: FILE cannot be read.
    """
    from toolscore_export.check import check_file

    result = check_file(file, require_manifest=not no_manifest)
    for problem in result.problems:
        click.echo(f"{file}, {problem.describe()}", err=True)
    if not result.ok:
        click.echo(f"{file}: {len(result.problems)} problem(s); the file is not as exported", err=True)
        raise SystemExit(1)
    click.echo(f"{file}: {result.records} record(s) valid; manifest matches")
