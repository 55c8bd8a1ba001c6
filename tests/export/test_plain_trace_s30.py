"""The plain-trace reader (``plain_trace.plain_trace_calls``) against the general path it stands in for (issue 11).

Why: the reader skips the adapter's decoding of a trace's spans (``otlp_span``, ``load_spans``,
``trace_calls``) for the shapes instrumentations commonly write; it may decline any trace (None:
the general path then reads it), but a result it gives must be exactly the general path's: the
same calls (compared by ``repr``, so ``True``/``1``/``1.0`` and key order count, and by their
``orjson`` bytes), the same final answer and the same run span, and only for a trace the general
path reads without an error. Random traces mix the plain shapes with every odd one the adapter reads
(conventions, MCP/GenAI pairs, attribute values, ids, times, errors, answers, run spans); each is
made from its seed alone, which a failure names, with both sides and the trace cut down to
what still fails. The pool's ``_trace_line`` (which uses the reader when no gold is given) must
give the bytes of the general path's record line.
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from toolscore_export import per_trace_pool as pool
from toolscore_export.per_trace import (
    NO_TRACE_ID,
    known_key,
    otel_modules,
    plain_spans,
)
from toolscore_export.record import SourceRef, record_line
from toolscore_export.run_span import RunSpans
from toolscore_export.sources import trace_calls

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "adapters" / "fixtures" / "otel"
OTLP_FILES = sorted([*FIXTURES.glob("*.json"), *FIXTURES.glob("*.jsonl"), ROOT / "examples" / "otel_genai_spans.json"])
SOURCE = SourceRef("trace", "t.jsonl", "ab" * 32, format="otlp")
RANDOM_TRACES = 6000  # random traces (each its own seed) the differential test reads
PLAIN_TRACES = 400  # traces of the plain-only generator

Found = list[tuple[Any, int]]
Plain = Callable[[Found, str], Any]


# ---------------------------------------------------------------- the general path (the reference)

def reference(found: Found, key: str) -> tuple[list[dict[str, Any]], Any, str | None]:
    """``(calls, final answer, run span id)`` of one trace's raw spans, as the export's general path reads them."""
    otel, spans = otel_modules()
    run_spans, decoded = RunSpans(), []
    for span, order in found:
        decoded.append(spans.otlp_span(span, "", order, otel.wanted))
        run_spans.add(span, key)
    trace = otel.OtelAdapter().load_spans(decoded)
    return trace_calls(trace), trace.final_answer, (run_spans.pick() if key != NO_TRACE_ID else None)


def reference_line(key: str, found: Found, adapter: Any, otel: Any, spans: Any, source: SourceRef,
                   context: Any, record_line: Any) -> bytes:
    """``per_trace_pool._trace_line`` as it was before the plain reader (every trace by the general path)."""
    return pool.adapter_line(key, found, adapter, otel, spans, source, context, record_line)


def _dumped(value: Any) -> str:
    """``orjson.dumps`` of ``value``, or its error (a 30-digit integer or a lone surrogate is one)."""
    try:
        return orjson.dumps(value).decode()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


def verdict(plain: Plain, found: Found, key: str) -> tuple[bool, str | None]:
    """``(accepted, mismatch)``: whether ``plain`` gave a result, and what is wrong with it (None: nothing)."""
    before = orjson.dumps([span for span, _ in found])
    try:
        got = plain(found, key)
    except Exception as exc:
        return False, f"the plain reader raised {type(exc).__name__}: {exc}"
    if orjson.dumps([span for span, _ in found]) != before:
        return got is not None, "the plain reader changed its input spans"
    if got is None:
        return False, None
    try:
        calls, answer, span_id = reference(found, key)
    except Exception as exc:
        return True, f"plain gave {got!r}\nbut the general path raised {type(exc).__name__}: {exc}"
    if type(got) is not tuple or len(got) != 3:
        return True, f"plain gave {got!r}, not (calls, final answer, run span id)"
    if repr(got) != repr((calls, answer, span_id)):
        return True, f"plain:   {got!r}\ngeneral: {(calls, answer, span_id)!r}"
    if _dumped(got[0]) != _dumped(calls):
        return True, f"plain:   {_dumped(got[0])}\ngeneral: {_dumped(calls)}"
    return True, None


def _shrunk(plain: Plain, found: Found, key: str) -> Found:
    """The trace cut down (a span, a span's field, an attribute at a time) while the plain reader still fails
    on it: what a failure shows, so that its cause can be read off."""
    _, spans = otel_modules()

    def fails(candidate: Found) -> bool:
        try:  # a cut that takes a span out of the trace (its trace id) is not taken
            return all(known_key(span, {}, spans) == key for span, _ in candidate) and verdict(
                plain, candidate, key)[1] is not None
        except Exception:  # nor one that breaks the comparison itself
            return False

    found = copy.deepcopy(found)
    changed = True
    while changed:
        changed = False
        for i in range(len(found)):
            candidate = found[:i] + found[i + 1:]
            if candidate and fails(candidate):
                found, changed = candidate, True
                break
        for i, (span, order) in enumerate(found):
            if not isinstance(span, dict):
                continue
            for field in list(span):
                smaller = {k: v for k, v in span.items() if k != field}
                if fails([*found[:i], (smaller, order), *found[i + 1:]]):
                    found[i], span, changed = (smaller, order), smaller, True
            items = span.get("attributes")
            if isinstance(items, list):
                for j in reversed(range(len(items))):
                    smaller = dict(span, attributes=items[:j] + items[j + 1:])
                    if fails([*found[:i], (smaller, order), *found[i + 1:]]):
                        found[i], span, items, changed = (smaller, order), smaller, smaller["attributes"], True
    return found


def mismatch_message(plain: Plain, found: Found, key: str, what: str, problem: str) -> str:
    """A failure's message: where the trace came from (``what``: its seed), the problem, the trace cut down."""
    small = _shrunk(plain, found, key)
    return (f"{what} (key {key!r}): {problem}\nthe trace cut down to what still fails: {key!r}, "
            f"{json.dumps(small, default=repr)[:6000]}\nits verdict: {verdict(plain, small, key)[1]}")


# ---------------------------------------------------------------- random raw spans of one trace

HEX = "0123456789abcdef"
TOOLS = ("read_text_file", "read_text_file", "move_file", "search", "é☃ tool")
BLOCKS = [{"type": "text", "text": "- buy milk"}]
ERRORS = ("Access denied - path outside allowed directories", "Invalid params: destination is required", "boom")


def _hex(rng: random.Random, width: int) -> str:
    return "".join(rng.choice(HEX) for _ in range(width))


def _s(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value}}


