"""Which spans are tool calls, and what each one says about its call.

The rules follow the OpenTelemetry GenAI conventions and the instrumentations that came
before them (the spec's survey of peer tools):

* a span is a tool call when ``gen_ai.operation.name`` is ``execute_tool``, or
  ``mcp.method.name`` is ``tools/call``; else (older or other conventions) when its name is
  ``execute_tool NAME`` or pydantic-ai's ``running tool``, when OpenInference marks it
  ``openinference.span.kind=TOOL``, or when it carries Vercel's ``ai.toolCall.name``;
* arguments and results are opt-in: absent means unknown (``None``), never ``{}``;
* a failure is status ERROR or an ``error.type`` (``tool_error`` = the MCP tool answered
  ``isError``); the message comes from the status, an ``exception`` event, or the result;
* an MCP ``tools/call`` span and the GenAI ``execute_tool`` span for the same call (parent
  and child, or the same ``gen_ai.tool.call.id``) become one call;
* calls are ordered by start time, not by where the exporter happened to write them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import attrs

from toolscore_adapters.protocols import otel_json
from toolscore_adapters.protocols.mcp_result import (
    looks_like_call_tool_result,
    read_call_tool_result,
)
from toolscore_adapters.protocols.otel_spans import STATUS_ERROR, STATUS_OK, Span
from toolscore_core import InputError, ToolCall
from toolscore_core.kernel.model import ToolCallDraft, fills_soundly

TOOL_NAME_KEYS = ("gen_ai.tool.name", "tool.name", "function.name", "ai.toolCall.name")
CALL_ID_KEYS = ("gen_ai.tool.call.id", "ai.toolCall.id", "tool_call.id", "tool.call.id", "tool.id")
ARGUMENT_KEYS = ("gen_ai.tool.call.arguments", "tool_arguments", "tool.arguments", "tool.args",
                 "tool.input", "function.arguments", "ai.toolCall.args", "ai.toolCall.arguments",
                 "ai.toolCall.input", "input.value", "args", "arguments", "input")
RESULT_KEYS = ("gen_ai.tool.call.result", "tool_response", "tool.result", "tool.output",
               "ai.toolCall.result", "ai.toolCall.output", "output.value", "result", "output")
PROVIDER_KEYS = ("gen_ai.provider.name", "gen_ai.system")
_NAME_PREFIXES = ("execute_tool ", "tools/call ")
_METADATA_KEYS = ("jsonrpc.request.id", "mcp.session.id", "gen_ai.tool.type", "rpc.response.status_code")


# Where each ToolCall field is in SpanCall.fields (a test pins them to ToolCall's own fields).
(TOOL, ARGS, ID, RESULT, STRUCTURED_RESULT, IS_ERROR, ERROR, DURATION, DENIED, DENIED_REASON, PROVIDER, INDEX,
 METADATA) = range(13)


@attrs.define(slots=True)
class SpanCall:
    """A tool-call span, reduced to what a :class:`ToolCall` needs plus what merging needs.

    Holding these instead of whole spans is what keeps a streamed file's memory small. The
    call is kept as the arguments of its ToolCall (``ToolCall(*fields)``), made once after
    merging: an MCP span's call merged into its GenAI span's is then never made at all, nor
    the GenAI one made twice (a ToolCall, frozen, cost 1.4 us to make).
    """

    # ToolCall's fields, in its order (TOOL, ARGS, ID ... METADATA above); the duration is
    # None or a non-negative float (span_call's), which ToolCall's converter keeps as it is
    fields: list[Any]
    convention: str  # genai | mcp | openinference | vercel | legacy
    start_ns: int | None
    order: int
    trace_id: str | None
    span_id: str | None
    parent_id: str | None

    @property
    def call(self) -> ToolCall:
        """The call, as ``merge_and_order`` gives it."""
        return ToolCall(*self.fields)


def convention_of(span: Span) -> str | None:
    """The convention that makes ``span`` a tool call, or ``None`` when it is not one."""
    return convention_from(span.name, span.attributes)


def is_tool_span(name: str, attributes: dict[str, Any]) -> bool:
    """Cheap pre-filter from a span's name and attributes alone (see ``otel_spans.Keep``)."""
    return convention_from(name, attributes) is not None


