"""The evaluation report for a terminal, drawn with rich.

On a TTY it is coloured; anywhere else (a pipe, a CI log, a file) it is the same layout
without escape codes, at a fixed width, so logs diff cleanly and read the same everywhere.
Without colour the same characters are placed by :mod:`toolscore_core.reports.console_plain`,
which spares ``toolscore eval`` importing rich; it hands back to rich what it cannot place.
"""

from __future__ import annotations

import os
from typing import IO, Any

from toolscore_core.kernel.model import Evaluation
from toolscore_core.reports.alignment import any_problem, problem_rows
from toolscore_core.reports.summary import (
    METRICS_TITLE,
    ReportData,
    finding_text,
    required_line,
    severity_label,
    summarize,
    weight_text,
)
from toolscore_core.reports.text import escape_controls, percent

PLAIN_WIDTH = 100
MAX_ROWS = 20
VERDICT_STYLE = {"PASS": "bold green", "WARN": "bold yellow", "FAIL": "bold red"}
SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def make_console(stream: IO[str], *, color: bool | None = None, width: int | None = None) -> Any:
    """A rich Console writing to ``stream``: colour only when it is a terminal (or asked)."""
    from rich.console import Console

    tty = bool(getattr(stream, "isatty", lambda: False)())
    if color is None:
        color = tty and "NO_COLOR" not in os.environ
    return Console(
        file=stream,
        force_terminal=color,
        no_color=not color,
        color_system="auto" if color else None,
        width=width or (None if tty else PLAIN_WIDTH),
        highlight=False,
        soft_wrap=False,
        emoji=False,
        markup=False,
    )


def render_console(evaluation: Evaluation, stream: IO[str], *, color: bool | None = None,
                   width: int | None = None) -> None:
    """Write the console report of ``evaluation`` to ``stream``."""
    import io

    data = summarize(evaluation)
    buffer = io.StringIO()
    tty = bool(getattr(stream, "isatty", lambda: False)())
    if color is None:
        color = tty and "NO_COLOR" not in os.environ
    width = width or (_terminal_width() if tty else PLAIN_WIDTH)
    if not color:
        plain = _plain_report(data, width)
        if plain is not None:
            stream.write(plain)
            return
    console = make_console(buffer, color=color, width=width)
    for block in build_blocks(data):
        console.print(block)
    # rich pads grid cells to the full width; trailing blanks only clutter logs and diffs.
    stream.write("\n".join(line.rstrip() for line in buffer.getvalue().split("\n")))


def _plain_report(data: ReportData, width: int) -> str | None:
    """The report drawn without rich (the same characters: see
    :mod:`toolscore_core.reports.console_plain`), or None when it needs rich's layout."""
    if _rich_decides():
        return None
    from toolscore_core.reports.console_plain import Unfit, report_lines

    try:
        lines = report_lines(data, width)
    except Unfit:
        return None
    return "\n".join(text.rstrip() for text in [*lines, ""])


def _rich_decides() -> bool:
    """True where rich draws differently from its usual characters, so only rich is exact:
    on a legacy Windows console it swaps the box characters, and in a notebook (IPython
    loaded, or Databricks) it shows the report in the notebook rather than writing it."""
    import sys

    return sys.platform == "win32" or "IPython" in sys.modules or "DATABRICKS_RUNTIME_VERSION" in os.environ


def _terminal_width() -> int:
    import shutil

    return shutil.get_terminal_size((PLAIN_WIDTH, 24)).columns


