"""The otel adapter's short cuts against what they stand for. Its short JSON reader against the kernel's: ``otel_json.loads`` must answer what
``readlimits.loads`` answers (the same value, or the same error with the same place), on texts
made to break it (whitespace, a byte-order mark, extra data, deep nesting, long integers, lone
surrogates, NaN) and on every attribute text of the OTLP fixtures and of random GenAI/MCP requests.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from toolscore_adapters.protocols import otel_json, otel_spans
from toolscore_adapters.protocols.otel_spans import Span
from toolscore_core import InputError, ToolCall
from toolscore_core.kernel import readlimits

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "otel"
OTLP_FILES = sorted([*FIXTURES.glob("*.json"), *FIXTURES.glob("*.jsonl"), ROOT / "examples" / "otel_genai_spans.json"])


def outcome(read: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[str, ...]:
    """What ``read(*args, **kwargs)`` gives: its value's repr, or its error (type, text and for an
    InputError its place)."""
    try:
        return ("value", repr(read(*args, **kwargs)))
    except InputError as exc:
        return ("InputError", str(exc), repr(exc.location), repr(exc.expected))
    except Exception as exc:  # the general path's own behaviour is what is compared
        return (type(exc).__name__, str(exc))


def fixture_requests() -> list[tuple[str, Any]]:
    """``(file, export request)`` of every OTLP fixture (a JSON Lines file: one per line)."""
    out = []
    for path in OTLP_FILES:
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines() if path.suffix == ".jsonl" else [text]
        out += [(path.name, json.loads(line)) for line in lines if line.strip()]
    return out


def test_the_positional_constructions_follow_the_fields() -> None:
    """``otlp_span`` builds a Span, ``span_call`` a ToolCall, with positional arguments in field
    order, passing the defaults of the fields it does not set (test_otel_merge_fast pins the
    ToolCall and SpanCall fields): a field added or moved must be added or moved there too."""
    assert [f.name for f in attrs.fields(Span)] == [
        "name", "attributes", "trace_id", "span_id", "parent_id", "start_ns", "end_ns", "status_code",
        "status_message", "events", "order", "where"]
    fields = attrs.fields(ToolCall)
    assert (fields.denied.default, fields.denied_reason.default, fields.index.default) == (False, None, None)


def test_every_fixture_is_an_otlp_export() -> None:
    names = {name for name, _ in fixture_requests()}
    assert len(names) == 11 and "otel_genai_spans.json" in names and "mcp_spans.json" in names
    assert all(otel_spans.is_export_request(request) for _, request in fixture_requests())


# ---------------------------------------------------------------- random requests

HEX = "0123456789abcdef"
KEYS = ("mcp.method.name", "gen_ai.operation.name", "gen_ai.tool.name", "gen_ai.tool.call.id",
        "gen_ai.tool.call.arguments", "gen_ai.tool.call.result", "error.type", "jsonrpc.request.id",
        "gen_ai.output.messages", "gen_ai.input.messages", "openinference.span.kind", "ai.toolCall.name",
        "input.value", "tool.name", "gen_ai.provider.name", "mcp.session.id", "service.name", "x")
TOOLS = ("read_file", "read_file", "move_file", "é☃ tool", " padded ")


def _text(rng: random.Random) -> str:
    return rng.choice(["", " ", "x", "é☃\U0001f600", "tools/call", "execute_tool", "TOOL", "tool_error", "\x00",
                       "".join(rng.choice(string.printable) for _ in range(rng.randint(0, 12)))])


def _arguments(rng: random.Random) -> Any:
    if rng.random() < 0.6:
        return rng.choice(['{"path": "a.txt"}', '{"a": {"b": [1.5e300, null, true]}}', '{"t": "é\\u00e9"}'])
    return rng.choice(['{"path": "a.txt"}', ' {"a": 1} ', '{"a": 1', "[1, 2]", "", "  ", '{"n": ' + "9" * 30 + "}",
                       '{"n": ' + "9" * 5000 + "}", "[" * 150 + "]" * 150, '{"s": "\\ud800"}', '{"a": NaN}',
                       "\ufeff{}", '{"a": {"b": [1.5e300, null, true]}}', '{}{}', 5])


def _result(rng: random.Random) -> Any:
    blocks = json.dumps([{"type": "text", "text": "boom"}])
    return rng.choice(['{"content": ' + blocks + ', "isError": true}', '{"content": ' + blocks + "}", "plain",
                       '{"content": [', '{"content": ' + blocks + ', "other": 1}', "{}"])


def _messages(rng: random.Random, key: str) -> Any:
    if key == "gen_ai.output.messages":
        parts = [{"type": "tool_call", "id": rng.choice(["c1", " c2", "c9", None]), "name": rng.choice(TOOLS),
                  "arguments": rng.choice(['{"a": 1}', "bad", None, {"a": 2}])},
                 {"type": "text", "content": rng.choice(["done", "é"])}]
    else:
        parts = [{"type": "tool_call_response", "id": rng.choice(["c1", "c2", "c9"]), "response": "r"}]
    value = [{"role": rng.choice(["assistant", "user"]), "parts": rng.sample(parts, rng.randint(1, len(parts)))}]
    return rng.choice([json.dumps(value), "[", value])


def _plain_value(rng: random.Random, key: str) -> dict[str, Any]:
    """A value as a plain GenAI exporter writes it for ``key``."""
    chosen: Any
    if key == "mcp.method.name":
        chosen = rng.choice(["tools/call", "tools/list"])
    elif key == "gen_ai.operation.name":
        chosen = rng.choice(["execute_tool", "chat", "invoke_agent"])
    elif key in ("gen_ai.tool.name", "ai.toolCall.name", "tool.name"):
        chosen = rng.choice(TOOLS)
    elif key == "gen_ai.tool.call.id":
        chosen = rng.choice(["c1", "c2", " c2"])
    elif key in ("gen_ai.tool.call.arguments", "input.value"):
        chosen = _arguments(rng)
    elif key == "gen_ai.tool.call.result":
        chosen = _result(rng)
    elif key in ("gen_ai.output.messages", "gen_ai.input.messages"):
        chosen = _messages(rng, key)
    else:
        chosen = _text(rng)
    if not isinstance(chosen, str):
        return {"intValue": str(chosen)} if isinstance(chosen, int) else {"stringValue": json.dumps(chosen)}
    return {"boolValue": rng.random() < 0.5} if rng.random() < 0.05 else {"stringValue": chosen}


def _odd_value(rng: random.Random, depth: int = 0) -> Any:
    """Any AnyValue, well formed or not."""
    kinds: list[Callable[[], Any]] = [
        lambda: {"stringValue": _text(rng)}, lambda: {"boolValue": rng.choice([True, False, "yes"])},
        lambda: {"intValue": rng.choice([5, "412", "-3", "x", True, 2**70, "9" * 30, 1.0, 1.5])},
        lambda: {"doubleValue": rng.choice([1.5, "NaN", "Infinity", "-Infinity", 3, "x", False])},
        lambda: {"bytesValue": "AAE="}, lambda: {}, lambda: None, lambda: {"weirdValue": 1}, lambda: [1],
        lambda: {"stringValue": "a", "boolValue": True}, lambda: {"boolValue": True, "string_value": "s"}, lambda: {"string_value": "s"}, lambda: {"stringValue": 5},
        lambda: {"int_value": "7"}, lambda: {"arrayValue": {"values": [_odd_value(rng, depth + 1) for _ in range(2)]}},
        lambda: {"kvlistValue": {"values": [{"key": "k", "value": _odd_value(rng, depth + 1)}]}},
        lambda: {"arrayValue": None}, lambda: {"kvlistValue": {"values": "no"}},
    ]
    return rng.choice(kinds[:4] if depth > 2 else kinds)()


TEMPLATES = (  # the attributes of the spans GenAI and MCP instrumentations write (an MCP span and the
    # GenAI span of the same call name the same tool, and are parent and child or share a call id)
    ("gen_ai.operation.name", "gen_ai.tool.name", "gen_ai.tool.call.id", "gen_ai.tool.call.arguments"),
    ("gen_ai.operation.name", "gen_ai.tool.name", "gen_ai.tool.call.result", "error.type"),
    ("mcp.method.name", "gen_ai.tool.name", "jsonrpc.request.id", "gen_ai.tool.call.result", "mcp.session.id"),
    ("mcp.method.name", "gen_ai.tool.name", "gen_ai.tool.call.id", "gen_ai.tool.call.arguments"),
    ("gen_ai.operation.name", "gen_ai.output.messages", "gen_ai.input.messages", "gen_ai.provider.name"),
    ("openinference.span.kind", "input.value", "tool.name"),
    ("ai.toolCall.name", "gen_ai.tool.call.arguments"),
    (),
)


def _attributes(rng: random.Random, odd: bool) -> list[Any]:
    keys = [key for key in rng.choice(TEMPLATES) if rng.random() < 0.9]
    keys += [rng.choice(KEYS) for _ in range(rng.randint(0, 2))]  # more, or the same key again
    rng.shuffle(keys)
    return [_attribute(rng, key, odd and rng.random() < 0.15) for key in keys]


class Attribute(dict):  # type: ignore[type-arg]
    """A dict subclass: not the plain dict that ``key_values`` reads by subscripts."""


def _attribute(rng: random.Random, key: str, odd: bool) -> Any:
    if odd and rng.random() < 0.1:
        return rng.choice(["not an item", {"key": 5, "value": {"stringValue": "x"}}, {"value": {"stringValue": "x"}},
                           {"key": key}, {"key": key, "value": None}, Attribute(key=key, value={"stringValue": "x"}),
                           [key, {"stringValue": "x"}], None])
    return {"key": key, "value": _odd_value(rng) if odd else _plain_value(rng, key)}


def _id(rng: random.Random, width: int, odd: bool) -> Any:
    if odd and rng.random() < 0.1:
        return rng.choice([None, "", "zz", 5, "0x" + "a" * width, "A" * width])
    return rng.choice(["".join(rng.choice(HEX) for _ in range(width)),
                       rng.choice(["Abw2Ky0aN1E=", "EjRWeJq83vA=", "ABEiM0RVZneImaq7zN3u/w=="])])


def _time(rng: random.Random, odd: bool) -> Any:
    if odd and rng.random() < 0.1:
        return rng.choice([None, "0", 0, "x", "9" * 25, 2**70, 1.5e18, True, -5])
    return rng.choice([str, int])(1795000000000000000 + rng.randint(0, 9) * 10**6)  # ties happen


def _status(rng: random.Random, odd: bool) -> Any:
    if odd and rng.random() < 0.2:
        return rng.choice([None, {"code": 7}, {"code": True}, {"code": 2, "message": 5}, [], {"status_code": "ERROR"},
                           {"code": 2, "description": "d"}])
    return rng.choice([{}, {"code": 2, "message": "boom"}, {"code": 1}, {"code": "STATUS_CODE_ERROR"}, {"code": 0}])


def _events(rng: random.Random) -> Any:
    exception = {"name": "exception", "attributes": [{"key": "exception.message", "value": {"stringValue": "bad"}}]}
    return rng.choice([[], None, [exception], [{"name": "exception", "attributes": {"exception.type": "E"}}],
                       [{"name": 5}], "events", [5]])


def _span(rng: random.Random, odd: bool, ids: list[str]) -> Any:
    if odd and rng.random() < 0.01:
        return rng.choice([None, "span", 5])
    name = rng.choice(["execute_tool " + rng.choice(TOOLS), "tools/call " + rng.choice(TOOLS), "running tool",
                       "chat", "execute_tool", "ai.toolCall", "invoke_agent"])
    if odd and rng.random() < 0.02:
        name = rng.choice(["", None, 5])
    span: dict[str, Any] = {"traceId": ids[rng.random() < 0.1] if rng.random() < 0.95 else _id(rng, 32, odd),
                            "spanId": rng.choice(ids[2:]), "name": name}
    if rng.random() < 0.7:
        span["parentSpanId"] = rng.choice(ids[2:])  # a parent may come before or after its child
    span["startTimeUnixNano"], span["endTimeUnixNano"] = _time(rng, odd), _time(rng, odd)
    span["attributes"] = _attributes(rng, odd)
    if rng.random() < 0.7:
        span["status"] = _status(rng, odd)
    if odd and rng.random() < 0.15:
        span["events"] = _events(rng)
    if odd and rng.random() < 0.05:  # the protobuf mapping's snake_case spelling, or a missing field
        span["trace_id"] = span.pop("traceId")
        span.pop(rng.choice(["attributes", "startTimeUnixNano", "spanId"]), None)
    if odd and rng.random() < 0.02:
        span["attributes"] = rng.choice([None, "attrs", {}])
    return span


def random_request(rng: random.Random, odd: bool) -> Any:
    """An export request; with ``odd``, anything may be missing, mistyped or differently spelled."""
    ids = [_id(rng, 32, odd) for _ in range(2)] + [_id(rng, 16, odd) for _ in range(rng.randint(1, 3))]
    resources = []
    for _ in range(rng.randint(1, 2)):
        scopes: list[Any] = [{"scope": {"name": "s"}, "spans": [_span(rng, odd, ids) for _ in range(rng.randint(0, 6))]}
                             for _ in range(rng.randint(1, 2))]
        if odd and rng.random() < 0.05:
            scopes.append(rng.choice([{"spans": None}, {}, {"spans": "x"}, "scope"]))
        key = "instrumentationLibrarySpans" if odd and rng.random() < 0.03 else "scopeSpans"
        resources.append({"resource": {}, key: scopes})
    if odd and rng.random() < 0.02:
        resources.append(rng.choice(["resource", {"scopeSpans": None}, {"scopeSpans": "x"}]))
    return {"resourceSpans": resources}


def attribute_texts(request: Any) -> list[str]:
    """Every string value of every attribute of ``request`` (what the adapter may parse as JSON)."""
    texts = []
    for _, raw in otel_spans.iter_raw_spans(request):
        for item in raw.get("attributes") or [] if isinstance(raw, dict) else []:
            value = item.get("value") if isinstance(item, dict) else None
            if isinstance(value, dict) and isinstance(value.get("stringValue"), str):
                texts.append(value["stringValue"])
    return texts


def test_an_attribute_reads_as_any_value_reads_its_value() -> None:
    """key_values' inline reading of a ``stringValue``, a lone ``boolValue`` or ``intValue`` against :func:`any_value`."""
    rng = random.Random(16)
    values = [_odd_value(rng) for _ in range(3000)] + [
        {"stringValue": "a", "boolValue": True}, {"boolValue": True, "string_value": "s"}, {"boolValue": False},
        {"stringValue": None, "intValue": 1}, {"boolValue": 1, "bool_value": 2}, {"stringValue": "x", "string_value": "y"},
        *({"intValue": number} for number in (
            0, -1, 2**80, True, False, 1.0, "0", "007", "-3", "+3", " 3", "3 ", "1_000", "\u00b2", "\u0663\u0664",
            "\uff11", "9" * 20, "9" * 21, "9" * 5000, "", "x", None, [1])),
        {"intValue": "5", "string_value": "s"}, {"intValue": "5", "doubleValue": 1.5}, {"int_value": "5"}]
    for value in values:
        assert outcome(otel_spans.key_values, [{"key": "k", "value": value}], "$") == outcome(
            lambda v: {"k": otel_spans.any_value(v, "$[0].value")}, value), value


