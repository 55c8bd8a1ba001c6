"""A stretch's traces read span by span as its lines are parsed (``per_trace_pool.StretchTraces``, issue 11).

Why: the first pass used to keep every decoded line of a stretch until its last was parsed, then read each
trace; now each span goes to its trace's plain reader as its line is parsed, and the line's decoded JSON
goes with it. A trace the reader turns down is read by the general path from its lines parsed again
(``spans_of``). What the stretch builds must not change: the same records, in the same order, with the
same traces left to jobs and built ahead, on plain traces and on every odd shape the random generators of
``test_plain_trace_s30`` make (which the reader turns down, or the adapter refuses).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from toolscore_export import per_trace_pool as pool
from toolscore_export.trace_batches import TraceContext, set_context

from .test_plain_trace_s30 import plain_traces, random_traces

OTLP_FILE = Path(__file__).resolve().parents[2] / "tests" / "adapters" / "fixtures" / "otel" / "mcp_spans.json"


def _collector_file(path: Path, seeds: range) -> Path:
    """JSON Lines of export requests: the traces of each seed, random and plain by turns, spread over one to
    three lines each, the lines of neighbouring traces shared (as a collector's batches are)."""
    rng = random.Random(seeds.start)
    lines: list[list[Any]] = [[]]
    for seed in seeds:
        traces = random_traces(seed) if seed % 3 == 0 else plain_traces(seed)
        spans = [span for found in traces.values() for span, _ in found]
        for span in spans:
            if rng.random() < 0.3:
                lines.append([])
            lines[-1].append(span)
        if rng.random() < 0.5:
            lines.append([])
    path.write_text("".join(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}) + "\n"
                            for spans in lines if spans), encoding="utf-8")
    return path


def _stretches(path: Path, spill: Path, size: int) -> list[Any]:
    """``stretch_keys`` of every stretch of ``size`` bytes, with the records each built read back from its
    spill file (the Built tuple names a file; its bytes are what the driver takes)."""
    total, out = path.stat().st_size, list[Any]()
    for offset in range(0, total, size):
        found = pool.stretch_keys(pool.Stretch(str(path), offset, min(size, total - offset), "ab" * 32, str(spill)))
        assert found is not None
        if len(found) == 2:  # no line starts in it
            out.append(found)
            continue
        facts, count, built = found
        name, at, records, listed, lengths, ahead = built
        with open(name, "rb") as handle:
            handle.seek(at)
            data = handle.read(records + listed + sum(length for _, length in ahead))
        out.append((facts, count, data, records, listed, list(lengths), ahead))
    for spilled in spill.iterdir():
        spilled.unlink()
    return out


@pytest.fixture
def context() -> Any:
    set_context(TraceContext(None, None, None))
    pool._plain.refused = 0
    yield
    pool._plain.refused = 0
    set_context(None)


def test_a_streamed_stretch_builds_what_a_kept_one_did(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        context: Any) -> None:
    """Every stretch of a file of plain and odd traces, read streamed and read with its spans kept (the way
    before, and the way still taken with ``--gold`` or once the reader gives up): the same facts, records,
    keys and records built ahead; and the streamed run did read traces by the reader, by the general path
    from the lines parsed again, and ahead of a stretch's end."""
    source = _collector_file(tmp_path / "collector.jsonl", range(700_000, 700_300))
    spill = tmp_path / "spill"
    spill.mkdir()
    reparsed: list[str] = []
    spans_of = pool.StretchTraces.spans_of

    def counted(self: pool.StretchTraces, key: str) -> Any:
        reparsed.append(key)
        return spans_of(self, key)

    monkeypatch.setattr(pool.StretchTraces, "spans_of", counted)
    streamed: list[bool] = []
    decide = pool._streamed

    def recorded() -> bool:
        streamed.append(decide())
        return streamed[-1]

    monkeypatch.setattr(pool, "_streamed", recorded)
    for size in (4_000, 25_000):
        pool._plain.refused = 0
        now = _stretches(source, spill, size)
        assert True in streamed
        monkeypatch.setattr(pool, "_streamed", lambda: False)
        kept = _stretches(source, spill, size)
        monkeypatch.setattr(pool, "_streamed", recorded)
        assert now == kept
        built = [stretch for stretch in now if len(stretch) > 2]
        assert sum(len(stretch[5]) for stretch in built) > 100  # traces the stretches saw
        assert sum(len(stretch[6]) for stretch in built) > 3  # built ahead, with the next line's spans
        assert b'"outcome"' in b"".join(stretch[2] for stretch in built)
    assert len(reparsed) > 10  # turned down by the reader: read again by the general path