def convention_from(name: str, a: dict[str, Any]) -> str | None:
    method = a.get("mcp.method.name")
    if method is not None:
        return "mcp" if method == "tools/call" else None
    operation = a.get("gen_ai.operation.name")
    if operation is not None:
        return "genai" if operation == "execute_tool" else None
    kind = a.get("openinference.span.kind")
    if kind is not None:
        return "openinference" if isinstance(kind, str) and kind.upper() == "TOOL" else None
    if a.get("ai.toolCall.name") is not None or a.get("ai.operationId") == "ai.toolCall":
        return "vercel"
    if name.startswith("execute_tool ") or (name == "running tool" and _first_str(a, TOOL_NAME_KEYS, _TOOL_NAME_SET)):
        return "legacy"
    return None


# The tool name's spellings as a set, for the one C-level test that a span holds none of them
# (see _first_str); passed by the callers, as making it from the tuple would hash all its keys.
_TOOL_NAME_SET = frozenset(TOOL_NAME_KEYS)


def _first_str(attributes: dict[str, Any], keys: tuple[str, ...], among: frozenset[str]) -> str | None:
    """The first of ``keys`` whose value is a non-blank text, stripped (``among``: their set).

    Why the set: most of a tool name's spellings are absent from any one span: one C-level
    test that it holds none of them instead of a lookup per key."""
    if attributes.keys().isdisjoint(among):
        return None
    return _first_text(attributes, keys)


