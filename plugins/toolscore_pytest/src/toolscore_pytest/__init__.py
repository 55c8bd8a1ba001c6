"""toolscore-pytest: snapshot testing for agents, as a pytest plugin and Toolscore commands."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# Resolved on first use: pytest imports this package in every run (its plugin lives here).
_LAZY = {
    "cases": "toolscore_pytest.cases",
    "Snapshot": "toolscore_pytest.store",
    "SnapshotStore": "toolscore_pytest.store",
    "find_root": "toolscore_pytest.store",
}

__all__ = ["__version__", *sorted(_LAZY)]

if TYPE_CHECKING:
    from toolscore_pytest.cases import cases as cases
    from toolscore_pytest.store import Snapshot as Snapshot
    from toolscore_pytest.store import SnapshotStore as SnapshotStore
    from toolscore_pytest.store import find_root as find_root


def __getattr__(name: str) -> Any:
    try:
        module = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'toolscore_pytest' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