class _Trace:
    """The spans of one trace as an instrumented agent writes them (see :func:`plain_trace`)."""

    def __init__(self, rng: random.Random, trace_id: str) -> None:
        self.rng = rng
        self.trace_id = trace_id
        self.spans: list[dict[str, Any]] = []
        self.clock = 1795000000000000000 + rng.randint(0, 10**6) * 10**6

    def span(self, name: str, attributes: list[Any], parent: str | None, *, length: int = 5,
             status: Any = None) -> dict[str, Any]:
        rng = self.rng
        self.clock += rng.choice([0, 1, 1000, 10**6])  # equal starts happen: the span's place breaks the tie
        start = self.clock
        span: dict[str, Any] = {"traceId": self.trace_id, "spanId": _hex(rng, 16)}
        if parent is not None:
            span["parentSpanId"] = parent
        span.update(name=name, kind=rng.choice([1, 3]), startTimeUnixNano=str(start),
                    endTimeUnixNano=str(start + length * 10**6 + rng.randint(0, 999)), attributes=attributes,
                    status={} if status is None else status, flags=256)
        self.spans.append(span)
        return span


def _tool_attributes(rng: random.Random, tool: str, mcp: bool, call_id: str | None, *, args: bool, result: bool,
                     error: str | None) -> list[Any]:
    items: list[Any] = []
    if mcp:
        items.append(_s("mcp.method.name", "tools/call"))
    if not mcp or rng.random() < 0.5:
        items.append(_s("gen_ai.operation.name", "execute_tool"))
    items.append(_s("gen_ai.tool.name", tool))
    if call_id is not None:
        items.append(_s("gen_ai.tool.call.id", call_id))
    if mcp:
        items.append(_s("jsonrpc.request.id", str(rng.randint(1, 99))))
        if rng.random() < 0.7:
            items.append(_s("mcp.session.id", "sess-1"))
        if rng.random() < 0.3:
            items.append(_s("network.transport", "pipe"))
    if args:
        items.append(_s("gen_ai.tool.call.arguments", rng.choice(
            ['{"path": "notes/todo.md"}', '{"source": "a.txt"}', '{"q": "é", "n": 3, "deep": {"a": [1, 2.5, null]}}',
             "{}"])))
    if result:
        if mcp or rng.random() < 0.5:
            text = json.dumps({"content": BLOCKS, "isError": error == "tool_error"})
        else:
            text = rng.choice(["- buy milk", "moved", ""])
        items.append(_s("gen_ai.tool.call.result", text))
    if error is not None:
        items.append(_s("error.type", error))
        if error == "-32602" and rng.random() < 0.5:
            items.append(_s("rpc.response.status_code", "-32602"))
    if rng.random() < 0.2:
        items.append(_s("gen_ai.provider.name", "openai"))
    return items


def plain_trace(rng: random.Random, trace_id: str) -> list[dict[str, Any]]:
    """The raw spans of one trace in the shapes GenAI and MCP instrumentations commonly write: an
    ``invoke_agent`` root, ``chat`` spans without recorded messages, ``tools/list``, and tool calls
    as a GenAI ``execute_tool`` span with an MCP ``tools/call`` child (or sharing its call id), or
    either alone; string values, lowercase hex ids, 19-digit times, errors as status and ``error.type``.
    The spans come in an exporter's order: children before their parents now and then."""
    trace = _Trace(rng, trace_id)
    root: str | None = None
    if rng.random() < 0.9:
        agent = trace.span("invoke_agent files-agent", [_s("gen_ai.operation.name", "invoke_agent"),
                                                         _s("gen_ai.agent.name", "files-agent")], None, length=90)
        root = agent["spanId"]
    for _ in range(rng.randint(0, 5)):
        kind = rng.random()
        if kind < 0.15:
            trace.span("chat gpt-4o", [_s("gen_ai.operation.name", "chat"), _s("gen_ai.provider.name", "openai"),
                                       {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "412"}}], root)
            continue
        if kind < 0.25:
            trace.span("tools/list", [_s("mcp.method.name", "tools/list"), _s("jsonrpc.request.id", "1")], root)
            continue
        tool = rng.choice(TOOLS)
        call_id = f"call_{_hex(rng, 6)}" if rng.random() < 0.7 else None
        error = rng.choice([None, None, None, "tool_error", "-32602"])
        status = {"code": 2, "message": rng.choice(ERRORS)} if error and rng.random() < 0.7 else None
        shape = rng.choice(["pair", "pair", "pair-by-id", "genai", "mcp"])
        if shape == "mcp":
            trace.span(f"tools/call {tool}", _tool_attributes(rng, tool, True, call_id, args=True, result=True,
                                                              error=error), root, status=status)
            continue
        genai = trace.span(f"execute_tool {tool}", _tool_attributes(
            rng, tool, False, call_id, args=True, result=shape == "genai" and rng.random() < 0.5,
            error=error if shape == "genai" else None), root, length=10,
            status=status if shape == "genai" else None)
        if shape != "genai":
            parent = genai["spanId"] if shape == "pair" else root
            trace.span(f"tools/call {tool}", _tool_attributes(
                rng, tool, True, call_id if shape == "pair-by-id" or rng.random() < 0.5 else None,
                args=rng.random() < 0.5, result=True, error=error), parent, status=status)
    spans = trace.spans
    if rng.random() < 0.5:  # the exporter writes a span when it ends: children first
        spans.reverse()
    elif rng.random() < 0.3:
        rng.shuffle(spans)
    return spans


# The odd shapes, each a change to a plain trace's spans.

def _attributes_of(rng: random.Random, spans: list[dict[str, Any]]) -> list[Any]:
    span = rng.choice(spans)
    items = span.get("attributes")
    if not isinstance(items, list):
        items = span["attributes"] = []
    return items


