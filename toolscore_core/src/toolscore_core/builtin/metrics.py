"""The built-in metrics (selection, arguments, sequence, redundancy, ...)."""

from __future__ import annotations

from toolscore_core.interfaces import Metric
from toolscore_core.plugins import hookimpl


@hookimpl
def toolscore_register_metrics() -> list[type[Metric]]:
    return []
