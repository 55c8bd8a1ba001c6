"""Hook implementations of toolscore-export: the only module its entry points name.

Cheap to import (``toolscore --help`` imports it): the ``export`` command is lazy, and the
exporter classes are imported only when the exporters registry is built.
"""

from __future__ import annotations

from typing import Any

from toolscore_core import hookimpl, lazy_command


@hookimpl
def toolscore_register_commands() -> list[Any]:
    return [lazy_command("export", "toolscore_export.cli:export",
                         "Export runs as neutral, hashed run records; validate a records file.")]


@hookimpl
def toolscore_register_exporters() -> list[Any]:
    """The run-record formats, registered like a third party's would be.

    Stand-ins (:func:`~toolscore_core.kernel.registry.lazy_class`): the exporters module
    (orjson, the worker pool) is imported when a run record is written, not whenever another
    command lists the exporters to find its own report.
    """
    from toolscore_core.kernel.registry import lazy_class

    return [lazy_class(f"toolscore_export.exporters:{cls}", name=f"run-record-{fmt}", subject="run-record", format=fmt)
            for cls, fmt in (("RunRecordLines", "aef"), ("RunRecordOtel", "otel"))]
