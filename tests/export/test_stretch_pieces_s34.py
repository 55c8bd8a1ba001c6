"""A first-pass stretch given its long lines a piece at a time (``StretchTraces.add_piece``, issue 11): the
facts, records, traces left to jobs and records built ahead of a stretch given whole lines; a trace turned
down in a later piece than its first spans gets those from its line parsed again; a line declined after
some of its pieces were given reads the stretch again whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolscore_export import per_trace_pool as pool
from toolscore_export import span_pieces
from toolscore_export.trace_batches import TraceContext, set_context

from .test_stretch_traces_s33 import _collector_file, _stretches

OTLP_FILE = Path(__file__).resolve().parents[2] / "tests" / "adapters" / "fixtures" / "otel" / "mcp_spans.json"


@pytest.fixture
def context(monkeypatch: pytest.MonkeyPatch) -> Any:
    set_context(TraceContext(None, None, None))
    monkeypatch.setattr(pool._plain, "refused", 0)
    monkeypatch.setattr(span_pieces, "PIECE_BYTES", 400)  # many pieces a line
    yield
    set_context(None)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """The pieces given to stretches, and the turned-down traces that had spans on earlier pieces."""
    seen = {"pieces": 0, "earlier": 0}
    add_piece, earlier = pool.StretchTraces.add_piece, pool.StretchTraces._earlier_in_pieces

    def counted_piece(self: pool.StretchTraces, raws: list[Any], keys: list[str]) -> None:
        seen["pieces"] += 1
        add_piece(self, raws, keys)

    def counted_earlier(self: pool.StretchTraces, key: str, index: int, kept_from: int) -> bool:
        found = earlier(self, key, index, kept_from)
        seen["earlier"] += found
        return found

    monkeypatch.setattr(pool.StretchTraces, "add_piece", counted_piece)
    monkeypatch.setattr(pool.StretchTraces, "_earlier_in_pieces", counted_earlier)
    return seen


def test_a_stretch_given_its_lines_in_pieces_builds_what_one_given_whole_lines_did(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, context: Any, counted: dict[str, int]) -> None:
    source = _collector_file(tmp_path / "collector.jsonl", range(700_000, 700_300))
    spill = tmp_path / "spill"
    spill.mkdir()
    for size in (4_000, 25_000):
        monkeypatch.setattr(span_pieces, "MIN_LINE_BYTES", 0)
        monkeypatch.setattr(pool._plain, "refused", 0)
        pieced = _stretches(source, spill, size)
        monkeypatch.setattr(span_pieces, "MIN_LINE_BYTES", 1 << 40)
        monkeypatch.setattr(pool._plain, "refused", 0)
        assert pieced == _stretches(source, spill, size)
        streamed = pool._streamed
        monkeypatch.setattr(pool, "_streamed", lambda: False)  # the spans kept, as with --gold
        kept = _stretches(source, spill, size)
        monkeypatch.setattr(pool, "_streamed", streamed)
        assert pieced == kept
        assert b'"outcome"' in b"".join(stretch[2] for stretch in pieced if len(stretch) > 2)
    assert counted["pieces"] > 100 and counted["earlier"] > 3


def test_a_trace_turned_down_in_a_later_piece_has_the_spans_and_numbers_of_whole_lines(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, context: Any, counted: dict[str, int]) -> None:
    source = _collector_file(tmp_path / "collector.jsonl", range(710_000, 710_120))
    lines = source.read_bytes().splitlines(keepends=True)
    body, after = lines[:-1], lines[-1]
    gathered = []
    for long_line, streamed in ((0, True), (1 << 40, False)):
        monkeypatch.setattr(span_pieces, "MIN_LINE_BYTES", long_line)
        traces = pool.StretchTraces(streamed)
        facts = pool._line_facts(body, 0, 0, bom=True, parsed=traces)
        assert facts is not None
        traces.lines, traces.numbers, traces.bom = body, facts[0], True
        traces.add_after(*pool._edge_spans(after))
        gathered.append((facts, traces))
    (facts, now), (kept_facts, kept) = gathered
    assert facts == kept_facts and now.line_keys == kept.line_keys and now.line_orders == kept.line_orders
    turned_down = [key for key, reader in now.readers.items() if reader is None]
    for key in turned_down:
        assert now.spans_of(key) == kept.gathered[key], key
    assert len(turned_down) > 5 and counted["earlier"] > 0 and counted["pieces"] > 50


def test_a_line_declined_after_some_pieces_reads_the_stretch_again_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, context: Any, counted: dict[str, int]) -> None:
    request = json.loads(OTLP_FILE.read_text(encoding="utf-8"))
    spans = [dict(span, traceId=f"{n:032x}") for n in range(1, 9)
             for scope in request["resourceSpans"][0]["scopeSpans"] for span in scope["spans"]]
    scopes = [{"scope": {}, "spans": spans}, {"scope": {}, "spans": [], "spans ": []}]
    line = json.dumps({"resourceSpans": [{"resource": {}, "scopeSpans": scopes}]}).replace('"spans ": []', '"spans": []')
    source = tmp_path / "declined.jsonl"
    source.write_text(line + "\n" + json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans[:2]}]}]}) + "\n",
                      encoding="utf-8")  # (the second line: a stretch of more than one line)
    spill = tmp_path / "spill"
    spill.mkdir()
    read_whole: list[bool] = []
    line_facts = pool._line_facts

    def recorded(*args: Any, **kwargs: Any) -> Any:
        read_whole.append(kwargs.get("in_pieces", True) is False)
        return line_facts(*args, **kwargs)

    monkeypatch.setattr(pool, "_line_facts", recorded)
    monkeypatch.setattr(span_pieces, "MIN_LINE_BYTES", 0)
    pieced = _stretches(source, spill, 1 << 20)
    assert counted["pieces"] > 0 and read_whole == [False, True]
    monkeypatch.setattr(span_pieces, "MIN_LINE_BYTES", 1 << 40)
    assert pieced == _stretches(source, spill, 1 << 20)
    assert pieced[0][2].count(b"\n") == 8  # every trace's record, from the line read whole
