"""A line of a streamed file is held to the cap a file read whole has (``TOOLSCORE_MAX_INPUT_MB``).

Every streamed reader read a line whole however long it was, then decoded and parsed it: a 300 MB
line took 1.2 GB to export and 1.5 GB to check, and a minified 300 MB JSON file took 950 MB only
to be told it was over the cap. Now each reader stops once the cap is read and says which line:
the kernel's run rows, the adapters' JSON Lines traces, the export's sources (serial and cut for
workers), ``export validate`` (serial and with workers), and the harness appending to a runs file.
"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from toolscore_core import InputError, RunWriter
from toolscore_core.kernel.files import numbered_lines
from toolscore_core.kernel.jsonl import iter_json_objects
from toolscore_core.kernel.readlimits import MAX_FILE_ENV, max_file_bytes
from toolscore_export.parallel import _spans

ROOT = Path(__file__).resolve().parents[2]
OTLP_FIXTURE = ROOT / "tests" / "adapters" / "fixtures" / "otel" / "mcp_spans.json"
MB = 1024 * 1024


def _cap(monkeypatch: pytest.MonkeyPatch, limit: int) -> None:
    """The cap set to ``limit`` bytes (the variable is in megabytes)."""
    monkeypatch.setenv(MAX_FILE_ENV, repr(limit / MB))
    assert max_file_bytes() == limit


@pytest.mark.parametrize("data", [b"", b"a\n", b"a", b"a\n\nbb\r\n", b"\n\n", b"x" * 5 + b"\n" + b"y" * 3])
def test_numbered_lines_gives_what_iterating_the_file_gives(data):
    assert list(numbered_lines(io.BytesIO(data), "f")) == list(enumerate(io.BytesIO(data), start=1))
    assert [n for n, _ in numbered_lines(io.BytesIO(data), "f", first=5)] == [
        n for n, _ in enumerate(io.BytesIO(data), start=5)]


def test_a_line_is_refused_one_byte_past_the_cap_with_its_newline(monkeypatch):
    _cap(monkeypatch, 1000)
    exact = b"a\n" + b"x" * 999 + b"\n" + b"b"
    assert [len(raw) for _, raw in numbered_lines(io.BytesIO(exact), "f")] == [2, 1000, 1]
    handle = io.BytesIO(b"a\n" + b"x" * 1000 + b"\n" + b"b\n")
    with pytest.raises(InputError) as caught:
        list(numbered_lines(handle, "runs.jsonl"))
    assert caught.value.location == "line 2" and str(caught.value.file) == "runs.jsonl"
    assert caught.value.message.startswith("is over 1,000 bytes, more than Toolscore reads into memory at once")
    assert MAX_FILE_ENV in (caught.value.hint or "")
    assert handle.tell() == 2 + 1001  # stopped at the cap: the rest of the line was never read
    with pytest.raises(InputError, match="line 1"):  # a last line with no newline, past the cap
        list(numbered_lines(io.BytesIO(b"z" * 1001), "f"))


def _first_long_line(data: bytes, limit: int) -> int | None:
    for number, raw in enumerate(io.BytesIO(data), start=1):
        if len(raw) > limit:
            return number
    return None


@pytest.mark.parametrize("seed", range(40))
def test_the_cut_for_workers_refuses_exactly_the_lines_the_serial_readers_refuse(tmp_path, monkeypatch, seed):
    """``parallel._spans`` sees a file a chunk at a time: a long line across chunks, a cap below a
    chunk, a line ending right at a chunk's end. It must refuse the same line ``numbered_lines`` does."""
    rng = random.Random(seed)
    limit = rng.choice([40, 64, 100, 300])
    lines = [b"x" * rng.choice([0, 1, 5, 39, 40, 63, 64, 99, 100, 101, 250, 299, 300, 700]) + b"\n"
             for _ in range(rng.randint(1, 30))]
    if rng.random() < 0.3:
        lines[-1] = lines[-1].rstrip(b"\n")
    data = b"".join(lines)
    path = tmp_path / "lines.jsonl"
    path.write_bytes(data)
    _cap(monkeypatch, limit)
    expected = _first_long_line(data, limit)
    for size in (16, 64, 128, 1024):
        if expected is None:
            spans = list(_spans(path, size))
            assert sum(span[2] for span in spans) == len(data)
            continue
        with pytest.raises(InputError) as caught:
            list(_spans(path, size))
        assert caught.value.location == f"line {expected}", (size, limit, [len(x) for x in lines])
        with pytest.raises(InputError) as serial:
            list(numbered_lines(io.BytesIO(data), path))
        assert serial.value.location == caught.value.location


