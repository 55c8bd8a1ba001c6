"""``toolscore validate TRACE``: what a trace file is detected as, and the calls read from it.

Why a separate command: when a score looks wrong, the first question is whether Toolscore
read the file the way the user thinks it did. This shows every adapter's confidence (the
winner and the runners-up), then each call as read: its tool, a short redacted preview of
its arguments, its outcome (ok / FAILED / unknown when no result was recorded) and its
duration. A file in which no tool call is found is exit 2 with a message saying what the
file was detected as, rather than an empty table that looks like success.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from toolscore_core.cli import run_command
from toolscore_core.cli._app import App
from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.model import ToolCall, Trace

ARGS_PREVIEW = 60


def rank_adapters(app: App, path: Path) -> list[tuple[str, float]]:
    """Every adapter's confidence for ``path``, best first (only those above 0).

    Adapters that recognise a file from its first bytes (large JSON Lines exports) are
    asked first, as :func:`toolscore_core.kernel.traces.load_trace_file` does; only when none
    does is the file parsed and every adapter asked about the data.
    """
    from toolscore_core.kernel.files import load_data_file, not_a_file
    from toolscore_core.kernel.traces import HEAD_BYTES

    if not path.is_file():
        raise not_a_file(path)
    if path.stat().st_size == 0:
        raise InputError("is empty (0 bytes)", file=path, expected="a trace file with at least one tool call")
    adapters = app.registry("adapters").instances()
    with path.open("rb") as fh:
        head = fh.read(HEAD_BYTES)
    scores = [(a.name, _score(a.detect_path, path, head)) for a in adapters]
    if not any(s > 0 for _, s in scores):
        data = load_data_file(path, allow_json_lines=True)
        scores = [(a.name, _score(a.detect, data)) for a in adapters]
    return sorted(((n, s) for n, s in scores if s > 0), key=lambda item: (-item[1], item[0]))


def _score(fn: Any, *args: Any) -> float:
    try:
        value = float(fn(*args))
    except Exception:  # a broken detect() loses; it never breaks validation of the others
        return 0.0
    return value if value > 0 else 0.0


def outcome(call: ToolCall) -> str:
    if call.denied:
        return "denied"
    if call.is_error is None:
        return "unknown"
    return "FAILED" if call.is_error else "ok"


def args_preview(call: ToolCall, limit: int = ARGS_PREVIEW) -> str:
    """Arguments as one line of JSON, credentials redacted, cut to ``limit`` characters."""
    from toolscore_core.reports.text import redact, truncate

    if call.args is None:
        return "(not recorded)"
    text = json.dumps(redact(call.args), ensure_ascii=False, default=str)
    return truncate(text, limit)


def describe_detection(fmt: str, ranking: list[tuple[str, float]], forced: bool) -> str:
    if forced:
        return f"{fmt} (given with --format)"
    confidence = dict(ranking).get(fmt)
    return f"{fmt} (confidence {confidence:.2f})" if confidence is not None else fmt


def report_data(path: Path, trace: Trace, ranking: list[tuple[str, float]], forced: bool) -> dict[str, Any]:
    """The JSON form of the report (``--json``): stable keys, redacted argument values."""
    from toolscore_core.reports.text import redact, truncate

    fmt = trace.source_format or "?"
    return {
        "file": str(path),
        "format": fmt,
        "format_given": forced,
        "confidence": None if forced else dict(ranking).get(fmt),
        "candidates": [{"format": n, "confidence": round(s, 4)} for n, s in ranking],
        "calls": [
            {
                "index": i,
                "tool": c.tool,
                "id": c.id,
                "args": redact(c.args),
                "outcome": outcome(c),
                "error": None if c.error is None else truncate(redact(c.error), 300),
                "duration": c.duration,
                # arguments the model wrote as broken JSON: why, and the raw text (redacted, cut)
                "arguments_error": c.metadata.get("arguments_error"),
                "raw_arguments": _raw_arguments(c),
            }
            for i, c in enumerate(trace.calls)
        ],
        # keys of the trace's call records that no reader knows: kept in each call's
        # metadata, listed here so nothing is dropped without the user seeing it
        "unknown_keys": list(trace.metadata.get("unknown_keys", [])),
        # the answer is text from outside like any other: credentials in it are never printed
        "final_answer": None if trace.final_answer is None else truncate(redact(str(trace.final_answer)), 10_000),
        "unmatched_results": list(trace.metadata.get("unmatched_results", [])),
    }


def _raw_arguments(call: ToolCall) -> str | None:
    from toolscore_core.reports.text import redact, truncate

    raw = call.metadata.get("raw_arguments") if "arguments_error" in call.metadata else None
    return None if raw is None else truncate(redact(str(raw)), 300)


def _args_cell(call: dict[str, Any]) -> str:
    from toolscore_core.reports.text import visible

    if call.get("arguments_error"):
        return visible("(invalid JSON) " + str(call.get("raw_arguments") or ""), ARGS_PREVIEW)
    return _preview(call["args"])


def _preview(args: Any, limit: int | None = ARGS_PREVIEW) -> str:
    """Arguments as one line of JSON with control characters visible (JSON leaves DEL, C1
    and bidi overrides raw), cut to ``limit``."""
    from toolscore_core.reports.text import escape_controls, truncate

    if args is None:
        return "(not recorded)"
    text = escape_controls(json.dumps(args, ensure_ascii=False, default=str))
    return text if limit is None else truncate(text, limit)


def render_plain(data: dict[str, Any]) -> str:
    """The report as plain aligned text (CI logs, pipes). Every string from the trace (tool
    names, arguments, the final answer, result ids) is shown with control characters made
    visible: a trace must not be able to clear the screen or write the clipboard."""
    from toolscore_core.reports.text import safe_text, visible

    calls = data["calls"]
    counts = {k: sum(1 for c in calls if c["outcome"] == k) for k in ("ok", "FAILED", "unknown", "denied")}
    detected = "given with --format" if data["format_given"] else f"confidence {data['confidence']:.2f}"
    runners = [f"{c['format']} {c['confidence']:.2f}" for c in data["candidates"] if c["format"] != data["format"]]
    lines = [
        f"{data['file']}",
        f"  detected as   {data['format']} ({detected})",
        f"  runners-up    {', '.join(runners) if runners else 'none'}",
        f"  calls read    {len(calls)} ({counts['ok']} ok, {counts['FAILED']} FAILED, {counts['unknown']} unknown"
        + (f", {counts['denied']} denied" if counts["denied"] else "") + ")",
    ]
    if data["final_answer"]:
        lines.append(f"  final answer  {safe_text(data['final_answer'], 100)}")
    if data["unmatched_results"]:
        lines.append(f"  warning       {len(data['unmatched_results'])} result(s) match no call: "
                     + ", ".join(visible(str(r), 80) for r in data["unmatched_results"][:5]))
    invalid = [c for c in calls if c.get("arguments_error")]
    if invalid:
        lines.append(f"  warning       {len(invalid)} call(s) have arguments that are not a JSON object "
                     f"(call {invalid[0]['index'] + 1}: {visible(str(invalid[0]['arguments_error']), 80)})")
    if data.get("unknown_keys"):
        lines.append("  unknown keys  " + ", ".join(visible(str(k), 40) for k in data["unknown_keys"][:20])
                     + " (kept in each call's metadata; not scored)")
    lines.append("")
    rows = [("#", "tool", "args", "outcome", "duration")]
    for c in calls:
        duration = "-" if c["duration"] is None else f"{c['duration'] * 1000:.0f} ms"
        rows.append((str(c["index"] + 1), visible(str(c["tool"]), 120), _args_cell(c), c["outcome"], duration))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for row in rows:
        lines.append("  " + "  ".join(row[i].ljust(widths[i]) for i in range(4)) + "  " + row[4])
    return "\n".join(line.rstrip() for line in lines)


def render_rich(data: dict[str, Any]) -> None:
    """The same report styled for a terminal."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from toolscore_core.reports.text import visible

    console = Console(markup=False, emoji=False, highlight=False)
    head = render_plain(data).partition("\n\n")[0]
    console.print(head, highlight=False, markup=False)
    table = Table(show_edge=False, pad_edge=False)
    for column in ("#", "tool", "args", "outcome", "duration"):
        table.add_column(column, justify="right" if column in ("#", "duration") else "left")
    style = {"ok": "green", "FAILED": "bold red", "unknown": "yellow", "denied": "magenta"}
    for c in data["calls"]:
        duration = "-" if c["duration"] is None else f"{c['duration'] * 1000:.0f} ms"
        table.add_row(str(c["index"] + 1), Text(visible(str(c["tool"]), 120)), Text(_args_cell(c)),
                      Text(c["outcome"], style=style[c["outcome"]]), duration)
    console.print(table)


