"""Per-invocation state of the CLI (``ctx.obj``): the plugin manager and its registries.

Tests pass their own ``App(pm=...)`` to ``CliRunner.invoke(obj=...)``, so a test-local
plugin is visible to the command without globals or module reloads.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolscore_core.kernel.plugins import PluginManager
    from toolscore_core.kernel.registry import Registry


class App:
    """Lazily creates the plugin manager and one registry per kind a command touches."""

    def __init__(self, pm: PluginManager | None = None) -> None:
        self._pm = pm
        self._registries: dict[str, Registry] = {}
        self.command_table: dict[str, Any] | None = None

    @property
    def pm(self) -> PluginManager:
        if self._pm is None:
            from toolscore_core.kernel.plugins import get_plugin_manager

            self._pm = get_plugin_manager()
        return self._pm

    def registry(self, kind: str) -> Registry:
        """The registry of ``kind``; broken plugins are reported once, on stderr."""
        if kind not in self._registries:
            from toolscore_core.kernel.registry import collect

            self._registries[kind] = collect(self.pm, kind)
            self.report_plugin_problems()
        return self._registries[kind]

    def report_plugin_problems(self) -> None:
        for failure in self.pm.unreported_failures():
            print(f"toolscore: warning: {failure.describe()}", file=sys.stderr)

    def get(self, kind: str, name: str) -> Any:
        return self.registry(kind).get(name)