def _tool_spans(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for span in spans:
        items = span.get("attributes")
        keys = {item.get("key") for item in items if isinstance(item, dict)} if isinstance(items, list) else set()
        if keys & {"gen_ai.tool.name", "mcp.method.name", "tool.name", "ai.toolCall.name"}:
            out.append(span)
    return out or spans


def _set(span: dict[str, Any], key: str, value: Any) -> None:
    """Set attribute ``key`` of ``span`` to the AnyValue ``value`` (None: remove it)."""
    items = span.get("attributes")
    if not isinstance(items, list):
        items = span["attributes"] = []
    kept = [item for item in items if not (isinstance(item, dict) and item.get("key") == key)]
    if value is not None:
        kept.append({"key": key, "value": value})
    span["attributes"] = kept


def _value_of(span: dict[str, Any], key: str) -> Any:
    for item in span.get("attributes") or ():
        if isinstance(item, dict) and item.get("key") == key:
            return item.get("value")
    return None


ODD_VALUES: list[Any] = [
    {"intValue": 5}, {"intValue": "5"}, {"intValue": "-5"}, {"intValue": "+5"}, {"intValue": " 5"}, {"intValue": "9" * 30},
    {"intValue": "9" * 21}, {"intValue": 2**70}, {"intValue": 1.0}, {"intValue": 1.5}, {"intValue": True},
    {"intValue": "x"}, {"boolValue": True}, {"boolValue": False}, {"boolValue": 1}, {"boolValue": "yes"},
    {"doubleValue": 1.5}, {"doubleValue": 3}, {"doubleValue": "NaN"}, {"doubleValue": "Infinity"}, {"doubleValue": "x"},
    {"arrayValue": {"values": [{"stringValue": "a"}, {"intValue": "2"}]}}, {"arrayValue": {}}, {"arrayValue": None},
    {"kvlistValue": {"values": [{"key": "k", "value": {"stringValue": "v"}}]}}, {"kvlistValue": {"values": "no"}},
    {"bytesValue": "AAE="}, {}, {"weirdValue": 1}, {"stringValue": "a", "intValue": "1"}, {"intValue": "1", "stringValue": "a"},
    {"boolValue": True, "intValue": "1"}, {"string_value": "s"}, {"int_value": "7"}, {"stringValue": None},
    {"stringValue": 5}, {"stringValue": ""}, {"stringValue": " x "}, None, "text", [1],
]


def odd_value(rng: random.Random, spans: list[dict[str, Any]]) -> None:
    """An attribute's value of another kind (or of two kinds, or none, or not an AnyValue)."""
    items = _attributes_of(rng, _tool_spans(spans) if rng.random() < 0.7 else spans)
    if items:
        item = rng.choice(items)
        if isinstance(item, dict):
            item["value"] = copy.deepcopy(rng.choice(ODD_VALUES))


def odd_item(rng: random.Random, spans: list[dict[str, Any]]) -> None:
    """An attribute item that is not ``{"key": str, "value": dict}``, or a key given twice."""
    items = _attributes_of(rng, _tool_spans(spans))
    choice = rng.random()
    if choice < 0.5 and items:  # the same key again, with another value, before or after it
        item = rng.choice(items)
        if isinstance(item, dict):
            other = {"key": item.get("key"), "value": copy.deepcopy(rng.choice(
                [{"stringValue": "other"}, {"stringValue": "execute_tool"}, {"stringValue": "tools/call"},
                 {"intValue": "3"}, *ODD_VALUES[:6]]))}
            items.insert(rng.choice([0, len(items)]), other)
        return
    items.insert(rng.randint(0, len(items)), copy.deepcopy(rng.choice(
        ["not an item", 5, None, [], {"key": 5, "value": {"stringValue": "x"}}, {"value": {"stringValue": "x"}},
         {"key": "k"}, {"key": "k", "value": None}, {"key": "k", "value": {"stringValue": "x"}, "extra": 1},
         {"key": None, "value": {"stringValue": "x"}}])))


def odd_tool_name(rng: random.Random, spans: list[dict[str, Any]]) -> None:
    """The tool's name padded, empty, missing (then from the span's name) or under another key."""
    span = rng.choice(_tool_spans(spans))
    name = _value_of(span, "gen_ai.tool.name")
    name = name.get("stringValue") if isinstance(name, dict) else None
    choice = rng.choice(["padded", "empty", "blank", "missing", "tool.name", "function.name", "both", "odd-span-name"])
    if choice == "padded":
        _set(span, "gen_ai.tool.name", {"stringValue": f" {name or 'x'} "})
    elif choice in ("empty", "blank"):
        _set(span, "gen_ai.tool.name", {"stringValue": "" if choice == "empty" else "  "})
    elif choice == "missing":
        _set(span, "gen_ai.tool.name", None)
    elif choice in ("tool.name", "function.name"):
        _set(span, "gen_ai.tool.name", None)
        _set(span, choice, {"stringValue": name or "x"})
    elif choice == "both":
        _set(span, "tool.name", {"stringValue": "other_tool"})
    else:
        span["name"] = rng.choice(["execute_tool", "execute_tool  ", "tools/call", "execute_tool other", "tool",
                                   "running tool", "", 5, None])
        if rng.random() < 0.5:
            _set(span, "gen_ai.tool.name", None)


DEEP = "[" * 101 + "]" * 101
ODD_ARGUMENTS = ['', '  ', 'not json', '{"a": 1', '[1, 2]', '"text"', '5', 'null', DEEP, '{"a":' * 101 + '1' + '}' * 101,
                 '{"n": ' + "9" * 30 + '}', '{"n": -' + "9" * 30 + '}', '{"a": NaN}', '{"a": Infinity}', '{"s": "\\ud800"}',
                 '{"\\udc00": 1}', ' {"a": 1} ', '\ufeff{}', '{}{}', '{"a": 1, "a": 2}', '{"a": 1e400}', '{"a": 1.0}',
                 '{"a": -0.0, "b": 1E2}', '{"é": "\\u00e9", "t": true}', '{"p": "a\\nb"}']


def odd_arguments(rng: random.Random, spans: list[dict[str, Any]]) -> None:
    """Arguments that are no JSON object, blank, deep, long, NaN, a lone surrogate, a kvlist, or under another key."""
    span = rng.choice(_tool_spans(spans))
    choice = rng.random()
    if choice < 0.6:
        _set(span, "gen_ai.tool.call.arguments", {"stringValue": rng.choice(ODD_ARGUMENTS)})
    elif choice < 0.7:
        _set(span, "gen_ai.tool.call.arguments", copy.deepcopy(rng.choice(
            [{"kvlistValue": {"values": [_s("path", "a.txt"), {"key": "n", "value": {"intValue": "3"}}]}},
             {"kvlistValue": {"values": []}}, {"arrayValue": {"values": [{"stringValue": "a"}]}}, {"intValue": "5"},
             {"boolValue": True}, {"bytesValue": "e30="}, {}])))
    else:
        value = _value_of(span, "gen_ai.tool.call.arguments") or {"stringValue": rng.choice(ODD_ARGUMENTS[:8])}
        _set(span, "gen_ai.tool.call.arguments", None)
        key = rng.choice(["input.value", "input.value", "tool.args", "tool_arguments", "ai.toolCall.args", "args",
                          "input"])
        _set(span, key, value)
        if key == "input.value" and rng.random() < 0.7:
            _set(span, "input.mime_type", {"stringValue": rng.choice(["text/plain", "application/json", ""])})


ODD_RESULTS = ["plain text", "", "{not json but \"content\"", '{"content": [', '{"a": 1}', '{"content": "x"}',
               json.dumps({"content": BLOCKS, "isError": True}), json.dumps({"content": BLOCKS}),
               json.dumps({"content": BLOCKS, "isError": False, "structuredContent": {"n": 1}}),
               json.dumps({"content": BLOCKS, "isError": "yes"}), json.dumps({"content": [], "isError": True}),
               json.dumps({"content": [{"type": "image", "data": "AAE="}], "isError": True}),
               json.dumps({"content": BLOCKS, "other": 1}), ' {"content": []}', "[1, 2]", '{"content": ' + DEEP + '}',
               '{"content": [], "n": ' + "9" * 30 + '}', '{"content": [], "s": "\\ud800"}', '{"content": [], "a": NaN}']


def odd_result(rng: random.Random, spans: list[dict[str, Any]]) -> None:
    """Results as plain text, CallToolResults (errors, structured content), other JSON, or under another key."""
    span = rng.choice(_tool_spans(spans))
    choice = rng.random()
    if choice < 0.7:
        _set(span, "gen_ai.tool.call.result", {"stringValue": rng.choice(ODD_RESULTS)})
    elif choice < 0.8:
        _set(span, "gen_ai.tool.call.result", copy.deepcopy(rng.choice(
            [{"kvlistValue": {"values": [{"key": "content", "value": {"arrayValue": {"values": []}}},
                                         {"key": "isError", "value": {"boolValue": True}}]}},
             {"arrayValue": {"values": [{"stringValue": "a"}]}}, {"intValue": "5"}, {"boolValue": False}, {}])))
    else:
        value = _value_of(span, "gen_ai.tool.call.result") or {"stringValue": rng.choice(ODD_RESULTS)}
        _set(span, "gen_ai.tool.call.result", None)
        _set(span, rng.choice(["tool.result", "output.value", "tool_response", "ai.toolCall.result", "result"]), value)


def odd_error(rng: random.Random, spans: list[dict[str, Any]]) -> None:
    """Errors by ``error.type``, by status (every spelling, and shapes the reader refuses) and by events."""
    span = rng.choice(_tool_spans(spans))
    choice = rng.random()
    if choice < 0.3:
        _set(span, "error.type", copy.deepcopy(rng.choice(
            [{"stringValue": "tool_error"}, {"stringValue": "-32602"}, {"intValue": "5"}, {"intValue": 0},
             {"stringValue": ""}, {"boolValue": False}, {"stringValue": " "}])))
    elif choice < 0.7:
        span["status"] = copy.deepcopy(rng.choice(
            [{}, None, {"code": 2, "message": "boom"}, {"code": 2}, {"code": 2, "message": ""}, {"code": 1},
             {"code": 0}, {"code": "STATUS_CODE_ERROR"}, {"code": "STATUS_CODE_OK"}, {"code": "ERROR", "message": "m"},
             {"code": 7}, {"code": True}, {"code": 2.0}, {"code": 2, "message": 5}, {"status_code": "ERROR"},
             {"code": 2, "description": "d"}, {"message": "m"}, [], "ERROR", {"code": None}]))
        if span["status"] is None:
            del span["status"]
    else:
        exception = {"name": "exception", "attributes": [
            _s("exception.message", rng.choice(["bad", ""])), _s("exception.type", "ValueError")]}
        span["events"] = copy.deepcopy(rng.choice(
            [[], None, [exception], [{"name": "exception", "attributes": {"exception.type": "E"}}],
             [{"name": "log", "attributes": []}, exception], [{"name": 5}], "events", [5], {},
             [{"name": "exception", "attributes": [_s("exception.type", "KeyError")]}]]))
        if rng.random() < 0.7:
            span["status"] = {"code": 2}


def odd_ids(rng: random.Random, spans: list[dict[str, Any]]) -> None:
    """Ids in upper case or base64, missing or empty, parents missing, "" or null, snake_case keys, bad ids."""
    span = rng.choice(spans)
    choice = rng.randrange(13)
    if choice >= 11:  # one field in snake_case (or both spellings, the camelCase one null): a parent most often
        span = rng.choice([s for s in spans if s.get("parentSpanId")] or spans)
        camel, snake = rng.choice([("parentSpanId", "parent_span_id")] * 3 + [("spanId", "span_id"), (
            "traceId", "trace_id"), ("endTimeUnixNano", "end_time_unix_nano")])
        if camel in span:
            span[snake] = span.pop(camel)
            if choice == 12:
                span[camel] = None
    elif choice == 0 and isinstance(span.get("spanId"), str):
        span["spanId"] = span["spanId"].upper()
    elif choice == 1:
        span["spanId"] = rng.choice(["Abw2Ky0aN1E=", "EjRWeJq83vA=", "0x" + _hex(rng, 16), " " + _hex(rng, 16)])
    elif choice == 2:
        if rng.random() < 0.5:
            span.pop("spanId", None)
        else:
            span["spanId"] = rng.choice(["", None])
    elif choice == 3:
        if rng.random() < 0.4:
            span.pop("parentSpanId", None)
        else:
            span["parentSpanId"] = rng.choice(["", None, _hex(rng, 16)])
    elif choice == 4:  # the protobuf mapping's snake_case
        for camel, snake in (("traceId", "trace_id"), ("spanId", "span_id"), ("parentSpanId", "parent_span_id"),
                             ("startTimeUnixNano", "start_time_unix_nano"), ("endTimeUnixNano", "end_time_unix_nano")):
            if camel in span and rng.random() < 0.6:
                span[snake] = span.pop(camel)
    elif choice == 5 and isinstance(span.get("traceId"), str):
        span["traceId"] = rng.choice([span["traceId"].upper(), " " + span["traceId"], "0x" + span["traceId"]])
    elif choice == 6 and isinstance(span.get("parentSpanId"), str):
        span["parentSpanId"] = span["parentSpanId"].upper()
    elif choice == 7:
        span[rng.choice(["spanId", "parentSpanId"])] = rng.choice(["zz", 5, "A" * 16, _hex(rng, 15), _hex(rng, 32), []])
    elif choice == 8:  # two spans with one id
        other = rng.choice(spans)
        span["spanId"] = other.get("spanId")
    elif choice == 9:  # a trace id given both ways
        if isinstance(span.get("traceId"), str):
            span["trace_id"] = span["traceId"]
    else:  # a base64 id for a parent the trace holds in hex
        parent = span.get("parentSpanId")
        if isinstance(parent, str) and len(parent) == 16:
            try:
                import base64

                span["parentSpanId"] = base64.b64encode(bytes.fromhex(parent)).decode()
            except ValueError:
                pass


ODD_TIMES: list[Any] = ["0", 0, None, "missing", "", " 5", "+5", "-5", "1_0", "9" * 19, "9" * 20, "9" * 21,
                        "18446744073709551616", "1795000000000000000.0", 1795000000000000000, 1.795e18, 1.5, True, "x",
                        "00001795000000000000000", "\u0663" * 19, 2**64 - 1, 2**64, 5, "5"]


def odd_times(rng: random.Random, spans: list[dict[str, Any]]) -> None:
    """Times as ints, floats, "0", missing, signed, padded, long, or an end before the start."""
    span = rng.choice(_tool_spans(spans))
    if rng.random() < 0.25:  # never ended, nothing recorded: its outcome is unknown unless its status says
        span.pop("endTimeUnixNano", None) if rng.random() < 0.5 else span.update(endTimeUnixNano=rng.choice(
            ["0", 0, None]))
        for key in ("gen_ai.tool.call.result", "error.type"):
            _set(span, key, None)
        span["status"] = copy.deepcopy(rng.choice([{}, {}, {"code": 1}, {"code": "STATUS_CODE_OK"}, {"code": 0},
                                                   {"code": 2}]))
        return
    if rng.random() < 0.3:  # the end before the start, or equal to it
        start = span.get("startTimeUnixNano")
        if isinstance(start, str) and start.isdecimal():
            span["endTimeUnixNano"] = str(int(start) - rng.choice([0, 1, 10**6]))
        return
    field = rng.choice(["startTimeUnixNano", "endTimeUnixNano"])
    value = rng.choice(ODD_TIMES)
    if value == "missing":
        span.pop(field, None)
    else:
        span[field] = value


def odd_call_ids(rng: random.Random, spans: list[dict[str, Any]]) -> None:
    """Call ids blank, padded, repeated, numeric or under another key; provider keys."""
    span = rng.choice(_tool_spans(spans))
    choice = rng.random()
    if choice < 0.4:
        _set(span, "gen_ai.tool.call.id", copy.deepcopy(rng.choice(
            [{"stringValue": ""}, {"stringValue": "  "}, {"stringValue": " call_1 "}, {"stringValue": "call_1"},
             {"intValue": "7"}, {"boolValue": True}])))
    elif choice < 0.7:
        value = _value_of(span, "gen_ai.tool.call.id") or {"stringValue": "call_x"}
        _set(span, "gen_ai.tool.call.id", None)
        _set(span, rng.choice(["ai.toolCall.id", "tool_call.id", "tool.call.id", "tool.id"]), value)
    else:
        _set(span, rng.choice(["gen_ai.provider.name", "gen_ai.system"]),
             copy.deepcopy(rng.choice([{"stringValue": "openai"}, {"stringValue": ""}, {"stringValue": " x "},
                                       {"intValue": "3"}])))


def odd_answer(rng: random.Random, spans: list[dict[str, Any]]) -> None:
    """A span whose messages carry an answer, requested calls or tool responses (read by the adapter's
    ``SpanAnswers`` on both paths)."""
    span = rng.choice(spans)
    choice = rng.randrange(5)
    if choice == 0:
        messages = [{"role": "assistant", "parts": [{"type": "text", "content": "done"}]}]
        _set(span, "gen_ai.output.messages", {"stringValue": json.dumps(messages)})
    elif choice == 1:
        messages = [{"role": "assistant", "parts": [{"type": "tool_call", "id": rng.choice(["call_1", " c9"]),
                                                     "name": rng.choice(TOOLS), "arguments": '{"a": 1}'}]}]
        _set(span, "gen_ai.output.messages", {"stringValue": json.dumps(messages)})
    elif choice == 2:
        _set(span, "ai.response.text", {"stringValue": rng.choice(["the answer", "", " "])})
    elif choice == 3:
        messages = [{"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_1", "response": "r"}]}]
        _set(span, "gen_ai.input.messages", {"stringValue": json.dumps(messages)})
    else:
        _set(span, "gen_ai.output.messages", rng.choice([{"stringValue": "["}, {"stringValue": "[]"},
                                                         {"arrayValue": {"values": []}}, {"stringValue": ""}]))


