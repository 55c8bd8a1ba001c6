"""Shared by the adapter tests: the fixture builders and the sessions they are expected to read.

The provider tests and the framework tests each replay one scripted session through the real
SDKs; what the session holds is written down once here, so a test states only how its
format spells it (the call ids). ``conftest.py`` loads this file under the stable name
``toolscore_test_providers_support`` (the test tree is not a package).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures" / "providers"
FRAMEWORK_FIXTURES = HERE / "fixtures" / "frameworks"

# The refund session every framework test runs (make_fixtures_frameworks.PLAN): refund_order
# fails, the agent notifies the customer and ends with FRAMEWORK_FINAL.
REFUND_ERROR = "Refund window has closed"
FRAMEWORK_FINAL = "I could not refund order A-17 because the refund window has closed; I have notified you."
_REFUND_CALLS: list[tuple[str, dict[str, Any], bool, str | None]] = [
    ("lookup_customer", {"email": "ada@example.com"}, False, None),
    ("list_orders", {"customer_id": "C-1"}, False, None),
    ("refund_order", {"order_id": "A-17", "amount": 42.5}, True, REFUND_ERROR),
    ("notify", {"customer_id": "C-1", "message": "Your refund for A-17 could not be processed."}, False, None),
]


def fixture_script(filename: str) -> Any:
    """A fixture generator script next to the tests (``make_fixtures_*.py``) as a module,
    loaded once per session: the tests call its builders to get real SDK objects."""
    name = f"toolscore_test_{Path(filename).stem}"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / filename)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def builders() -> Any:
    """The ``make_fixtures_providers`` module (its ``build_*`` functions and constants)."""
    return fixture_script("make_fixtures_providers.py")


def framework_builders() -> Any:
    """The ``make_fixtures_frameworks`` module: its ``run_*`` functions make the live objects
    a user would pass to ``evaluate(actual=...)``. Importing it imports no framework."""
    return fixture_script("make_fixtures_frameworks.py")


def refund_session(ids: Sequence[str]) -> list[tuple[Any, ...]]:
    """(tool, args, id, is_error, error) of each call of the refund session, with the call
    ids as the framework under test assigns them."""
    return [(tool, args, call_id, failed, error)
            for (tool, args, failed, error), call_id in zip(_REFUND_CALLS, ids, strict=True)]


def refund_outcomes() -> list[tuple[Any, ...]]:
    """(tool, args, is_error, error) of the refund session, for formats that keep no call id."""
    return [(tool, args, failed, error) for tool, args, failed, error in _REFUND_CALLS]


def call_outcomes(trace: Any) -> list[tuple[Any, ...]]:
    """What ``refund_session`` lists, read from a loaded trace."""
    return [(c.tool, c.args, c.id, c.is_error, c.error) for c in trace.calls]


def expected_calls(id_prefix: str = "call_") -> list[tuple[str, str, dict[str, Any]]]:
    """(id, tool, args) of the whole session, ids spelled as the provider spells them."""
    b = builders()
    return [(cid.replace("call_", id_prefix), tool, args) for cid, tool, args, _, _ in b.ALL_CALLS]


def summary(trace: Any) -> list[tuple[Any, str, Any]]:
    return [(c.id, c.tool, c.args) for c in trace.calls]
