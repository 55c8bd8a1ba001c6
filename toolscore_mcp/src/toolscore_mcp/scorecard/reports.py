"""Report formats for scorecards (registered as exporters of subject ``scorecard``).

- ``scorecard-console``: the panel, the Tools table, the token line and the top issues.
  Styled by rich on a terminal; the same layout without colour codes in a CI log.
- ``scorecard-md``: a Markdown report for a CI artifact, a job summary or a README.
- ``scorecard-html``: one self-contained file (inline CSS, no scripts, no network).
- ``scorecard-json``: the complete, versioned record (every scenario and finding).
"""

from __future__ import annotations

import html
import json
from typing import IO, Any, ClassVar

from toolscore_core.kernel.interfaces import Exporter
from toolscore_core.kernel.model import Finding
from toolscore_mcp.scorecard.model import Scorecard, ToolReport, percent, scorecard_to_json

CONSOLE_ISSUES = 5
GRADE_COLOURS = {"A": "green", "B": "green", "C": "yellow", "D": "red", "F": "red"}


def scenarios_cell(tool: ToolReport) -> str:
    if tool.run == 0 and tool.skipped:
        return "skipped"
    return f"{tool.passed}/{tool.run}"


def latency_cell(tool: ToolReport) -> str:
    if tool.avg_latency_ms is None:
        return "-"
    if tool.avg_latency_ms >= 1000:
        return f"{tool.avg_latency_ms / 1000:.2f} s"
    return f"{tool.avg_latency_ms:.1f} ms"


def token_line(card: Scorecard) -> str:
    line = (f"Tool definitions cost ~{card.definition_tokens} estimated tokens of context "
            f"across {len(card.tools)} tool(s).")
    if card.instructions_tokens:
        line += f" The server's instructions add ~{card.instructions_tokens}."
    return line


def lint_counts(card: Scorecard) -> str:
    return f"{card.lint_errors} errors, {card.lint_warnings} warnings"


def issue_tool(finding: Finding) -> str:
    return finding.tool or "(server)"


def shown(text: Any, limit: int = 300) -> str:
    """Outside text (a server or tool name, a message) as the console prints it: redacted,
    control characters visible, one line, bounded."""
    from toolscore_core.reports.text import visible

    return visible("" if text is None else str(text), limit)


def notes(card: Scorecard) -> list[str]:
    """Things a reader must know to trust the grade: caps, skipped tools, an incomplete run."""
    out: list[str] = []
    if card.grade_cap:
        out.append(f"Grade capped at {card.grade}: {card.grade_cap}.")
    for tool in card.tools:
        if tool.skipped:
            out.append(f"{tool.name}: {tool.skipped}.")
    if not card.complete:
        out.append("The run did not finish: the grade covers only the scenarios that ran.")
    return out


class _ScorecardExporter(Exporter):
    subject: ClassVar[str] = "scorecard"


class ScorecardConsole(_ScorecardExporter):
    name: ClassVar[str] = "scorecard-console"
    format: ClassVar[str] = "console"
    description: ClassVar[str] = "The scorecard for a terminal or a CI log"
    extension: ClassVar[str] = ".txt"

    def export(self, subject: Scorecard, stream: IO[str], **options: Any) -> None:
        from rich import box
        from rich.console import Console
        from rich.panel import Panel
        from rich.table import Table
        from rich.text import Text

        tty = bool(getattr(stream, "isatty", lambda: False)())
        # markup off: a tool named "[bold red]x" is printed as it is written, never styled.
        console = Console(file=stream, force_terminal=tty, no_color=not tty, highlight=False,
                          width=options.get("width") or (None if tty else 100), soft_wrap=False,
                          markup=False, emoji=False)
        card = subject
        colour = GRADE_COLOURS.get(card.grade, "white")
        head = Text()
        head.append(f"MCP Scorecard: {shown(card.title, 200)}\n", style="bold")
        head.append("Grade ")
        head.append(card.grade, style=f"bold {colour}")
        head.append(f"   Score {percent(card.score)}\n")
        head.append(f"happy {percent(card.happy)}  |  edge {percent(card.edge)}  |  lint {percent(card.lint)}")
        console.print(Panel(head, expand=False, box=box.ROUNDED))
        table = Table(title="Tools", box=box.HEAVY_HEAD)
        table.add_column("Tool")
        for column in ("Scenarios", "Avg latency", "Def. tokens"):
            table.add_column(column, justify="right")
        for tool in card.tools:
            table.add_row(Text(shown(tool.name, 120)), scenarios_cell(tool), latency_cell(tool),
                          str(tool.definition_tokens))
        console.print(table)
        console.print(token_line(card), soft_wrap=True)
        for note in notes(card):
            console.print(Text(shown(note, 1000), style="yellow"), soft_wrap=True)
        issues = list(card.top_issues[:CONSOLE_ISSUES])
        console.print()
        if not issues:
            console.print("No issues to fix.", style="green")
            return
        console.print("Top issues to fix", style="bold")
        width = max(len(shown(issue_tool(f), 120)) for f in issues)
        for number, finding in enumerate(issues, 1):
            line = Text(f"  {number}. ")
            line.append(shown(issue_tool(finding), 120).ljust(width), style="bold")
            line.append(f"  {shown(finding.message, 1000)}")
            console.print(line, soft_wrap=True)
            if finding.fix:
                console.print(Text(f"     -> {shown(finding.fix, 1000)}", style="dim"), soft_wrap=True)
        more = len(card.findings) - len(issues) - sum(f.severity == "info" for f in card.findings)
        if more > 0:
            console.print(f"  ... and {more} more (see --report md or --report json)", soft_wrap=True)


