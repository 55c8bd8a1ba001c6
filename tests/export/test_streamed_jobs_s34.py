"""A planned second-pass job reads its traces span by span (a plain reader a trace, the raw spans let go) and
gives the records of the job that keeps every span; a trace the reader turns down, or a long line declined
after some of its spans were given, reads the job again with its spans kept (issue 11: a job on a
collector's 7 MB lines kept 35 MiB of raw spans)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from toolscore_export import per_trace_pool as pool
from toolscore_export import span_pieces
from toolscore_export.trace_batches import TraceContext, set_context

from .test_per_trace_pool import SPANS, collector_file, random_file, traced
from .test_per_trace_pool_long_lines_s30 import batched_file


@pytest.fixture(autouse=True)
def context(monkeypatch):
    monkeypatch.setattr(pool._plain, "refused", 0)  # the reader's count is a worker's: start each test afresh
    set_context(TraceContext(None, None, None))
    yield
    set_context(None)


def whole_job(source: Path, **fields) -> pool.TraceJob:
    size = source.stat().st_size
    return pool.TraceJob(**{"path": str(source), "sha256": "0" * 64, "first": 1, "offset": 0, "size": size,
                            "order": 0, "start": 1, "carried": (), **fields})


def both(job: pool.TraceJob) -> tuple:
    return pool._job_read(job, pool._JobTraces(streamed=True)), pool._job_read(job, pool._JobTraces(streamed=False))


def test_streamed_jobs_make_the_records_of_kept_ones(tmp_path, monkeypatch):
    monkeypatch.setattr(span_pieces, "PIECE_BYTES", 300)
    rng = random.Random(5)
    sources = [collector_file(tmp_path / "c.jsonl", 12), batched_file(tmp_path / "b.jsonl", 40, 8)]
    sources += [random_file(tmp_path / f"r{n}.jsonl", rng) for n in range(12)]
    read_streamed = 0
    for long_line in (0, 1 << 30):  # every line in pieces, or every line whole
        monkeypatch.setattr(span_pieces, "MIN_LINE_BYTES", long_line)
        for number, source in enumerate(sources):
            streamed, kept = both(whole_job(source))
            assert kept is not None and kept[0].count(b"\n") == len(kept[1]) > 0
            if streamed is not None or number < 2:  # (a random file may have spans without a trace id: kept)
                assert streamed == kept
                read_streamed += 1
    assert read_streamed >= 2 * (2 + 3)  # the two files and some random ones, both ways
    carried = f"{3:032x}"  # a trace of a later job: its spans are not this job's
    streamed, kept = both(whole_job(sources[0], carried=(carried,), start=4))  # traces ending on line 4 on
    assert kept is not None and streamed == kept and carried not in kept[1]
    assert len(kept[1]) == 12 - 2 - 1  # trace n ends on line n + 1: the first two end before line 4


@pytest.mark.parametrize("long_line", [0, 1 << 30])
@pytest.mark.parametrize(("line", "span"), [(3, -1), (4, 0), (1, 0), (0, 0)])
def test_a_trace_the_reader_turns_down_is_read_with_every_span(tmp_path, monkeypatch, line, span, long_line):
    """A span with an event (which the plain reader turns down) at the start, middle or end of a trace: the
    streamed job reads that trace by the general path with its spans kept from there and those its reader
    took before read again (once for the job), the rest by their readers: the kept job's records."""
    monkeypatch.setattr(span_pieces, "MIN_LINE_BYTES", long_line)
    monkeypatch.setattr(span_pieces, "PIECE_BYTES", 200)
    source = collector_file(tmp_path / "c.jsonl", 6)
    lines = source.read_text(encoding="utf-8").splitlines()
    request = json.loads(lines[line])
    request["resourceSpans"][0]["scopeSpans"][0]["spans"][span]["events"] = [{"name": "exception"}]
    lines[line] = json.dumps(request)
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    job = whole_job(source)
    traces = pool._JobTraces(streamed=True)
    streamed = pool._job_read(job, traces)
    kept = pool._job_read(job, pool._JobTraces(streamed=False))
    assert streamed is not None and streamed == kept and len(kept[1]) == 6
    assert not traces.gathered and not traces.before  # each used once
    # (line j holds the second half of trace j - 1 and the first half of trace j: only the very first span
    # of the file is the first of its trace; before any other, the trace's reader had taken some)
    assert bool(traces.earlier) == ((line, span) != (0, 0))


