"""Two of the otel adapter's short cuts against the general way they skip: the ToolCalls that
``merge_and_order`` makes as drafts against ``ToolCall(*fields)`` (field by field, types included),
and the hex span and parent ids ``_ids`` keeps as they are against :func:`span_id` of each id."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import attrs

from toolscore_adapters.protocols import otel_calls, otel_spans
from toolscore_adapters.protocols.otel import OtelAdapter, wanted
from toolscore_adapters.protocols.otel_calls import SpanCall, _merge, span_call
from toolscore_core import InputError, ToolCall

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "otel"


class Seconds(float):
    """A float subclass: ``seconds`` makes a plain float of it."""


def _duration(rng: random.Random) -> Any:
    """Every kind of duration: kept, converted, refused."""
    return rng.choice([None, 0.0, -0.0, 0.25, 1e-9, 1.7976931348623157e308, 2, 0, True, False, -1.0, -1e-300,
                       math.nan, math.inf, -math.inf, 10**400, Seconds(0.5), Seconds(-1.0), "1.5", [1.0]])


def _fields(rng: random.Random) -> list[Any]:
    pick = rng.choice
    return [pick(["read", "write", ""]), pick([None, {}, {"a": [1]}]), pick([None, "", "c1"]),
            pick([None, "", "ok", [1], {"content": []}]), pick([None, {"s": 1}]), pick([None, True, False]),
            pick([None, "", "boom"]), _duration(rng), pick([False, True]), pick([None, "no"]),
            pick([None, "", "mcp"]), pick([None, 0, 3]), pick([{}, {"span_id": "s1", "x": 1}])]


def _same_call(made: Any, expected: ToolCall) -> None:
    """``made`` is ``expected`` in every way a reader can see: its class and each field's value and type."""
    assert type(made) is ToolCall
    assert made == expected
    for field in attrs.fields(ToolCall):
        mine, theirs = getattr(made, field.name), getattr(expected, field.name)
        assert type(mine) is type(theirs), field.name
        assert mine is theirs or mine == theirs or (mine != mine and theirs != theirs), field.name
    assert repr(made) == repr(expected)


def test_drafts_are_sound_here() -> None:
    """The fast way is the one these tests exercise (else they would compare the general way with itself)."""
    assert otel_calls._DRAFTS_SOUND
    assert tuple(f.name for f in attrs.fields(ToolCall)) == otel_calls._FIELDS


def test_calls_made_as_drafts_are_what_tool_call_makes_of_random_fields() -> None:
    rng = random.Random(2911)
    for _ in range(5000):
        found = [SpanCall(_fields(rng), "genai", rng.choice([None, 1, 2]), i, None, None, None)
                 for i in range(rng.randint(0, 4))]
        expected = [ToolCall(*c.fields) for c in found]
        made = otel_calls._tool_calls(found)
        assert len(made) == len(expected)
        for call, reference in zip(made, expected, strict=True):
            _same_call(call, reference)


def test_a_made_call_stays_frozen() -> None:
    call = otel_calls._tool_calls([SpanCall(_fields(random.Random(1)), "genai", None, 0, None, None, None)])[0]
    try:
        call.tool = "other"  # type: ignore[misc]
    except attrs.exceptions.FrozenInstanceError:
        pass
    else:
        raise AssertionError("a ToolCall made as a draft took a new tool")


def _fixture_found() -> list[list[SpanCall]]:
    """The span calls of every OTLP fixture request, as ``OtelAdapter`` finds them."""
    out = []
    for path in sorted([*FIXTURES.glob("*.json"), *FIXTURES.glob("*.jsonl")]):
        text = path.read_text(encoding="utf-8")
        for line in text.splitlines() if path.suffix == ".jsonl" else [text]:
            if not line.strip():
                continue
            try:
                request = json.loads(line)
                decoded = [otel_spans.otlp_span(raw, where, i, wanted)
                           for i, (where, raw) in enumerate(otel_spans.iter_raw_spans(request))]
                found = [c for c in (span_call(s) for s in decoded if s is not None) if c is not None]
            except (InputError, AttributeError, TypeError):
                continue  # a broken fixture: its errors are pinned elsewhere
            out.append(found)
    return out


