"""Where ``toolscore eval`` writes what: the report, the verdict lines, the progress notes.

Why a module of its own: a report written to standard output (``--report md`` with no
``-o``) is often piped into a file or a PR comment, so nothing else may land inside it.
Verdict lines ("FAIL ...", "Saved baseline ...") then go to stderr; with the console
report, or a report written to a file, they stay on stdout beside the summary, where a
person reads them. ``--verbose`` notes and deprecation notes are always on stderr.
"""

from __future__ import annotations

import contextlib
import time
import warnings
from collections.abc import Iterator
from typing import Any

import click

from toolscore_core.kernel.errors import InputError


def resolve_html(report: str, output: str | None, html: str | None) -> tuple[str, str | None]:
    """``--html FILE`` is ``--report html -o FILE`` (tool-scorer 1.10.0's spelling)."""
    if html is None:
        return report, output
    if output is not None or report not in ("console", "html"):
        raise InputError("--html FILE already names the report and its file",
                         hint="Use either --html FILE or --report FORMAT -o FILE, not both")
    return "html", html


# What `-o FILE` writes when --report is not given: the format FILE's suffix names.
_SUFFIX_REPORTS = {".json": "json", ".md": "md", ".markdown": "md", ".html": "html", ".htm": "html",
                   ".xml": "junit"}


def report_for_output(report: str, output: str | None) -> str:
    """The report to write: ``--report`` when given, else the one ``-o FILE``'s suffix names.

    Why: tool-scorer 1.10.0's ``-o results.json`` wrote a JSON report, and a CI step that
    parses it must not get the console table instead. Only the default (console) report is
    replaced, and only for a suffix that names a format; ``--report`` always wins.
    """
    if output is None or report != "console":
        return report
    from pathlib import Path

    from click.core import ParameterSource

    ctx = click.get_current_context(silent=True)
    if ctx is not None and ctx.get_parameter_source("report") not in (ParameterSource.DEFAULT, None):
        return report
    return _SUFFIX_REPORTS.get(Path(output).suffix.lower(), report)


def report_on_stdout(report: str, output: str | None) -> bool:
    """True when a non-console report is written to stdout, so verdict lines must not be."""
    return output is None and report != "console"


class Lines:
    """Echo verdict and progress lines to the stream the run's report leaves free."""

    def __init__(self, *, verdict_to_stderr: bool, verbose: bool) -> None:
        self.verdict_to_stderr = verdict_to_stderr
        self.verbose = verbose
        self.started = time.perf_counter()

    def verdict(self, text: str) -> None:
        click.echo(text, err=self.verdict_to_stderr)

    def note(self, text: str) -> None:
        """A ``--verbose`` progress note (stderr, with the time since the start)."""
        if self.verbose:
            click.echo(f"toolscore: [{time.perf_counter() - self.started:6.2f}s] {text}", err=True)

    def describe(self, evaluation: Any) -> None:
        """What was read and how it was scored, for ``--verbose``."""
        if not self.verbose:
            return
        trace = evaluation.actual
        fmt = getattr(trace, "source_format", None) or "detected"
        self.note(f"read {len(evaluation.expected)} expected call(s) and {len(trace.calls)} actual call(s) "
                  f"(format {fmt}); order mode {evaluation.mode}")
        weights = ", ".join(f"{name}={value:.3g}" for name, value in sorted(evaluation.weights.items()))
        self.note(f"weights: {weights}")
        self.note(f"score {evaluation.score * 100:.1f}%, {len(evaluation.findings)} finding(s)")


@contextlib.contextmanager
def deprecation_notes() -> Iterator[None]:
    """Print each DeprecationWarning raised inside (an old weight name, ...) as one stderr line."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DeprecationWarning)
        yield
    seen: set[str] = set()
    for warning in caught:
        text = str(warning.message)
        if not issubclass(warning.category, DeprecationWarning):
            warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
        elif text not in seen:
            seen.add(text)
            click.echo(f"toolscore: note: {text}", err=True)


__all__ = ["Lines", "deprecation_notes", "report_on_stdout", "resolve_html"]