def odd_convention(rng: random.Random, spans: list[dict[str, Any]]) -> None:
    """A tool span of another convention: OpenInference, Vercel, legacy names; or a method that is no call."""
    span = rng.choice(_tool_spans(spans))
    choice = rng.randrange(8)
    for key in ("mcp.method.name", "gen_ai.operation.name"):
        if choice < 6:
            _set(span, key, None)
    if choice == 0:
        _set(span, "openinference.span.kind", {"stringValue": rng.choice(["TOOL", "tool", "LLM", ""])})
        if rng.random() < 0.5:
            span["name"] = rng.choice(TOOLS)
    elif choice == 1:
        _set(span, "ai.toolCall.name", {"stringValue": rng.choice(TOOLS)})
        if rng.random() < 0.5:
            span["name"] = "ai.toolCall"
    elif choice == 2:
        _set(span, "ai.operationId", {"stringValue": "ai.toolCall"})
    elif choice == 3:
        span["name"] = f"execute_tool {rng.choice(TOOLS)}"
    elif choice == 4:
        span["name"] = "running tool"
        _set(span, "tool.name", {"stringValue": rng.choice(TOOLS)})
    elif choice == 5:
        pass  # a span with neither: no tool call, unless its name says so
    elif choice == 6:
        _set(span, "mcp.method.name", {"stringValue": rng.choice(["tools/list", "tools/call", "initialize", ""])})
    else:
        _set(span, "gen_ai.operation.name", {"stringValue": rng.choice(["chat", "invoke_agent", "execute_tool",
                                                                         "EXECUTE_TOOL"])})