@click.command("validate")
@click.argument("trace", type=click.Path(path_type=Path, dir_okay=True))
@click.option("--format", "fmt", default=None, metavar="NAME",
              help="Read the file as this format instead of detecting it (see `toolscore plugins`).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_obj
@run_command
def validate(app: App, trace: Path, fmt: str | None, as_json: bool) -> None:
    """Show what format TRACE is detected as (with every adapter's confidence) and the
    tool calls read from it: tool, arguments, outcome (ok / FAILED / unknown) and duration.

    Exit 0 when at least one call was read; 2 when the file cannot be read, no format
    recognises it, or it holds no tool call.
    """
    from toolscore_core.kernel.traces import load_trace_file

    forced = fmt is not None and fmt not in ("", "auto")
    if fmt is not None and forced:
        app.registry("adapters").get(fmt)  # an unknown name fails here, with suggestions
        ranking: list[tuple[str, float]] = []
    else:
        ranking = rank_adapters(app, trace)
    loaded = load_trace_file(trace, format=fmt if forced else None, pm=app.pm, allow_empty=True)
    from toolscore_core.cli.notices import warn_about_reading

    warn_about_reading(loaded)  # e.g. a cut-off last line that was skipped
    data = report_data(trace, loaded, ranking, forced)
    if not loaded.calls:
        raise InputError(
            f"no tool call found; the file was read as {describe_detection(data['format'], ranking, forced)}",
            file=trace,
            expected="a trace with at least one tool call",
            hint="If this is the wrong format, name the right one with --format",
        )
    if as_json:
        from toolscore_core.reports.text import json_visible

        click.echo(json_visible(json.dumps(data, indent=2, ensure_ascii=False, default=str)))
    elif sys.stdout.isatty():
        render_rich(data)
    else:
        click.echo(render_plain(data))
