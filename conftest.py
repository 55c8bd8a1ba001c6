"""Root conftest: the Toolscore fixtures, and no plugin autoloading unless a test asks.

Tests get a fresh, strict plugin manager from ``toolscore_core.testing``; the process-wide
manager is cleared around every test so no state leaks between them.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest_plugins = ["toolscore_core.testing"]


@pytest.fixture(autouse=True)
def _isolated_plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from toolscore_core.kernel.plugins import reset_plugin_manager

    monkeypatch.setenv("TOOLSCORE_STRICT_PLUGINS", "1")
    monkeypatch.delenv("TOOLSCORE_DISABLE_PLUGINS", raising=False)
    monkeypatch.delenv("TOOLSCORE_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    reset_plugin_manager()
    yield
    reset_plugin_manager()