def _md_cell(text: str, *, table: bool = False) -> str:
    """Outside text as Markdown prose: redacted, then the kernel's escaping (one function)."""
    from toolscore_core.reports.markdown import md_escape
    from toolscore_core.reports.text import redact

    return md_escape(redact(text), table=table)


def _md_code(text: str, *, table: bool = False) -> str:
    from toolscore_core.reports.markdown import md_code
    from toolscore_core.reports.text import redact

    return md_code(redact(text), table=table) or "-"


def render_markdown(card: Scorecard, *, heading: str = "#") -> str:
    # Every heading is our own text: the server's name is outside text and goes on the
    # line below, escaped, so a server cannot write a heading (or a verdict) of its own.
    lines = [
        f"{heading} MCP Scorecard",
        "",
        f"Server: {_md_code(card.title)}",
        "",
        f"**Grade: {card.grade}** &middot; Score {percent(card.score)}",
        "",
        f"- Happy-path pass rate: {percent(card.happy)}",
        f"- Edge-case resilience: {percent(card.edge)}",
        f"- Lint score: {percent(card.lint)} ({lint_counts(card)})",
        f"- Tool-definition tokens (estimated): ~{card.definition_tokens} across {len(card.tools)} tool(s)",
    ]
    if card.instructions_tokens:
        lines.append(f"- Server instructions (estimated): ~{card.instructions_tokens} tokens")
    lines += [f"- {_md_cell(note)}" for note in notes(card)]
    lines += ["", f"{heading}# Tools", "", "| Tool | Scenarios | Avg latency | Def. tokens |", "| --- | --- | --- | --- |"]
    for tool in card.tools:
        lines.append(f"| {_md_code(tool.name, table=True)} | {scenarios_cell(tool)} | {latency_cell(tool)} "
                     f"| {tool.definition_tokens} |")
    lines += ["", f"{heading}# Top issues to fix", ""]
    if not card.top_issues:
        lines.append("No issues to fix.")
    for finding in card.top_issues:
        fix = f" _Fix:_ {_md_cell(finding.fix)}" if finding.fix else ""
        message = _md_cell(finding.message)
        stop = "" if message.endswith((".", "!", "?")) else "."
        lines.append(f"- **{_md_code(issue_tool(finding))}** — {message}{stop}{fix}")
    return "\n".join(lines) + "\n"


class ScorecardMarkdown(_ScorecardExporter):
    name: ClassVar[str] = "scorecard-md"
    format: ClassVar[str] = "md"
    description: ClassVar[str] = "Markdown report (CI artifact, job summary, README)"
    extension: ClassVar[str] = ".md"

    def export(self, subject: Scorecard, stream: IO[str], **options: Any) -> None:
        stream.write(render_markdown(subject, heading=options.get("heading", "#")))


_CSS = """
body{font:15px/1.5 system-ui,-apple-system,Segoe UI,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d2330}
.card{border:1px solid #c9ced8;border-radius:10px;padding:1rem 1.25rem;display:inline-block}
.grade{font-size:2.2rem;font-weight:700;padding:0 .4rem;border-radius:6px;color:#fff}
.g-A,.g-B{background:#1f8a4c}.g-C{background:#b7791f}.g-D,.g-F{background:#c53030}
table{border-collapse:collapse;margin:1rem 0}th,td{border-bottom:1px solid #dde1e8;padding:.35rem .8rem;text-align:right;vertical-align:top}
details td{text-align:left}
th:first-child,td:first-child{text-align:left}code{background:#f1f3f7;padding:0 .25rem;border-radius:4px}
li{margin:.4rem 0}.fix{color:#4a5263}.sev{font-size:.8rem;text-transform:uppercase;font-weight:600;margin-right:.4rem}
.sev-error{color:#c53030}.sev-warning{color:#b7791f}.sev-info{color:#4a5263}.note{color:#8a5a00}
"""


