"""Renderers of a :class:`~toolscore_agent.compare.Comparison`: console, Markdown, JSON, HTML.

Arm and task ids are outside text (whoever wrote the spec, or the file, chose them), so
every renderer escapes them its own way: :func:`visible` for a terminal, ``md_escape`` for
Markdown, ``html.escape`` of the visible form for HTML. The HTML page is self-contained (no
script, no external URL): the chart is an inline SVG, one bar per arm with its interval.
"""

from __future__ import annotations

import html
import io
import json
from collections.abc import Callable
from typing import Any

from toolscore_agent.compare import Comparison, PairedTest, Tally
from toolscore_core.reports.markdown import md_escape
from toolscore_core.reports.text import json_visible, visible

_ID_LIMIT = 60
_PASS_K_SHOWN = 5


def _id(text: str) -> str:
    return visible(text, _ID_LIMIT, redacted=False)


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f} %"


def _interval(tally: Tally) -> str:
    low, high = tally.interval
    return f"{low * 100:.1f}-{high * 100:.1f} %"


def _usd(value: float | None, tally: Tally) -> str:
    if value is None:
        return f"unknown ({tally.unknown_cost} run(s) without a cost)" if tally.unknown_cost else "-"
    return f"${value:.4f}"


def _pass_k(tally: Tally) -> str:
    shown = [f"{value:.2f}" if value is not None else "-" for _, value in
             sorted(tally.pass_hat_k.items())[:_PASS_K_SHOWN]]
    more = len(tally.pass_hat_k) - _PASS_K_SHOWN
    return " / ".join(shown) + (f" (+{more} more in --report json)" if more > 0 else "")


def _mean(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _outcomes(tally: Tally) -> str:
    o = tally.outcomes
    return f"{o['pass']}/{o['fail']}/{o['error']}/{o['unknown']}"


_ARM_HEAD = ("arm", "runs", "pass/fail/error/unknown", "pass rate", "95 % interval", "pass^k (k=1..)",
             "mean cost", "cost per pass", "tokens in/out", "turns", "calls", "denials", "limit stops",
             "budget stops")
_TASK_HEAD = ("task", "arm", "runs", "pass/fail/error/unknown", "pass rate", "95 % interval", "cost per pass")


def _arm_cells(arm: str, tally: Tally, escape: Callable[[str], str]) -> list[str]:
    return [escape(arm), str(tally.runs), _outcomes(tally), _rate(tally.pass_rate), _interval(tally),
            _pass_k(tally), _usd(tally.mean_cost_usd, tally), _usd(tally.cost_per_pass_usd, tally),
            f"{tally.input_tokens}/{tally.output_tokens}", _mean(tally.mean_turns), _mean(tally.mean_calls),
            str(tally.guard_denials), str(tally.limit_stops), str(tally.budget_stops)]


def _task_rows(comparison: Comparison, escape: Callable[[str], str]) -> list[list[str]]:
    return [[escape(task), escape(arm), str(t.runs), _outcomes(t), _rate(t.pass_rate), _interval(t),
             _usd(t.cost_per_pass_usd, t)]
            for task, arms in comparison.tasks.items() for arm, t in arms.items()]


def _difference(pair: PairedTest) -> str:
    if pair.difference is None or pair.interval is None:
        return "no shared task"
    low, high = pair.interval
    return (f"pass rate {pair.b} - {pair.a}: {pair.difference * 100:+.1f} points "
            f"(95 % interval {low * 100:+.1f} to {high * 100:+.1f}, over runs as if independent; "
            "the test on tasks decides)")


def _summary(comparison: Comparison) -> str:
    return (f"{comparison.cells} run(s) in {len(comparison.arms)} arm(s) x {len(comparison.tasks)} task(s) "
            f"from {len(comparison.files)} file(s)"
            + (f"; {comparison.superseded} older row(s) of retried cells left out" if comparison.superseded else ""))


# --- console -----------------------------------------------------------------------------------------


def _aligned(head: tuple[str, ...], rows: list[list[str]]) -> list[str]:
    widths = [max(len(head[i]), *(len(row[i]) for row in rows)) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(head, widths, strict=True)).rstrip()]
    lines += ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows]
    return lines


