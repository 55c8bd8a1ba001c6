"""The evaluation report as GitHub-flavoured Markdown (PR comments, job summaries).

Every value that came from a trace goes through :func:`md_escape` (prose) or
:func:`md_code` (a call, a tool name): a ``|`` or a newline in an argument would otherwise
break the table, ``<`` could open HTML in a renderer, and a backslash before a backtick
could end a code span early. These two are the one Markdown escaping of every report
(the MCP scorecard and lint reports use them too); headings are always our own text.
"""

from __future__ import annotations

import re
from typing import IO, Any

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
from toolscore_core.reports.text import percent, visible

MAX_ROWS = 50
# Outside a code span: every character that can start inline structure (emphasis, code,
# links, images, strikethrough, math, table cells, escapes) is backslash-escaped, and
# the three that open HTML or an entity are written as entities, so no raw tag survives.
_TEXT_ESCAPES = str.maketrans({"\\": "\\\\", "`": "\\`", "*": "\\*", "[": "\\[", "]": "\\]",
                               "|": "\\|", "~": "\\~", "#": "\\#", "$": "\\$", "<": "&lt;", ">": "&gt;",
                               "&": "&amp;"})
# An underscore inside a word (``note_id``) can neither open nor close emphasis, so only
# the others are escaped: names stay readable in the Markdown source.
_UNDERSCORE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")
# At the start of a line these open a block (list item, setext underline, ordered list).
_BLOCK_START = re.compile(r"^(?:[-+=]|\d{1,9}(?=[.)]))")


def _one_line(text: Any) -> str:
    # Runs of white space (newlines too) become one space, so a value never starts a new
    # block; then every control or format character is written as a visible escape.
    return visible(" ".join(str(text).split()), None, redacted=False)


def _escape_text(text: str, *, line_start: bool) -> str:
    out = _UNDERSCORE.sub(r"\\_", text.translate(_TEXT_ESCAPES))
    if line_start:
        match = _BLOCK_START.match(out)
        if match:
            end = match.end()
            out = out[:end] + "\\" + out[end:] if out[:1].isdigit() else "\\" + out
    return out


def md_code(text: Any, *, table: bool = False) -> str:
    """``text`` as one inline code span whose content reads back exactly as
    :func:`~toolscore_core.reports.text.visible` shows ``text`` (one line, controls escaped).

    Backslash escapes do not work inside a code span, so a backtick in the text cannot be
    escaped: the fence is made one backtick longer than the longest run inside, and padded
    with a space when the content starts or ends with a backtick or a space (CommonMark
    strips one such pair). ``table``: the span sits in a table cell, where a ``|`` must be
    written ``\\|`` even inside code. An empty text is an empty string (no span).
    """
    content = visible(str(text), None, redacted=False)
    if not content:
        return ""
    if table:
        content = content.replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if content.strip(" ") and (content[0] in "` " or content[-1] in "` ") else ""
    return f"{fence}{pad}{content}{pad}{fence}"


def md_escape(text: Any, *, table: bool = False) -> str:
    """``text`` safe as Markdown prose: a table cell, a list item, a line of its own.

    What comes out renders as the same words on one line and nothing else: no raw HTML
    (``<`` is ``&lt;``), no link, no emphasis, no new block (newlines become spaces; a
    leading ``-``, ``+``, ``=`` or ``1.`` is escaped; ``#`` always is), no escape that
    swallows our own markup (a backslash is doubled, so ``\\``` cannot cancel a code
    span). Balanced backtick spans (findings write tool names as `deploy`) stay code
    spans, written with :func:`md_code`; an odd number of backticks are all escaped.
    """
    value = _one_line(text)
    parts = value.split("`")
    if len(parts) % 2 == 0 or len(parts) == 1:
        return _escape_text(value, line_start=True)
    out: list[str] = []
    for index, part in enumerate(parts):
        if index % 2 == 0:
            out.append(_escape_text(part, line_start=index == 0))
        else:
            out.append(md_code(part, table=table) or "\\`\\`")
    return "".join(out)


def render_markdown(evaluation: Evaluation, stream: IO[str]) -> None:
    data = summarize(evaluation)
    out: list[str] = ["# Toolscore evaluation", ""]
    out.append(f"**Grade {data.grade} · {data.verdict} ({percent(data.score)})**")
    out.append("")
    if data.min_score is not None:
        bar = "below" if data.below_min_score else "meets"
        out += [f"Score {percent(data.score)} {bar} the required {percent(data.min_score)}.", ""]
    out += ["| Metric | Value |", "| --- | ---: |"]
    out += [f"| {md_escape(m.label, table=True)} | {percent(m.value)} |" for m in data.metrics]
    out.append("")
    if data.required_total:
        out += [required_line(data), ""]
    rows, left_out = problem_rows(data.rows, MAX_ROWS)
    if rows:
        out += ["## Expected vs actual tool calls", "", "| # | Expected | Actual | Status |",
                "| ---: | --- | --- | --- |"]
        for row in rows:
            status = ("<br>".join(md_escape(p, table=True) for p in row.problems) if row.problems
                      else md_escape(row.status_text(), table=True))
            expected = md_code(row.expected, table=True) or "-"
            actual = md_code(row.actual, table=True) or "-"
            out.append(f"| {row.number} | {expected} | {actual} | {status} |")
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
        out += [f"| {md_escape(m.label, table=True)} | {percent(m.value)} | {weight_text(m.weight)} |"
                for m in data.all_metrics]
        out.append("")
    stream.write("\n".join(out).rstrip("\n") + "\n")


__all__ = ["md_code", "md_escape", "render_markdown"]
