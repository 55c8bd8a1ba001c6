"""Registries: the items of one kind, keyed by name, each with the plugin that provided it.

:func:`collect` calls one kind's registration hook on each plugin separately, so a plugin
that raises loses only its own items, and every item is attributed to its plugin. A name
claimed by two plugins is *ambiguous*: asking for it raises an error naming both
distributions (never a silent winner chosen by install order), while other names keep
working. The one exception is a name the kernel itself provides: core names are protected,
so the core item is used and the plugin's item is refused (and listed in ``refused``).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterator
from typing import Any

from toolscore_core.kernel.plugins import CORE_DISTRIBUTION, GROUPS, PluginManager

_SINGULAR = {
    "adapters": "adapter",
    "metrics": "metric",
    "lint_rules": "lint rule",
    "guards": "guard",
    "providers": "provider",
    "exporters": "exporter",
    "commands": "command",
    "executors": "executor",
    "judges": "judge",
}


class Entry:
    """A registered item and where it came from."""

    __slots__ = ("distribution", "item", "name", "plugin")

    def __init__(self, name: str, item: Any, plugin: str, distribution: str) -> None:
        self.name = name
        self.item = item
        self.plugin = plugin
        self.distribution = distribution


class Registry:
    """Items of one kind, by name. Listings are sorted by name, never by install order."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, Entry] = {}
        self._conflicts: dict[str, list[Entry]] = {}
        self.refused: list[Entry] = []  # plugin items that tried to take a core name

    @property
    def label(self) -> str:
        return _SINGULAR.get(self.kind, self.kind)

    def add(self, item: Any, *, plugin: str, distribution: str, strict: bool = False) -> None:
        name = item_name(item)
        entry = Entry(name=name, item=item, plugin=plugin, distribution=distribution)
        current = self._entries.get(name)
        if current is not None and current.item is item:
            return  # the same object offered twice is not a conflict
        if current is not None and CORE_DISTRIBUTION in (current.distribution, distribution):
            if current.distribution == CORE_DISTRIBUTION:
                self.refused.append(entry)
            else:
                self.refused.append(current)
                self._entries[name] = entry
            return
        if name in self._conflicts:
            self._conflicts[name].append(entry)
        elif name in self._entries:
            self._conflicts[name] = [self._entries.pop(name), entry]
        else:
            self._entries[name] = entry
        if strict and name in self._conflicts:
            raise self._conflict(name)

    def _conflict(self, name: str) -> Exception:
        # errors.py is imported only on this path: `toolscore --help` builds a registry
        # (of commands) and must not pay for modules it never uses.
        from toolscore_core.kernel.errors import PluginConflictError

        return PluginConflictError(self._conflict_message(name))

    def _conflict_message(self, name: str) -> str:
        who = " and ".join(f"{e.distribution} ({e.plugin})" for e in self._conflicts[name])
        dists = " or ".join(sorted({e.distribution for e in self._conflicts[name]}))
        return (
            f"{self.label} {name!r} is provided by {who}; uninstall one, or disable one with "
            f"TOOLSCORE_DISABLE_PLUGINS=<{dists}>"
        )

    def get(self, name: str) -> Any:
        """The item called ``name``; an unknown name gets did-you-mean suggestions."""
        if name in self._conflicts:
            raise self._conflict(name)
        try:
            return self._entries[name].item
        except KeyError:
            from toolscore_core.kernel.errors import UnknownNameError

            raise UnknownNameError(
                f"unknown {self.label} {name!r}",
                expected=_choices(name, self.names()),
            ) from None

    def get_or_none(self, name: str) -> Any | None:
        if name in self._conflicts:
            raise self._conflict(name)
        entry = self._entries.get(name)
        return entry.item if entry else None

    def entry(self, name: str) -> Entry:
        self.get(name)
        return self._entries[name]

    def __contains__(self, name: object) -> bool:
        return name in self._entries or name in self._conflicts

    def names(self) -> list[str]:
        return sorted({*self._entries, *self._conflicts})

    def entries(self) -> list[Entry]:
        return [self._entries[n] for n in sorted(self._entries)]

    def conflicts(self) -> dict[str, list[Entry]]:
        return dict(self._conflicts)

    def conflict_messages(self) -> list[str]:
        return [self._conflict_message(n) for n in sorted(self._conflicts)]

    def __iter__(self) -> Iterator[Any]:
        return (e.item for e in self.entries())

    def instances(self) -> list[Any]:
        """Every item, classes instantiated (for kinds whose items are used as objects)."""
        return [instantiate(e.item) for e in self.entries()]

    def create(self, name: str, /, **settings: Any) -> Any:
        """The item called ``name``, made with the ``settings`` its factory accepts
        (see :func:`instantiate`): ``providers.create("openai", model="gpt-6", client=c)``."""
        return instantiate(self.get(name), **settings)


def item_name(item: Any) -> str:
    name = getattr(item, "name", None)
    if not isinstance(name, str) or not name:
        raise TypeError(f"{item!r} has no 'name' string attribute")
    return name


