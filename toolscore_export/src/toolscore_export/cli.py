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
      toolscore export --format otel runs.jsonl -o events.jsonl --endpoint http://127.0.0.1:4318
      toolscore export validate records.jsonl
      toolscore export schema > run-record-v1.schema.json

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
@click.option("--endpoint", metavar="URL",
              help="--format otel: also send the events to this OTLP/HTTP collector (e.g. http://127.0.0.1:4318).")
@click.option("--otlp-protocol", type=click.Choice(["http/protobuf", "http/json"]),
              help="--endpoint: the body encoding [default: http/protobuf when opentelemetry-proto is installed].")
@click.option("--header", "headers", multiple=True, metavar="NAME=VALUE",
              help="--endpoint: an HTTP header to send (an API key, say); repeatable.")
@click.option("--timeout", type=click.FloatRange(min=0.1, max=600), default=10.0, show_default=True,
              help="--endpoint: seconds each request may take in all, sending and answer included.")
@click.option("--workers", type=click.IntRange(min=0, max=64), default=0, metavar="N",
              help="Processes that turn runs and trace files into records: 0 = one per CPU for large runs "
                   "files (16 MiB and up) or 200 trace files and more, 1 = none. The output is the same "
                   "either way.  [default: 0]")
@click.option("--per-trace", is_flag=True,
              help="OTLP trace sources: one record per trace id (run_id FILE#TRACE_ID) instead of one per file. "
                   "Use it for a collector's file export, whose lines mix the spans of many runs; leave it off "
                   "when one run spans several traces (an app that traces each model call on its own).")
@click.pass_context
@run_command
def runs(ctx: click.Context, sources: tuple[str, ...], fmt: str, output: str, gold: str | None,
         trace_format: str | None, endpoint: str | None, otlp_protocol: str | None, headers: tuple[str, ...],
         timeout: float, workers: int, per_trace: bool) -> None:
    """Write one run record per run of SOURCE... to FILE, with FILE.manifest.json beside it.

    \b
    A cell run more than once (a retry, a resumed study) is exported once, by its latest
    row, as every reader of runs files counts it; `attempts` says how many rows it had.
    """
    import sys

    from toolscore_core.cli import App
    from toolscore_export.export import export_runs
    from toolscore_export.heap_pad import pad_the_heap
    from toolscore_export.progress import ExportProgress

    app = ctx.ensure_object(App)
    progress = ExportProgress(sys.stderr, sources)

    def torn(line: Any) -> None:
        progress.finish()
        click.echo(f"toolscore: warning: {line.describe()}", err=True)

    options = _send_options(fmt, endpoint, otlp_protocol, headers, timeout)
    pad_the_heap()  # this process ends with the export: its heap may keep its buffers too (see heap_pad)
    try:
        result = export_runs(sources, output, fmt=fmt, gold=gold, trace_format=trace_format, pm=app.pm,
                             on_torn=torn, workers=workers, per_trace=per_trace, on_progress=progress.update,
                             **options)
    finally:  # an error or Ctrl-C is said on a line of its own
        progress.finish()
    if fmt == "otel" and not result.manifest["output"]["bytes"]:
        click.echo(f"{result.records} run(s) read, none with a verdict, so no evaluation event was written "
                   f"to {result.output} (score trace files with --gold); manifest {result.manifest_file}")
        return
    click.echo(f"{result.records} record(s) written to {result.output}; manifest {result.manifest_file}")
    if endpoint is not None:
        from toolscore_export.otlp_http import logs_url, shown_url

        click.echo(f"their evaluation events were sent to {shown_url(logs_url(endpoint))}")


def _send_options(fmt: str, endpoint: str | None, protocol: str | None, headers: tuple[str, ...],
                  timeout: float) -> dict[str, Any]:
    """The exporter options of --endpoint and its companions, checked before anything is read."""
    from toolscore_core import InputError

    if endpoint is None:
        if protocol is not None or headers:
            raise InputError("--otlp-protocol and --header only apply with --endpoint URL")
        return {}
    if fmt != "otel":
        raise InputError(f"--endpoint sends OpenTelemetry events; --format {fmt} writes a file only",
                         hint="Use --format otel --endpoint URL")
    from toolscore_export.otlp_http import choose_protocol, logs_url

    parsed: dict[str, str] = {}
    for header in headers:
        name, sep, value = header.partition("=")
        if not sep:
            name, sep, value = header.partition(":")
        if not sep or not name.strip():  # the text is not echoed: it may be a credential
            raise InputError("a --header is not NAME=VALUE", hint="e.g. --header Authorization='Bearer ...'")
        parsed[name.strip()] = value.strip()
    logs_url(endpoint)
    return {"endpoint": endpoint, "otlp_protocol": choose_protocol(protocol), "headers": parsed, "timeout": timeout}


@export.command("schema", context_settings=CONTEXT)
@click.option("--path", "show_path", is_flag=True, help="Print where the schema file is installed instead.")
@run_command
def schema(show_path: bool) -> None:
    """Print the JSON Schema of a run record (toolscore.run-record v1, draft-07), as shipped.

    \b
    For an importer's own validator or code generator:
      toolscore export schema > run-record-v1.schema.json
    """
    from importlib import resources

    from toolscore_export.validate import SCHEMA_FILE, _schema_text

    if show_path:
        click.echo(str(resources.files("toolscore_export").joinpath("schemas").joinpath(SCHEMA_FILE)))
        return
    click.echo(_schema_text(), nl=False)


@export.command("validate", context_settings=CONTEXT)
@click.argument("file", metavar="FILE")
@click.option("--no-manifest", is_flag=True, help="Check the records only, for a file that has no manifest.")
@click.option("--workers", type=click.IntRange(min=0, max=64), default=0, metavar="N",
              help="Processes that check lines: 0 = one per CPU for files of 4 MiB and up, 1 = none. "
                   "The result is the same either way.  [default: 0]")
@run_command
def validate(file: str, no_manifest: bool, workers: int) -> None:
    """Check every record of FILE (schema and hashes) and FILE.manifest.json.

    Exit 0: intact. Exit 1: something changed since export (each problem names its line).
    Exit 2: FILE cannot be read, or a line of it is longer than Toolscore reads into memory at
    once (256 MB; TOOLSCORE_MAX_INPUT_MB raises it).
    """
    import sys

    from toolscore_export.check import check_file
    from toolscore_export.progress import ExportProgress

    progress = ExportProgress(sys.stderr, [file], doing="checking", done="lines")
    try:
        result = check_file(file, require_manifest=not no_manifest, on_progress=progress.update, workers=workers)
    finally:
        progress.finish()
    for problem in result.problems:
        click.echo(f"{file}, {problem.describe()}", err=True)
    if not result.ok:
        click.echo(f"{file}: {len(result.problems)} problem(s); the file is not as exported", err=True)
        raise SystemExit(1)
    click.echo(f"{file}: {result.records} record(s) valid; manifest matches")
