"""Turning anything a user hands us (a file, a live SDK object, a list of dicts) into a Trace.

Adapters are plugins (``toolscore.adapters``). Without ``format``, each adapter scores how
sure it is that the data is its format and the highest score wins; a tie at the top is an
error naming both, and no match is an error naming every adapter that was tried.

The adapters registry is collected once per plugin manager and reused until the plugins
registered for adapters change: a harness that loads a thousand traces, or one file read
first by its path and then by its parsed data, asks every adapter plugin to register once,
not once per look.
"""

from __future__ import annotations

import weakref
from pathlib import Path
from typing import Any

from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.interfaces import TraceAdapter
from toolscore_core.kernel.model import Trace
from toolscore_core.kernel.plugins import PluginManager, get_plugin_manager
from toolscore_core.kernel.registry import Registry, collect, instantiate

HEAD_BYTES = 64 * 1024
AUTO = "auto"
KIND = "adapters"

# manager -> (the adapter plugins it had when collected, the registry). Weak keys: a test's
# throw-away manager is forgotten with it.
_REGISTRIES: weakref.WeakKeyDictionary[PluginManager, tuple[tuple[Any, ...], Registry]] = (
    weakref.WeakKeyDictionary())


def adapter_registry(pm: PluginManager | None = None) -> Registry:
    """The adapters registry of ``pm`` (default: the process-wide manager).

    Collected on first use and again only when a plugin was added to or removed from the
    adapters kind since then, so a plugin registered mid-session is seen at once.
    """
    manager = pm or get_plugin_manager()
    manager.ensure_group(KIND)
    cached = _REGISTRIES.get(manager)
    if cached is not None and cached[0] == _adapter_plugins(manager):
        return cached[1]
    registry = collect(manager, KIND)
    # Taken after collecting: a plugin that failed to register was unregistered meanwhile.
    _REGISTRIES[manager] = (_adapter_plugins(manager), registry)
    return registry


def _adapter_plugins(pm: PluginManager) -> tuple[Any, ...]:
    """What the registry depends on: the adapter hook implementations (each registration
    makes a new one, so identity tells a re-registered plugin apart) and the kind's members."""
    impls = pm.hook.toolscore_register_adapters.get_hookimpls()
    return (*impls, frozenset(pm.members[KIND]))


def _safe_score(fn: Any, *args: Any) -> float:
    try:
        score = float(fn(*args))
    except Exception:  # detect() must never break detection for the others
        return 0.0
    return score if score > 0 else 0.0


def _tried(adapters: list[Any]) -> list[str]:
    """The names of the adapters asked, for an error message (made only when one is raised)."""
    return sorted(a.name for a in adapters)


def _pick(scores: list[tuple[float, Any]], what: str, adapters: list[Any], file: str | None) -> Any | None:
    scores = [s for s in scores if s[0] > 0]
    if not scores:
        return None
    scores.sort(key=lambda s: -s[0])
    best = scores[0][0]
    top = [a for s, a in scores if s == best]
    if len(top) > 1:
        names = " and ".join(sorted(a.name for a in top))
        raise InputError(
            f"{what} matches {names} equally well (confidence {best:.2f})",
            file=file,
            hint=f"Name the format with --format (one of: {', '.join(_tried(adapters))})",
        )
    return scores[0][1]


def detect_adapter(data: Any, *, pm: PluginManager | None = None, file: str | None = None) -> Any:
    """The adapter that claims ``data`` most confidently (an InputError if none or a tie)."""
    return _detect(data, adapter_registry(pm).instances(), file)


PLAIN_LIST_ADAPTER = ("toolscore_core.builtin.adapters", "CustomCallListAdapter")
PLAIN_LIST_CONFIDENCE = 0.9  # what that adapter answers for a list of our own call dicts


def _plain_call_list(data: Any, adapters: list[Any]) -> Any | None:
    """The built-in ``custom`` adapter, when ``data`` is a plain list of our own call dicts.

    Why: that is what most callers of ``evaluate()`` pass, and asking every installed
    adapter first costs more than reading it (some framework detectors scan the whole list,
    20-50 ms on 10k calls). The shape is unambiguous: dicts with ``"tool"`` and only the
    fields of a ToolCall, which the built-in adapter claims at its highest confidence for a
    call list; no other format stores its calls so. Anything else goes through full detection.
    """
    adapter = _plain_list_adapter(data, adapters)
    if adapter is not None and _safe_score(adapter.detect, data) >= PLAIN_LIST_CONFIDENCE:
        return adapter
    return None