# ---------------------------------------------------------------- JSON text inside attributes

def test_json_text_reads_as_the_kernel_reads_it() -> None:
    rng = random.Random(14)
    texts = ['{"path": "a.txt"}', " {}", "{} ", "\ufeff{}", "", " ", "[1, 2]", "{}{}", '{"a": NaN}', "nul", "1e999",
             '{"n": ' + "9" * 5000 + "}", "[" * 150 + "]" * 150, "[" * 99 + "]" * 99,
             "[" * 100 + "]" * 100, "[" * 101 + "]" * 101, "{" * 50 + "}" * 50, '{"a":' * 101 + "1" + "}" * 101, '"\\ud800"', '{"\\udc00": 1}',
             '{"a": "é\\u00e9"}', "-0", "[1,]", '{"a": 1, "a": 2}', "\t[]\n", "0x1", '"\\x"']
    alphabet = '{}[]":,0123456789.eE-+ truefalsnul\\u\t\n'
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(4000)]
    texts += [json.dumps(_odd_value(rng)) for _ in range(500)]
    for text in texts:
        for what in ("is", "tool-call arguments are"):
            expected = outcome(readlimits.loads, text, location="$.x", what=what)
            assert outcome(otel_json.loads, text, location="$.x", what=what) == expected, text
            assert outcome(otel_json.loads, text, location=lambda: "$.x", what=what) == expected, text  # spelled late