def render_console(comparison: Comparison) -> str:
    """Plain aligned text: readable in a terminal, a pipe and a CI log alike."""
    lines = [_summary(comparison), "", "Per arm"]
    lines += _aligned(_ARM_HEAD, [_arm_cells(arm, t, _id) for arm, t in comparison.arms.items()])
    lines += ["", "Per task x arm", *_aligned(_TASK_HEAD, _task_rows(comparison, _id))]
    if comparison.pairs:
        lines += ["", "Paired test on tasks (exact sign test / McNemar)"]
        for pair in comparison.pairs:
            lines.append(f"- {visible(pair.wording, None, redacted=False)}")
            lines.append(f"  {visible(_difference(pair), None, redacted=False)}")
            if pair.unpaired_tasks:
                lines.append(f"  {len(pair.unpaired_tasks)} task(s) ran in only one of the two arms: left out")
    return "\n".join(lines) + "\n"


# --- Markdown ----------------------------------------------------------------------------------------


def _md_table(head: tuple[str, ...], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return out


def render_markdown(comparison: Comparison) -> str:
    def cell(text: str) -> str:
        return md_escape(text, table=True)

    lines = ["# Toolscore compare", "", md_escape(_summary(comparison)), "", "## Per arm", ""]
    lines += _md_table(_ARM_HEAD, [_arm_cells(arm, t, cell) for arm, t in comparison.arms.items()])
    lines += ["", "## Per task x arm", "", *_md_table(_TASK_HEAD, _task_rows(comparison, cell))]
    if comparison.pairs:
        lines += ["", "## Paired test on tasks (exact sign test / McNemar)", ""]
        for pair in comparison.pairs:
            lines.append(f"- {md_escape(pair.wording)}; {md_escape(_difference(pair))}")
    return "\n".join(lines) + "\n"


# --- JSON --------------------------------------------------------------------------------------------


def render_json(comparison: Comparison) -> str:
    # json.dumps with an indent joins a list of every small piece it writes (millions for a
    # large report); written piece by piece into one buffer instead, the text is the same.
    buffer = io.StringIO()
    for piece in json.JSONEncoder(indent=2, ensure_ascii=False).iterencode(comparison.to_dict()):
        buffer.write(piece)
    document = buffer.getvalue()
    del buffer
    # json_visible leaves newlines and tabs as they are and takes its fast path only for a
    # wholly printable text, which an indented document never is; without this check a
    # large report (pass^k for every k of many repetitions: megabytes) went through it one
    # character at a time, a list entry each (~100 MiB for a 9 MB report).
    if document.replace("\n", "").replace("\t", "").isprintable():
        return document + "\n"
    return json_visible(document) + "\n"


# --- HTML --------------------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,sans-serif;margin:2rem;color:#1f2328;max-width:72rem}
table{border-collapse:collapse;margin:1rem 0;font-size:.9rem}
th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;white-space:nowrap}
th{background:#f6f8fa}
.bar{fill:#2f81f7}.cost{fill:#8250df}.ci{stroke:#1f2328;stroke-width:2}
.significant{color:#1a7f37;font-weight:bold}.noise{color:#9a6700}
svg text{font-size:12px;fill:#1f2328}
"""


def _h(text: Any) -> str:
    return html.escape(visible(str(text), None, redacted=False), quote=True)


def _html_table(head: tuple[str, ...], rows: list[list[str]]) -> str:
    out = ["<table><thead><tr>", *(f"<th>{html.escape(h)}</th>" for h in head), "</tr></thead><tbody>"]
    for row in rows:
        out.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _rate_chart(comparison: Comparison) -> str:
    """Pass rate per arm as bars (0-100 %), each with its 95 % Wilson interval as a line."""
    arms = list(comparison.arms.items())
    row, left, width = 28, 160, 400
    height = row * len(arms) + 30
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" width="{left + width + 80}" '
             f'height="{height}" aria-label="pass rate per arm with its 95 % interval">']
    for index, (arm, tally) in enumerate(arms):
        y = 10 + index * row
        rate = tally.pass_rate or 0.0
        low, high = tally.interval
        parts.append(f'<text x="{left - 8}" y="{y + 15}" text-anchor="end">{_h(_id(arm))}</text>')
        parts.append(f'<rect class="bar" data-arm="{_h(arm)}" x="{left}" y="{y + 3}" '
                     f'width="{rate * width:.1f}" height="{row - 10}"><title>{_h(_id(arm))}: '
                     f'{_rate(tally.pass_rate)} ({_interval(tally)})</title></rect>')
        parts.append(f'<line class="ci" x1="{left + low * width:.1f}" x2="{left + high * width:.1f}" '
                     f'y1="{y + row / 2 - 1:.1f}" y2="{y + row / 2 - 1:.1f}"/>')
        parts.append(f'<text x="{left + width + 6}" y="{y + 15}">{_rate(tally.pass_rate)}</text>')
    axis = 10 + row * len(arms)
    parts.append(f'<text x="{left}" y="{axis + 14}">0 %</text>'
                 f'<text x="{left + width}" y="{axis + 14}" text-anchor="end">100 %</text></svg>')
    return "".join(parts)


def _cost_chart(comparison: Comparison) -> str:
    """Cost per pass per arm, scaled to the most expensive; an unknown cost is written, not drawn."""
    arms = list(comparison.arms.items())
    known = [t.cost_per_pass_usd for _, t in arms if t.cost_per_pass_usd is not None]
    top = max(known, default=0.0) or 1.0
    row, left, width = 28, 160, 400
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" width="{left + width + 260}" '
             f'height="{row * len(arms) + 20}" aria-label="cost per pass per arm">']
    for index, (arm, tally) in enumerate(arms):
        y = 10 + index * row
        parts.append(f'<text x="{left - 8}" y="{y + 15}" text-anchor="end">{_h(_id(arm))}</text>')
        value = tally.cost_per_pass_usd
        if value is not None:
            parts.append(f'<rect class="cost" x="{left}" y="{y + 3}" width="{value / top * width:.1f}" '
                         f'height="{row - 10}"/>')
        label = _usd(value, tally) if value is not None or tally.unknown_cost else "no pass"
        parts.append(f'<text x="{left + (value / top * width if value is not None else 0) + 6:.1f}" '
                     f'y="{y + 15}">{_h(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def render_html(comparison: Comparison) -> str:
    """One self-contained page: the charts, the tables and the paired tests; no script."""
    pairs = []
    for pair in comparison.pairs:
        css = "significant" if pair.significant else "noise"
        pairs.append(f'<li><span class="{css}">{_h(pair.wording)}</span>; {_h(_difference(pair))}</li>')
    body = [
        "<h1>Toolscore compare</h1>", f"<p>{_h(_summary(comparison))}</p>",
        "<h2>Pass rate per arm (95 % Wilson interval)</h2>", _rate_chart(comparison),
        "<h2>Cost per pass</h2>", _cost_chart(comparison),
        "<h2>Paired test on tasks (exact sign test / McNemar)</h2>",
        f"<ul>{''.join(pairs)}</ul>" if pairs else "<p>Only one arm: nothing to test.</p>",
        "<h2>Per arm</h2>",
        _html_table(_ARM_HEAD, [_arm_cells(arm, t, lambda s: _h(_id(s))) for arm, t in comparison.arms.items()]),
        "<h2>Per task x arm</h2>", _html_table(_TASK_HEAD, _task_rows(comparison, lambda s: _h(_id(s)))),
    ]
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">'
            f"<title>Toolscore compare</title><style>{_CSS}</style></head><body>{''.join(body)}</body></html>\n")


RENDERERS: dict[str, Callable[[Comparison], str]] = {
    "console": render_console, "md": render_markdown, "json": render_json, "html": render_html,
}

__all__ = ["RENDERERS", "render_console", "render_html", "render_json", "render_markdown"]
