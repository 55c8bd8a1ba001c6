"""Old metric names still accepted as weight names, each with a deprecation note.

Why: tool-scorer 1.10.0 called the redundancy weight ``redundant_rate``; gold files and
``weights=`` dicts written for it should keep scoring the same metric while their authors
are told the current name. A note (``DeprecationWarning``) rather than an error, since
the meaning is unchanged; the CLI prints it on stderr.
"""

from __future__ import annotations

import warnings

#: old weight name -> the metric it means now
RENAMED: dict[str, str] = {"redundant_rate": "redundancy"}


def current_weight_name(name: str) -> str:
    """``name`` itself, or the metric an old name now means (with a DeprecationWarning)."""
    if name in RENAMED:
        new = RENAMED[name]
        warnings.warn(f"weight name {name!r} is deprecated: write {new!r} (same metric)",
                      DeprecationWarning, stacklevel=4)
        return new
    return name


__all__ = ["RENAMED", "current_weight_name"]
