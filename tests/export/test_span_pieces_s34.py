"""A long OTLP line read in pieces gives the spans of the whole line's parse, or declines: random plain lines
(several resources and scopes, spaced or compact, unicode, escapes, links that look like a cut), every odd
shape and hostile byte the whole line's reader meets, and the pool's export of long lines (issue 11)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import orjson
import pytest

from toolscore_core.kernel.readlimits import loads_bytes, orjson_agrees
from toolscore_export import parallel as par
from toolscore_export import per_trace_pool as pool
from toolscore_export import span_pieces
from toolscore_export.per_trace import plain_spans
from toolscore_export.span_pieces import Declined, spans_in_pieces

from .test_per_trace_pool import _outcome, exported, random_file
from .test_per_trace_pool_long_lines_s30 import batched_file

ROOT = Path(__file__).resolve().parents[2]
REQUEST = json.loads((ROOT / "tests" / "adapters" / "fixtures" / "otel" / "mcp_spans.json").read_text(encoding="utf-8"))
SPANS = [span for scope in REQUEST["resourceSpans"][0]["scopeSpans"] for span in scope["spans"]]
TEXTS = ["plain", "é and 漢字 and 😀", 'quote " and \\ backslash', "},{\"traceId\":\"x\"", "[{]}", "\u2028", "\x7f"]


def same(a: object, b: object) -> bool:
    """Equal values of the same types all the way down (1 and 1.0, or True and 1, are not the same here)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)  # type: ignore[index]
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))  # type: ignore[arg-type]
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)  # type: ignore[arg-type]
    return a == b


def pieces(body: bytes, *, exact: bool = True, piece_bytes: int = 64) -> list[list]:
    return list(spans_in_pieces(body, exact=exact, piece_bytes=piece_bytes))


def whole(body: bytes) -> list:
    return plain_spans(loads_bytes(body))


def random_span(rng: random.Random, trace: int) -> dict:
    span = dict(rng.choice(SPANS), traceId=f"{trace:032x}", spanId=f"{rng.getrandbits(64):016x}")
    span["attributes"] = span.get("attributes", []) + [
        {"key": f"k{i}", "value": rng.choice([{"stringValue": rng.choice(TEXTS)}, {"intValue": rng.randint(-9, 10**15)},
                                             {"doubleValue": rng.random()}, {"boolValue": True}])}
        for i in range(rng.randint(0, 3))]
    if rng.random() < 0.3:  # links open with the trace id too: a cut's bytes inside a span
        span["links"] = [{"traceId": f"{rng.getrandbits(128):032x}", "spanId": f"{rng.getrandbits(64):016x}"}
                         for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.2:
        span = {"name": span.pop("name"), **span}  # another first key
    return span


def random_line(rng: random.Random) -> bytes:
    request: dict = {"resourceSpans": []}
    if rng.random() < 0.3:
        request = {"extra": {"x": [1, 2.5, None]}, **request}
    for _ in range(rng.randint(1, 3)):
        scopes = []
        for _ in range(rng.randint(0, 3)):
            scope: dict = {"scope": {"name": rng.choice(TEXTS)}}
            kind = rng.random()
            if kind < 0.1:
                scope["spans"] = None
            elif kind < 0.9:
                scope["spans"] = [random_span(rng, rng.randint(1, 4)) for _ in range(rng.randint(0, 30))]
            if rng.random() < 0.5:
                scope["schemaUrl"] = "https://opentelemetry.io/schemas/1.24.0"
            scopes.append(scope)
        request["resourceSpans"].append({"resource": {"attributes": []}, "scopeSpans": scopes})
    style = rng.choice(["compact", "spaced", "ascii", "orjson"])
    if style == "orjson":
        text = orjson.dumps(request)
    elif style == "compact":
        text = json.dumps(request, separators=(",", ":"), ensure_ascii=False).encode()
    else:
        text = json.dumps(request, ensure_ascii=style == "ascii").encode()
    return (b" " if rng.random() < 0.1 else b"") + text + rng.choice([b"\n", b"", b" \r\n"])


@pytest.mark.parametrize("seed", range(6))
def test_random_plain_lines_in_pieces_are_the_whole_lines_spans(seed):
    rng = random.Random(seed)
    several = 0
    for _ in range(40):
        body = random_line(rng)
        expected = whole(body)
        for piece_bytes in (1, 300, 2000, 1 << 20):
            for exact in (True, False):
                if exact and not orjson_agrees(body):  # a hex id that looks like a long integer: the kernel's call
                    with pytest.raises(Declined):
                        pieces(body, exact=exact, piece_bytes=piece_bytes)
                    continue
                got = pieces(body, exact=exact, piece_bytes=piece_bytes)
                assert same([span for piece in got for span in piece], expected), (body, piece_bytes)
                several += sum(len(piece) > 1 for piece in got)  # orjson's pieces, not the scanner's spans
    assert several > 100


def test_a_collector_line_is_read_in_pieces_of_many_spans():
    spans = [dict(span, traceId=f"{n:032x}") for n in range(1, 400) for span in SPANS]
    body = orjson.dumps({"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": spans}]}]}) + b"\n"
    got = list(spans_in_pieces(body, exact=True))
    assert [span for piece in got for span in piece] == spans
    assert len(got) < len(spans) / 20  # the scanner read only the first span and a piece's worth at the end


