"""Small helpers every adapter needs: recognising SDK objects without importing the SDK,
turning them into plain data, parsing argument strings, and pairing results with calls.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import json
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from toolscore_core import InputError, ToolCall
from toolscore_core.kernel import readlimits


def class_path(obj: Any) -> str:
    """``module.QualName`` of an object's class (how live SDK objects are recognised)."""
    cls = type(obj)
    return f"{cls.__module__}.{cls.__qualname__}"


def from_package(obj: Any, *packages: str) -> bool:
    """True when ``obj``'s class comes from one of ``packages`` (top-level names)."""
    module = type(obj).__module__ or ""
    return module.split(".", 1)[0] in packages


def to_plain(obj: Any) -> Any:
    """Convert pydantic models, dataclasses, attrs objects and SDK objects into plain data.

    Plain dicts, lists and scalars pass through (recursively converted).
    """
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if isinstance(obj, dict):
        return {str(k): to_plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_plain(v) for v in obj]
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        try:
            # warnings=False: an SDK object built unvalidated (a string where a dict belongs) is
            # read as it is; pydantic would print a page of serializer warnings for it
            return to_plain(dump(mode="json", exclude_none=False, warnings=False))
        except TypeError:
            return to_plain(dump())
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    to_dict = getattr(obj, "to_dict", None) or getattr(obj, "dict", None)
    if callable(to_dict):
        try:
            return to_plain(to_dict())
        except TypeError:
            pass
    if hasattr(obj, "__dict__"):
        return {k: to_plain(v) for k, v in vars(obj).items() if not k.startswith("_")}
    return obj


class MalformedArguments(InputError):
    """The model wrote argument text that is not a JSON object (cut off by ``max_tokens``,
    or plain invalid). Raised by :func:`parse_arguments`; :func:`lenient_arguments` turns it
    into a call with unknown arguments and the raw text kept, because a malformed call is
    the agent failure a user wants scored and reported, not a reason to reject the trace."""

    def __init__(self, message: str, *, reason: str, location: str | None = None,
                 expected: str | None = None) -> None:
        self.reason = reason
        super().__init__(message, location=location, expected=expected)


def parse_arguments(raw: Any, *, where: str) -> dict[str, Any] | None:
    """Arguments as a dict: a JSON object string is parsed, a dict is kept, ``None`` stays
    unknown. Text that is not a JSON object is a :class:`MalformedArguments` (an
    :class:`InputError`) naming ``where``; anything else that is not an object is an InputError."""
    if raw is None:
        return None
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        if not raw.strip():
            return {}
        try:  # within the kernel's read limits: nesting, integer length, lone surrogates
            value = readlimits.loads(raw, location=where, what="tool-call arguments are")
        except json.JSONDecodeError as exc:
            raise MalformedArguments(
                f"tool-call arguments are not valid JSON ({exc.msg})",
                reason=f"not valid JSON: {exc.msg} (character {exc.pos})",
                location=where,
                expected="a JSON object string such as '{\"city\": \"NYC\"}'",
            ) from None
        if isinstance(value, dict):
            return value
        kind = type(value).__name__
        raise MalformedArguments(f"tool-call arguments must be a JSON object, not {kind}",
                                 reason=f"a JSON {kind}, not an object", location=where)
    raise InputError(f"tool-call arguments must be an object, not {type(raw).__name__}", location=where)


def invalid_arguments_metadata(raw: Any, reason: str) -> dict[str, Any]:
    """What a call with malformed arguments keeps: the raw text and why it was rejected
    (scoring reads ``arguments_error`` to report the call; see scoring.behaviour)."""
    return {"raw_arguments": raw, "arguments_error": reason}


def lenient_arguments(raw: Any, *, where: str) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """``(args, metadata)``: :func:`arguments_at` for a model's argument text, except that
    text which is not a JSON object gives ``args=None`` (unknown, so it earns no argument
    credit) and metadata holding the raw text, instead of an error for the whole trace."""
    try:
        return arguments_at(raw, where), None
    except MalformedArguments as exc:
        return None, invalid_arguments_metadata(raw, exc.reason)


_MISSING = object()
_raw_decode = json.JSONDecoder().raw_decode


