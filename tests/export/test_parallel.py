"""Worker processes for runs files: the same bytes, the same errors, the same torn-line rule."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from toolscore_core import InputError
from toolscore_export import export_runs
from toolscore_export import parallel as par
from toolscore_export.cli import export as export_command
from toolscore_export.parallel import LineSet, _chunks, choose_workers


def mixed_rows(path: Path, make_row, ghp: str, count: int = 120) -> Path:
    """Rows with retries (superseded rows), a credential to redact, blank lines and a BOM on line 1."""
    lines = []
    for i in range(count):
        extra = {"final_answer": f"token {ghp}"} if i % 17 == 0 else {}
        data = make_row(task=f"t{i % 40}", repetition=1, **extra).to_dict()
        data["turns"] = i  # the retry of a cell differs from its first row
        lines.append(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
        if i % 23 == 0:
            lines.append("   ")
    path.write_bytes(b"\xef\xbb\xbf" + ("\n".join(lines) + "\n\n").encode("utf-8"))
    return path


def both(tmp_path: Path, sources: list[Path], **options) -> tuple[bytes, bytes]:
    serial, pooled = tmp_path / "serial.jsonl", tmp_path / "pooled.jsonl"
    one = export_runs(sources, serial, workers=1, **options)
    two = export_runs(sources, pooled, workers=2, **options)
    assert one.records == two.records
    assert [s["superseded_rows"] for s in one.manifest["sources"]] == [s["superseded_rows"]
                                                                      for s in two.manifest["sources"]]
    return serial.read_bytes(), pooled.read_bytes()


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch):
    monkeypatch.setattr(par, "CHUNK_BYTES", 4096)  # many chunks from a small file


def test_workers_write_the_serial_bytes(tmp_path, make_row, ghp):
    runs = mixed_rows(tmp_path / "runs.jsonl", make_row, ghp)
    serial, pooled = both(tmp_path, [runs])
    assert serial == pooled and serial.count(b"\n") == 40
    assert ghp.encode() not in pooled and b'"attempts":3' in pooled  # redacted; retries counted


def test_workers_across_two_runs_files_and_the_otel_format(tmp_path, make_row, ghp):
    first = mixed_rows(tmp_path / "a.jsonl", make_row, ghp, 60)
    second = mixed_rows(tmp_path / "b.jsonl", make_row, ghp, 50)  # a later file's row wins
    serial, pooled = both(tmp_path, [first, second])
    assert serial == pooled
    serial, pooled = both(tmp_path, [first, second], fmt="otel")
    stamp = re.compile(rb'"observedTimeUnixNano":"\d+"')
    assert stamp.sub(b"", serial) == stamp.sub(b"", pooled) and b"gen_ai.evaluation.result" in pooled


def test_a_bad_line_is_the_serial_error_and_a_torn_last_line_is_skipped(tmp_path, make_row, ghp):
    runs = mixed_rows(tmp_path / "runs.jsonl", make_row, ghp)
    good = runs.read_bytes()
    lines = good.split(b"\n")
    lines[70] = b'{"cell_id": "x::y::1", "oops": true}'  # a bad row in a middle chunk
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"\n".join(lines))
    messages = []
    for workers in (1, 2):
        with pytest.raises(InputError) as caught:
            export_runs([bad], tmp_path / f"out{workers}.jsonl", workers=workers)
        messages.append(str(caught.value))
        assert not (tmp_path / f"out{workers}.jsonl").exists()
    assert messages[0] == messages[1] and "line 71" in messages[0]
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(good.rstrip(b"\n") + b'\n{"run_record_version": "1", "cell_id": "t1::care')
    serial, pooled = both(tmp_path, [torn])
    assert serial == pooled and serial.count(b"\n") == 40  # the torn row is no record
    heard: dict[int, list] = {1: [], 2: []}
    for workers in (1, 2):
        export_runs([torn], tmp_path / f"t{workers}.jsonl", workers=workers, on_torn=heard[workers].append)
    assert heard[1] == heard[2] and len(heard[1]) == 1 and heard[1][0].size == len(b'{"run_record_version": "1", "cell_id": "t1::care')


def test_chunks_cover_the_file_in_order_and_keep_trailing_blanks_with_the_last(tmp_path):
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"".join(b'{"n": %d}\n' % i for i in range(500)) + b"\n  \n\n")
    chunks = list(_chunks(path, "0" * 64, LineSet.of(range(1, 501, 2)), {3: 2}, size=256))
    assert len(chunks) > 10 and [c.final for c in chunks].count(True) == 1 and chunks[-1].final
    data = path.read_bytes()
    assert b"".join(c.read() for c in chunks) == data
    assert chunks[-1].read().endswith(b'{"n": 499}\n\n  \n\n')  # blank lines never make a chunk of their own
    for chunk in chunks:
        assert chunk.first == data[:chunk.offset].count(b"\n") + 1
        assert all(chunk.first <= n < chunk.first + chunk.read().count(b"\n") for n in chunk.latest)
    assert sum(len(c.latest) for c in chunks) == 250 and chunks[0].attempts == {3: 2}


def test_a_line_set_holds_exactly_its_lines():
    numbers = [0, 1, 7, 8, 9, 63, 64, 1000, 4097]
    lines = LineSet.of(reversed(numbers))
    assert lines.between(0, 5000) == tuple(numbers) and lines.between(8, 64) == (8, 9, 63)
    assert lines.between(5000, 6000) == () and len(lines.bits) <= 4097 // 8 * 2 + 1


def test_the_automatic_choice_is_one_process_for_small_inputs(monkeypatch):
    # Threads left by earlier tests in this process would make can_fork() say no: the choice
    # itself is what is tested here (the thread rule has its own test).
    monkeypatch.setattr(par, "can_fork", lambda: True)
    assert choose_workers(None, 1000) == 1 and choose_workers(0, 1000) == 1
    assert choose_workers(3, 10) == 3
    assert 1 <= choose_workers(None, 1 << 30) <= par.MAX_AUTO_WORKERS


def test_the_command_takes_workers(tmp_path, make_row, ghp):
    from click.testing import CliRunner

    runs = mixed_rows(tmp_path / "runs.jsonl", make_row, ghp)
    result = CliRunner().invoke(export_command, [str(runs), "-o", str(tmp_path / "o.jsonl"), "--workers", "2"])
    assert result.exit_code == 0, result.output
    export_runs([runs], tmp_path / "s.jsonl", workers=1)
    assert (tmp_path / "o.jsonl").read_bytes() == (tmp_path / "s.jsonl").read_bytes()
    bad = CliRunner().invoke(export_command, [str(runs), "-o", str(tmp_path / "x.jsonl"), "--workers", "-1"])
    assert bad.exit_code == 2


def _children(pid: int) -> set[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text(encoding="ascii")
    except OSError:
        return set()
    return {int(n) for n in text.split()}


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the process tree from /proc")
@pytest.mark.parametrize("how", ["SIGINT", "SIGKILL"])
def test_a_stopped_export_with_workers_leaves_no_output_and_no_worker(tmp_path, make_row, how):
    import os
    import signal
    import subprocess
    import sys
    import time

    base = make_row(calls=(), guard_denials=(), evaluation=None).to_dict()
    source = tmp_path / "runs.jsonl"
    with source.open("w", encoding="utf-8") as handle:
        for i in range(30_000):
            base.update(task_id=f"t{i % 101}", repetition=i // 101 + 1, cell_id=f"t{i % 101}::careful::{i // 101 + 1}")
            handle.write(json.dumps(base, separators=(",", ":")) + "\n")
    out = tmp_path / "records.jsonl"
    spills = tmp_path / "tmp"  # the workers' spill folder goes here
    spills.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "toolscore_core.cli", "export", str(source), "-o", str(out),
                             "--workers", "2"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, "TMPDIR": str(spills)})
    partial = tmp_path / f".records.jsonl.partial-{proc.pid}"
    deadline = time.monotonic() + 120
    workers: set[int] = set()
    spilling = False
    while time.monotonic() < deadline and proc.poll() is None:
        workers |= _children(proc.pid)
        spilling = spilling or any(spills.iterdir())
        if len(workers) >= 2 and partial.exists() and partial.stat().st_size > 0:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the export finished before it could be stopped"
    os.kill(proc.pid, getattr(signal, how))
    _, err = proc.communicate(timeout=60)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.1)
    assert not any(_alive(w) for w in workers)
    assert not out.exists() and not out.with_name(out.name + ".manifest.json").exists()
    assert spilling and list(spills.iterdir()) == []  # no encoded chunk left behind, however the driver ended
    assert b"Traceback" not in err
    if how == "SIGINT":
        assert not partial.exists() and proc.returncode != 0


def test_colliding_cell_hashes_are_told_apart_by_the_ids_themselves(tmp_path, make_row, ghp, monkeypatch):
    """The first pass keys rows by a 64-bit hash of the cell id; rows sharing one are re-read and
    grouped by their real ids, so even every cell colliding gives the same records and attempts."""
    from toolscore_export import sources

    runs = mixed_rows(tmp_path / "runs.jsonl", make_row, ghp)
    other = mixed_rows(tmp_path / "other.jsonl", make_row, ghp, 30)
    expected = both(tmp_path, [runs, other])[0]
    monkeypatch.setattr(sources, "hash", lambda cell: len(cell) % 3, raising=False)
    serial, pooled = both(tmp_path, [runs, other])
    assert serial == pooled == expected and b'"attempts":4' in serial


def test_with_another_thread_running_the_export_stays_in_one_process(tmp_path, make_row, ghp):
    """A process with threads (a server, a receiver) must not fork them mid-lock: no workers then."""
    import threading

    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, args=(30,), daemon=True)
    thread.start()
    try:
        assert not par.can_fork() and choose_workers(2, 1 << 30) == 1
        runs = mixed_rows(tmp_path / "runs.jsonl", make_row, ghp)
        serial, pooled = both(tmp_path, [runs])
        assert serial == pooled
    finally:
        stop.set()
        thread.join(timeout=10)


def test_the_second_pass_reuses_the_first_passs_chunks(tmp_path, make_row, ghp, monkeypatch):
    """The driver cuts each runs file once (the first pass records its chunks), and the
    second pass, given those chunks, writes the serial bytes."""
    # Threads left by earlier tests in this process would make can_fork() say no, and the export
    # then runs in one process (it once failed so in a run of several test folders together).
    monkeypatch.setattr(par, "can_fork", lambda: True)
    first = mixed_rows(tmp_path / "a.jsonl", make_row, ghp, 60)
    second = mixed_rows(tmp_path / "b.jsonl", make_row, ghp, 50)
    cut: list[Path] = []
    spans = par._spans
    monkeypatch.setattr(par, "_spans", lambda path, size=par.CHUNK_BYTES, digest=None: cut.append(path)
                        or spans(path, size, digest))
    serial, pooled = both(tmp_path, [first, second])
    assert serial == pooled
    assert cut == [first, second]  # once each, by the first pass (which hashes them too)
    manifest = json.loads((tmp_path / "pooled.jsonl.manifest.json").read_text())
    from toolscore_export.canonical import file_sha256

    assert [s["sha256"] for s in manifest["sources"]] == [file_sha256(first), file_sha256(second)]
    recorded: list[par.Span] = []
    with par.Workers(2) as workers:
        list(par.first_pass(first, workers, lambda torn: None, recorded))
    assert recorded == list(spans(first, par.CHUNK_BYTES)) and len(recorded) > 3


def test_a_file_without_retries_keeps_no_line_set_and_one_retry_brings_it_back(tmp_path, make_row, ghp):
    """No cell with two rows (the usual file): every row is latest and no line set is built; the
    records are those of the general rule either way, serially and by workers."""
    from toolscore_export.sources import latest_lines

    runs = tmp_path / "runs.jsonl"
    rows = [json.dumps(make_row(task=f"t{i}").to_dict(), separators=(",", ":")) for i in range(50)]
    runs.write_text("\n".join(rows) + "\n", encoding="utf-8")
    latest = latest_lines([runs], lambda torn: None)
    assert latest.every and latest.lines == [] and latest.is_latest(0, 7) and latest.by_line(0) == (None, {})
    serial, pooled = both(tmp_path, [runs])
    assert serial == pooled and serial.count(b"\n") == 50 and b'"attempts":1' in serial
    runs.write_text("\n".join([*rows, rows[3]]) + "\n", encoding="utf-8")  # t3 again, on line 51
    latest = latest_lines([runs], lambda torn: None)
    assert not latest.every and not latest.is_latest(0, 4) and latest.is_latest(0, 51) and latest.is_latest(0, 5)
    serial, pooled = both(tmp_path, [runs])
    assert serial == pooled and serial.count(b"\n") == 50 and serial.count(b'"attempts":2') == 1


def _joined_spans(path: Path, size: int) -> list[par.Span]:
    """The cut as it was first written (each chunk's bytes joined, then counted and stripped): the reference."""
    held: list[int] | None = None
    first, offset, out = 1, 0, []
    with path.open("rb") as handle:
        rest, parts = b"", []
        while True:
            block = handle.read(size)
            cut = block.rfind(b"\n") + 1 if block else 0
            if block and cut == 0:
                parts.append(block)
                continue
            piece = b"".join([rest, *parts, block[:cut]]) if block else b"".join([rest, *parts])
            rest, parts = block[cut:], []
            if piece:
                lines_in = piece.count(b"\n") + (0 if piece.endswith(b"\n") else 1)
                if held is not None and not piece.strip():
                    held[2] += len(piece)
                    held[3] += lines_in
                else:
                    if held is not None:
                        out.append((*held, False))
                    held = [first, offset, len(piece), lines_in]
                first += lines_in
                offset += len(piece)
            if not block:
                break
    if held is not None:
        out.append((*held, True))
    return out


def test_the_cut_counts_without_joining_and_hashes_the_file(tmp_path):
    """Differential: random files of long lines, blank and whitespace-only lines (every byte
    strip() removes), with and without a last newline, cut at many sizes, give the reference's
    chunks; the digest fed by the cut is the file's hash."""
    import hashlib
    import random

    rng = random.Random(20261204)
    kinds = [b"", b" ", b"\t \r", b"\x0b\x0c", b'{"a":1}', b"x" * 40, b"\xc3\xa9 caf\xc3\xa9", b" {} "]
    path = tmp_path / "runs.jsonl"
    for _ in range(300):
        lines = [rng.choice(kinds) * rng.randint(1, 3) for _ in range(rng.randint(0, 12))]
        data = b"\n".join(lines) + rng.choice([b"", b"\n", b"\n\n \n"])
        path.write_bytes(data)
        for size in (1, 3, 7, 16, 64, 1 << 20):
            digest = hashlib.sha256()
            assert list(par._spans(path, size, digest)) == _joined_spans(path, size), (data, size)
            assert digest.hexdigest() == hashlib.sha256(data).hexdigest()


def _harness_lines(make_row, count: int) -> list[bytes]:
    """Rows as the harness writes them (the head a quick first pass reads the cell id off)."""
    return [json.dumps(make_row(task=f"t{i % 30}", repetition=1 + i // 30, final_answer=f"caf\u00e9 {i}").to_dict(),
                       ensure_ascii=False, separators=(",", ":")).encode() for i in range(count)]


def _outcome(sources: list[Path], tmp_path: Path, workers: int) -> str | bytes:
    out = tmp_path / f"quick-{workers}.jsonl"
    try:
        export_runs(sources, out, workers=workers)
    except InputError as exc:
        return f"{exc} | {exc.location}"
    return out.read_bytes()


HEAD_ONLY = b'{"run_record_version":"1","toolscore_version":"0.1.0","cell_id":"t99::careful::1","task_id":'


@pytest.mark.parametrize("case", ["valid-then-not-json", "not-json-twice", "not-json-repeating-a-cell",
                                  "second-file-not-json", "duplicate-cell-key", "escapes", "bad-bytes-in-id",
                                  "shared-hash-not-json", "torn-last-line-with-a-head"])
def test_a_quick_first_pass_gives_the_serial_records_and_errors(tmp_path, make_row, case, monkeypatch):
    """The first pass reads cell ids off the lines' heads (in one process and in workers); whatever
    the lines hold after that head, the records, and the error reported (the first line that is
    not JSON comes before any row that fails its check), are those of a first pass parsing every line."""
    from toolscore_export import sources as src

    lines = _harness_lines(make_row, 200)
    second: list[bytes] | None = None
    if case == "valid-then-not-json":
        lines[20] = lines[20].replace(b'"status":"completed"', b'"status":"paused"')  # fails the row check
        lines[150] = HEAD_ONLY + b'"t3", "oops'  # not JSON, and its head reads as a cell
    elif case == "not-json-twice":
        lines[40] = HEAD_ONLY + b"]"
        lines[120] = b"{not json"
    elif case == "not-json-repeating-a-cell":
        lines[199] = lines[199]  # a clean last line
        lines[100] = lines[3][:-1]  # the same cell as line 4, cut short
    elif case == "second-file-not-json":
        lines[10] = lines[10].replace(b'"passed":true', b'"passed":"yes"')
        second = _harness_lines(make_row, 50)
        second[30] = HEAD_ONLY + b"@"
    elif case == "duplicate-cell-key":  # valid JSON whose last "cell_id" (the one a parser keeps) repeats a cell
        lines[50] = lines[50][:-1] + b',"cell_id":"t10::careful::4"}'  # line 101's cell: superseded by it
        lines[60] = lines[60][:-1] + b',"extra":{"note":"cell_id"},"cell_id":"t11::careful::4"}'
    elif case == "escapes":  # a key spelled with an escape is still "cell_id" to a parser
        lines[70] = lines[70][:-1] + b',"cell\\u005fid":"t12::careful::4"}'
        lines[80] = json.dumps(json.loads(lines[80]), ensure_ascii=True).encode()
    elif case == "bad-bytes-in-id":
        lines[90] = lines[90].replace(b'"cell_id":"t0::careful::4"', b'"cell_id":"t0::care\xff::4"')
        lines[95] = lines[95].replace(b'"cell_id":"t5::careful::4"', b'"cell_id":"t5::care\tful::4"')
    elif case == "shared-hash-not-json":  # rows sharing a hash are read again: the serial error still wins
        lines[30] = HEAD_ONLY + b"{"
        monkeypatch.setattr(src, "hash", lambda cell: len(cell) % 3, raising=False)
    elif case == "torn-last-line-with-a-head":  # its head names line 6's cell: still no row, and heard of
        lines.append(lines[5][:150])
    runs = tmp_path / "runs.jsonl"
    runs.write_bytes(b"\n".join(lines) + b"\n")
    sources = [runs]
    if second is not None:
        (tmp_path / "more.jsonl").write_bytes(b"\n".join(second) + b"\n")
        sources.append(tmp_path / "more.jsonl")
    with monkeypatch.context() as parsed:  # the reference: every line parsed in the first pass
        parsed.setattr(src, "quick_cell", lambda raw: None)
        serial = _outcome(sources, tmp_path, 1)
    assert _outcome(sources, tmp_path, 1) == _outcome(sources, tmp_path, 2) == serial
    if case == "torn-last-line-with-a-head":
        heard: list[object] = []
        export_runs(sources, tmp_path / "heard.jsonl", workers=2, on_torn=heard.append)
        assert isinstance(serial, bytes) and serial.count(b"\n") == 200 and len(heard) == 1
    elif case in ("duplicate-cell-key", "escapes"):
        assert isinstance(serial, bytes), serial
        assert serial.count(b"\n") == 199 - (case == "duplicate-cell-key") and b'"attempts":2' in serial
    else:
        assert isinstance(serial, str), serial


def test_the_cell_read_off_a_head_is_the_parsers(make_row):
    from toolscore_export.sources import quick_cell

    line = _harness_lines(make_row, 1)[0]
    assert quick_cell(line) == json.loads(line)["cell_id"] == "t0::careful::1"
    unversioned = line.replace(b'"toolscore_version":"0.1.0"', b'"toolscore_version":null')
    assert quick_cell(unversioned) == "t0::careful::1"
    for other in (b" " + line, line.replace(b'"toolscore_version":"0.1.0"', b'"toolscore_version":"0.\\u0031"'),
                  line.replace(b"t0::careful::1", b"t0::care\\u0066ul::1"), line[:-1] + b',"cell_id":"x"}',
                  line.replace(b'"toolscore_version":"0.1.0"', b'"toolscore_version":1'), line[:60]):
        assert quick_cell(other) is None, other


def test_a_chunks_lines_are_the_split_lines_with_their_newlines(tmp_path):
    """Differential: the lines a chunk gives (sliced once each) are those of a split with the
    newlines added back, and the last non-blank one is found alike, on random chunks."""
    import random

    def reference(data: bytes) -> tuple[list[bytes], int]:
        lines = data.split(b"\n")
        ends_open = lines[-1] != b""
        if not ends_open:
            lines.pop()
        ended = [raw + b"\n" for raw in lines[:-1]]
        if lines:
            ended.append(lines[-1] if ends_open else lines[-1] + b"\n")
        last = len(ended) - 1
        while last >= 0 and not ended[last].strip():
            last -= 1
        return ended, last

    rng = random.Random(20261204)
    pieces = [b"", b" ", b"\t\r", b"\x0b\x0c ", b'{"a":1}', b"\r", b"caf\xc3\xa9"]
    path = tmp_path / "chunk.jsonl"
    for _ in range(2000):
        data = b"\n".join(rng.choice(pieces) * rng.randint(1, 2) for _ in range(rng.randint(0, 6)))
        data += rng.choice([b"", b"\n", b"\n \n"])
        path.write_bytes(data)
        chunk = par.Chunk(path=str(path), sha256="", first=1, offset=0, size=len(data), final=True, latest=None,
                          attempts={})
        assert chunk.lines() == reference(data), data



def nested_row_file(tmp_path: Path, make_row, ghp: str, depth: int) -> Path:
    """A runs file whose line 31 holds a call's arguments nested ``depth`` levels deep."""
    runs = mixed_rows(tmp_path / "runs.jsonl", make_row, ghp, 60)
    lines = runs.read_bytes().split(b"\n")
    row = json.loads(lines[30])
    row["calls"][0]["args"] = {"deep": "DEEP"}
    lines[30] = json.dumps(row).replace('"DEEP"', "[" * depth + "]" * depth).encode("utf-8")
    runs.write_bytes(b"\n".join(lines))
    return runs


@pytest.mark.parametrize("workers", [1, 2])
def test_a_row_nested_past_the_parsers_depth_is_an_input_error(tmp_path, make_row, ghp, monkeypatch, workers):
    """A row nested 1,010 levels deep: the kernel's reader takes it (orjson reads 1,024), the export's
    parser runs out of stack. That is the line's error, named, not a traceback (it once was)."""
    monkeypatch.setattr(par, "can_fork", lambda: True)
    runs = nested_row_file(tmp_path, make_row, ghp, 1010)
    with pytest.raises(InputError) as caught:
        export_runs([runs], tmp_path / "out.jsonl", workers=workers)
    assert caught.value.message == "line 31 is nested too deeply to read" and caught.value.location == "line 31"
    assert not (tmp_path / "out.jsonl").exists()


def test_a_row_nested_past_what_orjson_writes_is_refused_alike_serially_and_by_workers(tmp_path, make_row, ghp,
                                                                                      monkeypatch):
    """orjson reads 1,024 levels but writes 254: a row nested 300 deep takes the general path, and is
    past a run row's limit (254 levels) there, serially and by workers alike."""
    monkeypatch.setattr(par, "can_fork", lambda: True)
    runs = nested_row_file(tmp_path, make_row, ghp, 300)
    for workers in (1, 2):
        with pytest.raises(InputError) as caught:
            export_runs([runs], tmp_path / "out.jsonl", workers=workers)
        assert caught.value.location == "line 31" and "more than 254 levels" in caught.value.message


def test_a_row_as_deep_as_the_limit_is_exported_alike_serially_and_by_workers(tmp_path, make_row, ghp,
                                                                              monkeypatch):
    monkeypatch.setattr(par, "can_fork", lambda: True)
    serial, pooled = both(tmp_path, [nested_row_file(tmp_path, make_row, ghp, 250)])  # the row: 254 levels
    assert serial == pooled and b'"args":{"deep":' + b"[" * 250 + b"]" * 250 + b"}" in serial