def test_every_attribute_text_of_the_fixtures_and_random_requests_reads_as_the_kernel_reads_it() -> None:
    texts = [text for _, request in fixture_requests() for text in attribute_texts(request)]
    assert sum(text.startswith(("{", "[")) for text in texts) >= 20  # arguments, results, messages
    rng = random.Random(15)
    texts += [text for _ in range(300) for text in attribute_texts(random_request(rng, odd=False))]
    for text in texts:
        assert outcome(otel_json.loads, text) == outcome(readlimits.loads, text), text


# ---------------------------------------------------------------- a span's ids and times

def _any_id(rng: random.Random) -> Any:
    """An id as exporters write it (hex, base64, odd case, 0x), or not an id at all."""
    width = rng.choice([16, 32])
    hex_id = "".join(rng.choice(HEX) for _ in range(width))
    return rng.choice([hex_id, hex_id, hex_id.upper(), "0x" + hex_id, " " + hex_id, hex_id[:-1], hex_id + "0",
                       "Abw2Ky0aN1E=", "ABEiM0RVZneImaq7zN3u/w==", "Abw2Ky0aN1E", "zz" * (width // 2), "", None,
                       5, True, ["a"], "é" * width])


def _any_time(rng: random.Random) -> Any:
    return rng.choice([str(1795000000000000000 + rng.randint(0, 10**9)), "0", "00", "", " 1", "1 ", "9" * 19,
                       "9" * 20, "9" * 21, "18446744073709551615", "18446744073709551616", "\u0663" * 19, "-1", "+5", "1_0", " 0", "0 ", "1.5",
                       "x", 0, 1795000000000000000, 2**64, 1.5e18, 1.5, True, None, ["1"]])


def ids_one_by_one(trace: Any, span: Any, parent: Any) -> tuple[str | None, ...]:
    return (otel_spans.span_id(trace, "$.s", ".traceId"), otel_spans.span_id(span, "$.s", ".spanId"),
            otel_spans.span_id(parent, "$.s", ".parentSpanId"))


def times_one_by_one(start: Any, end: Any) -> tuple[int | None, ...]:
    return otel_spans._time(start, "$.s", ".startTimeUnixNano"), otel_spans._time(end, "$.s", ".endTimeUnixNano")


def test_a_spans_ids_read_as_span_id_reads_them() -> None:
    """``_ids`` (three cached decodings, no wrapper call) against :func:`span_id` of each id in turn."""
    rng = random.Random(28)
    for _ in range(20000):
        ids = _any_id(rng), _any_id(rng), _any_id(rng)
        assert outcome(otel_spans._ids, *ids, "$.s") == outcome(ids_one_by_one, *ids), ids


def test_a_spans_times_read_as_time_reads_them() -> None:
    """``_times`` (19 decimal digits read inline) against :func:`_time` of the start, then the end."""
    rng = random.Random(29)
    for _ in range(20000):
        times = _any_time(rng), _any_time(rng)
        assert outcome(otel_spans._times, *times, "$.s") == outcome(times_one_by_one, *times), times


def test_wanted_is_a_tool_span_an_answer_or_responses() -> None:
    """``wanted`` spells out ``is_tool_span`` and ``carries_answer``: the same verdict as asking the three."""
    from toolscore_adapters.protocols.otel import wanted
    from toolscore_adapters.protocols.otel_answer import carries_answer
    from toolscore_adapters.protocols.otel_calls import is_tool_span
    from toolscore_adapters.protocols.otel_messages import has_responses

    rng = random.Random(30)
    seen = set()
    for _ in range(400):
        for _, raw in otel_spans.iter_raw_spans(random_request(rng, odd=False)):
            attributes = otel_spans.key_values(raw["attributes"], "$")
            for name in (raw["name"], "running tool", "execute_tool x", "chat"):
                verdict = wanted(name, attributes)
                assert verdict is (is_tool_span(name, attributes) or carries_answer(attributes)
                                   or has_responses(attributes)), (name, attributes)
                seen.add(verdict)
        extra = {"ai.response.text": rng.choice([None, "", "done"]), "ai.operationId": rng.choice([None, "ai.toolCall"]),
                 "gen_ai.input.messages": rng.choice([None, "[]", "tool_call_response", []])}
        attributes = {key: value for key, value in extra.items() if rng.random() < 0.5}
        assert wanted("chat", attributes) is (is_tool_span("chat", attributes) or carries_answer(attributes)
                                             or has_responses(attributes)), attributes
    assert seen == {True, False}


def key_values_one_by_one(items: list[Any]) -> dict[str, Any]:
    """What ``key_values`` stands for: every item read the general way, its place spelled."""
    out = {}
    for i, item in enumerate(items):
        place = f"$.attributes[{i}]"
        item = otel_spans._dict(item, place)
        if not isinstance(item.get("key"), str):
            raise InputError("attribute without a string 'key'", location=place)
        out[item["key"]] = otel_spans.any_value(item.get("value"), f"{place}.value")
    return out


def test_attribute_lists_read_as_their_items_one_by_one() -> None:
    """Lists of plain and odd attributes: the same dict, or the same error at the same place
    (the fast path counts the items itself)."""
    rng = random.Random(31)
    for _ in range(5000):
        items = [_attribute(rng, rng.choice(KEYS), odd=rng.random() < 0.2) for _ in range(rng.randint(0, 8))]
        assert outcome(otel_spans.key_values, items, "$", ".attributes") == outcome(key_values_one_by_one, items), items
