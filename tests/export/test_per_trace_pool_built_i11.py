"""Records built in the pool's first pass (a trace whole in its stretch) are the serial export's, in its order:
random layouts of traces within and across stretches, tiny stretches, blank lines, a byte-order mark, torn
and bad lines; and the same bytes as the planned second pass that they spare (issue 11)."""

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
REQUEST = json.loads((ROOT / "tests" / "adapters" / "fixtures" / "otel" / "mcp_spans.json").read_text(encoding="utf-8"))
SPANS = [span for scope in REQUEST["resourceSpans"][0]["scopeSpans"] for span in scope["spans"]]


@pytest.fixture(autouse=True)
def pooled(monkeypatch):
    monkeypatch.setattr(pool, "MIN_BYTES", 0)  # every OTLP JSON Lines source goes to the workers
    monkeypatch.setattr(par, "can_fork", lambda: True)  # threads of earlier tests must not make it serial


def _line(spans: list[dict]) -> str:
    return json.dumps({"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}]})


def layout_file(path: Path, rng: random.Random) -> Path:
    """Traces whose spans sit on lines near a line of their own (on it, a few lines on, or anywhere), several
    traces a line, so a trace may end on the line where another does (their order there is the first span's):
    blank lines, maybe a byte-order mark, a span whose time cannot be read, a line that is no JSON, a torn
    last line, and no final newline, each now and then."""
    count = rng.randint(1, 30)
    spread = rng.choice([0, 1, 3, 40])
    lines: list[list[dict]] = [[] for _ in range(count + spread + 1)]
    for trace in range(count):
        home = rng.randint(0, count)
        for span in SPANS[:rng.randint(1, len(SPANS))]:
            span = dict(span, traceId=f"{trace + 1:032x}", spanId=f"{rng.getrandbits(64):016x}")
            if rng.random() < 0.3:
                span.update(startTimeUnixNano="1", endTimeUnixNano="2")  # only the spans' places order the calls
            lines[min(home + rng.randint(0, spread), len(lines) - 1)].append(span)
    if rng.random() < 0.1:
        bad = rng.choice([spans for spans in lines if spans] or [[{}]])
        bad[0]["startTimeUnixNano"] = "x"
    text = [_line(spans) if spans or rng.random() < 0.5 else rng.choice(["", "  "]) for spans in lines]
    if rng.random() < 0.05:
        text.insert(rng.randint(0, len(text)), "{not json")
    data = "\n".join(text) + ("\n" if rng.random() < 0.8 else "")
    if rng.random() < 0.1:
        data = data[:-30]
    path.write_bytes((b"\xef\xbb\xbf" if rng.random() < 0.2 else b"") + data.encode("utf-8"))
    return path


def _exported(tmp_path: Path, source: Path, workers: int) -> tuple[bytes, dict] | tuple[str, str | None]:
    """The output's bytes and manifest (less its times and name), or the error's message and place."""
    out = tmp_path / f"out-{workers}.jsonl"
    out.unlink(missing_ok=True)
    try:
        result = export_runs([source], out, workers=workers, per_trace=True)
    except InputError as exc:
        assert not out.exists()
        return exc.message, exc.location
    manifest = {k: v for k, v in result.manifest.items() if k not in ("created_at", "manifest_sha256")}
    manifest["output"] = {k: v for k, v in manifest["output"].items() if k != "name"}
    return out.read_bytes(), manifest


@pytest.fixture
def pieces(monkeypatch):
    """Each stretch's layout as the driver took it: 'built' (every record by the first pass), 'mixed' (built
    records and a second-pass job's) or 'split' (built, less traces that go on); 'planned' when the driver
    fell back to the planned jobs."""
    seen: list[str] = []
    pieces, layout = pool._pieces, pool._layout

    def recorded_pieces(*args):
        found = pieces(*args)
        if found is None:
            seen.append("planned")
        return found

    def recorded_layout(*args):
        found = layout(*args)
        seen.append("built" if found is None else "mixed" if found[2] else "split")
        return found

    monkeypatch.setattr(pool, "_pieces", recorded_pieces)
    monkeypatch.setattr(pool, "_layout", recorded_layout)
    return seen


@pytest.mark.parametrize("seed", range(40))
def test_random_layouts_are_the_serial_export(tmp_path, monkeypatch, pieces, seed):
    rng = random.Random(seed)
    monkeypatch.setattr(pool, "CHUNK_BYTES", rng.choice([60, 150, 700, 2500, 1 << 19]))
    source = layout_file(tmp_path / "layout.jsonl", rng)
    assert _exported(tmp_path, source, 2) == _exported(tmp_path, source, 1)


def test_the_random_layouts_take_every_way(tmp_path, monkeypatch, pieces):
    """Not vacuous: the layouts above give stretches all built, built and a job's records interleaved, built
    less the traces that go on, and the planned jobs' fallback."""
    for seed in range(40):
        rng = random.Random(seed)
        monkeypatch.setattr(pool, "CHUNK_BYTES", rng.choice([60, 150, 700, 2500, 1 << 19]))
        _exported(tmp_path, layout_file(tmp_path / "layout.jsonl", rng), 2)
    assert {"built", "mixed", "split", "planned"} <= set(pieces)
    assert pieces.count("mixed") >= 20


@pytest.mark.parametrize("seed", range(30))
def test_built_records_are_the_planned_jobs_records(tmp_path, monkeypatch, seed):
    """The records the first pass builds are, byte for byte, those the planned second pass makes instead."""
    rng = random.Random(seed)
    monkeypatch.setattr(pool, "CHUNK_BYTES", rng.choice([150, 700, 2500, 1 << 19]))
    source = layout_file(tmp_path / "layout.jsonl", rng)
    built = _exported(tmp_path, source, 2)
    monkeypatch.setattr(pool, "_pieces", lambda *args: None)
    assert _exported(tmp_path, source, 2) == built


@pytest.mark.parametrize("seed", range(6))
def test_a_source_over_the_bound_builds_nothing_in_the_first_pass(tmp_path, monkeypatch, seed):
    """A source larger than BUILT_MAX_BYTES is read by the planned jobs (its records would wait in the
    temporary folder until the first pass ends), with the serial export's output; one at the bound builds."""
    rng = random.Random(seed)
    monkeypatch.setattr(pool, "CHUNK_BYTES", rng.choice([150, 700, 2500]))
    source = layout_file(tmp_path / "layout.jsonl", rng)
    size = source.stat().st_size
    spills: list[str | None] = []
    first_pass = pool.first_pass

    def recorded(path, workers, sha256="", spill=None):  # the driver's call: where the workers may build
        spills.append(spill)
        return first_pass(path, workers, sha256, spill)

    monkeypatch.setattr(pool, "first_pass", recorded)
    monkeypatch.setattr(pool, "BUILT_MAX_BYTES", size - 1)
    over = _exported(tmp_path, source, 2)
    assert spills == [None]
    assert over == _exported(tmp_path, source, 1)
    monkeypatch.setattr(pool, "BUILT_MAX_BYTES", size)
    assert _exported(tmp_path, source, 2) == over
    assert spills[0] is None and isinstance(spills[1], str)
