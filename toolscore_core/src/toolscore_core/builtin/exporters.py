"""The built-in report formats for evaluations (console, md, html, json, junit).

Each is an :class:`~toolscore_core.kernel.interfaces.Exporter` named ``evaluation-<format>``,
registered through the same hook as a third-party format, so ``--report NAME`` finds a
plugin's format exactly as it finds these. The renderers live in
:mod:`toolscore_core.reports` and are imported only when a report is written, which keeps
this module (loaded whenever exporters are listed) free of rich.
"""

from __future__ import annotations

from typing import IO, Any, ClassVar

from toolscore_core.kernel.interfaces import Exporter, exporter_name
from toolscore_core.kernel.plugins import hookimpl

SUBJECT = "evaluation"


class EvaluationConsoleExporter(Exporter):
    """Metric table, grade, required calls, top issues, behaviour and safety (rich)."""

    name: ClassVar[str] = exporter_name(SUBJECT, "console")
    subject: ClassVar[str] = SUBJECT
    format: ClassVar[str] = "console"
    description: ClassVar[str] = "terminal report (colour on a TTY, plain text otherwise)"
    extension: ClassVar[str] = ".txt"

    def export(self, subject: Any, stream: IO[str], **options: Any) -> None:
        from toolscore_core.reports.console import render_console

        render_console(subject, stream, color=options.get("color"), width=options.get("width"))


class EvaluationMarkdownExporter(Exporter):
    name: ClassVar[str] = exporter_name(SUBJECT, "md")
    subject: ClassVar[str] = SUBJECT
    format: ClassVar[str] = "md"
    description: ClassVar[str] = "Markdown report (PR comments, CI job summaries)"
    extension: ClassVar[str] = ".md"

    def export(self, subject: Any, stream: IO[str], **options: Any) -> None:
        from toolscore_core.reports.markdown import render_markdown

        render_markdown(subject, stream)


class EvaluationHtmlExporter(Exporter):
    name: ClassVar[str] = exporter_name(SUBJECT, "html")
    subject: ClassVar[str] = SUBJECT
    format: ClassVar[str] = "html"
    description: ClassVar[str] = "one self-contained HTML file (inline CSS, no external URLs)"
    extension: ClassVar[str] = ".html"

    def export(self, subject: Any, stream: IO[str], **options: Any) -> None:
        from toolscore_core.reports.html import render_html

        render_html(subject, stream)


class EvaluationJsonExporter(Exporter):
    name: ClassVar[str] = exporter_name(SUBJECT, "json")
    subject: ClassVar[str] = SUBJECT
    format: ClassVar[str] = "json"
    description: ClassVar[str] = "Evaluation.to_dict(): versioned, JSON-safe, credentials redacted"
    extension: ClassVar[str] = ".json"

    def export(self, subject: Any, stream: IO[str], **options: Any) -> None:
        import json

        from toolscore_core.reports.text import json_visible

        # json_visible: the same data, but C1, DEL and bidi characters as \u escapes, so the
        # report printed to a terminal (the default with no -o) cannot drive it.
        stream.write(json_visible(json.dumps(subject.to_dict(), indent=2, ensure_ascii=False)))
        stream.write("\n")


class EvaluationJunitExporter(Exporter):
    name: ClassVar[str] = exporter_name(SUBJECT, "junit")
    subject: ClassVar[str] = SUBJECT
    format: ClassVar[str] = "junit"
    description: ClassVar[str] = "JUnit XML: a test case per expected call, forbidden rule and finding"
    extension: ClassVar[str] = ".xml"

    def export(self, subject: Any, stream: IO[str], **options: Any) -> None:
        from toolscore_core.reports.junit import render_junit

        render_junit(subject, stream, **options)


EVALUATION_EXPORTERS: tuple[type[Exporter], ...] = (
    EvaluationConsoleExporter,
    EvaluationMarkdownExporter,
    EvaluationHtmlExporter,
    EvaluationJsonExporter,
    EvaluationJunitExporter,
)


@hookimpl
def toolscore_register_exporters() -> list[type[Exporter]]:
    return list(EVALUATION_EXPORTERS)
