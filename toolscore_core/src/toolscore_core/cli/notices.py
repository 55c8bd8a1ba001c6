"""Warnings a command prints about how its input was read, on stderr, once each.

Why on stderr and not in the report: they are about the file, not about the agent (a
report is a verdict on the run, and stays byte-identical whether or not a recorder was
killed mid-line). Adapters leave them in ``Trace.metadata`` (they must not print: they are
library code); commands print them here.
"""

from __future__ import annotations

from typing import Any

import click


def warn_about_reading(trace: Any) -> None:
    """Say that a cut-off last line of ``trace``'s file was skipped, when an adapter did so."""
    from toolscore_core.kernel.formats import TORN_TAIL_KEY

    metadata = getattr(trace, "metadata", None)
    note = metadata.get(TORN_TAIL_KEY) if isinstance(metadata, dict) else None
    if isinstance(note, str) and note:
        from toolscore_core.reports.text import visible

        click.echo(f"toolscore: warning: {visible(note, 500)}", err=True)


__all__ = ["warn_about_reading"]
