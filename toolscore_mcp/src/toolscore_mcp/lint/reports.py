"""Report formats for lint results, registered as exporters of subject ``lint``.

``lint-console`` (a table for people: rich styling on a terminal, the same table without
colour codes in a CI log), ``lint-md`` (for a PR comment or an artifact), ``lint-json``
(:meth:`LintResult.to_dict`) and ``lint-sarif`` (SARIF 2.1.0 for GitHub code scanning).
Each exporter receives a :class:`~toolscore_mcp.lint.runner.LintResult`.

This module is imported when exporters are collected, so it imports only the standard
library and the kernel at the top; rich is imported when a console report is written.
"""

from __future__ import annotations

import json
from typing import IO, Any, ClassVar

from toolscore_core.kernel.interfaces import Exporter

SERVER_LEVEL = "(server)"  # the tool column for findings about the server as a whole


def _shown(text: Any, limit: int = 300) -> str:
    """Outside text (a name, a message quoting a description) as the console prints it:
    redacted, control characters visible, one line, bounded."""
    from toolscore_core.reports.text import visible

    return visible("" if text is None else str(text), limit)


def _summary(result: Any) -> str:
    counts = result.counts
    server = result.server
    label = _shown(" ".join(p for p in (server.name or "server", server.version) if p), 200)
    plural = "tool" if len(server.tools) == 1 else "tools"
    text = (
        f"{label}: {len(server.tools)} {plural}, lint score {result.score:.0%} "
        f"({counts['error']} errors, {counts['warning']} warnings, {counts['info']} info)"
    )
    if result.known:
        text += f"; {len(result.known)} known finding(s) accepted by the baseline"
    return text


def _fixes(findings: Any) -> list[tuple[str, str]]:
    """One fix per rule (the first finding's), so a report does not repeat itself."""
    seen: dict[str, str] = {}
    for finding in findings:
        if finding.fix and finding.code not in seen:
            seen[finding.code] = finding.fix
    return list(seen.items())


class LintConsole(Exporter):
    name: ClassVar[str] = "lint-console"
    subject: ClassVar[str] = "lint"
    format: ClassVar[str] = "console"
    description: ClassVar[str] = "a table of findings for the terminal or a CI log"
    extension: ClassVar[str] = ".txt"

    def export(self, subject: Any, stream: IO[str], **options: Any) -> None:
        from rich import box
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        result = subject
        tty = bool(getattr(stream, "isatty", lambda: False)())
        color = options.get("color")
        styled = tty if color is None else bool(color)
        from rich.cells import cell_len

        rows = [(f.severity, _shown(f.tool, 120) if f.tool else SERVER_LEVEL, _shown(f.message, 2000), _shown(f.code, 80))
                for f in result.findings]
        # Off a terminal, size the table to its content so each finding stays on one line
        # (greppable in a CI log) instead of wrapping at 80 columns.
        headers = ("Severity", "Tool", "Finding", "Rule")
        natural = sum(max([cell_len(h), *(cell_len(r[i]) for r in rows)]) for i, h in enumerate(headers)) + 13
        width = None if tty else max(80, min(natural, 400))
        # markup off: a tool named "[bold red]x" is printed as it is written, never styled.
        console = Console(file=stream, force_terminal=styled, no_color=not styled, width=width,
                          highlight=False, soft_wrap=False, emoji=False, markup=False)
        for failure in result.rule_failures:
            console.print(f"warning: {_shown(failure, 1000)}", markup=False)
        if rows:
            table = Table(box=box.SQUARE, show_lines=False, header_style="bold" if styled else "")
            table.add_column("Severity", no_wrap=True)
            table.add_column("Tool", no_wrap=True)
            table.add_column("Finding", overflow="fold")
            table.add_column("Rule", no_wrap=True, style="dim" if styled else "")
            colours = {"error": "bold red", "warning": "yellow", "info": "cyan"}
            for severity, tool, message, code in rows:
                table.add_row(Text(severity, style=colours.get(severity, "") if styled else ""),
                              Text(tool), Text(message), Text(code))
            console.print(table, markup=False)
        else:
            console.print("No findings." if not result.known else "No new findings.", markup=False)
        console.print(_summary(result), markup=False, soft_wrap=not tty)
        fixes = _fixes(result.findings)
        if fixes and not options.get("quiet"):
            console.print("How to fix:", markup=False)
            for code, fix in fixes:
                console.print(f"  {_shown(code, 80)}: {_shown(fix, 1000)}", markup=False, soft_wrap=not tty)


def _md_cell(text: str | None) -> str:
    """Outside text in a table cell or a line: redacted, then the kernel's Markdown escaping."""
    from toolscore_core.reports.markdown import md_escape
    from toolscore_core.reports.text import redact

    return md_escape(redact(text or ""), table=True)


def _md_code(text: str) -> str:
    from toolscore_core.reports.markdown import md_code
    from toolscore_core.reports.text import redact

    return md_code(redact(text), table=True)