def test_the_fixture_calls_are_what_tool_call_makes_of_their_fields() -> None:
    groups = _fixture_found()
    assert sum(len(found) for found in groups) > 20
    for found in groups:  # each call, and each that merging an MCP span into another would make
        candidates = found + [_merge(a, b) for a in found for b in found if b.convention == "mcp" and a is not b]
        for call, c in zip(otel_calls._tool_calls(candidates), candidates, strict=True):
            _same_call(call, ToolCall(*c.fields))


def test_the_bench_trace_reads_the_same_calls() -> None:
    """The export bench's trace (an MCP span merged into its GenAI span) through ``load_spans``."""
    request = json.loads((FIXTURES / "mcp_spans.json").read_text(encoding="utf-8"))
    decoded = [otel_spans.otlp_span(raw, "", i, wanted) for i, (_, raw) in enumerate(otel_spans.iter_raw_spans(request))]
    trace = OtelAdapter().load_spans(decoded)
    assert [c.tool for c in trace.calls] == ["read_text_file", "read_text_file", "move_file"]
    for call in trace.calls:
        _same_call(call, ToolCall(*attrs.astuple(call, recurse=False)))


_ID_CHARS = "0123456789abcdef" * 4 + "ABCDEFgxzXG =+/_\t\n-" + "\u0663\u00e9\u00b2"


def _odd_id(rng: random.Random) -> Any:
    """An id near the hex form: lowercase hex of every length around 12/16/24/32, with one
    character from outside it (upper case, base64, space, an Arabic digit...), or prefixed."""
    width = rng.choice([0, 1, 8, 12, 15, 16, 17, 24, 31, 32, 33])
    text = "".join(rng.choice("0123456789abcdef") for _ in range(width))
    if text and rng.random() < 0.5:
        at = rng.randrange(width)
        text = text[:at] + rng.choice(_ID_CHARS) + text[at + 1:]
    return rng.choice([text, text, text, "0x" + text[2:], text.upper(), text + "\n", None, 7])


def _outcome(trace: Any, span: Any, parent: Any, *, each: bool) -> tuple[Any, ...]:
    try:
        if each:
            return (otel_spans.span_id(trace, "$.s", ".traceId"), otel_spans.span_id(span, "$.s", ".spanId"),
                    otel_spans.span_id(parent, "$.s", ".parentSpanId"))
        return otel_spans._ids(trace, span, parent, "$.s")
    except InputError as exc:
        return ("InputError", str(exc), exc.location, exc.expected)


def test_ids_near_the_hex_form_read_as_span_id_reads_them() -> None:
    """``_ids`` keeps a lowercase hex span or parent id of 16 or 32 digits as it is: the same
    value as decoding it, and anything else still decoded (or refused at the same place)."""
    rng = random.Random(2912)
    for _ in range(30000):
        ids = _odd_id(rng), _odd_id(rng), _odd_id(rng)
        assert _outcome(*ids, each=False) == _outcome(*ids, each=True), ids


def test_fills_soundly_refuses_what_a_draft_would_get_wrong() -> None:
    """A field order, validator or converter the filler does not know of sends it the general way."""
    from toolscore_core.kernel.model import ToolCallDraft, draft_of, fills_soundly

    fields = otel_calls._FIELDS
    assert fills_soundly(ToolCallDraft, ToolCall, fields, frozenset({"duration"}))
    assert not fills_soundly(ToolCallDraft, ToolCall, fields)  # duration's converter, not applied
    assert not fills_soundly(ToolCallDraft, ToolCall, fields[::-1], frozenset({"duration"}))

    @attrs.frozen(slots=True)
    class Checked:
        name: str = attrs.field(validator=attrs.validators.instance_of(str))

    assert not fills_soundly(draft_of(Checked), Checked, ("name",))


def test_the_trace_is_made_with_its_fields_in_order() -> None:
    """``OtelAdapter._trace`` passes a Trace's four fields by position: a field added or moved
    must be added or moved there too."""
    from toolscore_core import Trace

    assert [f.name for f in attrs.fields(Trace)] == ["calls", "final_answer", "source_format", "metadata"]

