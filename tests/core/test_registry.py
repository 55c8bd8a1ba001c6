"""Registries: keyed by name, provenance kept, conflicts name both distributions."""

from __future__ import annotations

import pytest

from toolscore_core import hookimpl
from toolscore_core.kernel.errors import PluginConflictError, UnknownNameError
from toolscore_core.kernel.registry import Registry, collect, instantiate


class A:
    name = "alpha"


class A2:
    name = "alpha"


class B:
    name = "beta"


def test_listing_is_sorted_by_name_not_registration_order():
    reg = Registry("metrics")
    reg.add(B, plugin="p2", distribution="d2")
    reg.add(A, plugin="p1", distribution="d1")
    assert reg.names() == ["alpha", "beta"]
    assert reg.entry("beta").distribution == "d2"


def test_conflict_names_both_distributions_and_other_names_still_work():
    reg = Registry("adapters")
    reg.add(A, plugin="toolscore.adapters:one", distribution="toolscore-one")
    reg.add(A2, plugin="toolscore.adapters:two", distribution="toolscore-two")
    reg.add(B, plugin="toolscore.adapters:one", distribution="toolscore-one")
    with pytest.raises(PluginConflictError) as info:
        reg.get("alpha")
    assert "toolscore-one" in str(info.value) and "toolscore-two" in str(info.value)
    assert "adapter 'alpha'" in str(info.value)
    assert reg.get("beta") is B


def test_strict_conflict_raises_at_once():
    reg = Registry("metrics")
    reg.add(A, plugin="p1", distribution="d1", strict=True)
    with pytest.raises(PluginConflictError):
        reg.add(A2, plugin="p2", distribution="d2", strict=True)


def test_unknown_name_suggests_close_matches():
    reg = Registry("exporters")
    reg.add(A, plugin="p", distribution="d")
    with pytest.raises(UnknownNameError) as info:
        reg.get("alpa")
    assert "did you mean 'alpha'" in str(info.value)


def test_item_without_name_is_a_registration_failure(plugin_manager):
    class NoName:
        pass

    class Plugin:
        @hookimpl
        def toolscore_register_metrics(self):
            return [NoName]

    plugin_manager.strict = False
    plugin_manager.add_plugin(Plugin(), name="noname", kinds=["metrics"])
    collect(plugin_manager, "metrics")
    assert "no 'name'" in str(plugin_manager.failures["noname"].error)


def test_instantiate_classes_but_not_instances():
    assert isinstance(instantiate(A), A)
    b = B()
    assert instantiate(b) is b
