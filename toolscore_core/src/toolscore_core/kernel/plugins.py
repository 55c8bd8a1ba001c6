"""The plugin manager: finds plugins through entry points and loads them one kind at a time.

Nothing is loaded at import. The installed entry points are scanned once per process
(:func:`all_entry_points`), and a kind's group is imported only when a command first needs
that kind, so ``toolscore --help`` imports the command plugins and nothing else.

A plugin that fails to import or to register is isolated: it is recorded in
``PluginManager.failures``, reported once, and every command that does not need it keeps
working. ``TOOLSCORE_STRICT_PLUGINS=1`` turns that into an exception (our tests use it).
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
import threading
from collections.abc import Iterable
from typing import Any

import pluggy

from toolscore_core.kernel import hookspecs
from toolscore_core.kernel._entrypoints import EntryPoint, scan

PROJECT = "toolscore"

#: The kinds of item a plugin can contribute; each has the group ``toolscore.<kind>``
#: and the hook ``toolscore_register_<kind>``.
GROUPS: tuple[str, ...] = (
    "adapters",
    "metrics",
    "lint_rules",
    "guards",
    "providers",
    "exporters",
    "commands",
    "executors",
    "judges",
)

#: Built-in plugins, registered through the same hooks as third-party ones (as pytest does
#: with its own plugins), but from code rather than entry points, so a broken install still
#: has them.
BUILTINS: dict[str, tuple[str, ...]] = {
    "adapters": ("toolscore_core.builtin.adapters",),
    "metrics": ("toolscore_core.builtin.metrics",),
    "exporters": ("toolscore_core.builtin.exporters",),
    "commands": ("toolscore_core.builtin.commands",),
    "executors": ("toolscore_core.builtin.executors",),
}

CORE_DISTRIBUTION = "toolscore-core"

ENV_DISABLE = "TOOLSCORE_DISABLE_PLUGINS"
ENV_STRICT = "TOOLSCORE_STRICT_PLUGINS"
ENV_NO_AUTOLOAD = "TOOLSCORE_DISABLE_PLUGIN_AUTOLOAD"
ENV_DEBUG = "TOOLSCORE_DEBUG_PLUGINS"

hookimpl = pluggy.HookimplMarker(PROJECT)


def group_name(kind: str) -> str:
    """``adapters`` -> ``toolscore.adapters``."""
    return f"{PROJECT}.{kind}"


@functools.cache
def all_entry_points() -> tuple[EntryPoint, ...]:
    """Every entry point in a ``toolscore.*`` group: one scan per process (see
    :mod:`toolscore_core.kernel._entrypoints` for why it does not use importlib.metadata)."""
    found = scan(PROJECT + ".")
    unique: dict[tuple[str, str], EntryPoint] = {}
    for ep in found:
        unique.setdefault((ep.group, ep.name), ep)
    return tuple(sorted(unique.values(), key=lambda ep: (ep.group, ep.name)))


def group_entry_points(kind: str) -> tuple[EntryPoint, ...]:
    group = group_name(kind)
    return tuple(ep for ep in all_entry_points() if ep.group == group)


def distribution_of(ep: EntryPoint) -> tuple[str, str]:
    """(distribution name, version) of an entry point."""
    return ep.dist, ep.version


class PluginFailure:
    """A plugin that could not be loaded or that raised while registering."""

    def __init__(self, plugin: str, distribution: str, version: str, error: BaseException, kind: str) -> None:
        self.plugin = plugin  # "toolscore.<kind>:<entry point name>" or the in-process name
        self.distribution = distribution
        self.version = version
        self.error = error
        self.kind = kind

    def describe(self) -> str:
        err = f"{type(self.error).__name__}: {self.error}"
        return (
            f"plugin {self.distribution} {self.version} ({self.plugin}) failed: {err}"
            f" - disable it with {ENV_DISABLE}={self.distribution}"
        )


class Provenance:
    """Where a registered plugin came from."""

    def __init__(self, distribution: str, version: str, entry_point: str) -> None:
        self.distribution = distribution
        self.version = version
        self.entry_point = entry_point  # "module" or "module:attr"; built-ins: the module name

    def __repr__(self) -> str:
        return f"Provenance({self.distribution!r}, {self.version!r}, {self.entry_point!r})"


class PluginManager(pluggy.PluginManager):
    """pluggy manager that loads ``toolscore.<kind>`` entry points on demand.

    :param autoload: load plugins from entry points (False in tests: built-ins only).
    :param strict: raise :class:`PluginError` on a broken plugin instead of recording it.
    :param disabled: entry point or distribution names never to import.
    """

    def __init__(
        self,
        *,
        autoload: bool = True,
        strict: bool = False,
        disabled: Iterable[str] = (),
        builtins: bool = True,
    ) -> None:
        super().__init__(PROJECT)
        self.add_hookspecs(hookspecs)
        self.autoload = autoload
        self.strict = strict
        self.disabled = {name.strip() for name in disabled if name.strip()}
        self.use_builtins = builtins
        self.members: dict[str, set[str]] = {kind: set() for kind in GROUPS}
        self.failures: dict[str, PluginFailure] = {}
        self.provenance: dict[str, Provenance] = {}
        self._loaded: set[str] = set()
        self._loading: set[str] = set()
        # Worker threads (a study's runs) may ask for a group at the same moment: one loads it,
        # the others wait, and nobody sees a half-loaded group (an empty metrics registry).
        self._group_lock = threading.RLock()
        self._reported: set[str] = set()
        if os.environ.get(ENV_DEBUG):
            self.trace.root.setwriter(sys.stderr.write)
            self.enable_tracing()

    @classmethod
    def from_environment(cls, environ: dict[str, str] | None = None) -> PluginManager:
        env = os.environ if environ is None else environ
        return cls(
            autoload=not _truthy(env.get(ENV_NO_AUTOLOAD)),
            strict=_truthy(env.get(ENV_STRICT)),
            disabled=env.get(ENV_DISABLE, "").split(","),
        )

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> Any:
        # Only toolscore_* attributes can be hooks: never inspect anything else (pytest does
        # the same), so a plugin's helpers named like hooks of other projects are ignored.
        if not name.startswith(PROJECT + "_"):
            return None
        return super().parse_hookimpl_opts(plugin, name)

    def add_plugin(
        self,
        plugin: Any,
        *,
        name: str,
        kinds: Iterable[str],
        provenance: Provenance | None = None,
    ) -> None:
        """Register ``plugin`` (once) and record it as a member of each of ``kinds``."""
        kinds = list(kinds)
        for kind in kinds:
            if kind not in GROUPS:
                raise _plugin_error(f"unknown plugin kind {kind!r}; kinds are {', '.join(GROUPS)}")
        if not self.is_registered(plugin):
            self.register(plugin, name=name)
            try:
                self.check_pending()  # a misspelled hook name fails here, not silently
            except pluggy.PluginValidationError:
                self.unregister(plugin)
                raise
        registered_name = self.get_name(plugin) or name
        for kind in kinds:
            self.members[kind].add(registered_name)
        if provenance is not None:
            self.provenance[registered_name] = provenance

    def ensure_group(self, kind: str) -> None:
        """Load the built-ins and entry points of ``kind``, once (thread-safe)."""
        if kind not in GROUPS:
            raise _plugin_error(f"unknown plugin kind {kind!r}; kinds are {', '.join(GROUPS)}")
        if kind in self._loaded:
            return
        with self._group_lock:
            # a plugin that asks for its own group while loading gets what is there so far
            if kind in self._loaded or kind in self._loading:
                return
            self._loading.add(kind)
            try:
                self._load_group(kind)
            finally:
                self._loading.discard(kind)
                self._loaded.add(kind)

    def _load_group(self, kind: str) -> None:
        if self.use_builtins:
            for modname in BUILTINS.get(kind, ()):
                module = importlib.import_module(modname)
                self.add_plugin(
                    module,
                    name=modname,
                    kinds=[kind],
                    provenance=Provenance(CORE_DISTRIBUTION, _core_version(), modname),
                )
        if not self.autoload:
            return
        for ep in group_entry_points(kind):
            dist, version = distribution_of(ep)
            if {ep.name, dist} & self.disabled:
                continue  # blocked before import: the escape hatch for a broken plugin
            name = f"{ep.group}:{ep.name}"
            try:
                plugin = ep.load()
                self.add_plugin(plugin, name=name, kinds=[kind], provenance=Provenance(dist, version, ep.value))
            except Exception as exc:
                self.record_failure(name, kind, exc, distribution=dist, version=version)

    def record_failure(
        self,
        plugin_name: str,
        kind: str,
        exc: BaseException,
        *,
        distribution: str | None = None,
        version: str | None = None,
    ) -> None:
        """Isolate a broken plugin (or raise, in strict mode)."""
        prov = self.provenance.get(plugin_name)
        failure = PluginFailure(
            plugin=plugin_name,
            distribution=distribution or (prov.distribution if prov else plugin_name),
            version=version or (prov.version if prov else "?"),
            error=exc,
            kind=kind,
        )
        if self.strict:
            raise _plugin_error(failure.describe()) from exc
        self.failures[plugin_name] = failure
        if self.has_plugin(plugin_name):
            self.unregister(name=plugin_name)

    def unreported_failures(self) -> list[PluginFailure]:
        """Failures not yet shown to the user; each is returned once per manager."""
        fresh = [f for name, f in sorted(self.failures.items()) if name not in self._reported]
        self._reported.update(f.plugin for f in fresh)
        return fresh


def _plugin_error(message: str) -> Exception:
    # errors.py is imported only when something goes wrong: `toolscore --help` loads this
    # module and never needs it (every module counts on that path; see bench/RESULTS.md).
    from toolscore_core.kernel.errors import PluginError

    return PluginError(message)


def _truthy(value: str | None) -> bool:
    return value is not None and value.strip().lower() not in {"0", "false", "no", "off", ""}


def _core_version() -> str:
    from toolscore_core import __version__

    return __version__


@functools.cache
def get_plugin_manager() -> PluginManager:
    """The process-wide manager used by the CLI and by API calls that are given none."""
    return PluginManager.from_environment()


def reset_plugin_manager() -> None:
    """Forget the process-wide manager and the entry-point scan (tests, after installs)."""
    get_plugin_manager.cache_clear()
    clear = getattr(all_entry_points, "cache_clear", None)  # tests may have replaced the function
    if clear is not None:
        clear()