def build_blocks(data: ReportData) -> list[Any]:
    """The report as a list of rich renderables, top to bottom."""
    from rich import box
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    blocks: list[Any] = []
    metrics = Table(box=box.SQUARE, show_header=False, show_edge=True, pad_edge=True)
    metrics.add_column("Metric")
    metrics.add_column("Value", justify="right")
    for row in data.metrics:
        metrics.add_row(row.label, percent(row.value), style="bold" if row.key == "score" else None)
    blocks.append(metrics)

    grade = Text()
    grade.append(f"Grade {data.grade}", style="bold")
    grade.append("   ")
    grade.append(f"{data.verdict} ({percent(data.score)})", style=VERDICT_STYLE.get(data.verdict, "bold"))
    blocks.append(Text())
    blocks.append(Panel(grade, expand=False, box=box.ROUNDED,
                        border_style=VERDICT_STYLE.get(data.verdict, "")))
    if data.min_score is not None:
        bar = "below" if data.below_min_score else "meets"
        blocks.append(Text(f"Score {percent(data.score)} {bar} the required {percent(data.min_score)}",
                           style="bold red" if data.below_min_score else "green"))
    blocks.append(Text())
    if data.required_total:
        blocks.append(Text(required_line(data)))
        blocks.append(Text())

    rows, left_out = problem_rows(data.rows, MAX_ROWS)
    if any_problem(data.rows):  # a judged match is shown with its reason
        blocks.append(calls_table(rows, left_out))
        blocks.append(Text())

    if data.issues:
        blocks.append(Text("Top issues to fix", style="bold"))
        issues = Table.grid(padding=(0, 1))
        issues.add_column(justify="right", no_wrap=True)
        issues.add_column()
        for number, issue in enumerate(data.issues, start=1):
            line = Text()
            line.append(issue.subject, style="bold")
            line.append(f"  {issue.problem}")
            if issue.fix:
                line.append(f"\nfix: {issue.fix}", style="dim")
            issues.add_row(f"  {number}.", line)
        blocks.append(issues)
        blocks.append(Text())

    if data.findings:
        blocks.append(Text("Behavior and safety", style="bold"))
        findings = Table.grid(padding=(0, 1))
        findings.add_column(no_wrap=True)
        findings.add_column()
        for finding in data.findings:
            label = Text(f"  {severity_label(finding):<8}", style=SEVERITY_STYLE.get(finding.severity, ""))
            findings.add_row(label, Text(finding_text(finding)))
        blocks.append(findings)
        if data.findings_left_out:
            blocks.append(Text(f"  … and {data.findings_left_out} more (see the JSON report)", style="dim"))
        blocks.append(Text())

    if data.all_metrics:
        blocks.append(Text(METRICS_TITLE, style="bold"))
        every = Table.grid(padding=(0, 2))
        every.add_column(no_wrap=True)
        every.add_column(justify="right", no_wrap=True)
        every.add_column(no_wrap=True)
        for metric in data.all_metrics:
            every.add_row(f"  {metric.label}", percent(metric.value), f"weight {weight_text(metric.weight)}",
                          style=None if metric.scored else "dim")
        blocks.append(every)
        blocks.append(Text())
    return blocks


def calls_table(rows: list[Any], left_out: int, *, title: str = "Expected vs Actual Tool Calls") -> Any:
    """The aligned table: #, Expected, Actual, Status (one line per mismatch)."""
    from rich import box
    from rich.table import Table

    table = Table(title=title, box=box.HEAVY_HEAD, show_lines=True)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("Expected", overflow="fold", ratio=3)
    table.add_column("Actual", overflow="fold", ratio=3)
    table.add_column("Status", overflow="fold", ratio=3)
    for row in rows:
        # problems quote argument names and values from the trace: control characters visible
        status = "\n".join(escape_controls(p) for p in row.problems) if row.problems else row.status_text()
        style = {"match": "green", "missing": "red", "unexpected": "yellow"}.get(row.status, "red")
        if row.call_failed:
            style = "red"
        table.add_row(str(row.number), row.expected or "-", row.actual or "-", _styled(status, style))
    if left_out:
        table.caption = f"… {left_out} more row(s) not shown"
    return table


def _styled(text: str, style: str) -> Any:
    from rich.text import Text

    return Text(text, style=style)


__all__ = ["build_blocks", "calls_table", "make_console", "render_console"]