def base_line() -> bytes:
    spans = [dict(span, traceId=f"{n:032x}") for n in range(1, 6) for span in SPANS]
    return json.dumps({"resourceSpans": [{"resource": {"attributes": []},
                                          "scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}]}).encode()


BASE = base_line()


@pytest.mark.parametrize(("old", "new", "declined"), [
    (b'"kind": 3', b'"kind": NaN', False),  # the standard reader's NaN, not orjson's: read by the scanner
    (b'"kind": 3', b'"kind": 1e400', False),
    (b'"flags": 256', b'"flags": 123456789012345678901234567890', True),  # the kernel does not give orjson this
    (b'"name": "tools/list"', b'"name": "tools/list\\ud800"', False),  # a lone surrogate: replaced as the kernel does
    (b'"name": "tools/list"', b'"name": "tools/list\\ud83d\\ude00"', False),  # a pair: one character either way
    (b'"name": "tools/list"', b'"name": "tools/list\xff"', True),  # not UTF-8
    (b'"name": "tools/list"', b'"name": "tools\x01list"', True),  # a control character
    (b'"name": "tools/list"', b'"name": "x", "name": "tools/list"', False),  # a span's key twice: its last value
    (b'"scopeSpans": [', b'"scopeSpans": [], "scopeSpans": [', True),  # a key of the walk twice
    (b'{"resourceSpans": ', b'{"resourceSpans": [], "resourceSpans": ', True),
    (b'"spans": [', b'"spans": [], "spans": [', True),
    (b'"scopeSpans"', b'"instrumentationLibrarySpans"', True),  # the older key: the adapter's walk reads it
    (b'"scopeSpans"', b'"scope\\u0053pans"', True),  # an escaped key
    (b'{"resourceSpans"', b'{"resource_spans"', True),
    (b'"resource": {"attributes": []}', b'"resource": {"deep": ' + b"[" * 150 + b"]" * 150 + b"}", True),
    (b'"spans": [', b'"spans": {"a": [', True),
    (b'"scope": {"name": "t"}', b'"scope": {"name": "t"', True),  # not JSON
    (b'"traceId"', b'"traceId" ', False),  # spaced otherwise: no cut, the scanner reads them
])
def test_odd_lines_are_declined_or_read_as_the_whole_line(old, new, declined):
    assert old in BASE
    body = BASE.replace(old, new)
    try:
        expected = whole(body)
    except Exception:
        expected = Declined  # the whole line's reader refuses it: so must the pieces, which then leave it to it
    for piece_bytes in (1, 500, 1 << 20):
        try:
            got = [span for piece in pieces(body, piece_bytes=piece_bytes) for span in piece]
        except Declined:
            got = Declined
        if declined is not None:
            assert (got is Declined) == declined, (new, piece_bytes)
        if got is not Declined:
            assert same(got, expected), (new, piece_bytes)


@pytest.mark.parametrize("tail", [b"x", b"}", b", {}", b"\n\n{}"])
def test_bytes_after_the_request_are_declined(tail):
    with pytest.raises(Declined):
        pieces(BASE + tail)


@pytest.mark.parametrize("body", [b"", b"  ", b"[]", b"{}", b'{"resourceSpans": null}', b'{"resourceSpans": [{}]}',
                                  b'{"resourceSpans": [null]}', b'{"resourceSpans": [{"scopeSpans": [1]}]}',
                                  BASE[:len(BASE) // 2], BASE[:-1]])
def test_not_a_plain_request_is_declined(body):
    with pytest.raises(Declined):
        pieces(body)


def test_a_value_longer_than_the_window_and_unicode_across_its_edge_are_read():
    spans = [dict(SPANS[0], traceId=f"{n:032x}", name="é" * (3 + n) + "x" * 5000) for n in range(1, 9)]
    for text in (json.dumps, lambda v: json.dumps(v, ensure_ascii=False)):
        body = text({"resourceSpans": [{"resource": {"x": "ü" * 20000}, "scopeSpans": [{"spans": spans}]}]}).encode()
        assert same([s for piece in pieces(body, piece_bytes=1) for s in piece], whole(body))


@pytest.fixture
def every_line_in_pieces(monkeypatch):
    monkeypatch.setattr(pool, "MIN_BYTES", 0)  # every OTLP JSON Lines source goes to the workers
    monkeypatch.setattr(par, "can_fork", lambda: True)
    monkeypatch.setattr(span_pieces, "MIN_LINE_BYTES", 0)
    monkeypatch.setattr(span_pieces, "PIECE_BYTES", 200)
    monkeypatch.setattr(pool, "STREAMED_JOB_BYTES", 0)  # every second-pass job streamed


@pytest.mark.parametrize("built", [True, False])  # records built in the first pass, or by second-pass jobs
def test_the_pools_export_of_lines_in_pieces_is_the_serial_one(tmp_path, monkeypatch, every_line_in_pieces, built):
    if not built:
        monkeypatch.setattr(pool, "BUILT_MAX_BYTES", 0)
    monkeypatch.setattr(pool, "MAX_REREAD", 1000)
    sources = [batched_file(tmp_path / "collector.jsonl", 60, 12)]
    rng = random.Random(3)
    sources += [random_file(tmp_path / f"r{case}.jsonl", rng) for case in range(8)]
    for source in sources:
        serial = exported(tmp_path, [source], 1)
        assert exported(tmp_path, [source], 2) == serial


def test_a_job_and_a_first_pass_read_a_long_line_as_it_is_read_whole(monkeypatch):
    """The two readers of the pool, asked directly: the same keys, counts and spans in pieces as whole."""
    monkeypatch.setattr(span_pieces, "PIECE_BYTES", 300)
    body = BASE + b"\n"
    _, spans = pool.otel_modules()
    facts = {}
    for long_line in (0, 1 << 30):
        monkeypatch.setattr(span_pieces, "MIN_LINE_BYTES", long_line)
        kept: list = []
        facts[long_line] = (pool._line_facts([body], 0, 1, bom=False), pool._line_facts([body], 0, 1, bom=False, parsed=kept),
                            kept)
    assert facts[0][0] == facts[1 << 30][0] and facts[0][1] == facts[1 << 30][1]
    assert same(facts[0][2], facts[1 << 30][2])
    kept = pool._JobTraces(streamed=False)
    keys = pool._job_line(body, 7, {}, spans, {f"{1:032x}"}, None, kept)
    assert keys is not None and len(keys) == len(SPANS) * 5
    assert set(kept.gathered) == {f"{n:032x}" for n in range(2, 6)}
    assert all(same(span, whole(body)[at - 7]) for found in kept.gathered.values() for span, at in found)


def test_a_number_longer_than_the_window_is_read_whole():
    """Trace ids alone (no ``exact``) need no limit on numbers: one longer than the scanner's first window
    is read on, not cut (a cut one would leave the walk on a digit)."""
    body = BASE.replace(b'{"resourceSpans": ', b'{"n": 0.' + b"1" * 6000 + b', "resourceSpans": ')
    assert [s["traceId"] for piece in pieces(body, exact=False) for s in piece] == [s["traceId"] for s in whole(body)]


@pytest.mark.parametrize("planned", [False, True])
@pytest.mark.parametrize(("old", "new"), [
    (b'"kind": 3', b'"kind": NaN'),
    (b'"flags": 256', b'"flags": 123456789012345678901234567890'),
    (b'"name": "tools/list"', b'"name": "tools/list\\ud800"'),  # a lone surrogate
    (b'"name": "tools/list"', b'"name": "tools/list\xff"'),  # not UTF-8
    (b'"name": "tools/list"', b'"name": "tools\x01list"'),  # a control character
    (b'"scopeSpans": [', b'"scopeSpans": [], "scopeSpans": ['),  # a key of the walk twice
    (b'"resource": {}', b'"resource": {"deep": ' + b"[" * 150 + b"]" * 150 + b"}"),  # past the nesting limit
    (b'"traceId": "', b'"traceId": 5, "x": "'),  # a bad trace id
    (b'{"resourceSpans"', b'{"spans":[],"x"'),  # no export request
    (b"]}]}", b"]}]} x"),  # bytes after the request
])
def test_hostile_long_lines_are_the_serial_outcome(tmp_path, monkeypatch, every_line_in_pieces, planned, old, new):
    """Every line read in pieces (the first pass, a stretch's records and the jobs): a hostile byte anywhere
    gives the serial export's records, or its error at its place."""
    if planned:
        monkeypatch.setattr(pool, "BUILT_MAX_BYTES", 0)
    source = batched_file(tmp_path / "collector.jsonl", 30, 6)
    lines = source.read_bytes().split(b"\n")
    assert old in lines[3]
    lines[3] = lines[3].replace(old, new, 1)
    source.write_bytes(b"\n".join(lines))
    assert _outcome(tmp_path, source, 2) == _outcome(tmp_path, source, 1)