def odd_pairs(rng: random.Random, spans: list[dict[str, Any]]) -> None:
    """MCP and GenAI spans that pair oddly: several MCP spans for one GenAI span, other names, lost parents."""
    tools = _tool_spans(spans)
    span = rng.choice(tools)
    choice = rng.randrange(6)
    if choice == 5:  # the span moved to the file's other trace (if any): its partner and parent are not there
        elsewhere = {s.get("traceId") for s in spans} - {span.get("traceId")}
        if elsewhere:
            span["traceId"] = sorted(elsewhere, key=str)[0]
    elif choice == 0:  # another MCP child of the same span (or of its parent)
        child = copy.deepcopy(span)
        child["spanId"] = _hex(rng, 16)
        child["parentSpanId"] = rng.choice([span.get("spanId"), span.get("parentSpanId")])
        _set(child, "mcp.method.name", {"stringValue": "tools/call"})
        spans.insert(rng.randint(0, len(spans)), child)
    elif choice == 1:  # the parent is missing from the trace
        span["parentSpanId"] = _hex(rng, 16)
    elif choice == 2:  # the other tool
        _set(span, "gen_ai.tool.name", {"stringValue": rng.choice(TOOLS)})
    elif choice == 3:  # another span's call id
        other = rng.choice(tools)
        value = _value_of(other, "gen_ai.tool.call.id")
        _set(span, "gen_ai.tool.call.id", copy.deepcopy(value) if value else {"stringValue": "call_shared"})
    else:  # a span dropped
        spans.remove(span)