def arguments_at(raw: Any, at: str, suffix: str = "") -> dict[str, Any] | None:
    """:func:`parse_arguments` for hot loops: the common case (a JSON object string or a
    dict) is parsed directly; the location ``at + suffix`` is only built for an error."""
    if type(raw) is str:
        try:  # raw_decode skips json.loads' wrappers; anything unusual takes the slow path
            value, end = _raw_decode(raw)
        except (ValueError, RecursionError):
            value, end = _MISSING, -1
        if type(value) is dict and (end == len(raw) or not raw[end:].strip()):
            return readlimits.settle(value, raw, location=at + suffix, what="tool-call arguments are")
    elif type(raw) is dict:
        return raw
    return parse_arguments(raw, where=at + suffix)


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a large trace is read.

    Reading 100k calls allocates a few objects per call and creates no reference cycles,
    but every allocation burst triggers collections that walk the whole parsed input again
    (hundreds of thousands of dicts); pausing the collector removes that quadratic-looking
    cost. Reference counting still frees everything; the previous state is restored.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def result_text(content: Any) -> Any:
    """Flatten provider result content (a string, or a list of text blocks) into text;
    anything else is returned as it is."""
    if isinstance(content, list):
        texts: list[str] = [b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
        if texts and len(texts) == len(content):
            return "\n".join(texts)
    return content


def attach_results(calls: list[ToolCall], results: dict[str, dict[str, Any]]) -> list[ToolCall]:
    """Give each call the result recorded under its id (``result``, ``is_error``, ``error``,
    ``duration`` keys). A call with no recorded result keeps ``is_error=None`` (unknown)."""
    import attrs

    out = []
    for call in calls:
        found = results.get(call.id) if call.id is not None else None
        if found is None:
            out.append(call)
            continue
        out.append(attrs.evolve(call, **{k: v for k, v in found.items() if k in {"result", "structured_result", "is_error", "error", "duration"}}))
    return out


def first_present(mapping: dict[str, Any], keys: Iterable[str]) -> Any:
    for key in keys:
        if key in mapping and mapping[key] is not None:
            return mapping[key]
    return None


# ---------------------------------------------------------------------------------------
# Reading message histories: cheap conversion, text extraction and call/result pairing.


_PLAIN_TYPES = (dict, list, str, int, float, bool)


def as_plain(obj: Any) -> Any:
    """``obj`` as plain data, converting only what is not plain already.

    Unlike :func:`to_plain` this does not copy plain dicts and lists (a 100k-message history
    read from JSON is used as it is); nested SDK objects are converted when the adapter
    reaches them, by calling this again on the nested value.
    """
    if obj is None or isinstance(obj, _PLAIN_TYPES):
        return obj
    if isinstance(obj, tuple):
        return list(obj)
    return to_plain(obj)


_TEXT_BLOCK_TYPES = frozenset({"text", "output_text", "input_text"})


def text_of(content: Any) -> str | None:
    """The text a message carries: a string as it is, or the text blocks of a content list
    (``{"type": "text", "text": ...}``, Responses ``output_text``, Gemini ``{"text": ...}``
    parts) joined by newlines. ``None`` when it carries no text."""
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        texts = []
        for block in content:
            block = as_plain(block)
            if isinstance(block, str):
                texts.append(block)
            elif isinstance(block, dict) and isinstance(block.get("text"), str) and (
                "type" not in block or (isinstance(block["type"], str) and block["type"] in _TEXT_BLOCK_TYPES)
            ):
                texts.append(block["text"])
        return "\n".join(texts) if texts else None
    return None


_DURATION_KEYS = frozenset({"duration", "duration_ms", "latency_ms", "elapsed_ms"})


def read_duration(mapping: Any) -> float | None:
    """A duration in seconds from the keys people add to result records (``duration`` in
    seconds, or ``duration_ms`` / ``latency_ms`` / ``elapsed_ms`` in milliseconds);
    ``None`` when none is present or it is not a non-negative number."""
    if not isinstance(mapping, dict) or _DURATION_KEYS.isdisjoint(mapping):
        return None
    for key, scale in (("duration", 1.0), ("duration_ms", 1e-3), ("latency_ms", 1e-3), ("elapsed_ms", 1e-3)):
        value = mapping.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
            return float(value) * scale
    return None


def _positional_order_is_known() -> bool:
    import attrs

    names = [a.name for a in attrs.fields(ToolCall)]
    return names == ["tool", "args", "id", "result", "structured_result", "is_error", "error", "duration",
                     "denied", "denied_reason", "provider", "index", "metadata"]


# CallBook.calls() builds ToolCalls positionally when the field order is the one it knows;
# if model.py ever reorders or inserts a field, it falls back to keywords.
_POSITIONAL = _positional_order_is_known()


class _OpenCall:
    """A call being assembled while a history is read (ToolCall itself is frozen)."""

    __slots__ = ("answered", "args", "duration", "error", "id", "is_error", "location", "metadata",
                 "result", "tool")

    def __init__(self, tool: str, args: dict[str, Any] | None, call_id: str | None,
                 location: str | None, metadata: dict[str, Any] | None) -> None:
        self.tool = tool
        self.args = args
        self.id = call_id
        self.location = location
        self.metadata = metadata
        self.result: Any = None
        self.is_error: bool | None = None
        self.error: str | None = None
        self.duration: float | None = None
        self.answered = False


class CallBook:
    """Collects the calls of a history in order and pairs each result with its call.

    Results are paired by call id; formats without ids (OpenAI's legacy ``function_call``,
    older Gemini) pair a result with the oldest unanswered call of the same name. A call
    that never gets a result stays unknown (``is_error=None``); a result that matches no
    call is remembered in :attr:`unmatched` (its location) rather than invented into a call.
    """

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self._calls: list[_OpenCall] = []
        self._by_id: dict[str, list[_OpenCall]] = {}
        # built on the first result that has no id (most formats never need it)
        self._by_name: dict[str, deque[_OpenCall]] | None = None
        self.unmatched: list[str] = []

    def __len__(self) -> int:
        return len(self._calls)

    def call(self, tool: str, args: dict[str, Any] | None, call_id: Any = None,
             location: str | None = None, metadata: dict[str, Any] | None = None) -> None:
        cid = call_id if type(call_id) is str else (None if call_id is None else str(call_id))
        if cid == "":
            cid = None
        record = _OpenCall(tool, args, cid, location, metadata)
        self._calls.append(record)
        if cid is not None:
            same = self._by_id.get(cid)
            if same is None:
                self._by_id[cid] = [record]
            else:
                same.append(record)
        if self._by_name is not None:
            self._by_name.setdefault(tool, deque()).append(record)

    def result(self, *, call_id: Any = None, name: Any = None, result: Any = None,
               is_error: bool | None = False, error: str | None = None,
               duration: float | None = None, location: str | Callable[[], str] | None = None) -> bool:
        """Attach a result; False (and remembered as unmatched) when no call fits.

        ``location`` may be a function, called only for a result that matches no call."""
        record = self._find(call_id, name)
        if record is None:
            where = location() if callable(location) else location
            self.unmatched.append(where or f"result for {call_id or name or 'an unnamed call'}")
            return False
        record.answered = True
        record.result = result
        record.is_error = is_error
        if is_error and error is None and result is not None:
            error = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, default=str)
        record.error = error
        record.duration = duration
        return True

    def _find(self, call_id: Any, name: Any) -> _OpenCall | None:
        if call_id is not None and call_id != "":
            same = self._by_id.get(call_id if type(call_id) is str else str(call_id))
            if same is not None:
                for record in same:
                    if not record.answered:
                        return record
            return None
        if isinstance(name, str):
            if self._by_name is None:
                self._by_name = {}
                for record in self._calls:
                    self._by_name.setdefault(record.tool, deque()).append(record)
            queue = self._by_name.get(name)
            while queue:
                if not queue[0].answered:
                    return queue[0]
                queue.popleft()
            return None
        return next((c for c in self._calls if not c.answered), None)

    def calls(self) -> list[ToolCall]:
        out = []
        provider = self.provider
        for c in self._calls:
            if c.metadata:
                metadata = dict(c.metadata)
                if c.location:
                    metadata["location"] = c.location
            else:
                metadata = {"location": c.location} if c.location else {}
            if _POSITIONAL:  # ~35% faster than keywords; matters for 100k-call traces
                out.append(ToolCall(c.tool, c.args, c.id, c.result, None, c.is_error, c.error, c.duration,
                                    False, None, provider, None, metadata))
            else:
                out.append(ToolCall(tool=c.tool, args=c.args, id=c.id, result=c.result, is_error=c.is_error,
                                    error=c.error, duration=c.duration, provider=provider, metadata=metadata))
        return out

    def trace_metadata(self) -> dict[str, Any]:
        """What the trace should remember about the reading (results that matched no call)."""
        return {"unmatched_results": list(self.unmatched)} if self.unmatched else {}
