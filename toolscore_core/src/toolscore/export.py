"""``toolscore.export.validate_record(record)``: run-record export, under the documented path.

Export is the toolscore-export distribution's; this module names its public functions
lazily. Without toolscore-export a name says ``pip install toolscore-export``; with a version
that does not have the name yet, the error names the name and the installed version.
"""

from __future__ import annotations

from typing import Any

from toolscore._lazy import missing_attribute, resolve

DISTRIBUTION = "toolscore-export"

# name -> module of toolscore-export that provides it
_NAMES: dict[str, str] = {
    "validate_record": "toolscore_export",
    "export_runs": "toolscore_export",
    "check_file": "toolscore_export",
    "record_schema": "toolscore_export",
    "canonical_bytes": "toolscore_export",
    "sha256_hex": "toolscore_export",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    module_name = _NAMES.get(name)
    if module_name is None:
        raise missing_attribute(__name__, name)
    value = resolve(f"{__name__}.{name}", module_name, DISTRIBUTION, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return list(__all__)