def _plain_list_adapter(data: Any, adapters: list[Any]) -> Any | None:
    """The built-in ``custom`` adapter when ``data`` starts as a list of our call dicts, else None."""
    if not isinstance(data, list) or not data or not isinstance(data[0], dict) or "tool" not in data[0]:
        return None
    for adapter in adapters:
        kind = type(adapter)
        if (kind.__module__, kind.__qualname__) == PLAIN_LIST_ADAPTER:
            return adapter
    return None


def _read_plain(data: Any, adapters: list[Any]) -> Trace | None:
    """The trace of ``data`` when it is a list of plain calls the built-in adapter reads
    without its general checks (its ``load_plain``); else None, and detection runs as usual.

    Why: such a list is one :func:`_plain_call_list` hands to that adapter (its ``detect``
    claims it at 0.9) and whose ``load`` builds it the same way, but ``detect`` walked
    every call first: a fifth of reading a 10k-call list. Reading it is the check."""
    adapter = _plain_list_adapter(data, adapters)
    if adapter is None:
        return None
    trace = adapter.load_plain(data)
    return None if trace is None else _mark(trace, adapter.name)


def _detect(data: Any, adapters: list[Any], file: str | None) -> Any:
    plain = _plain_call_list(data, adapters)
    if plain is not None:
        return plain
    chosen = _pick([(_safe_score(a.detect, data), a) for a in adapters], "the input", adapters, file)
    if chosen is None:
        tried = _tried(adapters)
        raise InputError(
            f"no trace format recognised this input ({_describe(data)})",
            file=file,
            expected=f"a format one of the installed adapters reads: {', '.join(tried)}",
            hint="Check the file with `toolscore validate`, or name the format with --format",
        )
    return chosen


def load_trace(
    source: Any,
    *,
    format: str | None = None,
    pm: PluginManager | None = None,
) -> Trace:
    """Read ``source`` (a Trace, a path, or a live object / parsed data) into a Trace."""
    if isinstance(source, Trace):
        return source
    if isinstance(source, Path) or (isinstance(source, str) and _looks_like_path(source)):
        return load_trace_file(Path(source), format=format, pm=pm)
    if format and format != AUTO:
        adapter = instantiate(adapter_registry(pm).get(format))
        return _mark(adapter.load(source), adapter.name)
    adapters = adapter_registry(pm).instances()
    plain = _read_plain(source, adapters)
    if plain is not None:
        return plain
    adapter = _detect(source, adapters, None)
    return _mark(adapter.load(source), adapter.name)


def load_trace_file(
    path: Path,
    *,
    format: str | None = None,
    pm: PluginManager | None = None,
    allow_empty: bool = False,
) -> Trace:
    """Read a trace file of any installed format; errors name the file.

    A file in which no tool call is found is an error that says what the file was read as
    (unless ``allow_empty``): a wrong export setting or the wrong file must not pass
    silently as a run that "made no calls" and get graded F.
    """
    trace, _ = _read_trace_file(path, format=format, pm=pm, raw=None)
    _check_calls(trace, path, allow_empty)
    return trace


def load_trace_bytes(
    path: Path,
    raw: bytes,
    *,
    format: str | None = None,
    pm: PluginManager | None = None,
    allow_empty: bool = False,
) -> tuple[Trace, Any]:
    """:func:`load_trace_file` for a file whose bytes ``raw`` the caller has read already,
    with the data parsed from them (None when an adapter read the file by its path).

    Why: a caller that needs the bytes anyway (the export hashes each source and tells its
    kind from its content) would otherwise have the file opened, read and parsed again here,
    and parsed a third time for anything else it reads from it. The checks and errors are
    those of :func:`load_trace_file`, on the bytes given.
    """
    trace, data = _read_trace_file(path, format=format, pm=pm, raw=raw)
    _check_calls(trace, path, allow_empty)
    return trace, data