def odd_run_span(rng: random.Random, spans: list[dict[str, Any]]) -> None:
    """Run span candidates: two agent spans, none, several roots or none."""
    choice = rng.randrange(4)
    if choice == 0:
        spans.append({"traceId": spans[0].get("traceId") if spans else None, "spanId": _hex(rng, 16),
                      "name": "invoke_agent other", "attributes": [_s("gen_ai.operation.name", "invoke_agent")],
                      "startTimeUnixNano": "1795000000000000000", "endTimeUnixNano": "1795000000000000001"})
    elif choice == 1:
        for span in spans:
            if _value_of(span, "gen_ai.operation.name") == {"stringValue": "invoke_agent"}:
                _set(span, "gen_ai.operation.name", None)
    elif choice == 2:
        rng.choice(spans).pop("parentSpanId", None)
    else:
        for span in spans:
            if not span.get("parentSpanId"):
                span["parentSpanId"] = _hex(rng, 16)


def odd_span(rng: random.Random, spans: list[dict[str, Any]]) -> None:
    """A span's own fields odd: no name or a blank one, attributes of another type or reversed, more fields, fewer."""
    span = rng.choice(spans)
    choice = rng.randrange(6)
    if choice == 0:
        span["name"] = rng.choice(["", None, 5])
    elif choice == 1:
        span["attributes"] = copy.deepcopy(rng.choice([None, {}, "attrs", {"gen_ai.tool.name": "x"}, []]))
        if span["attributes"] is None and rng.random() < 0.5:
            del span["attributes"]
    elif choice == 2:
        span.update(droppedAttributesCount=2, links=[], events=[], traceState="", kind="SPAN_KIND_CLIENT")
    elif choice == 3:
        span["attributes"] = list(reversed(span.get("attributes") or []))
    elif choice == 4:
        span.pop(rng.choice(["status", "kind", "flags", "endTimeUnixNano", "attributes"]), None)
    else:
        span["name"] = rng.choice([" ", "chat ", "execute_tool\t", "tools/call\n"])


MUTATIONS: list[Callable[[random.Random, list[dict[str, Any]]], None]] = [
    odd_value, odd_item, odd_tool_name, odd_arguments, odd_result, odd_error, odd_ids, odd_times, odd_call_ids,
    odd_answer, odd_convention, odd_pairs, odd_run_span, odd_span]


NOT_SPANS: list[Any] = ["span", 5, None, [], True]


def random_spans(rng: random.Random) -> list[Any]:
    """The raw spans of a file's worth of traces (one or two trace ids, and now and then spans with none):
    a plain trace, with up to four odd changes most of the time; or the adapter tests' random request."""
    if rng.random() < 0.12:
        request = _h4().random_request(rng, rng.random() < 0.6)
        try:  # a request the adapter's walk refuses is a line the pool gives the serial path
            return [raw for _, raw in otel_modules()[1].iter_raw_spans(request)]
        except Exception:
            return []
    trace_ids = [_hex(rng, 32) for _ in range(rng.choice([1, 1, 1, 2]))]
    spans: list[Any] = []
    for trace_id in trace_ids:
        spans += plain_trace(rng, trace_id)
    for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4])):
        if not spans:  # (a change may drop a span)
            spans.append({"traceId": trace_ids[0], "spanId": _hex(rng, 16), "name": "chat", "attributes": []})
        rng.choice(MUTATIONS)(rng, spans)
    if spans and rng.random() < 0.08:  # (answers come seldom from the draw above: not enough to count on)
        odd_answer(rng, spans)
    if rng.random() < 0.03:  # a span that is no object: in the trace of no trace id
        spans.insert(rng.randint(0, len(spans)), rng.choice(NOT_SPANS))
    if rng.random() < 0.05:  # spans without a trace id: a run of their own
        for span in rng.sample(spans, k=min(len(spans), rng.randint(1, 3))):
            if isinstance(span, dict):
                span.pop("traceId", None) if rng.random() < 0.6 else span.update(traceId=rng.choice(["", None]))
    return spans