def test_a_long_line_declined_after_some_spans_were_given_reads_the_job_again(tmp_path, monkeypatch):
    monkeypatch.setattr(span_pieces, "MIN_LINE_BYTES", 0)
    spans = [span for n in range(3) for span in traced(n, SPANS)]
    scopes = [{"scope": {}, "spans": spans}, {"scope": {}, "spans": [], "spans ": []}]
    text = json.dumps({"resourceSpans": [{"resource": {}, "scopeSpans": scopes}]})
    source = tmp_path / "declined.jsonl"
    source.write_text(text.replace('"spans ": []', '"spans": []') + "\n", encoding="utf-8")  # a key twice
    job = whole_job(source)
    assert pool._job_read(job, pool._JobTraces(streamed=True)) is None
    kept = pool._job_read(job, pool._JobTraces(streamed=False))
    assert kept is not None and len(kept[1]) == 3 and pool._job_records(job) == kept


def test_a_job_of_long_lines_is_streamed_without_gold_and_until_the_reader_gives_up(tmp_path, monkeypatch):
    seen: list[bool] = []
    monkeypatch.setattr(pool, "_job_read", lambda job, traces: seen.append(traces.streamed) or (b"", []))
    job = whole_job(collector_file(tmp_path / "c.jsonl", 2))
    monkeypatch.setattr(pool, "STREAMED_JOB_BYTES", job.size + 1)  # a job of short lines keeps its spans
    pool._job_records(job)
    assert seen == [False]
    seen.clear()
    monkeypatch.setattr(pool, "STREAMED_JOB_BYTES", job.size)
    pool._job_records(job)
    monkeypatch.setattr(pool._plain, "refused", pool._PlainReader.GIVE_UP)  # a source of traces it turns down
    pool._job_records(job)
    monkeypatch.setattr(pool._plain, "refused", 0)
    set_context(TraceContext(None, object(), None))  # --gold: the score needs the adapter's Trace
    pool._job_records(job)
    assert seen == [True, False, False]


def test_spans_are_numbered_by_their_place_in_the_file_both_ways(tmp_path, monkeypatch):
    """The readers order calls and answers by these numbers where times tie: each span's is its place."""
    monkeypatch.setattr(span_pieces, "PIECE_BYTES", 300)
    source = batched_file(tmp_path / "b.jsonl", 24, 6)
    spans_in_file = sum(len(json.loads(line)["resourceSpans"][0]["scopeSpans"][0]["spans"])
                        for line in source.read_text(encoding="utf-8").splitlines())
    for long_line in (0, 1 << 30):
        monkeypatch.setattr(span_pieces, "MIN_LINE_BYTES", long_line)
        for streamed in (True, False):
            traces = pool._JobTraces(streamed=streamed)
            numbers: list[int] = []
            take = traces.take
            monkeypatch.setattr(traces, "take", lambda key, span, order, take=take, numbers=numbers: (
                numbers.append(order), take(key, span, order)))
            assert pool._job_read(whole_job(source, order=5), traces) is not None
            assert numbers == list(range(5, 5 + spans_in_file)), (long_line, streamed)


def test_a_trace_the_reader_cannot_finish_reads_the_job_again(tmp_path, monkeypatch):
    from toolscore_export.plain_trace import PlainTraceReader

    job = whole_job(collector_file(tmp_path / "c.jsonl", 4))
    result = PlainTraceReader.result
    monkeypatch.setattr(PlainTraceReader, "result", lambda self: None if self._key.endswith("3") else result(self))
    assert pool._job_read(job, pool._JobTraces(streamed=True)) is None
    made = pool._job_records(job)
    assert len(made[1]) == 4 and made[0].count(b"\n") == 4
