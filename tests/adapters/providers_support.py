"""Shared by the provider-adapter tests: the fixture builders and the expected session.

Test modules load this file by path (the test tree is not a package), via
``load_support()`` defined identically in each of them.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures" / "providers"


def builders() -> Any:
    """The ``make_fixtures_providers`` module (its ``build_*`` functions and constants)."""
    name = "toolscore_test_make_fixtures_providers"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / "make_fixtures_providers.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def expected_calls(id_prefix: str = "call_") -> list[tuple[str, str, dict[str, Any]]]:
    """(id, tool, args) of the whole session, ids spelled as the provider spells them."""
    b = builders()
    return [(cid.replace("call_", id_prefix), tool, args) for cid, tool, args, _, _ in b.ALL_CALLS]


def summary(trace: Any) -> list[tuple[Any, str, Any]]:
    return [(c.id, c.tool, c.args) for c in trace.calls]
