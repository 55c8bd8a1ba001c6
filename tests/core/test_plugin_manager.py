"""The plugin manager: on-demand groups, isolation of broken plugins, the env switches."""

from __future__ import annotations

import types

import pluggy
import pytest

from toolscore_core import hookimpl
from toolscore_core.kernel._entrypoints import EntryPoint
from toolscore_core.kernel.errors import PluginError
from toolscore_core.kernel.plugins import GROUPS, PluginManager
from toolscore_core.kernel.registry import collect


def fake_ep(group: str, value: str, dist: str = "toolscore-fake", name: str | None = None) -> EntryPoint:
    return EntryPoint(name or dist, value, f"toolscore.{group}", dist, "9.9")


def make_module(name: str, **attrs: object) -> types.ModuleType:
    module = types.ModuleType(name)
    for key, value in attrs.items():
        setattr(module, key, value)
    return module


class _Metric:
    name = "fake_metric"
    default_weight = 0.0


@pytest.fixture
def fake_entry_points(monkeypatch: pytest.MonkeyPatch):
    """Replace the installed entry points with the ones a test lists."""
    import toolscore_core.kernel.plugins as plugins_mod

    eps: list[EntryPoint] = []
    monkeypatch.setattr(plugins_mod, "all_entry_points", lambda: tuple(eps))
    return eps


def test_groups_load_on_demand_one_at_a_time(fake_entry_points, monkeypatch):
    imported: list[str] = []

    @hookimpl
    def toolscore_register_metrics():
        return [_Metric]

    module = make_module("fake_metrics_plugin", toolscore_register_metrics=toolscore_register_metrics)
    monkeypatch.setitem(__import__("sys").modules, "fake_metrics_plugin", module)
    original_load = EntryPoint.load

    def spy(self):
        imported.append(self.value)
        return original_load(self)

    monkeypatch.setattr(EntryPoint, "load", spy)
    fake_entry_points.append(fake_ep("metrics", "fake_metrics_plugin"))
    fake_entry_points.append(fake_ep("lint_rules", "never_imported_module", dist="other"))
    pm = PluginManager(autoload=True, strict=True)
    assert imported == []  # creating the manager loads nothing
    registry = collect(pm, "metrics")
    assert "fake_metric" in registry
    assert imported == ["fake_metrics_plugin"]  # the lint_rules group was never touched
    assert registry.entry("fake_metric").distribution == "toolscore-fake"


def test_broken_plugin_is_isolated_and_reported_once(fake_entry_points):
    fake_entry_points.append(fake_ep("adapters", "toolscore_no_such_module_xyz", dist="toolscore-broken"))
    pm = PluginManager(autoload=True, strict=False)
    registry = collect(pm, "adapters")
    assert "custom" in registry  # the built-in adapter still works
    [failure] = pm.unreported_failures()
    text = failure.describe()
    assert "toolscore-broken 9.9" in text
    assert "ModuleNotFoundError" in text
    assert "TOOLSCORE_DISABLE_PLUGINS=toolscore-broken" in text
    assert pm.unreported_failures() == []  # reported once


def test_strict_mode_raises_naming_the_distribution(fake_entry_points):
    fake_entry_points.append(fake_ep("adapters", "toolscore_no_such_module_xyz", dist="toolscore-broken"))
    pm = PluginManager(autoload=True, strict=True)
    with pytest.raises(PluginError, match="toolscore-broken"):
        collect(pm, "adapters")


def test_disabled_plugin_is_never_imported(fake_entry_points):
    fake_entry_points.append(fake_ep("adapters", "toolscore_no_such_module_xyz", dist="toolscore-broken"))
    pm = PluginManager(autoload=True, strict=True, disabled=["toolscore-broken"])
    collect(pm, "adapters")  # would raise in strict mode if it were imported
    assert pm.failures == {}


def test_from_environment_reads_the_three_switches(monkeypatch):
    pm = PluginManager.from_environment({"TOOLSCORE_DISABLE_PLUGINS": "a, b", "TOOLSCORE_STRICT_PLUGINS": "1",
                                         "TOOLSCORE_DISABLE_PLUGIN_AUTOLOAD": "true"})
    assert pm.disabled == {"a", "b"} and pm.strict and not pm.autoload
    pm = PluginManager.from_environment({"TOOLSCORE_STRICT_PLUGINS": "0"})
    assert not pm.strict and pm.autoload and pm.disabled == set()


def test_no_autoload_means_builtins_only(fake_entry_points):
    fake_entry_points.append(fake_ep("adapters", "toolscore_no_such_module_xyz"))
    pm = PluginManager(autoload=False, strict=True)
    assert collect(pm, "adapters").names() == ["custom"]


def test_misspelled_hook_is_an_error_not_silence(plugin_manager):
    class Typo:
        @hookimpl
        def toolscore_register_metric(self):  # singular: no such hook
            return []

    with pytest.raises(pluggy.PluginValidationError):
        plugin_manager.add_plugin(Typo(), name="typo", kinds=["metrics"])
    assert not plugin_manager.has_plugin("typo")


def test_non_toolscore_attributes_are_never_hooks(plugin_manager):
    class Helper:
        @hookimpl
        def pytest_configure(self):  # another project's name: ignored, not an error
            return None

    plugin_manager.add_plugin(Helper(), name="helper", kinds=["metrics"])
    assert plugin_manager.has_plugin("helper")


def test_a_kind_registry_ignores_plugins_loaded_for_other_kinds(plugin_manager):
    class Both:
        @hookimpl
        def toolscore_register_metrics(self):
            return [_Metric]

    plugin_manager.add_plugin(Both(), name="both", kinds=["lint_rules"])
    assert "fake_metric" not in collect(plugin_manager, "metrics")


def test_unknown_kind_is_rejected(plugin_manager):
    with pytest.raises(PluginError, match="unknown plugin kind"):
        plugin_manager.ensure_group("widgets")
    assert "adapters" in GROUPS


def test_raising_registration_hook_loses_only_its_items(fake_entry_points):
    class Raises:
        @hookimpl
        def toolscore_register_metrics(self):
            raise RuntimeError("boom at registration")

    class Fine:
        @hookimpl
        def toolscore_register_metrics(self):
            return [_Metric]

    pm = PluginManager(autoload=False, strict=False)
    pm.add_plugin(Raises(), name="raises", kinds=["metrics"])
    pm.add_plugin(Fine(), name="fine", kinds=["metrics"])
    registry = collect(pm, "metrics")
    assert "fake_metric" in registry
    assert "raises" in pm.failures and "boom at registration" in str(pm.failures["raises"].error)


def test_threads_asking_for_a_group_at_once_all_see_it_fully_loaded():
    # A study's worker threads each evaluate a run: the first to ask loads the metrics, the
    # others must wait for it instead of reading a half-loaded (empty) registry.
    import threading
    import time

    from toolscore_core.kernel.plugins import PluginManager
    from toolscore_core.kernel.registry import collect

    class SlowToLoad(PluginManager):
        def _load_group(self, kind: str) -> None:
            time.sleep(0.2)  # an entry point whose import takes a while
            super()._load_group(kind)

    pm = SlowToLoad(autoload=False, strict=True)
    seen: list[list[str]] = []
    start = threading.Barrier(6)

    def worker() -> None:
        start.wait()
        seen.append(collect(pm, "metrics").names())

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert len(seen) == 6
    assert all("selection_accuracy" in names for names in seen), seen
    assert len({tuple(names) for names in seen}) == 1