def render_html(card: Scorecard) -> str:
    e = html.escape
    rows = "".join(
        f"<tr><td><code>{e(t.name)}</code></td><td>{e(scenarios_cell(t))}</td><td>{e(latency_cell(t))}</td>"
        f"<td>{t.definition_tokens}</td></tr>" for t in card.tools)
    issues = "".join(
        f"<li><span class='sev sev-{e(f.severity)}'>{e(f.severity)}</span><code>{e(issue_tool(f))}</code> "
        f"{e(f.message)}" + (f"<div class='fix'>Fix: {e(f.fix)}</div>" if f.fix else "") + "</li>"
        for f in card.top_issues) or "<li>No issues to fix.</li>"
    extra = "".join(f"<p class='note'>{e(n)}</p>" for n in notes(card))
    failed = [r for r in card.results if not r.passed]
    failed_rows = "".join(
        f"<tr><td><code>{e(r.scenario.tool)}</code></td><td>{e(r.scenario.category)}: {e(r.scenario.kind)}</td>"
        f"<td><code>{e(_args_preview(r.scenario.args))}</code></td><td>{e(r.reason)}</td></tr>" for r in failed)
    failed_block = (
        f"<details><summary>Failed calls ({len(failed)} of {len(card.results)})</summary><table><thead><tr>"
        f"<th>Tool</th><th>Scenario</th><th>Arguments</th><th>What happened</th></tr></thead>"
        f"<tbody>{failed_rows}</tbody></table></details>" if failed else "")
    instructions = (f"<li>Server instructions (estimated): ~{card.instructions_tokens} tokens</li>"
                    if card.instructions_tokens else "")
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>MCP Scorecard: {e(card.title)}</title><style>{_CSS}</style></head><body>"
        f"<div class='card'><h1>MCP Scorecard: {e(card.title)}</h1>"
        f"<p><span class='grade g-{e(card.grade)}'>{e(card.grade)}</span> Score {percent(card.score)}</p>"
        f"<ul><li>Happy-path pass rate: {percent(card.happy)}</li><li>Edge-case resilience: {percent(card.edge)}</li>"
        f"<li>Lint score: {percent(card.lint)} ({e(lint_counts(card))})</li>"
        f"<li>Tool-definition tokens (estimated): ~{card.definition_tokens} across {len(card.tools)} tool(s)</li>"
        f"{instructions}</ul></div>{extra}"
        "<h2>Tools</h2><table><thead><tr><th>Tool</th><th>Scenarios</th><th>Avg latency</th><th>Def. tokens</th>"
        f"</tr></thead><tbody>{rows}</tbody></table>"
        f"<h2>Top issues to fix</h2><ol>{issues}</ol>{failed_block}"
        "</body></html>\n"
    )


def _args_preview(args: dict[str, Any], limit: int = 120) -> str:
    """Scenario arguments as shown in a report: redacted (a schema's ``const`` can be a key), then cut."""
    from toolscore_core.scoring.secrets import redact

    text = json.dumps(redact(args), ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ScorecardHtml(_ScorecardExporter):
    name: ClassVar[str] = "scorecard-html"
    format: ClassVar[str] = "html"
    description: ClassVar[str] = "Self-contained HTML report"
    extension: ClassVar[str] = ".html"

    def export(self, subject: Scorecard, stream: IO[str], **options: Any) -> None:
        stream.write(render_html(subject))


class ScorecardJson(_ScorecardExporter):
    name: ClassVar[str] = "scorecard-json"
    format: ClassVar[str] = "json"
    description: ClassVar[str] = "Complete, versioned JSON record"
    extension: ClassVar[str] = ".json"

    def export(self, subject: Scorecard, stream: IO[str], **options: Any) -> None:
        from toolscore_core.reports.text import json_visible

        stream.write(json_visible(json.dumps(scorecard_to_json(subject), indent=2, ensure_ascii=False, default=str)))
        stream.write("\n")


EXPORTERS: list[Any] = [ScorecardConsole, ScorecardMarkdown, ScorecardHtml, ScorecardJson]