def _row_lines(count: int) -> list[bytes]:
    from tests.export.conftest import row

    lines = []
    for number in range(count):
        data = row(task=f"t{number}").to_dict()
        lines.append(json.dumps(data, separators=(",", ":")).encode() + b"\n")
    return lines


#: The command line run in a process that reports its own peak RSS (KiB) last on stderr: VmHWM, which
#: starts afresh at exec (``ru_maxrss`` keeps the forking test process's peak).
_MEASURED = """
import re, runpy, sys
sys.argv = ["toolscore", *sys.argv[1:]]
try:
    runpy.run_module("toolscore_core.cli", run_name="__main__")
finally:
    with open("/proc/self/status") as status:
        peak = re.search(r"VmHWM:\\s*(\\d+)", status.read()).group(1)
    sys.stderr.write(f"\\npeak-rss-kib {peak}\\n")
"""


def _run(*args: str, cap_mb: float | None = None, cwd: Path) -> tuple[subprocess.CompletedProcess[str], int]:
    """The command's result, and its own peak RSS in KiB (its worker processes apart)."""
    env = {k: v for k, v in os.environ.items() if k not in ("TOOLSCORE_DEBUG", MAX_FILE_ENV)}
    if cap_mb is not None:
        env[MAX_FILE_ENV] = str(cap_mb)
    done = subprocess.run([sys.executable, "-c", _MEASURED, *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=300)
    stderr, _, peak = done.stderr.rstrip().rpartition("\npeak-rss-kib ")
    done.stderr = stderr
    return done, int(peak)


@pytest.fixture(scope="module")
def long_row_file(tmp_path_factory) -> Path:
    """A runs file of 6 MB: 3,000 ordinary rows, the 1,501st with a 3 MB answer."""
    folder = tmp_path_factory.mktemp("long-row")
    lines = _row_lines(3000)
    data = json.loads(lines[1500])
    data["final_answer"] = "x" * (3 * MB)
    lines[1500] = json.dumps(data, separators=(",", ":")).encode() + b"\n"
    path = folder / "runs.jsonl"
    path.write_bytes(b"".join(lines))
    return path


@pytest.mark.parametrize("workers", ["1", "2"])
def test_export_refuses_a_row_past_the_cap_and_writes_nothing(long_row_file, tmp_path, workers):
    out = tmp_path / "records.jsonl"
    done, _ = _run("export", str(long_row_file), "-o", str(out), "--workers", workers, cap_mb=2, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "runs.jsonl, at line 1501: is over 2 MB, more than Toolscore reads into memory at once" in done.stderr
    assert "Traceback" not in done.stderr
    assert not out.exists() and not Path(f"{out}.manifest.json").exists()
    done, _ = _run("export", str(long_row_file), "-o", str(out), "--workers", workers, cap_mb=4, cwd=tmp_path)
    assert done.returncode == 0, done.stderr  # within a cap it is read as ever
    assert len(out.read_bytes().splitlines()) == 3000


@pytest.mark.parametrize("workers", ["1", "2"])
def test_export_validate_refuses_a_record_past_the_cap(long_row_file, tmp_path, workers):
    out = tmp_path / "records.jsonl"
    done, _ = _run("export", str(long_row_file), "-o", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    done, _ = _run("export", "validate", str(out), "--workers", workers, cap_mb=2, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "records.jsonl, at line 1501: is over 2 MB" in done.stderr and "Traceback" not in done.stderr
    done, _ = _run("export", "validate", str(out), "--workers", workers, cap_mb=4, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("workers", ["1", "2"])
def test_per_trace_export_refuses_a_collector_line_past_the_cap_with_or_without_workers(tmp_path, workers):
    """A collector's request of 1,000 traces on a line (about 3.5 MB): the pooled first pass reads a
    stretch's lines whole, so a stretch that could hold a line past the cap goes to the serial
    reader, and the verdict does not depend on the workers."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from bench_export import otlp_traces_file
    finally:
        sys.path.remove(str(ROOT / "bench"))
    path = tmp_path / "traces.jsonl"
    otlp_traces_file(path, OTLP_FIXTURE.read_bytes(), 3000, batch=1000)
    long_lines = [n for n, raw in enumerate(path.read_bytes().splitlines(keepends=True), start=1) if len(raw) > 2 * MB]
    assert long_lines[0] == 2
    out = tmp_path / "records.jsonl"
    done, _ = _run("export", "--per-trace", str(path), "-o", str(out), "--workers", workers, cap_mb=2, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "traces.jsonl, at line 2: is over 2 MB" in done.stderr and not out.exists()
    done, _ = _run("export", "--per-trace", str(path), "-o", str(out), "--workers", workers, cap_mb=4, cwd=tmp_path)
    assert done.returncode == 0 and len(out.read_bytes().splitlines()) == 3000, done.stderr


def test_a_huge_single_line_is_refused_before_it_is_held(tmp_path):
    """A minified 60 MB JSON file under a 1 MB cap: refused having read about the cap, where the
    first-line look read, decoded and parsed the whole of it first."""
    path = tmp_path / "minified.json"
    path.write_bytes(b'{"resourceSpans":[' + b",".join([b'{"a":"' + b"b" * 1000 + b'"}'] * 60_000) + b"]}")
    _, before = _run("--version", cwd=tmp_path)
    done, peak = _run("export", str(path), "-o", str(tmp_path / "out.jsonl"), cap_mb=1, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "minified.json, at line 1: is over 1 MB" in done.stderr
    assert peak < before + 30 * 1024, (before, peak)  # KiB: far below the file's 60 MB


def test_a_trace_in_json_lines_past_the_cap_is_named_by_eval(tmp_path, monkeypatch):
    spans = json.loads(OTLP_FIXTURE.read_text())
    short = json.dumps(spans, separators=(",", ":")).encode() + b"\n"
    long = short.replace(b'"support-agent"', b'"' + b"s" * (2 * MB) + b'"', 1)
    path = tmp_path / "trace.jsonl"
    path.write_bytes(short + long + short)
    from toolscore_adapters.protocols.jsonl_stream import iter_json_lines

    _cap(monkeypatch, MB)
    with pytest.raises(InputError) as caught:
        list(iter_json_lines(path, expected="OTLP"))
    assert caught.value.location == "line 2" and caught.value.file == str(path)
    _cap(monkeypatch, 3 * MB)
    assert len(list(iter_json_lines(path, expected="OTLP"))) == 3


def test_run_rows_past_the_cap_are_named_by_the_kernel_reader(tmp_path, monkeypatch):
    lines = _row_lines(3)
    data = json.loads(lines[1])
    data["final_answer"] = "y" * 3000
    lines[1] = json.dumps(data).encode() + b"\n"
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b"".join(lines))
    _cap(monkeypatch, 2000)
    with pytest.raises(InputError) as caught:
        list(iter_json_objects(path, what="a run row"))
    assert caught.value.location == "line 2"
    _cap(monkeypatch, 10_000)
    assert len(list(iter_json_objects(path, what="a run row"))) == 3


def test_appending_to_a_runs_file_whose_first_line_is_past_the_cap_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b'{"x":"' + b"z" * 300_000 + b'"}\n')
    _cap(monkeypatch, 100_000)
    with pytest.raises(InputError) as caught:
        RunWriter(path)
    assert caught.value.location == "line 1" and "is over" in caught.value.message
    _cap(monkeypatch, 1_000_000)
    with pytest.raises(InputError, match="not a run file"):  # within the cap: read, and not a runs file
        RunWriter(path)


def test_appending_to_a_runs_file_whose_last_line_is_past_the_cap_is_refused(tmp_path, monkeypatch):
    """RunWriter reads the last line whole to tell whether it was torn: held to the cap too, and the
    file is left as it was (no repair, no sidecar)."""
    from toolscore_core.kernel.jsonl import sidecar_path

    lines = _row_lines(2)
    data = json.loads(lines[1])
    data["final_answer"] = "w" * 300_000
    path = tmp_path / "runs.jsonl"
    original = lines[0] + json.dumps(data).encode()[:-40]  # a torn last line, as a crash mid-write leaves it
    path.write_bytes(original)
    _cap(monkeypatch, 100_000)
    with pytest.raises(InputError) as caught:
        RunWriter(path)
    assert caught.value.location == "line 2" and "is over 100,000 bytes" in caught.value.message
    assert path.read_bytes() == original and not sidecar_path(path).exists()
    _cap(monkeypatch, 1_000_000)
    RunWriter(path).close()  # within the cap: the torn line is moved aside, as ever
    assert path.read_bytes() == lines[0] and sidecar_path(path).exists()