def test_a_turned_down_trace_has_the_spans_and_numbers_a_kept_stretch_holds(tmp_path: Path, context: Any) -> None:
    """``spans_of`` (the lines before the trace was turned down parsed again, then the spans kept from there,
    the line past the edge's too) and the traces kept whole, against the spans a kept stretch gathered: the
    same spans in the same order with the same numbers."""
    source = _collector_file(tmp_path / "collector.jsonl", range(710_000, 710_120))
    lines = source.read_bytes().splitlines(keepends=True)
    body, after = lines[:-1], lines[-1]
    gathered = []
    for streamed in (True, False):
        traces = pool.StretchTraces(streamed)
        facts = pool._line_facts(body, 0, 0, bom=True, parsed=traces)
        assert facts is not None
        traces.lines, traces.numbers, traces.bom = body, facts[0], True
        traces.add_after(*pool._edge_spans(after))
        gathered.append(traces)
    now, kept = gathered
    assert set(now.readers) | set(now.gathered) == set(kept.gathered) and len(kept.gathered) > 50
    crossing = [key for key in kept.gathered if key in pool._edge_spans(after)[1]]
    assert crossing  # a trace with spans on the line after: its spans there count too
    turned_down = [key for key, reader in now.readers.items() if reader is None]
    for key in turned_down:
        assert now.spans_of(key) == kept.gathered[key], key
    for key in set(now.gathered) - set(now.readers):
        assert now.gathered[key] == kept.gathered[key], key
    assert len(turned_down) > 5 and now._again  # and some of them had spans on lines parsed again
    assert any(reader is not None for reader in now.readers.values())


def test_a_stretch_mostly_turned_down_keeps_the_spans_of_the_traces_after(tmp_path: Path, context: Any) -> None:
    """Past ``GIVE_UP`` traces turned down, most of those seen, a stretch's new traces keep their spans (no
    reader), and no line is parsed again for a trace turned down at its first span."""
    request = json.loads(OTLP_FILE.read_text(encoding="utf-8"))
    spans = [span for resource in request["resourceSpans"] for scope in resource["scopeSpans"]
             for span in scope["spans"]]
    line = []
    for number in range(40):  # every span with an event: the reader turns each trace down at its first tool span
        for span in spans:
            line.append(dict(span, traceId=f"{number + 1:032x}", events=[{"name": "log", "attributes": []}]))
    body = [(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": line[i:i + 60]}]}]}) + "\n").encode()
            for i in range(0, len(line), 60)]
    traces = pool.StretchTraces(True)
    facts = pool._line_facts(body, 0, 0, bom=False, parsed=traces)
    assert facts is not None
    traces.lines, traces.numbers = body, facts[0]
    turned_down = [key for key, reader in traces.readers.items() if reader is None]
    assert len(turned_down) == len(traces.readers) >= pool._PlainReader.GIVE_UP
    assert len(traces.gathered) == 40 and len(traces.readers) < 40
    for key in turned_down:
        assert [order for _, order in traces.spans_of(key)] == [order for _, order in traces.gathered[key]]
    assert not traces._again  # each turned down on the line it starts on


def test_a_reader_that_keeps_refusing_leaves_the_next_stretches_their_spans(tmp_path: Path, context: Any) -> None:
    """Refusals are counted as before, a trace each: past ``GIVE_UP`` in a row the next stretch keeps its spans
    (the reader is then asked one trace in ``RETRY_EVERY``), and a plain trace read streamed resets the count."""
    assert pool._streamed()
    pool._plain.result_of(None)
    assert pool._plain.refused == 1
    pool._plain.refused = pool._PlainReader.GIVE_UP
    assert not pool._streamed()
    source = _collector_file(tmp_path / "plain.jsonl", range(720_001, 720_003))  # plain traces only (seed % 3)
    spill = tmp_path / "spill"
    spill.mkdir()
    pool._plain.refused = 0
    _stretches(source, spill, 1 << 20)
    assert pool._plain.refused == 0
    set_context(TraceContext(None, "gold.json", None))  # a gold scores each trace: the adapter's Trace
    assert not pool._streamed()


def test_each_line_is_parsed_again_once_at_most(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                context: Any) -> None:
    """Traces whose first span (plain) is on one line and their spans with events on the next: each is turned
    down on the next line and needs its first span from the line before, which is parsed again once for all
    the traces on it (not once a trace: a collector's line holds hundreds)."""
    request = json.loads(OTLP_FILE.read_text(encoding="utf-8"))
    spans = [span for resource in request["resourceSpans"] for scope in resource["scopeSpans"]
             for span in scope["spans"]]

    def trace(number: int) -> list[dict[str, Any]]:
        return [dict(span, traceId=f"{number + 1:032x}", **({"events": [{"name": "log"}]} if at else {}))
                for at, span in enumerate(spans)]

    per_line, lines_count = 10, 6
    body = []
    for line in range(lines_count):
        written = [span for n in range(per_line * (line - 1), per_line * line) if n >= 0 for span in trace(n)[1:]]
        written += [trace(n)[0] for n in range(per_line * line, per_line * (line + 1))]
        body.append((json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": written}]}]}) + "\n").encode())
    traces = pool.StretchTraces(True)
    facts = pool._line_facts(body, 0, 0, bom=False, parsed=traces)
    assert facts is not None
    traces.lines, traces.numbers = body, facts[0]
    parses: list[int] = []
    line_facts = pool._line_facts

    def counted(lines: list[bytes], *args: Any, **kwargs: Any) -> Any:
        parses.append(len(lines))
        return line_facts(lines, *args, **kwargs)

    monkeypatch.setattr(pool, "_line_facts", counted)
    turned_down = [key for key, reader in traces.readers.items() if reader is None]
    assert len(turned_down) >= pool._PlainReader.GIVE_UP
    for key in turned_down:
        found = traces.spans_of(key)
        assert [span.get("name") for span, _ in found] == [span["name"] for span in spans], key
    assert 0 < len(parses) <= lines_count - 1  # the lines before the last, once each
