"""The kernel's own trace format: a plain list of call dicts (``format="custom"``).

This is what ``toolscore mcp record`` users hand-edit and what tests write inline (tool-scorer
1.10.0's spellings ``name``/``arguments``/``output``/``elapsed`` and its ``cost`` and
``timestamp`` read too; any other key is kept in the call's metadata and listed by
``toolscore validate``, never dropped)::

    [{"tool": "get_weather", "args": {"city": "NYC"}, "result": "...", "is_error": false,
      "error": null, "duration": 0.12}]

An object ``{"calls": [...], "final_answer": "..."}`` is accepted too, and as tool-scorer
1.10.0 read them, ``{"tool_calls": [...]}`` and a single call dict (a run of one call).
Every other format lives in the toolscore-adapters distribution.
"""

from __future__ import annotations

from typing import Any, ClassVar

from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.files import json_path
from toolscore_core.kernel.interfaces import TraceAdapter
from toolscore_core.kernel.model import ToolCall, ToolCallDraft, Trace, fills_soundly, seconds
from toolscore_core.kernel.plugins import hookimpl

_CALL_FIELDS = {"tool", "args", "id", "call_id", "result", "structured_result", "is_error", "error",
                "duration", "denied", "denied_reason", "provider", "index", "metadata"}
# The other spellings people (and tool-scorer 1.10.0's examples) write for the same things.
_TOOL_KEYS = ("tool", "name", "function")
_ARGS_KEYS = ("args", "arguments", "input")
_RESULT_KEYS = ("result", "output")
_DURATION_KEYS = ("duration", "elapsed")
_EXTRA_KEYS = ("cost", "timestamp", "time", "duration_ms")  # kept in the call's metadata under their own name
_KNOWN_FIELDS = _CALL_FIELDS | set(_TOOL_KEYS) | set(_ARGS_KEYS) | set(_RESULT_KEYS) | set(_DURATION_KEYS) | set(
    _EXTRA_KEYS)


def _first(item: dict[str, Any], keys: tuple[str, ...]) -> tuple[str | None, Any]:
    """The first of ``keys`` present in ``item`` and its value (``(None, None)`` if none is)."""
    for key in keys:
        if key in item:
            return key, item[key]
    return None, None


def _named(call: Any) -> bool:
    return isinstance(call, dict) and any(isinstance(call.get(k), str) for k in _TOOL_KEYS)


_WRAPPER_KEYS = ("calls", "tool_calls")  # tool-scorer 1.10.0 read both spellings of the wrapper


def _wrapped(data: dict[str, Any]) -> tuple[str | None, Any]:
    """``(key, calls)`` of a ``{"calls": [...]}`` / ``{"tool_calls": [...]}`` wrapper, or
    ``(None, [data])`` for a dict that is itself one call (keys of a call only, so another
    format's object is never mistaken for one), or ``(None, None)``. Looks at keys only:
    detection runs on every input and must stay cheap."""
    for key in _WRAPPER_KEYS:
        if key in data:
            return (key, data[key]) if set(data) <= {key, "final_answer", "metadata"} else (None, None)
    if _named(data) and data.keys() <= _KNOWN_FIELDS:
        return None, [data]
    return None, None