def _h4() -> Any:
    """The otel adapter tests' random requests (loaded by name: that module is not typed for mypy)."""
    return importlib.import_module("tests.adapters.test_otel_fast_h4")


def as_read(spans: list[Any]) -> list[Any]:
    """The spans as orjson parses them from a collector's line (a span it cannot read is left out, as
    is its line from the pool: a big integer becomes a float, NaN is refused)."""
    out = []
    for span in spans:
        try:
            out.append(orjson.loads(json.dumps(span)))
        except (orjson.JSONDecodeError, ValueError, TypeError):
            continue
    return out


def traces_of(raws: list[Any], first_order: int = 0) -> dict[str, Found]:
    """The spans of each trace (by the key the pool's first pass gives them), each with its place in the file;
    a span whose trace id cannot be read is left out (the pool gives such a line to the serial path)."""
    _, spans = otel_modules()
    known: dict[str, str] = {}
    found: dict[str, Found] = {}
    for order, raw in enumerate(raws, start=first_order):
        try:
            key = known_key(raw, known, spans)
        except Exception:
            continue
        found.setdefault(key, []).append((raw, order))
    return found


def random_traces(seed: int) -> dict[str, Found]:
    """The traces of seed ``seed`` (what a failure names: ``random_traces(seed)`` gives them back)."""
    rng = random.Random(seed)
    return traces_of(as_read(random_spans(rng)), rng.choice([0, 0, 7, 10**6]))


def plain_traces(seed: int) -> dict[str, Found]:
    """The traces of the plain-only generator for ``seed``."""
    rng = random.Random(seed)
    return traces_of(as_read(plain_trace(rng, _hex(rng, 32))))


# ---------------------------------------------------------------- the tests

@pytest.fixture(scope="module")
def plain() -> Plain:
    module = pytest.importorskip("toolscore_export.plain_trace")
    read: Plain = module.plain_trace_calls
    return read


def differences(plain: Plain, seeds: range, make: Callable[[int], dict[str, Found]]) -> tuple[int, int, list[str]]:
    """``(traces, accepted, mismatches)`` of the traces of ``seeds`` (each mismatch named by its seed)."""
    traces = accepted = 0
    problems: list[str] = []
    for seed in seeds:
        for key, found in make(seed).items():
            traces += 1
            taken, problem = verdict(plain, found, key)
            accepted += taken
            if problem is not None:  # the first one cut down and shown in full (cutting takes a while)
                problems.append(mismatch_message(plain, found, key, f"seed {seed} ({make.__name__})", problem)
                                if not problems else f"seed {seed}")
    return traces, accepted, problems


def test_random_traces_read_as_the_general_path_reads_them(plain: Plain) -> None:
    traces, accepted, problems = differences(plain, range(RANDOM_TRACES), random_traces)
    assert traces >= 3000
    assert not problems, f"{len(problems)} of {traces} traces differ; the first:\n{problems[0]}"
    assert accepted >= traces / 4, f"the plain reader took {accepted} of {traces} random traces"


def test_the_plain_generator_is_mostly_accepted_and_read_exactly(plain: Plain) -> None:
    """Not vacuous: a reader that always declines fails here (at least half of the plain traces are its)."""
    traces, accepted, problems = differences(plain, range(100_000, 100_000 + PLAIN_TRACES), plain_traces)
    assert not problems, f"{len(problems)} of {traces} traces differ; the first:\n{problems[0]}"
    assert accepted >= traces / 2, f"the plain reader took {accepted} of {traces} plain traces"


def answer_traces(seed: int) -> dict[str, Found]:
    """Plain traces whose chat spans record their messages (content capture on): an answer, calls the
    model requested (some never executed), a tool's response in the next chat's input."""
    rng = random.Random(seed)
    spans = plain_trace(rng, _hex(rng, 32))
    for _ in range(rng.randint(1, 3) if spans else 0):
        odd_answer(rng, spans)
    return traces_of(as_read(spans))


def test_traces_with_messages_are_taken_and_read_exactly(plain: Plain) -> None:
    """Spans that carry an answer or messages are read by the adapter's own ``SpanAnswers`` on the plain
    path too, so such traces (an app recording its messages writes them on every chat span) are taken."""
    traces, accepted, problems = differences(plain, range(200_000, 200_600), answer_traces)
    assert not problems, f"{len(problems)} of {traces} traces differ; the first:\n{problems[0]}"
    assert accepted >= traces / 2, f"the plain reader took {accepted} of {traces} traces with messages"
    answered = 0
    for seed in range(200_000, 200_600):
        for key, found in answer_traces(seed).items():
            got = plain(found, key)
            answered += got is not None and (got[1] is not None or any(c["span_id"] is None for c in got[0]))
    assert answered > 50  # answers and calls from messages among what it took


def fixture_traces() -> list[tuple[str, str, Found]]:
    """``(file, key, spans)`` of every trace of every OTLP fixture (JSON Lines: one request a line)."""
    _, spans = otel_modules()
    out = []
    for path in OTLP_FILES:
        data = path.read_bytes()
        requests = [orjson.loads(line) for line in data.splitlines() if line.strip()] if path.suffix == ".jsonl" else [
            orjson.loads(data)]
        raws = [raw for request in requests for _, raw in spans.iter_raw_spans(request)]
        out += [(path.name, key, found) for key, found in traces_of(raws).items()]
    return out


def test_every_fixture_trace_reads_as_the_general_path_reads_it(plain: Plain) -> None:
    traced = fixture_traces()
    assert len({name for name, _, _ in traced}) == len(OTLP_FILES) >= 11
    for name, key, found in traced:
        _, problem = verdict(plain, found, key)
        assert problem is None, mismatch_message(plain, found, key, name, problem)


def bench_export_module() -> Any:
    """``bench/bench_export.py`` as a module (its input writers, such as ``otlp_traces_file``)."""
    sys.path.insert(0, str(ROOT / "bench"))  # bench_export imports its neighbour _memory
    try:
        spec = importlib.util.spec_from_file_location("_bench_export_s30", ROOT / "bench" / "bench_export.py")
        assert spec is not None and spec.loader is not None
        bench = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(bench)
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return bench


