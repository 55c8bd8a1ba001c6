"""The first pass's short cuts against the adapter's own walk: plain_spans finds the spans iter_raw_spans
walks, known_key gives trace_key's id (or its refusal), _line_facts gives what the general walk gives (issue 11)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolscore_adapters.protocols import otel_spans
from toolscore_core import InputError
from toolscore_export import per_trace
from toolscore_export import per_trace_pool as pool
from toolscore_export.parallel import Chunk
from toolscore_export.per_trace import trace_key

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "adapters" / "fixtures"
ODD = [None, 0, 1.5, "x", True, [], {}]  # values of the wrong type at any level


def walked(request: Any) -> list[Any] | Exception:
    """The spans the adapter's walk finds, or the error it raises."""
    try:
        return [span for _, span in otel_spans.iter_raw_spans(request, "$")]
    except Exception as exc:  # the refusal is the answer
        return exc


def keyed(raw: Any, known: dict[str, str] | None = None) -> str | type:
    """The trace key, or the type of the error, by the short cut (``known`` given) or the general way."""
    try:
        return per_trace.known_key(raw, known, otel_spans) if known is not None else trace_key(raw, "$", otel_spans)
    except Exception as exc:  # the refusal is the answer
        return type(exc)


def random_level(rng: random.Random, depth: int) -> Any:
    """A request, resource, scope or span list of random shape: mostly plain, sometimes odd or renamed."""
    if rng.random() < 0.08:
        return rng.choice(ODD)
    if depth == 3:
        return [rng.choice([{"traceId": "ab" * 16, "n": i}, {"name": "s"}, *ODD]) if rng.random() < 0.15
                else {"traceId": "ab" * 16, "n": i} for i in range(rng.randint(0, 4))]
    if depth == 0:
        key = rng.choice(["resourceSpans"] * 6 + ["resource_spans"])
        extra = {"resource_spans": random_level(rng, 1)} if rng.random() < 0.1 else {}
        return {key: random_level(rng, 1), **extra}
    if depth == 1:
        items = []
        for _ in range(rng.randint(0, 3)):
            key = rng.choice(["scopeSpans"] * 5 + ["scope_spans", "instrumentationLibrarySpans"])
            item = {key: random_level(rng, 2)} if rng.random() > 0.05 else rng.choice(ODD)
            if isinstance(item, dict) and rng.random() < 0.1:
                item["instrumentationLibrarySpans"] = random_level(rng, 2)
            items.append(item)
        return items
    items = []
    for _ in range(rng.randint(0, 3)):
        item = {"spans": random_level(rng, 3)} if rng.random() > 0.1 else rng.choice([{"scope": {}}, *ODD])
        items.append(item)
    return items


def random_requests(rng: random.Random, tries: int) -> Iterator[dict[str, Any]]:
    """The export requests among ``tries`` random shapes."""
    for _ in range(tries):
        request = random_level(rng, 0)
        if isinstance(request, dict) and otel_spans.is_export_request(request):
            yield request


def fixture_requests() -> list[Any]:
    requests: list[Any] = []
    for path in sorted(FIXTURES.rglob("*.json*")):
        text = path.read_text(encoding="utf-8-sig")
        try:
            values = [json.loads(text)]
        except ValueError:
            values = [json.loads(line) for line in text.splitlines() if line.strip()]
        for value in values:
            requests.extend(value if isinstance(value, list) else [value])
    return [r for r in requests if otel_spans.is_export_request(r)]


def test_plain_spans_are_the_walks_spans_on_every_fixture():
    requests = fixture_requests()
    assert len(requests) >= 8
    for request in requests:
        found = per_trace.plain_spans(request)
        assert found is not None  # the fixtures are plain: the short cut is taken
        assert found == walked(request)


def test_plain_spans_on_random_shapes_are_the_walks_spans_or_none():
    taken = 0
    for request in random_requests(random.Random(11), 6000):
        found = per_trace.plain_spans(request)
        general = walked(request)
        if found is not None:
            taken += 1
            assert not isinstance(general, Exception), request
            assert len(found) == len(general) and all(a is b for a, b in zip(found, general, strict=True)), request
    assert taken > 500


TRACE_IDS = ["ab" * 16, "AB" * 16, "0x" + "ab" * 16, " " + "ab" * 16, "", "q" * 32, "YWJjZGVmZ2hpamtsbW5vcA==",
             "YWJjZGVmZ2hpamtsbW5vcA", "abc", 17, None, 1.5, ["ab" * 16], "cd" * 8, "CD" * 8]


