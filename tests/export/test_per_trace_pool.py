"""``--per-trace`` spread over worker processes: the serial records, manifest and first error, whatever the lines."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from toolscore_core import InputError
from toolscore_export import export_runs
from toolscore_export import parallel as par
from toolscore_export import per_trace_pool as pool

ROOT = Path(__file__).resolve().parents[2]
OTEL = ROOT / "tests" / "adapters" / "fixtures" / "otel"
GOLD = ROOT / "examples" / "guardrails" / "gold.json"
REQUEST = json.loads((OTEL / "mcp_spans.json").read_text(encoding="utf-8"))
SPANS = [span for scope in REQUEST["resourceSpans"][0]["scopeSpans"] for span in scope["spans"]]


@pytest.fixture(autouse=True)
def small_jobs(monkeypatch):
    monkeypatch.setattr(pool, "MIN_BYTES", 0)  # every OTLP JSON Lines source goes to the workers
    monkeypatch.setattr(pool, "JOB_TRACES", 3)  # many jobs from a few traces
    monkeypatch.setattr(par, "can_fork", lambda: True)  # threads of earlier tests must not make it serial


@pytest.fixture
def outcomes(monkeypatch):
    """What each pooled source came to: None (every record by the workers) or the records given before the
    serial path took over."""
    seen: list[int | None] = []
    original = pool.pooled_records

    def counted(*args):
        result = yield from original(*args)
        seen.append(result)
        return result

    monkeypatch.setattr(pool, "pooled_records", counted)
    return seen


def line(spans: list[dict]) -> str:
    return json.dumps({"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}]})


def traced(number: int, spans: list[dict]) -> list[dict]:
    return [dict(span, traceId=f"{number + 1:032x}") for span in spans]


def collector_file(path: Path, count: int) -> Path:
    """Line j: the second half of trace j-1's spans and the first half of trace j's, as a collector batches them."""
    lines = [line((traced(j - 1, SPANS[3:]) if j else []) + (traced(j, SPANS[:3]) if j < count else []))
             for j in range(count + 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def random_file(path: Path, rng: random.Random) -> Path:
    """Traces whose spans are shuffled over lines at random: long and short traces, interleaved, some spans
    without a trace id, blank lines, sometimes a byte-order mark and no final newline. Half the files give
    every span the same times, so only the spans' places in the file order their calls and answers."""
    spans = [(t, span) for t in range(rng.randint(1, 12)) for span in traced(t, SPANS[:rng.randint(1, len(SPANS))])]
    if rng.random() < 0.5:
        spans = [(t, dict(span, startTimeUnixNano="1", endTimeUnixNano="2")) for t, span in spans]
    spans += [(-1, dict(SPANS[rng.randrange(len(SPANS))], traceId="")) for _ in range(rng.randint(0, 2))]
    rng.shuffle(spans)
    lines: list[str] = []
    while spans:
        take = rng.randint(0, 4)
        lines.append(line([span for _, span in spans[:take]]))
        spans = spans[take:]
        if rng.random() < 0.1:
            lines.append("  ")
    text = "\n".join(lines) + ("\n" if rng.random() < 0.8 else "")
    path.write_bytes((b"\xef\xbb\xbf" if rng.random() < 0.2 else b"") + text.encode("utf-8"))
    return path


def exported(tmp_path: Path, sources: list[Path], workers: int, **options) -> tuple[bytes, dict]:
    out = tmp_path / f"out-{workers}.jsonl"
    result = export_runs(sources, out, workers=workers, per_trace=True, **options)
    manifest = {k: v for k, v in result.manifest.items() if k not in ("created_at", "manifest_sha256")}
    if options.get("fmt") == "otel":  # its lines carry the time they were written
        manifest["output"] = {}
        return b"", manifest
    manifest["output"] = {k: v for k, v in manifest["output"].items() if k != "name"}
    return out.read_bytes(), manifest


def same_as_serial(tmp_path: Path, sources: list[Path], **options) -> bytes:
    serial = exported(tmp_path, sources, 1, **options)
    assert exported(tmp_path, sources, 2, **options) == serial
    return serial[0]


def test_a_collector_file_is_the_serial_export_and_every_record_comes_from_the_workers(tmp_path, outcomes):
    source = collector_file(tmp_path / "otlp.jsonl", 20)
    data = same_as_serial(tmp_path, [source])
    assert outcomes == [None] and data.count(b"\n") == 20


