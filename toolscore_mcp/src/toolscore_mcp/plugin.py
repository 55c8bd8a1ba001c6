"""Hook implementations of toolscore-mcp: lint rules, report formats and the `mcp` commands.

The only module named by this distribution's entry points. It must stay cheap to import:
``toolscore --help`` imports it, so the hook bodies import their implementation modules,
and the commands are lazy (clients and httpx load only when a command runs).
"""

from __future__ import annotations

from typing import Any

from toolscore_core import hookimpl, lazy_command


@hookimpl
def toolscore_register_lint_rules() -> list[Any]:
    from toolscore_mcp.lint.rules import builtin_rules

    return builtin_rules()


#: The report formats: (subject, format, class). The report modules are imported when one
#: of their formats is used, not whenever the exporters are listed (``toolscore eval``
#: lists them to find its own report; the scorecard's attrs model alone cost ~6 ms).
EXPORTERS = (
    ("lint", "console", "toolscore_mcp.lint.reports:LintConsole"),
    ("lint", "md", "toolscore_mcp.lint.reports:LintMarkdown"),
    ("lint", "json", "toolscore_mcp.lint.reports:LintJSON"),
    ("lint", "sarif", "toolscore_mcp.lint.reports:LintSARIF"),
    ("scorecard", "console", "toolscore_mcp.scorecard.reports:ScorecardConsole"),
    ("scorecard", "md", "toolscore_mcp.scorecard.reports:ScorecardMarkdown"),
    ("scorecard", "html", "toolscore_mcp.scorecard.reports:ScorecardHtml"),
    ("scorecard", "json", "toolscore_mcp.scorecard.reports:ScorecardJson"),
)


@hookimpl
def toolscore_register_exporters() -> list[Any]:
    from toolscore_core.kernel.registry import lazy_class

    return [lazy_class(target, name=f"{subject}-{fmt}", subject=subject, format=fmt)
            for subject, fmt, target in EXPORTERS]


@hookimpl
def toolscore_register_commands() -> list[Any]:
    return [
        lazy_command("mcp", "toolscore_mcp.cli:mcp", "Grade, lint, list and record MCP servers."),
        lazy_command("demo", "toolscore_mcp.commands.demo_cmd:demo",
                     "Grade the bundled sample MCP server, offline, in seconds."),
    ]