class CustomCallListAdapter(TraceAdapter):
    """A JSON list of ``{"tool", "args", "result", "is_error", "error", "duration"}`` dicts."""

    name: ClassVar[str] = "custom"
    description: ClassVar[str] = 'a plain list of {"tool", "args", ...} call dicts'

    def detect(self, data: Any) -> float:
        calls = _wrapped(data)[1] if isinstance(data, dict) else data
        if isinstance(calls, (list, tuple)):
            if not calls:
                return 0.05  # an empty run: ours, weakly, so evaluate(actual=[]) scores 0
            if all(isinstance(c, dict) and "tool" in c and c.keys() <= _CALL_FIELDS for c in calls):  # no set per call
                return 0.9
            if all(_named(c) and set(c) <= _KNOWN_FIELDS for c in calls):
                # tool-scorer's spellings (name/arguments/output, cost, timestamp): ours, a little less surely
                return 0.85 if all("tool" in c for c in calls) else 0.7
            if all(isinstance(c, ToolCall) for c in calls):
                return 1.0
        return 0.0

    def load(self, data: Any) -> Trace:
        final_answer = None
        metadata: dict[str, Any] = {}
        prefix: list[str | int] = []
        calls_data = data
        if isinstance(data, dict) and not any(k in data for k in _WRAPPER_KEYS) and _named(data):
            return self._single(data)
        if isinstance(data, dict):
            key = next((k for k in _WRAPPER_KEYS if k in data), "calls")
            calls_data = data.get(key)
            final_answer = data.get("final_answer")
            metadata = dict(data.get("metadata") or {})
            prefix = [key]
        if not isinstance(calls_data, (list, tuple)):
            raise InputError("is not a list of tool calls", location=json_path(prefix),
                             expected='a list of {"tool": NAME, "args": {...}} objects')
        calls, all_plain = _plain_calls(calls_data)
        if not all_plain:
            calls = tuple(self._call(c, [*prefix, i]) for i, c in enumerate(calls_data))
            unknown = sorted({k for c in calls_data if isinstance(c, dict) for k in c if k not in _KNOWN_FIELDS})
            if unknown:  # kept in each call's metadata; `toolscore validate` lists them
                metadata["unknown_keys"] = unknown
        return Trace(calls=calls,
                     final_answer=final_answer, source_format=self.name, metadata=metadata)

    def load_plain(self, data: Any) -> Trace | None:
        """What :meth:`load` gives a list of plain calls (see ``_plain_calls``); None for anything else.

        Why: such a list is one :meth:`detect` claims at 0.9 (dicts with "tool" and only
        call fields), so the kernel reads it with this without asking ``detect`` first,
        which walked every call before ``load`` walked them again."""
        calls, all_plain = _plain_calls(data)
        return Trace(calls=calls, source_format=self.name, metadata={}) if all_plain else None

    def _single(self, item: dict[str, Any]) -> Trace:
        """One call dict as the whole trace (how tool-scorer 1.10.0 read it)."""
        call = self._call(item, [])
        metadata = {"unknown_keys": sorted(k for k in item if k not in _KNOWN_FIELDS)}
        return Trace(calls=(call,), source_format=self.name, metadata=metadata if metadata["unknown_keys"] else {})

    def _call(self, item: Any, where: list[str | int]) -> ToolCall:
        if isinstance(item, ToolCall):
            return item
        if not isinstance(item, dict):
            raise InputError(f"a call must be an object, not {type(item).__name__}", location=json_path(where))
        tool_key, tool = _first(item, _TOOL_KEYS)
        if not isinstance(tool, str) or not tool:
            raise InputError(f"'{tool_key or 'tool'}' must be a non-empty string, not {tool!r}",
                             location=json_path([*where, tool_key or "tool"]),
                             expected='a call such as {"tool": "get_weather", "args": {"city": "NYC"}}')
        metadata = dict(item.get("metadata") or {})
        args_key, args = _first(item, _ARGS_KEYS)
        args = {} if args_key is None else args
        if isinstance(args, str):
            args = _arguments_text(args, metadata)
        elif args is not None and not isinstance(args, dict):
            raise InputError(f"'{args_key}' must be an object, not {type(args).__name__}",
                             location=json_path([*where, args_key or "args"]))
        duration_key, duration = _first(item, _DURATION_KEYS)
        if duration is None and isinstance(item.get("duration_ms"), (int, float)):
            duration_key, duration = "duration_ms", item["duration_ms"] / 1000
        if duration is not None and (isinstance(duration, bool) or not isinstance(duration, (int, float))):
            raise InputError(f"'{duration_key}' must be a number of seconds", location=json_path([*where, duration_key or "duration"]))
        result_key, result = _first(item, _RESULT_KEYS)
        is_error = item.get("is_error")
        error = item.get("error")
        if isinstance(error, bool):  # "error": true/false is a flag (tool-scorer 1.10.0 read it), not a message
            is_error = error if is_error is None else is_error
            error = None
        if is_error is None and error:
            is_error = True
        if is_error is None and result_key is not None:
            is_error = False  # an answer and no error: it succeeded
        for key in _EXTRA_KEYS:
            if key in item:
                metadata[key] = item[key]
        for key, value in item.items():  # nothing is dropped: unknown keys stay with the call
            if key not in _KNOWN_FIELDS:
                metadata.setdefault(key, value)
        return ToolCall(
            tool=tool,
            args=args,
            id=item.get("id", item.get("call_id")),
            result=result,
            structured_result=item.get("structured_result"),
            is_error=None if is_error is None else bool(is_error),
            error=None if error is None else str(error),
            duration=seconds(duration),  # NaN, infinite or too large for a float: unknown
            denied=bool(item.get("denied", False)),
            denied_reason=item.get("denied_reason"),
            provider=item.get("provider"),
            index=item.get("index"),
            metadata=metadata,
        )


