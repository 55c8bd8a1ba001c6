"""``toolscore export validate`` checks a large file with worker processes, and says exactly what one
process says: the same problems in the same order, the same count, the same manifest verdict.

A record's check costs about 230 us in one process, so a gigabyte took minutes. The workers check
chunks of whole lines; the driver keeps what needs the whole file (a run id seen twice, the count,
stopping after MAX_PROBLEMS) and the file's hash. Here damaged files of every kind are checked both
ways, with chunks small enough that every file is many chunks, and compared.
"""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest

from toolscore_core import InputError
from toolscore_export import check as check_module
from toolscore_export import check_file, export_runs

GOOD_LINES = 40


@pytest.fixture
def exported(tmp_path, make_row, rows_file) -> Path:
    runs = rows_file(tmp_path / "runs.jsonl", [make_row(task=f"t{n}", final_answer=f"answer {n} ünï")
                                               for n in range(GOOD_LINES)])
    out = tmp_path / "records.jsonl"
    export_runs([runs], out)
    return out


def both_ways(path: Path, monkeypatch, **options) -> tuple:
    """The serial and the pooled check of ``path`` (chunks of about three lines), with what each told."""
    monkeypatch.setattr(check_module, "CHUNK_BYTES", 9000)
    told_serial: list[int] = []
    told_pooled: list[int] = []
    serial = check_file(path, workers=1, on_progress=told_serial.append, **options)
    pooled = check_file(path, workers=2, on_progress=told_pooled.append, **options)
    return serial, pooled, told_serial, told_pooled


def damage(lines: list[bytes], rng: random.Random) -> list[bytes]:
    """``lines`` with a few random damages of the kinds a check names."""
    lines = list(lines)
    for _ in range(rng.randint(1, 6)):
        at = rng.randrange(len(lines))
        kind = rng.choice(["blank", "garbage", "duplicate", "edit", "bytes", "drop", "swap", "deep", "crlf"])
        if kind == "blank":
            lines.insert(at, b"\n")
        elif kind == "garbage":
            lines.insert(at, b"{not json\n")
        elif kind == "duplicate":
            lines.insert(at, lines[rng.randrange(len(lines))])
        elif kind == "edit":
            record = json.loads(lines[at])
            if isinstance(record, dict) and "run_id" in record:
                record["study"] = "edited"
                lines[at] = json.dumps(record).encode() + b"\n"
        elif kind == "bytes":
            lines[at] = lines[at][: len(lines[at]) // 2] + b"\xff\xfe" + lines[at][len(lines[at]) // 2:]
        elif kind == "drop" and len(lines) > 2:
            del lines[at]
        elif kind == "swap":
            other = rng.randrange(len(lines))
            lines[at], lines[other] = lines[other], lines[at]
        elif kind == "deep":
            lines.insert(at, b"[" * 5000 + b"]" * 5000 + b"\n")
        elif kind == "crlf":
            lines[at] = lines[at].rstrip(b"\n") + b"\r\n"
    if rng.random() < 0.3:  # the file cut short
        lines[-1] = lines[-1][: rng.randrange(1, len(lines[-1]))]
    return lines


@pytest.mark.parametrize("seed", range(12))
def test_a_damaged_file_gets_the_same_verdict_from_workers(exported, monkeypatch, seed):
    rng = random.Random(seed)
    original = exported.read_bytes().splitlines(keepends=True)
    exported.write_bytes(b"".join(damage(original, rng)))
    serial, pooled, told_serial, told_pooled = both_ways(exported, monkeypatch)
    assert pooled == serial
    assert not serial.ok  # every damage is caught
    assert told_pooled == told_serial and told_serial[-1] == len(exported.read_bytes().splitlines())


def test_an_intact_file_is_intact_both_ways(exported, monkeypatch):
    serial, pooled, told_serial, told_pooled = both_ways(exported, monkeypatch)
    assert serial.ok and pooled == serial and serial.records == GOOD_LINES
    assert told_pooled == told_serial == list(range(GOOD_LINES + 1))


def test_a_file_with_more_problems_than_are_listed_stops_at_the_same_line(exported, monkeypatch):
    """The check stops once MAX_PROBLEMS are found (at a valid record), and its manifest verdict is
    that of the lines read up to there: the workers, which are ahead, must give the same."""
    lines = exported.read_bytes().splitlines(keepends=True)
    damaged = [line for record in lines for line in (b"{bad\n", b"\n", record)]  # two problems a record
    exported.write_bytes(b"".join(damaged))
    serial, pooled, _, _ = both_ways(exported, monkeypatch)
    assert pooled == serial and len(serial.problems) >= check_module.MAX_PROBLEMS
    assert serial.records < GOOD_LINES  # it stopped before the end
    manifest = json.loads((exported.parent / "records.jsonl.manifest.json").read_text())
    manifest["output"]["sha256"] = check_module._digest_through(exported, 3 * serial.records).hexdigest()
    (exported.parent / "records.jsonl.manifest.json").write_text(json.dumps(manifest))
    serial, pooled, _, _ = both_ways(exported, monkeypatch)
    assert pooled == serial
    assert not any(p.where == "manifest, $.output.sha256" for p in serial.problems)  # the bytes it read match


def test_no_manifest_is_the_same_both_ways(exported, monkeypatch):
    (exported.parent / "records.jsonl.manifest.json").unlink()
    for required in (True, False):
        serial, pooled, _, _ = both_ways(exported, monkeypatch, require_manifest=required)
        assert pooled == serial and serial.ok is not required


def test_large_files_get_workers_by_default_and_small_ones_none(monkeypatch):
    from toolscore_export import parallel

    monkeypatch.setattr(parallel, "usable_cpus", lambda: 8)
    assert check_module._workers_for(None, check_module.POOL_MIN_BYTES - 1) == 1
    assert check_module._workers_for(0, check_module.POOL_MIN_BYTES) == parallel.MAX_AUTO_WORKERS
    assert check_module._workers_for(1, 10 * check_module.POOL_MIN_BYTES) == 1
    assert check_module._workers_for(3, 10) == 3


def unreadable_chunk(job):
    """A worker whose read failed (a disk error): the fields of the InputError it sends back."""
    from toolscore_export.parallel import error_fields

    return error_fields(InputError("cannot be read (Input/output error)", file=job[0]))


def test_a_chunk_that_cannot_be_read_is_the_files_error(exported, monkeypatch):
    """A worker's read error comes back as the file's InputError (exit 2), not a traceback."""
    monkeypatch.setattr(check_module, "check_chunk", unreadable_chunk)
    with pytest.raises(InputError, match="cannot be read"):
        both_ways(exported, monkeypatch)


def test_lines_split_as_a_file_iterates_them():
    for data in (b"", b"a", b"a\n", b"a\nb", b"a\n\nb\n", b"\n\n", b"a\r\nb\rc\n"):
        assert check_module._split_lines(data) == list(io.BytesIO(data))