def test_known_key_is_trace_key_whatever_the_span():
    rng = random.Random(7)
    known: dict[str, str] = {}
    for _ in range(5000):
        choice = rng.random()
        if choice < 0.05:
            raw: Any = rng.choice(ODD[:-1])
        elif choice < 0.15:
            raw = {"trace_id": rng.choice(TRACE_IDS)}
        elif choice < 0.2:
            raw = {"traceId": rng.choice(TRACE_IDS), "trace_id": rng.choice(TRACE_IDS)}
        elif choice < 0.25:
            raw = {"name": "no id"}
        else:
            raw = {"traceId": rng.choice(TRACE_IDS)}
        assert keyed(raw, known) == keyed(raw), raw
    assert {"ab" * 16, "cd" * 8} <= set(known.values())


def general_facts(chunk: Chunk) -> tuple[list[int], list[int], list[int], list[int], dict[str, int]]:
    """What _line_facts gives, by the adapter's walk and trace_key for every span of every non-blank line:
    their numbers, offsets, ends and span counts, and each trace's first and last of them."""
    import orjson

    numbers, starts, ends, counts = [], [], [], []
    bounds: dict[str, int] = {}
    offset = chunk.offset
    lines, _ = chunk.lines()
    for index, raw in enumerate(lines):
        start, offset = offset, offset + len(raw)
        number = chunk.first + index
        body = raw.removeprefix(b"\xef\xbb\xbf") if number == 1 else raw
        if not body or body.isspace():
            continue
        keys = [trace_key(span, where, otel_spans)
                for where, span in otel_spans.iter_raw_spans(orjson.loads(body), f"line {number}: $")]
        at = len(numbers)
        for key in keys:
            bounds[key] = (bounds[key] >> 32 if key in bounds else at) << 32 | at
        numbers.append(number)
        starts.append(start)
        ends.append(offset)
        counts.append(len(keys))
    return numbers, starts, ends, counts, bounds


@pytest.mark.parametrize("seed", range(20))
def test_line_facts_are_the_general_walks(tmp_path, seed):
    rng = random.Random(seed)
    lines = []
    for _ in range(rng.randint(1, 30)):
        if rng.random() < 0.1:
            lines.append("   ")
            continue
        spans = [{"traceId": rng.choice(["ab" * 16, "AB" * 16, "cd" * 16, "", "YWJjZGVmZ2hpamtsbW5vcA=="]),
                  "spanId": f"{i:016x}"} for i in range(rng.randint(0, 5))]
        scopes = [{"scope": {}, "spans": spans}] if rng.random() < 0.8 else [{"spans": spans[:1]}, {"spans": spans[1:]}]
        key = "scopeSpans" if rng.random() < 0.8 else "instrumentationLibrarySpans"
        lines.append(json.dumps({"resourceSpans": [{"resource": {}, key: scopes}]}))
    path = tmp_path / "spans.jsonl"
    path.write_bytes((b"\xef\xbb\xbf" if seed % 3 == 0 else b"") + ("\n".join(lines) + "\n").encode())
    chunk = Chunk(path=str(path), sha256="", first=1, offset=0, size=path.stat().st_size, final=True, latest=None,
                  attempts={})
    facts = chunk_facts(chunk)
    assert facts is not None
    assert ([list(a) for a in facts[:4]], facts[4]) == (list(general_facts(chunk)[:4]), general_facts(chunk)[4])


def random_lines_file(path: Path, rng: random.Random) -> Path:
    """OTLP lines of random lengths (some longer than a stretch), blank lines, maybe a BOM, maybe no final newline."""
    lines = []
    for _ in range(rng.randint(0, 25)):
        if rng.random() < 0.15:
            lines.append(rng.choice(["", " ", "\t "]))
            continue
        spans = [{"traceId": f"{rng.randint(1, 6):032x}", "spanId": f"{i:016x}", "name": "x" * rng.randint(1, 300)}
                 for i in range(rng.randint(0, 4))]
        lines.append(json.dumps({"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": spans}]}]}))
    text = "\n".join(lines) + ("\n" if rng.random() < 0.7 else "")
    path.write_bytes((b"\xef\xbb\xbf" if rng.random() < 0.3 else b"") + text.encode())
    return path


def chunk_facts(chunk: Chunk):
    """The first pass as the driver once cut it, by whole-line chunks: the oracle for the stretches."""
    lines, _ = chunk.lines()
    return pool._line_facts(lines, chunk.offset, chunk.first, bom=chunk.first == 1)


class InProcess:
    """Workers that are this process: the first pass's own functions, in order."""

    def ordered(self, func, jobs):
        return map(func, jobs)


@pytest.mark.parametrize("seed", range(40))
def test_the_first_pass_over_stretches_is_the_first_pass_over_whole_line_chunks(tmp_path, monkeypatch, seed):
    """Stretches cut at fixed offsets (the workers find the lines) give the facts that chunks cut after a
    newline by the driver give: every line once, numbered and placed alike, whatever the stretch size."""
    from toolscore_export.parallel import _spans

    rng = random.Random(seed)
    path = random_lines_file(tmp_path / "lines.jsonl", rng)
    expected = pool._Lines(compact=True)  # as a first pass that builds no record keeps its trace ids
    for first, offset, size, _, final in _spans(path, 1 << 20):
        facts = chunk_facts(Chunk(path=str(path), sha256="", first=first, offset=offset, size=size, final=final,
                                     latest=None, attempts={}))
        assert facts is not None
        expected.extend(facts)
    for stretch in sorted({1, 2, 7, 64, rng.randint(1, 4000), 1 << 20}):
        monkeypatch.setattr(pool, "CHUNK_BYTES", stretch)
        found = pool.first_pass(path, InProcess())
        assert found == expected, stretch