@pytest.mark.parametrize("fixture", sorted(p.name for p in OTEL.iterdir()))
def test_every_otel_fixture_is_the_serial_export(tmp_path, fixture):
    same_as_serial(tmp_path, [OTEL / fixture])


@pytest.mark.parametrize("options", [{"gold": GOLD}, {"fmt": "otel"}])
def test_gold_and_the_otel_format_are_the_serial_export(tmp_path, outcomes, options):
    same_as_serial(tmp_path, [collector_file(tmp_path / "otlp.jsonl", 8)], **options)
    assert outcomes == [None]


def test_random_spreads_of_spans_over_lines_are_the_serial_export(tmp_path, outcomes, monkeypatch):
    monkeypatch.setattr(pool, "MAX_REREAD", 1000)  # shuffled traces span most of their file: never serial here
    rng = random.Random(11)
    for case in range(40):
        same_as_serial(tmp_path, [random_file(tmp_path / f"r{case}.jsonl", rng)])
    assert outcomes.count(None) == 40  # the workers gave every record: the serial path was never needed


def test_a_trace_spread_over_the_whole_file_goes_to_the_serial_path(tmp_path, outcomes, monkeypatch):
    """Whole in one stretch, a wide trace is built there; across stretches its job reads the file once, and
    when that is over MAX_REREAD, the jobs of the planned second pass read it more: the serial path does."""
    lines = [line(traced(0, SPANS[:1]))] + [line(traced(t, SPANS)) for t in range(1, 30)] + [line(traced(0, SPANS[1:]))]
    source = tmp_path / "wide.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    same_as_serial(tmp_path, [source])
    assert outcomes == [None]
    monkeypatch.setattr(pool, "CHUNK_BYTES", 300)  # a stretch a line or two
    monkeypatch.setattr(pool, "MAX_REREAD", 1)
    same_as_serial(tmp_path, [source])
    monkeypatch.setattr(pool, "MAX_REREAD", 0)
    same_as_serial(tmp_path, [source])
    assert outcomes == [None, None, 0]


def same_named_sources(tmp_path):
    """Two sources named ``otlp.jsonl`` in two folders: the first of traces 0-3, the second of traces 6-9 then
    0-5 (its first job's traces are new, the next one's names were given already by the first)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = collector_file(tmp_path / "a" / "otlp.jsonl", 4)
    second = tmp_path / "b" / "otlp.jsonl"
    lines = [line(traced(t, SPANS)) for t in range(10)]  # traces 0-3 as in the first, then new ones
    second.write_text("\n".join(lines[6:] + lines[:6]) + "\n", encoding="utf-8")
    return [first, second]


def test_a_run_id_given_already_is_the_serial_export(tmp_path, outcomes):
    """Two sources of the same name: the second's run ids carry its hash, as serially."""
    same_as_serial(tmp_path, same_named_sources(tmp_path))
    assert outcomes == [None, 0]  # the second's one stretch holds names given already


def _error(tmp_path: Path, source: Path, workers: int) -> tuple[str, str | None]:
    with pytest.raises(InputError) as caught:
        export_runs([source], tmp_path / "out.jsonl", per_trace=True, workers=workers)
    assert not (tmp_path / "out.jsonl").exists()
    return caught.value.message, caught.value.location


@pytest.mark.parametrize(("place", "old", "new", "stretch", "given"), [
    (9, '"traceId": "', '"traceId": 5, "x": "', None, 0),  # the first pass meets it: the serial path reads the file
    (12, '{"resourceSpans"', '{"spans":[],"x"', None, 0),
    (14, '"startTimeUnixNano": "', '"startTimeUnixNano": "x', None, 0),  # a worker meets it in the one stretch
    (14, '"startTimeUnixNano": "', '"startTimeUnixNano": "x', 1500, 13),  # the records of the stretches before stand
])
def test_a_bad_line_is_the_serial_error(tmp_path, outcomes, monkeypatch, place, old, new, stretch, given):
    if stretch is not None:
        monkeypatch.setattr(pool, "CHUNK_BYTES", stretch)
    source = collector_file(tmp_path / "otlp.jsonl", 20)
    lines = source.read_text(encoding="utf-8").splitlines()
    assert old in lines[place]
    lines[place] = lines[place].replace(old, new, 1)
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    serial = _error(tmp_path, source, 1)
    assert _error(tmp_path, source, 2) == serial
    assert serial[1] is not None and serial[1].startswith(f"line {place + 1}")
    assert outcomes == [given]


