"""The evaluation report as GitHub-flavoured Markdown (PR comments, job summaries).

Every value that came from a trace is escaped for a table cell: a ``|`` or a newline in
an argument would otherwise break the table, and ``<`` could open HTML in a renderer.
"""

from __future__ import annotations

from typing import IO

from toolscore_core.kernel.model import Evaluation
from toolscore_core.reports.alignment import problem_rows
from toolscore_core.reports.summary import (
    METRICS_TITLE,
    finding_text,
    required_line,
    severity_label,
    summarize,
    weight_text,
)
from toolscore_core.reports.text import percent

MAX_ROWS = 50
_ESCAPES = str.maketrans({"|": "\\|", "<": "&lt;", ">": "&gt;", "`": "\\`", "*": "\\*", "_": "\\_",
                          "[": "\\[", "]": "\\]", "\n": " ", "\r": " "})


def md_escape(text: str) -> str:
    """``text`` safe inside a Markdown table cell or list item.

    Balanced backtick spans (findings write tool names as `deploy`) stay code spans, with
    only what a table cell cannot hold changed inside them; everything else is escaped.
    """
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an odd number of backticks: no reliable spans, escape them all
        return text.translate(_ESCAPES)
    return "`".join(part.translate(_ESCAPES) if i % 2 == 0 else _code(part) for i, part in enumerate(parts))


def render_markdown(evaluation: Evaluation, stream: IO[str]) -> None:
    data = summarize(evaluation)
    out: list[str] = ["# Toolscore evaluation", ""]
    out.append(f"**Grade {data.grade} · {data.verdict} ({percent(data.score)})**")
    out.append("")
    if data.min_score is not None:
        bar = "below" if data.below_min_score else "meets"
        out += [f"Score {percent(data.score)} {bar} the required {percent(data.min_score)}.", ""]
    out += ["| Metric | Value |", "| --- | ---: |"]
    out += [f"| {md_escape(m.label)} | {percent(m.value)} |" for m in data.metrics]
    out.append("")
    if data.required_total:
        out += [required_line(data), ""]
    rows, left_out = problem_rows(list(data.rows), MAX_ROWS)
    if rows:
        out += ["## Expected vs actual tool calls", "", "| # | Expected | Actual | Status |",
                "| ---: | --- | --- | --- |"]
        for row in rows:
            status = "<br>".join(md_escape(p) for p in row.problems) if row.problems else md_escape(row.status_text())
            out.append(f"| {row.number} | `{_code(row.expected)}` | `{_code(row.actual)}` | {status} |"
                       .replace("``", "-"))
        if left_out:
            out.append(f"\n… {left_out} more row(s) not shown.")
        out.append("")
    if data.issues:
        out += ["## Top issues to fix", ""]
        for number, issue in enumerate(data.issues, start=1):
            fix = f" Fix: {md_escape(issue.fix)}" if issue.fix else ""
            out.append(f"{number}. **{md_escape(issue.subject)}**: {md_escape(issue.problem)}.{fix}"
                       .replace("..", "."))
        out.append("")
    if data.findings:
        out += ["## Behavior and safety", ""]
        for finding in data.findings:
            out.append(f"- **{severity_label(finding)}** {md_escape(finding_text(finding))}")
        if data.findings_left_out:
            out.append(f"- … and {data.findings_left_out} more (see the JSON report)")
        out.append("")
    if data.all_metrics:
        out += [f"## {METRICS_TITLE}", "", "| Metric | Value | Weight |", "| --- | ---: | ---: |"]
        out += [f"| {md_escape(m.label)} | {percent(m.value)} | {weight_text(m.weight)} |" for m in data.all_metrics]
        out.append("")
    stream.write("\n".join(out).rstrip("\n") + "\n")


def _code(text: str) -> str:
    # Inside backticks only the backtick and the pipe need care.
    return text.replace("`", "'").replace("|", "\\|").replace("\n", " ")


__all__ = ["md_escape", "render_markdown"]
