"""pytest fixtures for Toolscore and for plugin authors.

Enable them in your top-level ``conftest.py``::

    pytest_plugins = ["toolscore_core.testing"]

Every fixture builds a fresh, strict plugin manager, so tests never depend on what else
is installed in the environment and never leak plugins into each other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest

from toolscore_core.kernel.plugins import GROUPS, PluginManager, reset_plugin_manager


@pytest.fixture
def plugin_manager() -> PluginManager:
    """A strict manager with the built-in plugins only (no entry points)."""
    return PluginManager(autoload=False, strict=True)


@pytest.fixture
def installed_plugin_manager() -> PluginManager:
    """A strict manager that also loads the installed entry points (wiring tests)."""
    return PluginManager(autoload=True, strict=True)


@pytest.fixture
def register_plugin(plugin_manager: PluginManager) -> Callable[..., Any]:
    """Register an in-process plugin (a module, class instance or namespace) for one test.

    The kinds are inferred from the ``toolscore_register_<kind>`` hooks it defines::

        def test_my_metric(register_plugin, plugin_manager):
            register_plugin(MyPlugin())
    """

    counter = iter(range(1_000_000))

    def register(plugin: Any, *, name: str | None = None, kinds: Iterable[str] | None = None) -> Any:
        inferred = [k for k in GROUPS if hasattr(plugin, f"toolscore_register_{k}")]
        chosen = list(kinds) if kinds is not None else inferred
        plugin_manager.add_plugin(plugin, name=name or f"test-plugin-{next(counter)}", kinds=chosen)
        return plugin

    return register


@pytest.fixture
def invoke(plugin_manager: PluginManager) -> Callable[..., Any]:
    """Run the ``toolscore`` CLI in-process against ``plugin_manager``.

    Returns click's ``Result`` (``exit_code``, ``output``, ``stdout``, ``stderr``).
    """
    from click.testing import CliRunner

    from toolscore_core.cli import App, cli

    def _invoke(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> Any:
        runner = CliRunner()
        return runner.invoke(cli, list(args), obj=App(pm=plugin_manager), input=input, env=env,
                             catch_exceptions=False)

    return _invoke


@pytest.fixture
def fresh_default_plugin_manager() -> Iterator[None]:
    """Clear the process-wide manager and entry-point scan before and after a test."""
    reset_plugin_manager()
    yield
    reset_plugin_manager()