def _check_calls(trace: Trace, path: Path, allow_empty: bool) -> None:
    """A file in which no tool call is found is an error, unless ``allow_empty`` (see load_trace_file)."""
    if not trace.calls and not allow_empty:
        fmt = trace.source_format or "an unknown format"
        raise InputError(
            f"no tool call found: the file was read as {fmt} and holds 0 tool calls",
            file=path,
            hint="Check that the file is the agent's trace (and that the exporter records tool calls); "
            "`toolscore validate` shows what is read from it",
        )


def _read_trace_file(path: Path, *, format: str | None, pm: PluginManager | None,
                     raw: bytes | None) -> tuple[Trace, Any]:
    """The trace of the file (read here, or its bytes ``raw``) and the data parsed from it (None
    when an adapter read it by its path)."""
    try:
        if raw is None:
            if not path.is_file():
                from toolscore_core.kernel.files import not_a_file

                raise not_a_file(path)
            if path.stat().st_size == 0:
                raise InputError("is empty (0 bytes)", file=path,
                                 expected="a trace file with at least one tool call")
            with path.open("rb") as fh:
                head = fh.read(HEAD_BYTES)
        elif not raw:
            raise InputError("is empty (0 bytes)", file=path, expected="a trace file with at least one tool call")
        else:
            head = raw[:HEAD_BYTES]
        return _read_with(path, head, raw, adapter_registry(pm), format)
    except InputError as exc:
        raise exc.with_file(path) from None


def _read_with(path: Path, head: bytes, raw: bytes | None, registry: Registry,
               format: str | None) -> tuple[Trace, Any]:
    """Detection and loading: by path first (an adapter that streams the file), else by the
    parsed data. The file is parsed from ``raw`` when given, else read."""
    if format and format != AUTO:
        adapter = instantiate(registry.get(format))
        if _safe_score(adapter.detect_path, path, head) > 0:
            return _mark(adapter.load_path(path), adapter.name), None
        data = _data_of(path, raw)
        return _mark(adapter.load(data), adapter.name), data
    adapters = registry.instances()
    by_path = _pick([(_safe_score(a.detect_path, path, head), a) for a in adapters if _reads_paths(a)], "the file",
                    adapters, str(path))
    if by_path is not None:
        return _mark(by_path.load_path(path), by_path.name), None
    data = _data_of(path, raw)
    plain = _read_plain(data, adapters)
    if plain is not None:
        return plain, data
    adapter = _detect(data, adapters, str(path))
    return _mark(adapter.load(data), adapter.name), data


def _reads_paths(adapter: Any) -> bool:
    """False when ``adapter.detect_path`` is the base class's, which answers 0.0 to every file.

    Why: most adapters keep it, and asking each of them for that constant was a tenth of
    detecting a small trace file. Safe: a score of 0 never wins (:func:`_pick` drops it
    first, and the order of the others is kept), and the bound method itself is looked at,
    so an override on the class or on the instance is still asked.
    """
    return getattr(getattr(adapter, "detect_path", None), "__func__", None) is not TraceAdapter.detect_path


def _data_of(path: Path, raw: bytes | None) -> Any:
    """The file's data (JSON, JSON Lines or YAML), from ``raw`` when the caller read it."""
    from toolscore_core.kernel.files import decode_text, load_data_file, parse_data_text

    if raw is None:
        return load_data_file(path, allow_json_lines=True)
    return parse_data_text(decode_text(raw, path), path, allow_json_lines=True)


def _looks_like_path(text: str) -> bool:
    return "\n" not in text and len(text) < 4096 and Path(text).suffix.lower() in {
        ".json", ".jsonl", ".ndjson", ".yaml", ".yml", ".txt",
    }


def _mark(trace: Trace, fmt: str) -> Trace:
    if trace.source_format:
        return trace
    import attrs

    return attrs.evolve(trace, source_format=fmt)


def _describe(data: Any) -> str:
    if isinstance(data, dict):
        keys = ", ".join(list(map(str, data))[:6])
        return f"an object with keys {keys}" if keys else "an empty object"
    if isinstance(data, list):
        return f"a list of {len(data)} item(s)" if data else "an empty list"
    return f"a {type(data).__module__}.{type(data).__qualname__} object"
