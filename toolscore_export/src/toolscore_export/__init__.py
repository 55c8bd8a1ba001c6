"""toolscore-export: neutral, hashed run records (``toolscore.run-record`` v1) and their checks.

Public names resolve on first use, so importing the package (the plugin loader does) costs
nothing: ``validate_record``, ``export_runs``, ``check_file``, ``record_schema``,
``canonical_bytes`` and ``sha256_hex``.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_LAZY: dict[str, str] = {
    "validate_record": "toolscore_export.validate",
    "record_schema": "toolscore_export.validate",
    "export_runs": "toolscore_export.export",
    "ExportResult": "toolscore_export.export",
    "check_file": "toolscore_export.check",
    "canonical_bytes": "toolscore_export.canonical",
    "sha256_hex": "toolscore_export.canonical",
    "build_record": "toolscore_export.record",
    "RECORD_SCHEMA": "toolscore_export.record",
    "RECORD_VERSION": "toolscore_export.record",
}

__all__ = ["__version__", *sorted(_LAZY)]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolscore_export' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return list(__all__)