@pytest.mark.parametrize("seed", range(8))
def test_small_stretches_in_worker_processes_are_the_serial_export(tmp_path, monkeypatch, seed):
    from toolscore_export import export_runs
    from toolscore_export import parallel as par

    monkeypatch.setattr(par, "can_fork", lambda: True)
    monkeypatch.setattr(pool, "MIN_BYTES", 0)
    monkeypatch.setattr(pool, "JOB_TRACES", 2)
    monkeypatch.setattr(pool, "CHUNK_BYTES", random.Random(seed).choice([1, 50, 300, 1000]))
    path = random_lines_file(tmp_path / "lines.jsonl", random.Random(seed))
    try:
        serial = export_runs([path], tmp_path / "serial.jsonl", workers=1, per_trace=True)
    except InputError as exc:  # an empty file, say: the same error
        with pytest.raises(InputError) as pooled_error:
            export_runs([path], tmp_path / "pooled.jsonl", workers=2, per_trace=True)
        assert str(pooled_error.value) == str(exc)
        return

    def serial_path(*args):
        raise AssertionError("the serial path read the file: the workers did not give every record")

    monkeypatch.setattr(per_trace, "_traces", serial_path)
    pooled = export_runs([path], tmp_path / "pooled.jsonl", workers=2, per_trace=True)
    assert (tmp_path / "serial.jsonl").read_bytes() == (tmp_path / "pooled.jsonl").read_bytes()
    assert serial.records == pooled.records


def test_taken_is_the_check_of_every_key_against_the_first_pass():
    """The driver's check of a job's trace ids: the count, each id known, not given yet and ending in
    (previous, cut]; the ids are then marked given in the bounds (which are the source's run ids), and
    a failed check marks none; a repeated id fails (a worker gives each trace once)."""
    from toolscore_export.run_ids import GIVEN

    rng = random.Random(5)
    for _ in range(3000):
        bounds = {f"t{i}": rng.choice([GIVEN, rng.randint(0, 9) << 32 | rng.randint(0, 12)])
                  for i in range(rng.randint(0, 8))}
        keys = rng.sample([*bounds, "unknown"], rng.randint(0, len(bounds) + 1))
        count = len(keys) + rng.choice([0, 0, 0, -1, 1])
        previous, cut = sorted(rng.sample(range(-1, 13), 2))
        expected = len(keys) == count and all(
            k in bounds and bounds[k] != GIVEN and previous < bounds[k] & 0xFFFFFFFF <= cut for k in keys)
        left = dict(bounds)
        assert pool._taken(left, keys, count, previous, cut) == expected, (bounds, keys, count, previous, cut)
        assert left == ({k: GIVEN if k in keys else v for k, v in bounds.items()} if expected else bounds)
    bounds = {"a": 3, "b": 3}
    assert not pool._taken(bounds, ["a", "a"], 2, 0, 5)
    assert bounds == {"a": 3, "b": 3}


def keys_or_error(compute) -> Any:
    """The keys, or the error's type, message and place."""
    try:
        return compute()
    except Exception as exc:  # the refusal is the answer
        return type(exc), getattr(exc, "message", str(exc)), getattr(exc, "location", None)


def rename_ids(value: Any, rng: random.Random) -> None:
    """Give some spans (dicts with a traceId) anywhere in ``value`` another id, good or bad."""
    if isinstance(value, dict):
        if "traceId" in value and rng.random() < 0.3:
            value["traceId"] = rng.choice(TRACE_IDS)
        for item in value.values():
            rename_ids(item, rng)
    elif isinstance(value, list):
        for item in value:
            rename_ids(item, rng)


def test_the_serial_first_pass_keys_are_the_walks_keys_and_errors():
    """per_trace._request_keys (plain spans and remembered keys where they read the request) against the
    adapter's walk and trace_key for every span: the same keys in order, or the same first error at its place."""
    rng = random.Random(3)
    errors = 0
    for request in random_requests(rng, 4000):
        rename_ids(request, rng)
        general = keys_or_error(lambda request=request: [trace_key(raw, where, otel_spans)
                                                         for where, raw in otel_spans.iter_raw_spans(request, "line 3: $")])
        fast = keys_or_error(lambda request=request: per_trace._request_keys(request, "line 3: $", {}, otel_spans))
        assert fast == general, request
        errors += isinstance(general, tuple)
    assert errors > 50