class LazyClassType(type):
    """The type of :func:`lazy_class` placeholders: an attribute the placeholder does not
    carry is read from the real class, which is imported then (once)."""

    _target: str
    _resolved: type | None

    def __getattr__(cls, attr: str) -> Any:
        if attr.startswith("__"):  # copy, pickle and inspect probe dunders: never import for them
            raise AttributeError(attr)
        return getattr(cls.resolve(), attr)

    def resolve(cls) -> type:
        """Import the real class (once) and check that it carries the placeholder's name."""
        if cls._resolved is None:
            module_name, _, attr = cls._target.partition(":")
            real: Any = importlib.import_module(module_name)
            for part in attr.split("."):
                real = getattr(real, part)
            if not isinstance(real, type) or getattr(real, "name", None) != cls.__dict__["name"]:
                raise TypeError(f"{cls._target} is not a class named {cls.__dict__['name']!r}")
            cls._resolved = real
        return cls._resolved


def lazy_class(target: str, /, **attributes: Any) -> type:
    """A stand-in for the class at ``target`` (``"package.module:Class"``), imported on first use.

    Why: a registry is built by calling every plugin's hook, so a hook that returns its real
    classes imports their modules even when the command wants another plugin's item
    (``toolscore eval`` paid ~15 ms for the MCP and export report modules to find the
    console report). The stand-in carries ``attributes`` (at least ``name``, and whatever
    listings read, such as an exporter's ``subject``); reading any other attribute, or
    calling it, imports the real class. :func:`instantiate` makes the real class's object,
    so nothing that uses an item ever sees the stand-in::

        return [lazy_class("my_plugin.reports:CsvExporter", name="evaluation-csv", subject="evaluation")]
    """
    if not isinstance(attributes.get("name"), str):
        raise TypeError("lazy_class needs name=, the registered name")
    namespace = {**attributes, "_target": target, "_resolved": None, "__new__": _make_real,
                 "__doc__": f"Imported from {target} on first use."}
    return LazyClassType(target.rpartition(":")[2] or target, (), namespace)


def _make_real(cls: LazyClassType, /, *args: Any, **kwargs: Any) -> Any:
    """Calling a stand-in makes the real class's object (``__init__`` runs once, the real one)."""
    return cls.resolve()(*args, **kwargs)


def instantiate(item: Any, /, **settings: Any) -> Any:
    """Make the object a registry entry stands for: a class is a factory, an instance is itself.

    A class is called with only the ``settings`` its constructor names (all of them when it
    takes ``**kwargs``), as pluggy passes a hook implementation only the arguments it
    declares: a provider that needs ``model`` and ``base_url`` names them, a guard that needs
    nothing names nothing, and the caller offers the same settings to both. An instance is
    used as it is (it was configured when the plugin made it).
    """
    if not isinstance(item, type):
        return item
    if isinstance(item, LazyClassType):  # the real class's signature decides the settings it takes
        item = item.resolve()
    return item(**accepted_settings(item, settings)) if settings else item()


def accepted_settings(factory: Any, settings: dict[str, Any]) -> dict[str, Any]:
    """The part of ``settings`` that ``factory``'s signature accepts by keyword."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: offer nothing
        return {}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return dict(settings)
    names = {p.name for p in params if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                  inspect.Parameter.KEYWORD_ONLY)}
    return {k: v for k, v in settings.items() if k in names}


def _choices(name: str, names: list[str]) -> str:
    import difflib  # here, not at the top: only an unknown name needs it, and every command builds a registry

    close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
    listed = ", ".join(names) if names else "none installed"
    if close:
        return f"one of: {listed} (did you mean {' or '.join(repr(c) for c in close)}?)"
    return f"one of: {listed}"


def collect(pm: PluginManager, kind: str) -> Registry:
    """Build the registry of ``kind`` from the plugins loaded for it."""
    if kind not in GROUPS:
        raise ValueError(f"unknown plugin kind {kind!r}")
    pm.ensure_group(kind)
    registry = Registry(kind)
    caller = getattr(pm.hook, f"toolscore_register_{kind}")
    impls = sorted(caller.get_hookimpls(), key=lambda impl: impl.plugin_name)
    for impl in impls:
        if impl.plugin_name not in pm.members[kind]:
            continue  # registered for another kind only: a kind's registry never depends on load order
        prov = pm.provenance.get(impl.plugin_name)
        distribution = prov.distribution if prov else impl.plugin_name
        try:
            result = impl.function()
            items = list(result) if isinstance(result, (list, tuple)) else [result]
            for item in items:
                if item is None:
                    continue
                item_name(item)
        except Exception as exc:
            pm.record_failure(impl.plugin_name, kind, exc)
            continue
        for item in items:
            if item is not None:
                registry.add(item, plugin=impl.plugin_name, distribution=distribution, strict=pm.strict)
    return registry