def bench_file_traces(folder: Path) -> dict[str, Found]:
    """The export bench's ``--otlp-traces 50`` file (written in ``folder``), grouped as the pool's first pass
    groups it (each trace's spans over two lines: ``plain_spans`` of each line, numbered through the file)."""
    bench = bench_export_module()
    path = folder / "traces.jsonl"
    bench.otlp_traces_file(path, (FIXTURES / "mcp_spans.json").read_bytes(), 50)
    raws: list[Any] = []
    for line in path.read_bytes().splitlines():
        found = plain_spans(orjson.loads(line))
        assert found is not None
        raws += found
    traces = traces_of(raws)
    assert len(traces) == 50
    return traces


@pytest.fixture(scope="module")
def bench_traces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Found]:
    return bench_file_traces(tmp_path_factory.mktemp("bench"))


def test_every_bench_trace_is_taken_and_read_exactly(plain: Plain, bench_traces: dict[str, Found]) -> None:
    for key, found in bench_traces.items():
        taken, problem = verdict(plain, found, key)
        assert problem is None, mismatch_message(plain, found, key, "bench", problem)
        assert taken, f"the plain reader declined the bench's trace {key}"


def line_outcome(make: Callable[..., bytes], key: str, found: Found, gold: str | None = None) -> str:
    """The record line ``make`` gives (pool._trace_line's arguments, as the pool passes them), or its error."""
    from toolscore_core.kernel.plugins import get_plugin_manager
    from toolscore_export.trace_batches import TraceContext

    otel, spans = otel_modules()
    context = TraceContext(trace_format=None, gold=gold, pm=get_plugin_manager())
    try:
        return make(key, found, otel.OtelAdapter(), otel, spans, SOURCE, context, record_line).decode()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


def test_the_pools_trace_line_is_the_general_paths(plain: Plain, bench_traces: dict[str, Found]) -> None:
    """``_trace_line`` (the plain reader when there is no gold) against its body before the reader: the same
    bytes on the bench's traces, the plain traces and the odd ones (the same error where the general path has one)."""
    groups = [("bench", key, found) for key, found in bench_traces.items()]
    for seed in range(300):  # interleaved: a run of declined traces would have the pool ask the reader less often
        groups += [(f"plain seed {seed + 200_000}", key, found) for key, found in plain_traces(seed + 200_000).items()]
        groups += [(f"seed {seed + 300_000}", key, found) for key, found in random_traces(seed + 300_000).items()]
    for what, key, found in groups:
        expected = line_outcome(reference_line, key, found)
        assert line_outcome(pool._trace_line, key, found) == expected, (what, key)


def test_the_pools_trace_line_with_a_gold_is_the_general_paths(bench_traces: dict[str, Found]) -> None:
    """With ``--gold`` the score needs the adapter's Trace: the line is still the general path's, scored."""
    gold = str(ROOT / "examples" / "guardrails" / "gold.json")
    groups = [("bench", key, found) for key, found in list(bench_traces.items())[:10]]
    groups += [(f"seed {seed}", key, found) for seed in range(400_000, 400_040) for key, found in random_traces(seed).items()]
    for what, key, found in groups:
        expected = line_outcome(reference_line, key, found, gold)
        assert line_outcome(pool._trace_line, key, found, gold) == expected, (what, key)
    assert '"outcome":"fail"' in line_outcome(pool._trace_line, *groups[0][1:], gold)  # (scored: not vacuous)


def test_the_generators_cover_the_odd_shapes() -> None:
    """The random traces are what the rule is asked of: the general path reads most of them, raises on some,
    finds an answer or requested calls in some, and they hold every convention, merged pairs, and run spans
    picked and not."""
    otel, spans = otel_modules()
    reads = raises = messages = picked = merged = 0
    conventions: set[Any] = set()
    for seed in range(600):
        for key, found in random_traces(seed).items():
            try:
                _, answer, span_id = reference(found, key)
            except Exception:
                raises += 1
                continue
            reads += 1
            picked += span_id is not None
            trace = otel.OtelAdapter().load_spans([spans.otlp_span(raw, "", order, otel.wanted) for raw, order in found])
            metadata = [call.metadata or {} for call in trace.calls]
            conventions.update(meta.get("convention") for meta in metadata)
            merged += sum("merged_mcp_span" in meta for meta in metadata)
            messages += answer is not None or any(meta.get("convention") == "genai-messages" for meta in metadata)
    assert reads > 500 and raises > 50 and messages > 20 and 300 < picked < reads and merged > 200, (
        reads, raises, messages, picked, merged)
    assert {"genai", "mcp", "openinference", "vercel", "legacy", "genai-messages"} <= conventions, conventions


def test_a_pooled_export_of_random_traces_is_the_serial_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """End to end: a JSON Lines file of plain and odd traces (each readable: an error would end both exports
    alike and compare no record), a few seeds a line, exported by the pool's workers (whose first pass
    builds records by ``_trace_line``, so by the plain reader) and serially: the same bytes and manifest."""
    from toolscore_export import export_runs
    from toolscore_export import parallel as par

    monkeypatch.setattr(pool, "MIN_BYTES", 0)  # every OTLP JSON Lines source goes to the workers
    monkeypatch.setattr(par, "can_fork", lambda: True)  # threads of earlier tests must not make it serial
    rng = random.Random(5)
    lines: list[list[Any]] = []
    for seed in range(500_000, 500_400):
        traces = random_traces(seed) if seed % 2 else plain_traces(seed)
        if NO_TRACE_ID in traces or not traces:
            continue
        try:
            for key, found in traces.items():
                reference(found, key)
        except Exception:
            continue
        spans = [span for found in traces.values() for span, _ in found]
        if not lines or rng.random() < 0.4:
            lines.append([])
        lines[-1] += spans
    assert len(lines) > 50
    source = tmp_path / "traces.jsonl"
    source.write_text("".join(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}) + "\n"
                              for spans in lines), encoding="utf-8")
    exported = []
    for workers in (2, 1):
        out = tmp_path / f"out-{workers}.jsonl"
        result = export_runs([source], out, workers=workers, per_trace=True)
        manifest = {k: v for k, v in result.manifest.items() if k not in ("created_at", "manifest_sha256")}
        manifest["output"] = {k: v for k, v in manifest["output"].items() if k != "name"}
        exported.append((out.read_bytes(), manifest))
    assert exported[0] == exported[1]
    assert exported[1][0].count(b"\n") > 150