class LintMarkdown(Exporter):
    name: ClassVar[str] = "lint-md"
    subject: ClassVar[str] = "lint"
    format: ClassVar[str] = "md"
    description: ClassVar[str] = "Markdown report (PR comments, CI artifacts)"
    extension: ClassVar[str] = ".md"

    def export(self, subject: Any, stream: IO[str], **options: Any) -> None:
        result = subject
        server = result.server
        title = " ".join(p for p in (server.name or "server", server.version) if p)
        # The heading is our own text; the server's name (outside text) goes on the next line.
        lines = ["# MCP lint", "", f"Server: {_md_code(title)}", "", f"**Lint score: {result.score:.0%}** "
                 f"({result.counts['error']} errors, {result.counts['warning']} warnings, "
                 f"{result.counts['info']} info) across {len(server.tools)} tool(s)", ""]
        if result.known:
            lines += [f"{len(result.known)} known finding(s) accepted by the baseline are not listed.", ""]
        if result.findings:
            lines += ["| Severity | Tool | Finding | Rule | Fix |", "| --- | --- | --- | --- | --- |"]
            for f in result.findings:
                tool = _md_code(f.tool) if f.tool else SERVER_LEVEL
                lines.append(f"| {f.severity} | {tool} | {_md_cell(f.message)} | {_md_code(f.code)} | {_md_cell(f.fix)} |")
        else:
            lines.append("No findings.")
        for failure in result.rule_failures:
            lines += ["", f"> warning: {_md_cell(failure)}"]
        stream.write("\n".join(lines) + "\n")


class LintJSON(Exporter):
    name: ClassVar[str] = "lint-json"
    subject: ClassVar[str] = "lint"
    format: ClassVar[str] = "json"
    description: ClassVar[str] = "machine-readable findings, score and rules"
    extension: ClassVar[str] = ".json"

    def export(self, subject: Any, stream: IO[str], **options: Any) -> None:
        from toolscore_core.reports.text import json_visible

        stream.write(json_visible(json.dumps(subject.to_dict(), indent=2, ensure_ascii=False)))
        stream.write("\n")


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


class LintSARIF(Exporter):
    """SARIF 2.1.0 as GitHub code scanning reads it.

    GitHub needs a file for every result (``physicalLocation.artifactLocation.uri``,
    relative to the repository). An MCP server is not a file, so results point at the
    ``artifact`` option: the saved tools/list file, the config file, or a path the user
    names with ``--sarif-artifact``. The tool itself is the result's logical location,
    and ``partialFingerprints`` carries the baseline fingerprint so alerts stay stable.
    """

    name: ClassVar[str] = "lint-sarif"
    subject: ClassVar[str] = "lint"
    format: ClassVar[str] = "sarif"
    description: ClassVar[str] = "SARIF 2.1.0 for GitHub code scanning"
    extension: ClassVar[str] = ".sarif"

    def export(self, subject: Any, stream: IO[str], **options: Any) -> None:
        from toolscore_core.reports.text import json_visible

        document = sarif_document(subject, artifact=options.get("artifact"))
        stream.write(json_visible(json.dumps(document, indent=2, ensure_ascii=False)))
        stream.write("\n")


def sarif_document(result: Any, *, artifact: str | None = None) -> dict[str, Any]:
    """The SARIF log for ``result`` (a dict ready for ``json.dump``)."""
    from toolscore_core import __version__
    from toolscore_mcp.lint.baseline import fingerprint

    server = result.server
    server_name = server.name or "mcp-server"
    uri = artifact or f"{_safe_path(server_name)}.mcp-server"
    rule_ids = sorted({r.name for r in result.rules} | {f.code for f in result.findings})
    by_id = {r.name: r for r in result.rules}
    rules = []
    for rule_id in rule_ids:
        info = by_id.get(rule_id)
        text = (info.description if info and info.description else rule_id)
        example = next((f.fix for f in result.findings if f.code == rule_id and f.fix), None)
        descriptor: dict[str, Any] = {
            "id": rule_id,
            "name": "".join(part.capitalize() for part in rule_id.split("-")),
            "shortDescription": {"text": text},
            "fullDescription": {"text": text},
            "defaultConfiguration": {"level": _SARIF_LEVEL.get(info.severity if info else "warning", "warning")},
            "help": {"text": example or text},
            "properties": {"tags": ["mcp", rule_id.split("-")[0]]},
        }
        rules.append(descriptor)
    index = {rule_id: i for i, rule_id in enumerate(rule_ids)}
    results = []
    for finding in result.findings:
        logical = {"name": finding.tool or server_name,
                   "fullyQualifiedName": f"{server_name}/{finding.tool}" if finding.tool else server_name,
                   "kind": "function" if finding.tool else "module"}
        message = f"{finding.tool}: {finding.message}" if finding.tool else finding.message
        if finding.fix:
            message += f" Fix: {finding.fix}"
        results.append({
            "ruleId": finding.code,
            "ruleIndex": index[finding.code],
            "level": _SARIF_LEVEL.get(finding.severity, "warning"),
            "message": {"text": message},
            "locations": [{
                "physicalLocation": {"artifactLocation": {"uri": uri}, "region": {"startLine": 1}},
                "logicalLocations": [logical],
            }],
            "partialFingerprints": {"toolscoreLint/v1": fingerprint(finding)},
        })
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "toolscore",
                "semanticVersion": __version__,
                "version": __version__,
                "rules": rules,
            }},
            "automationDetails": {"id": f"toolscore-mcp-lint/{server_name}/"},
            "results": results,
            "properties": {"lintScore": round(result.score, 4), "server": server_name,
                           "serverVersion": server.version},
        }],
    }


def _safe_path(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in name).strip("-.") or "mcp-server"


EXPORTERS: list[Any] = [LintConsole, LintMarkdown, LintJSON, LintSARIF]
