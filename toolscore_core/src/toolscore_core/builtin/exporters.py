"""The built-in report formats for evaluations (console, md, html, json, junit)."""

from __future__ import annotations

from toolscore_core.interfaces import Exporter
from toolscore_core.plugins import hookimpl


@hookimpl
def toolscore_register_exporters() -> list[type[Exporter]]:
    return []
