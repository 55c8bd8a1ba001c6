"""Adapter tests: the shared helpers under a stable module name, and the shared fixtures.

Test folders are not packages (pytest runs with --import-mode=importlib), so
``providers_support.py`` cannot be imported by a relative name; loading it here, before
any test module, lets every test file write ``import toolscore_test_providers_support``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

_NAME = "toolscore_test_providers_support"

if _NAME not in sys.modules:
    _spec = importlib.util.spec_from_file_location(_NAME, Path(__file__).with_name("providers_support.py"))
    assert _spec is not None and _spec.loader is not None
    sys.modules[_NAME] = _module = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_module)


@pytest.fixture
def adapter_pm(plugin_manager: Any) -> Any:
    """A fresh, strict plugin manager with toolscore-adapters' adapters registered (and
    nothing else), for tests that go through detection and the registry as the CLI does."""
    from toolscore_adapters import plugin

    plugin_manager.add_plugin(plugin, name="toolscore-adapters", kinds=["adapters"])
    return plugin_manager
