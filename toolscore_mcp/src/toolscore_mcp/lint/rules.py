"""The built-in lint rules."""

from __future__ import annotations

from typing import Any


def builtin_rules() -> list[Any]:
    """Every built-in rule class, registered through ``toolscore_register_lint_rules``."""
    return []