def _arguments_text(text: str, metadata: dict[str, Any]) -> dict[str, Any] | None:
    """Arguments written as a JSON string (as models send them): parsed when they are a JSON
    object; otherwise unknown, with the raw text and the reason kept in ``metadata`` so the
    call is reported as malformed instead of the whole trace being rejected."""
    import json

    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:
        metadata.update(raw_arguments=text, arguments_error=f"not valid JSON: {exc}")
        return None
    if isinstance(value, dict):
        return value
    metadata.update(raw_arguments=text, arguments_error=f"a JSON {type(value).__name__}, not an object")
    return None


# The keys of a call as Toolscore itself writes it: a call with only these keys, of the plain
# types below, is built by _plain_calls without the general reader's checks.
_PLAIN_KEYS = frozenset({"tool", "args", "id", "result", "is_error", "error", "duration"})
_SLOT_ORDER = ("tool", "args", "id", "result", "structured_result", "is_error", "error", "duration", "denied",
               "denied_reason", "provider", "index", "metadata")
# Filling a draft is only sound while ToolCall has exactly these fields (in this order), no
# validator and no converter other than ``seconds`` on duration (applied here), and the
# interpreter lets a draft become a ToolCall (model.fills_soundly): otherwise the general path.
_SLOTS_SOUND = fills_soundly(ToolCallDraft, ToolCall, _SLOT_ORDER, frozenset({"duration"}))


def _plain_calls(items: Any) -> tuple[tuple[ToolCall, ...], bool]:
    """Every call of ``items`` built directly when all are plain; ``((), False)`` otherwise.

    Why: the general reader (``_call``) tries each alternative spelling, copies metadata and
    goes through ``ToolCall.__init__`` with its keyword parsing and converter, about 5 us a
    call; a 10k-call trace spent more time there than in the scoring. A plain call (only
    the keys of ``_PLAIN_KEYS``, a non-empty str tool, dict-or-null args, a null or str
    error, a bool-or-null is_error, a numeric-or-null duration, a str-or-null id) can only
    mean one thing, so it is built as a draft (see ``model.draft_of``: plain stores, then
    ``__class__``), with the values ``_call`` would give (its tests compare the two on every
    shape). Anything else, anywhere in the list, sends the whole list to the general reader,
    which keeps its error messages.
    """
    if type(items) is not list or not _SLOTS_SOUND:
        return (), False
    draft, tool_call = ToolCallDraft, ToolCall
    built: list[ToolCall] = []
    append = built.append
    missing = _MISSING
    only_plain_keys = _PLAIN_KEYS.issuperset  # cheaper than comparing a keys view with the set
    for item in items:
        if type(item) is not dict or not only_plain_keys(item):
            return (), False
        tool = item.get("tool")
        args = item.get("args", missing)
        is_error = item.get("is_error")
        error = item.get("error")
        duration = item.get("duration")
        ident = item.get("id")
        result = item.get("result", missing)
        if (type(tool) is not str or not tool or (args is not None and type(args) is not dict and args is not missing)
                or (is_error is not None and type(is_error) is not bool)
                or (error is not None and type(error) is not str)
                or (duration is not None and type(duration) is not float and type(duration) is not int)
                or (ident is not None and type(ident) is not str)):
            return (), False
        if is_error is None and (error or result is not missing):
            is_error = bool(error) or False  # an error message: failed; an answer and no error: succeeded
        if result is missing:
            result = None
        call = draft()
        call.tool = tool
        call.args = {} if args is missing else args
        call.id = ident
        call.result = result
        call.structured_result = None
        call.is_error = is_error
        call.error = error
        # a finite non-negative float is kept as it is, which is what seconds() gives it
        call.duration = (duration if type(duration) is float and 0 <= duration < _INFINITY
                         else None if duration is None else seconds(duration))
        call.denied = False
        call.denied_reason = None
        call.provider = None
        call.index = None
        call.metadata = {}
        call.__class__ = tool_call  # every field is set: from here on it is a frozen ToolCall
        append(call)
    return tuple(built), True


_MISSING = object()
_INFINITY = float("inf")


@hookimpl
def toolscore_register_adapters() -> list[type[TraceAdapter]]:
    return [CustomCallListAdapter]
