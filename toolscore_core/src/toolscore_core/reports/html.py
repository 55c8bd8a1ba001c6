"""The evaluation report as one self-contained HTML file.

One file that opens anywhere, offline: the CSS is inline, there is no script and no
external URL (a report attached to a CI run must not phone home or break without a
network). Every piece of text from a trace is escaped with :func:`html.escape`, so an
argument such as ``<script>`` is shown, never run.
"""

from __future__ import annotations

from html import escape
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

MAX_ROWS = 100

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto;
       max-width: 60rem; padding: 0 1rem; color: #1f2328; background: #fff; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 1.8rem; }
.grade { display: inline-block; border: 2px solid #888; border-radius: .6rem;
         padding: .5rem 1.2rem; font-size: 1.3rem; font-weight: 600; }
.PASS { border-color: #1a7f37; color: #1a7f37; } .WARN { border-color: #9a6700; color: #9a6700; }
.FAIL { border-color: #cf222e; color: #cf222e; }
table { border-collapse: collapse; margin: .6rem 0; }
th, td { border: 1px solid #d0d7de; padding: .3rem .6rem; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font-family: ui-monospace, "SFMono-Regular", monospace; font-size: .9em; word-break: break-all; }
.sev { font-weight: 700; display: inline-block; min-width: 6.5rem; }
.error { color: #cf222e; } .warning { color: #9a6700; } .info { color: #0969da; }
.match { color: #1a7f37; } .mismatch, .missing { color: #cf222e; } .unexpected { color: #9a6700; }
ul.findings { list-style: none; padding-left: 0; }
.muted { color: #59636e; }
"""


def render_html(evaluation: Evaluation, stream: IO[str]) -> None:
    data = summarize(evaluation)
    e = escape
    parts: list[str] = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Toolscore: Grade {e(data.grade)} {e(data.verdict)} ({e(percent(data.score))})</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>Toolscore evaluation</h1>",
        f'<p><span class="grade {e(data.verdict)}" id="grade">Grade {e(data.grade)} &nbsp; '
        f"{e(data.verdict)} ({e(percent(data.score))})</span></p>",
    ]
    if data.min_score is not None:
        bar = "below" if data.below_min_score else "meets"
        parts.append(f"<p>Score {e(percent(data.score))} {bar} the required {e(percent(data.min_score))}.</p>")
    parts.append('<table id="metrics"><tbody>')
    for m in data.metrics:
        parts.append(f'<tr><th scope="row">{e(m.label)}</th><td class="num">{e(percent(m.value))}</td></tr>')
    parts.append("</tbody></table>")
    if data.required_total:
        parts.append(f'<p id="required">{e(required_line(data))}</p>')
    rows, left_out = problem_rows(data.rows, MAX_ROWS)
    if rows:
        parts += ["<h2>Expected vs actual tool calls</h2>", '<table id="calls"><thead><tr>',
                  "<th>#</th><th>Expected</th><th>Actual</th><th>Status</th></tr></thead><tbody>"]
        for row in rows:
            status = "<br>".join(e(p) for p in row.problems) if row.problems else e(row.status_text())
            parts.append(
                f'<tr><td class="num">{row.number}</td><td><code>{e(row.expected) or "-"}</code></td>'
                f'<td><code>{e(row.actual) or "-"}</code></td><td class="{row.status}">{status}</td></tr>'
            )
        parts.append("</tbody></table>")
        if left_out:
            parts.append(f'<p class="muted">… {left_out} more row(s) not shown.</p>')
    if data.issues:
        parts += ["<h2>Top issues to fix</h2>", '<ol id="issues">']
        for issue in data.issues:
            fix = f'<br><span class="muted">Fix: {e(issue.fix)}</span>' if issue.fix else ""
            parts.append(f"<li><strong>{e(issue.subject)}</strong> {e(issue.problem)}{fix}</li>")
        parts.append("</ol>")
    if data.findings:
        parts += ["<h2>Behavior and safety</h2>", '<ul class="findings" id="findings">']
        for finding in data.findings:
            parts.append(f'<li><span class="sev {e(finding.severity)}">{e(severity_label(finding))}</span>'
                         f"{e(finding_text(finding))}</li>")
        if data.findings_left_out:
            parts.append(f'<li class="muted">… and {data.findings_left_out} more (see the JSON report)</li>')
        parts.append("</ul>")
    if data.all_metrics:
        parts += [f"<h2>{e(METRICS_TITLE)}</h2>", '<table id="all-metrics"><thead><tr>',
                  '<th>Metric</th><th>Value</th><th>Weight</th></tr></thead><tbody>']
        for detail in data.all_metrics:
            muted = "" if detail.scored else ' class="muted"'
            parts.append(f'<tr{muted}><th scope="row">{e(detail.label)}</th>'
                         f'<td class="num">{e(percent(detail.value))}</td>'
                         f'<td class="num">{e(weight_text(detail.weight))}</td></tr>')
        parts.append("</tbody></table>")
    parts.append(f'<p class="muted">{data.expected_count} expected call(s), {data.actual_count} actual '
                 f"call(s), order mode {e(data.mode)}.</p>")
    parts.append("</body></html>")
    stream.write("\n".join(parts) + "\n")


__all__ = ["CSS", "render_html"]
