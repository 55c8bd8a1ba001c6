"""RunSpans.add takes its shortcuts (a trace id spelled as asked, a span id already lowercase hex)
only where the rule it stands for gives the same answer.

The reference is the rule as written before them: a span counts when its ``spanId`` is a
string whose lowercase is 16 hex digits and ``str(traceId).lower()`` equals the asked trace
id lowercased. Random spans mix ids in every case, of other types and lengths, missing
parents and agent operations; the candidates gathered and the span picked must agree.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from toolscore_export.run_span import RunSpans

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"


class Text(str):
    """A str subclass: not the exact type the shortcut compares."""


def reference(spans: list[dict[str, Any]], trace_id: str) -> tuple[set[str], set[str]]:
    agents: set[str] = set()
    roots: set[str] = set()
    for span in spans:
        span_id = span.get("spanId")
        if not isinstance(span_id, str) or str(span.get("traceId", "")).lower() != trace_id.lower():
            continue
        span_id = span_id.lower()
        if not re.fullmatch(r"[0-9a-f]{16}", span_id):
            continue
        operation = next((a["value"].get("stringValue") for a in span.get("attributes", [])
                          if a.get("key") == "gen_ai.operation.name"), None)
        if operation == "invoke_agent":
            agents.add(span_id)
        if not span.get("parentSpanId"):
            roots.add(span_id)
    return agents, roots


def random_span(rng: random.Random) -> dict[str, Any]:
    hex_id = f"{rng.getrandbits(64):016x}"
    span_id = rng.choice([hex_id, hex_id.upper(), hex_id[:8] + hex_id[8:].upper(), hex_id[:15], hex_id + "0",
                          "z" * 16, Text(hex_id), 7, None, "\u0130" * 16])
    trace = rng.choice([TRACE, TRACE.upper(), TRACE[:31], Text(TRACE), Text(TRACE.upper()), 12, None, "", "x" + TRACE])
    span: dict[str, Any] = {"spanId": span_id} if span_id is not None else {}
    if trace is not None:
        span["traceId"] = trace
    if rng.random() < 0.4:
        span["parentSpanId"] = rng.choice(["", "a" * 16, None])
    operation = rng.choice([None, "invoke_agent", "chat", "execute_tool"])
    span["attributes"] = [{"key": "gen_ai.operation.name", "value": {"stringValue": operation}}] if operation else []
    return span


@pytest.mark.parametrize("asked", [TRACE, TRACE.upper(), "4BF92f3577b34da6a3ce929d0e0e4736"])
def test_random_spans_gather_the_candidates_of_the_written_rule(asked: str) -> None:
    rng = random.Random(asked)
    picked = 0
    for _ in range(1500):
        spans = [random_span(rng) for _ in range(rng.randint(0, 6))]
        found = RunSpans()
        for span in spans:
            found.add(span, asked)
        agents, roots = reference(spans, asked)
        assert (found.agents, found.roots) == (agents, roots), spans
        picked += found.pick() is not None
    assert picked > 300