def test_a_torn_last_line_is_skipped_as_serially(tmp_path, outcomes):
    source = collector_file(tmp_path / "otlp.jsonl", 9)
    source.write_bytes(source.read_bytes()[:-40])  # the second half of the last trace: it keeps its first half
    assert same_as_serial(tmp_path, [source]).count(b"\n") == 9
    assert outcomes == [0]  # the first pass leaves a line it cannot parse to the serial path


def test_large_otlp_sources_read_trace_by_trace_start_workers():
    assert par.choose_workers(0, 0, 0, par.AUTO_MIN_PER_TRACE_BYTES) == min(par.usable_cpus(), par.MAX_AUTO_WORKERS)
    assert par.choose_workers(0, 0, 0, par.AUTO_MIN_PER_TRACE_BYTES - 1) == 1


def test_a_line_nested_past_the_limit_is_the_serial_error(tmp_path, outcomes):
    """orjson reads 1,000 levels; the kernel's reader refuses more than 100: so must the workers' first pass."""
    source = collector_file(tmp_path / "otlp.jsonl", 20)
    lines = source.read_text(encoding="utf-8").splitlines()
    request = json.loads(lines[7])
    request["resourceSpans"][0]["resource"]["deep"] = json.loads("[" * 150 + "]" * 150)
    lines[7] = json.dumps(request)
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    serial = _error(tmp_path, source, 1)
    assert "nested more than 100 levels" in serial[0] and serial[1] == "line 8"
    assert _error(tmp_path, source, 2) == serial
    assert outcomes == [0]


def test_an_integer_past_64_bits_is_read_as_the_serial_reader_reads_it(tmp_path, outcomes):
    """orjson reads 123456789012345678901 as a float (made an int again: ...683968); the kernel's reader
    keeps the integer, and so must the workers' first pass (here in a call's arguments, a kvlistValue)."""
    source = collector_file(tmp_path / "otlp.jsonl", 20)
    text = source.read_text(encoding="utf-8")
    old = '{"key": "gen_ai.tool.call.arguments", "value": {"stringValue": "{\\"path\\": \\"notes/todo.md\\"}"}}'
    assert old in text
    big = '{"kvlistValue": {"values": [{"key": "n", "value": {"intValue": 123456789012345678901}}]}}'
    source.write_text(text.replace(old, '{"key": "gen_ai.tool.call.arguments", "value": ' + big + "}"),
                      encoding="utf-8")
    records = same_as_serial(tmp_path, [source])
    assert records.count(b'"args":{"n":123456789012345678901}') == 20 and b"683968" not in records


def _outcome(tmp_path: Path, source: Path, workers: int) -> tuple:
    """The export's records, or its error's words and place."""
    try:
        return exported(tmp_path, [source], workers)
    except InputError as exc:
        return exc.message, exc.location


@pytest.mark.parametrize(("old", "new"), [
    (b'"kind": 3', b'"kind": NaN'),  # the standard reader's, not JSON's: orjson refuses it
    (b'"kind": 3', b'"kind": 1e400'),
    (b'"flags": 256', b'"flags": 123456789012345678901234567890'),
    (b'"name": "tools/list"', b'"name": "tools/list\\ud800"'),  # a lone surrogate
    (b'"name": "tools/list"', b'"name": "tools/list\xff"'),  # not UTF-8
    (b'"name": "tools/list"', b'"name": "tools\x01list"'),  # a control character
    (b'"name": "tools/list"', b'"name": "x", "name": "tools/list"'),  # a key twice
    (b"{", b"\xef\xbb\xbf{"),  # a byte-order mark past the first line
])
def test_hostile_lines_are_the_serial_outcome(tmp_path, old, new):
    source = collector_file(tmp_path / "otlp.jsonl", 20)
    lines = source.read_bytes().split(b"\n")
    assert old in lines[9]
    lines[9] = lines[9].replace(old, new, 1)
    source.write_bytes(b"\n".join(lines))
    assert _outcome(tmp_path, source, 2) == _outcome(tmp_path, source, 1)