def _first_text(attributes: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    """The first of ``keys`` whose value is a non-blank text, stripped."""
    for key in keys:
        value = attributes.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _first_key(attributes: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    """The first of ``keys`` with a value."""
    for key in keys:
        if attributes.get(key) is not None:
            return key
    return None


# The key lists span_call asks a tool span about, in this order (see _present).
_PROBED = (ARGUMENT_KEYS, RESULT_KEYS, CALL_ID_KEYS, PROVIDER_KEYS, _METADATA_KEYS)
_PLANS: dict[tuple[Any, ...], tuple[tuple[str, ...], ...]] = {}
_MAX_PLANS = 1024  # distinct attribute key lists remembered (then forgotten all at once)
_LONGEST_REMEMBERED = 64  # attributes: a longer key list is neither worth hashing nor keeping
#: The characters of the remembered key lists' keys, at most (then forgotten all at once). Why: the
#: keys come from the file, and a hostile one with long keys would otherwise keep up to 1,024 x 64
#: of them alive, however large; counted only when a list is first remembered.
_MAX_PLANNED_CHARS = 1 << 20
_planned_chars = [0]


def _present(attributes: dict[str, Any]) -> tuple[tuple[str, ...], ...]:
    """For each list of ``_PROBED``, those of its keys that ``attributes`` holds, in the list's order.

    Why: a tool span was asked about its arguments, result, call id, provider and metadata
    keys, 37 names, by five C-level tests that it holds none of a list and a lookup for each
    key of a list it does hold some of (about 2 us a trace of the OTLP export). The spans of
    one instrumentation carry the same attribute keys in the same order, so the answer is
    kept for their key list: one tuple made and one dict lookup a span, then a lookup only
    for the keys that are there."""
    if len(attributes) > _LONGEST_REMEMBERED:
        return _plan(attributes)
    keys = tuple(attributes)
    plan = _PLANS.get(keys)
    if plan is None:
        chars = sum(len(key) if type(key) is str else 1 for key in keys)  # (a live span's keys may be anything)
        if len(_PLANS) >= _MAX_PLANS or _planned_chars[0] + chars > _MAX_PLANNED_CHARS:
            _PLANS.clear()
            _planned_chars[0] = 0
        plan = _plan(attributes)
        if chars <= _MAX_PLANNED_CHARS:
            _PLANS[keys] = plan
            _planned_chars[0] += chars
    return plan


def _plan(attributes: dict[str, Any]) -> tuple[tuple[str, ...], ...]:
    """:func:`_present`'s answer, found key by key."""
    return tuple(tuple(key for key in listed if key in attributes) for listed in _PROBED)


def _tool_name(span: Span, convention: str) -> str:
    name = span.attributes.get("gen_ai.tool.name")  # the usual case, checked first
    if type(name) is str and name and not name[0].isspace() and not name[-1].isspace():
        return name
    name = _first_str(span.attributes, TOOL_NAME_KEYS, _TOOL_NAME_SET)
    if name:
        return name
    for prefix in _NAME_PREFIXES:
        if span.name.startswith(prefix) and span.name[len(prefix):].strip():
            return span.name[len(prefix):].strip()
    if convention in ("openinference", "vercel") and span.name not in ("ai.toolCall",):
        return span.name  # OpenInference names a TOOL span after the function
    raise InputError(f"tool-call span {span.name!r} does not name its tool", location=span.where,
                     expected="a gen_ai.tool.name attribute, or a span name like 'execute_tool NAME'")


def _arguments(span: Span, present: tuple[str, ...]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """``(args, metadata)`` (``present``: the span's ARGUMENT_KEYS, see :func:`_present`).
    Argument text that is not a JSON object is the agent's own failure (a cut-off or
    malformed answer): the call is kept with unknown arguments and the raw text in its
    metadata, so the rest of the trace is still scored."""
    key = _first_key(span.attributes, present)
    if key is None:
        return None, None  # opt-in content was off: unknown, not "no arguments"
    value = span.attributes[key]
    if key == "input.value" and span.attributes.get("input.mime_type") not in (None, "application/json"):
        return {"input": value}, None  # OpenInference plain-text input: keep it, under a clear name
    if isinstance(value, dict):
        return value, None
    if isinstance(value, str):
        if not value.strip():
            return {}, None
        try:  # within the kernel's read limits: nesting, integer length, lone surrogates
            parsed = otel_json.loads(value, location=lambda: f"{span.where}.attributes[{key!r}]",
                                     what="tool-call arguments are")  # the place is spelled for an error only
        except json.JSONDecodeError as exc:
            return None, {"raw_arguments": value, "arguments_error": f"not valid JSON: {exc.msg} (character {exc.pos})"}
        if isinstance(parsed, dict):
            return parsed, None
        return None, {"raw_arguments": value, "arguments_error": f"a JSON {type(parsed).__name__}, not an object"}
    raise InputError(f"tool-call arguments must be an object, not {type(value).__name__}",
                     location=f"{span.where}.attributes[{key!r}]")


def _result(span: Span, present: tuple[str, ...]) -> tuple[Any, Any, bool, bool | None, str | None]:
    """``(result, structured_result, recorded, mcp_is_error, mcp_error)`` (``present``: the
    span's RESULT_KEYS, see :func:`_present`)."""
    key = _first_key(span.attributes, present)
    if key is None:
        return None, None, False, None, None
    value = span.attributes[key]
    # A result stays the text the span recorded (as tool results do in every other format);
    # only an MCP CallToolResult serialised as JSON is opened, to read its isError and text.
    if isinstance(value, str) and value.startswith("{") and '"content"' in value[:64]:
        value = _opened(value)
    if looks_like_call_tool_result(value):
        result, structured, is_error, error = read_call_tool_result(value)
        return result, structured, True, is_error, error
    return value, None, True, None, None


def _opened(text: str) -> Any:
    """The JSON value of ``text``, or ``text`` itself when it is not readable JSON.

    Why not ``contextlib.suppress``: making and entering the context manager cost more than
    reading a short result."""
    try:
        return otel_json.loads(text)
    except (ValueError, RecursionError):  # InputError is a ValueError too
        return text


def _exception_message(span: Span) -> str | None:
    for name, attributes in span.events:
        if name == "exception":
            message = attributes.get("exception.message")
            if isinstance(message, str) and message:
                return message
            kind = attributes.get("exception.type")
            if isinstance(kind, str) and kind:
                return kind
    return None


def span_call(span: Span) -> SpanCall | None:
    """The tool call ``span`` records, or ``None`` when it is not a tool-call span."""
    convention = convention_from(span.name, span.attributes)
    if convention is None:
        return None
    a = span.attributes
    argument_keys, result_keys, call_id_keys, provider_keys, metadata_keys = _present(a)
    tool = _tool_name(span, convention)
    args, invalid = _arguments(span, argument_keys)
    result, structured, recorded, result_is_error, result_error = _result(span, result_keys)
    error_type = a.get("error.type")
    error_type = str(error_type) if error_type not in (None, "") else None
    if span.status_code == STATUS_ERROR or error_type is not None or result_is_error:
        is_error: bool | None = True
        error = span.status_message or _exception_message(span) or result_error
        if error is None and error_type is not None:
            error = "the tool reported an error" if error_type == "tool_error" else f"error.type {error_type}"
        if error is None:
            error = "the span's status is ERROR"
    elif span.status_code == STATUS_OK or span.end_ns is not None or recorded:
        is_error, error = False, None  # the span ended and nothing says it failed
    else:
        is_error, error = None, None  # never ended: outcome unknown
    duration = None
    if span.start_ns is not None and span.end_ns is not None and span.end_ns >= span.start_ns:
        duration = (span.end_ns - span.start_ns) / 1e9
    metadata: dict[str, Any] = {"span_name": span.name, "convention": convention}
    if span.span_id:
        metadata["span_id"] = span.span_id
    if span.trace_id:
        metadata["trace_id"] = span.trace_id
    for key in metadata_keys:  # (a GenAI span has none of them)
        value = a.get(key)
        if value is not None:
            metadata[key] = value
    if error_type is not None:
        metadata["error.type"] = error_type
    if invalid:
        metadata.update(invalid)
    call_id = _first_text(a, call_id_keys)
    #        tool, args, id,      result, structured_result, is_error, error, duration,
    fields = [tool, args, call_id, result, structured, is_error, error, duration,
              False, None, _first_text(a, provider_keys), None, metadata]
    #         denied, denied_reason, provider,          index, metadata
    return SpanCall(fields, convention, span.start_ns, span.order, span.trace_id, span.span_id, span.parent_id)


def _same_call(mcp: SpanCall, other: SpanCall) -> bool:
    if mcp.fields[TOOL] != other.fields[TOOL]:
        return False
    if mcp.trace_id and other.trace_id and mcp.trace_id != other.trace_id:
        return False
    related = (mcp.parent_id is not None and mcp.parent_id == other.span_id) or (
        other.parent_id is not None and other.parent_id == mcp.span_id)
    mcp_id = mcp.fields[ID]
    return related or (mcp_id is not None and mcp_id == other.fields[ID])


def _merge(outer: SpanCall, mcp: SpanCall) -> SpanCall:
    """One call from the GenAI span (``outer``) and the MCP span, each filling the other's gaps
    (every field not merged is the outer call's)."""
    (tool, args, call_id, result, structured, a_error, a_message, duration, denied, denied_reason, provider, index,
     metadata) = outer.fields
    b = mcp.fields
    b_error = b[IS_ERROR]
    # what lists of the known flags, durations and starts gave, without making the lists
    is_error = True if True in (a_error, b_error) else (
        False if a_error is not None or b_error is not None else None)
    error = (a_message or b[ERROR]) if is_error else None
    fields = [tool, args if args is not None else b[ARGS], call_id or b[ID], result if result is not None else b[RESULT],
              structured if structured is not None else b[STRUCTURED_RESULT], is_error, error,
              _known(max, duration, b[DURATION]), denied, denied_reason, provider or b[PROVIDER], index,
              {**b[METADATA], **metadata, "merged_mcp_span": b[METADATA].get("span_id")}]
    #               fields, convention,       start_ns,
    return SpanCall(fields, outer.convention, _known(min, outer.start_ns, mcp.start_ns),
                    min(outer.order, mcp.order), outer.trace_id, outer.span_id, outer.parent_id)
    #               order,                      trace_id,       span_id,       parent_id


def _known(pick: Callable[[Any, Any], Any], first: Any, second: Any) -> Any:
    """``pick`` of the two values that are not None (``pick([first, second])`` when both are), or None."""
    if first is None:
        return second
    return first if second is None else pick(first, second)


def _start_order(found: SpanCall) -> tuple[bool, int, int]:
    return found.start_ns is None, found.start_ns or 0, found.order


def merge_and_order(found: list[SpanCall]) -> list[ToolCall]:
    """Merge each MCP span into the GenAI span of the same call, then sort by start time."""
    return _tool_calls(merged_in_order(found))


def merged_in_order(found: list[SpanCall]) -> list[SpanCall]:
    """:func:`merge_and_order` before its ToolCalls are made: for a reader that needs only some
    of their fields (the export's plain-trace reader)."""
    mcp_spans = [c for c in found if c.convention == "mcp"]
    if mcp_spans and len(mcp_spans) < len(found):  # MCP spans and others: the others are the partners
        others = [c for c in found if c.convention != "mcp"]
        by_span: dict[str, int] = {}  # (the last call of a span id, as a dict of them all keeps)
        by_parent: dict[str, list[int]] = {}
        by_call_id: dict[str, list[int]] = {}
        for i, c in enumerate(others):
            if c.span_id:
                by_span[c.span_id] = i
            if c.parent_id:
                by_parent.setdefault(c.parent_id, []).append(i)
            call_id = c.fields[ID]
            if call_id:
                by_call_id.setdefault(call_id, []).append(i)
        taken: set[int] = set()
        unmerged = []
        for m in mcp_spans:
            partner = _partner(m, others, taken, by_span, by_parent, by_call_id)
            if partner is None:
                unmerged.append(m)
            else:
                taken.add(partner)
                others[partner] = _merge(others[partner], m)
        found = others + unmerged
    found.sort(key=_start_order)
    return found


_FIELDS = ("tool", "args", "id", "result", "structured_result", "is_error", "error", "duration", "denied",
           "denied_reason", "provider", "index", "metadata")
# Filling a draft is only sound while ToolCall has these fields in this order (SpanCall.fields'),
# no validator and no converter but ``seconds`` on the duration: otherwise the general way.
_DRAFTS_SOUND = fills_soundly(ToolCallDraft, ToolCall, _FIELDS, frozenset({"duration"}))
_INFINITY = float("inf")


def _tool_calls(found: list[SpanCall]) -> list[ToolCall]:
    """``[ToolCall(*c.fields) for c in found]``, each made as a draft (see ``model.draft_of``:
    plain slot stores, then ``__class__``) when its duration is one ``seconds`` keeps as it is.

    Why: a ToolCall made by its frozen ``__init__`` cost about 1.4 us, a draft 0.2 us, and a
    trace of the OTLP export has three calls."""
    if not _DRAFTS_SOUND:
        return [ToolCall(*c.fields) for c in found]
    draft, tool_call, infinity = ToolCallDraft, ToolCall, _INFINITY
    calls: list[ToolCall] = []
    for c in found:
        fields = c.fields
        duration = fields[DURATION]
        if duration is not None and not (type(duration) is float and 0 <= duration < infinity):
            calls.append(ToolCall(*fields))  # seconds() would change it (or an int, a NaN...): its own way
            continue
        call = draft()
        (call.tool, call.args, call.id, call.result, call.structured_result, call.is_error, call.error, call.duration,
         call.denied, call.denied_reason, call.provider, call.index, call.metadata) = fields  # in _FIELDS' order
        call.__class__ = tool_call  # every field is stored: from here on a frozen ToolCall
        calls.append(call)
    return calls


def _partner(mcp: SpanCall, others: list[SpanCall], taken: set[int], by_span: dict[str, int],
             by_parent: dict[str, list[int]], by_call_id: dict[str, list[int]]) -> int | None:
    """The first of ``others`` not yet taken that records the same call as ``mcp``: its parent,
    then its children, then those with its call id."""
    if mcp.parent_id:
        i = by_span.get(mcp.parent_id)
        if i is not None and i not in taken and _same_call(mcp, others[i]):
            return i
    options = by_parent.get(mcp.span_id, ()) if mcp.span_id else ()
    call_id = mcp.fields[ID]
    if call_id:
        options = [*options, *by_call_id.get(call_id, ())]
    for i in options:
        if i not in taken and _same_call(mcp, others[i]):
            return i
    return None


# What ``span_call`` asks of a tool span's attributes, under public names for a reader of raw spans
# that makes no Span (the export's plain-trace reader): one copy of each rule. ``calls_as_drafts``:
# whether ``merge_and_order`` hands out its fields unchanged (see ``_tool_calls``).
present_keys, first_key, first_text, opened_result, calls_as_drafts = (
    _present, _first_key, _first_text, _opened, _DRAFTS_SOUND)
