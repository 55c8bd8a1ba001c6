"""Finding the exporter for a subject and a report format: the one lookup every command uses.

An exporter is registered under ``f"{subject}-{format}"`` (:func:`exporter_name`), so
``toolscore eval --report md`` asks for ``evaluation-md`` and ``toolscore mcp lint --report
sarif`` for ``lint-sarif``. Every command used to repeat this lookup and word its own error;
here it is done once, so a format a plugin adds works in every command the same way and a
typo reads the same everywhere: it names the subject, lists the installed formats and
suggests the closest one.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, cast

from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.interfaces import exporter_name

if TYPE_CHECKING:
    from toolscore_core.kernel.interfaces import Exporter
    from toolscore_core.kernel.plugins import PluginManager
    from toolscore_core.kernel.registry import Registry

KIND = "exporters"


def find_exporter(subject: str, fmt: str, *, pm: PluginManager | None = None,
                  registry: Registry | None = None) -> Exporter:
    """The exporter that renders ``subject`` in format ``fmt``, ready to use (a registered
    class is instantiated).

    Give the exporters ``registry`` a command already built, or a plugin manager ``pm`` to
    build it from; with neither, the process-wide plugin manager is used. ``fmt`` is
    matched without surrounding blanks and case (``--report MD`` works). A format nobody
    installed is an :class:`InputError` listing the installed ones, with a did-you-mean;
    a format two plugins provide is a :class:`PluginConflictError` naming both.
    """
    from toolscore_core.kernel.registry import instantiate

    exporters = _exporters(pm, registry)
    wanted = fmt.strip().lower()
    item = exporters.get_or_none(exporter_name(subject, wanted))
    if item is None:
        raise InputError(f"--report {fmt!r} is not an installed {subject} report format",
                         expected=_one_of(wanted, exporter_formats(subject, registry=exporters)))
    return cast("Exporter", instantiate(item))


def exporter_formats(subject: str, *, pm: PluginManager | None = None,
                     registry: Registry | None = None) -> list[str]:
    """The formats ``subject`` can be rendered in with what is installed, sorted.

    An exporter that declares a different ``subject`` is left out even when its name
    starts with ``subject-`` (``run-record-json`` is not a ``run`` format).
    """
    exporters = _exporters(pm, registry)
    prefix = f"{subject}-"
    claimed = {entry.name: entry.item for entry in exporters.entries()}
    formats = []
    for name in exporters.names():
        if not name.startswith(prefix):
            continue
        declared = getattr(claimed.get(name), "subject", None)
        if declared is not None and declared != subject:
            continue
        formats.append(name[len(prefix):])
    return formats


def _exporters(pm: PluginManager | None, registry: Registry | None) -> Registry:
    if registry is not None:
        if pm is not None:
            raise TypeError("give find_exporter either pm= or registry=, not both")
        if registry.kind != KIND:
            raise TypeError(f"registry= must be the {KIND!r} registry, not {registry.kind!r}")
        return registry
    from toolscore_core.kernel.registry import collect

    if pm is None:
        from toolscore_core.kernel.plugins import get_plugin_manager

        pm = get_plugin_manager()
    return collect(pm, KIND)


def _one_of(wanted: str, formats: list[str]) -> str:
    if not formats:
        return "an installed report format (none is installed for this subject)"
    text = "one of: " + ", ".join(formats)
    close = difflib.get_close_matches(wanted, formats, n=2, cutoff=0.5)
    if close:
        text += f" (did you mean {' or '.join(repr(c) for c in close)}?)"
    return text


__all__ = ["exporter_formats", "find_exporter"]
