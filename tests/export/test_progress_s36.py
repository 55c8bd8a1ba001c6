"""A long export shows its progress on stderr: one line rewritten in a terminal, a line every ten
seconds in a log, nothing for an export done in a moment.

The export had none: a gigabyte took half a minute to a minute in silence, beginning with a first
pass that writes nothing yet. The tests drive :class:`ExportProgress` with a clock of their own,
check what the export tells it (worker results in the first pass included), and run the command
in a real terminal (a pseudo-terminal) to see the line drawn, updated and ended.
"""

from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.export.test_plain_trace_s30 import bench_export_module
from toolscore_export import export_runs
from toolscore_export import progress as progress_module
from toolscore_export.progress import FIRST_AFTER_S, LOG_EVERY_S, TERMINAL_EVERY_S, ExportProgress

ROOT = Path(__file__).resolve().parents[2]
SPANS = ROOT / "tests" / "adapters" / "fixtures" / "otel" / "mcp_spans.json"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_a_line_every_ten_seconds_and_nothing_before(tmp_path):
    source = tmp_path / "runs.jsonl"
    source.write_bytes(b"x" * 3 * 1024 * 1024)
    clock, log = Clock(), io.StringIO()
    shown = ExportProgress(log, [source], clock=clock)
    for records in range(1, 500):
        clock.now += (LOG_EVERY_S - 0.5) / 500
        shown.update(records)
    assert log.getvalue() == ""
    clock.now = 1000.0 + LOG_EVERY_S
    shown.update(2_000)
    assert log.getvalue() == "toolscore: exporting runs.jsonl (3.0 MiB): 2,000 records in 10 s (200/s)\n"
    clock.now += LOG_EVERY_S - 1
    shown.update(3_000)
    assert log.getvalue().count("\n") == 1
    clock.now += 1
    shown.update(4_000)
    assert log.getvalue().splitlines()[1] == "toolscore: exporting runs.jsonl (3.0 MiB): 4,000 records in 20 s (200/s)"
    shown.finish()
    assert log.getvalue().count("\n") == 2 and "\r" not in log.getvalue()


def test_a_terminal_line_is_drawn_rewritten_and_ended_with_the_last_count(tmp_path):
    sources = [tmp_path / "a.jsonl", tmp_path / "b.json"]
    sources[0].write_bytes(b"x" * 1500)
    sources[1].write_bytes(b"x" * 100)
    clock, terminal = Clock(), Terminal()
    shown = ExportProgress(terminal, sources, clock=clock)
    clock.now += FIRST_AFTER_S - 0.01
    shown.update(0)
    assert terminal.getvalue() == ""
    clock.now += 0.01
    shown.update(0)
    assert terminal.getvalue() == "\rexporting 2 sources (1.6 KiB): reading, 1 s\x1b[K"
    clock.now += TERMINAL_EVERY_S / 2
    shown.update(10)
    assert terminal.getvalue().count("\r") == 1  # not yet time
    clock.now += TERMINAL_EVERY_S / 2
    shown.update(20)
    assert terminal.getvalue().endswith("\rexporting 2 sources (1.6 KiB): 20 records in 1 s (16/s)\x1b[K")
    shown.update(25)
    shown.finish()
    assert terminal.getvalue().endswith("\rexporting 2 sources (1.6 KiB): 25 records in 1 s (20/s)\x1b[K\n")
    shown.finish()  # once ended, never again
    assert terminal.getvalue().count("\n") == 1


def test_a_quick_export_shows_nothing_even_in_a_terminal(tmp_path):
    clock, terminal = Clock(), Terminal()
    shown = ExportProgress(terminal, [tmp_path / "missing.jsonl"], clock=clock)
    for records in range(100):
        shown.update(records)
    shown.finish()
    assert terminal.getvalue() == ""


@pytest.mark.parametrize(("size", "text"), [(0, "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"),
                                            (5 * 2**20 + 2**19, "5.5 MiB"), (3 * 2**30, "3.0 GiB"),
                                            (2**40, "1024.0 GiB")])
def test_sizes_read_as_people_write_them(size, text):
    assert progress_module._size_text(size) == text


def test_a_hostile_file_name_is_shown_visible_and_short(tmp_path):
    name = "runs\x1b]52;c;aGk=\x07" + "x" * 200 + ".jsonl"
    source = tmp_path / name
    source.write_bytes(b"{}")
    clock, log = Clock(), io.StringIO()
    shown = ExportProgress(log, [source], clock=clock)
    clock.now += LOG_EVERY_S
    shown.update(1)
    line = log.getvalue()
    assert "\x1b" not in line and "\x07" not in line and "\\x1b" in line
    assert len(line) < 200
    assert " 1 records in 10 s (0/s)\n" in line


def collector_traces(path: Path, count: int) -> Path:
    bench_export_module().otlp_traces_file(path, SPANS.read_bytes(), count)
    return path


def test_the_export_tells_of_every_record_in_order_serially(tmp_path, make_row, rows_file):
    runs = rows_file(tmp_path / "runs.jsonl", [make_row(task=f"t{n}") for n in range(7)])
    told: list[int] = []
    result = export_runs([runs], tmp_path / "out.jsonl", workers=1, on_progress=told.append)
    assert result.records == 7 and told == list(range(1, 8))


@pytest.mark.parametrize("kind", ["rows", "traces"])
def test_worker_results_tell_of_progress_before_the_first_record(tmp_path, make_row, rows_file, kind,
                                                                 monkeypatch):
    """The first pass writes no record; each of its worker results still tells the count (0), so a
    long first pass is seen to be working."""
    if kind == "rows":
        from toolscore_export import parallel

        monkeypatch.setattr(parallel, "CHUNK_BYTES", 4096)  # a few rows a chunk: many results
        source = rows_file(tmp_path / "runs.jsonl", [make_row(task=f"t{n}") for n in range(60)])
        options: dict = {}
    else:
        source = collector_traces(tmp_path / "traces.jsonl", 600)  # 2.2 MiB: the pool reads it
        options = {"per_trace": True}
    told: list[int] = []
    result = export_runs([source], tmp_path / "out.jsonl", workers=2, on_progress=told.append, **options)
    assert told[0] == 0 and told.count(0) >= 2  # results came back before any record was written
    assert told == sorted(told) and told[-1] == result.records
    serial = export_runs([source], tmp_path / "serial.jsonl", workers=1, **options)
    assert (tmp_path / "out.jsonl").read_bytes() == (tmp_path / "serial.jsonl").read_bytes()
    assert serial.records == result.records


def run_in_terminal(args: list[str], cwd: Path) -> tuple[int, str]:
    """``args`` run with stdout and stderr on a pseudo-terminal: its exit code and what it drew."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower, cwd=cwd,
                               env={k: v for k, v in os.environ.items() if k != "TOOLSCORE_DEBUG"})
    os.close(follower)
    drawn = bytearray()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed: the command is done
                break
            if not chunk:
                break
            drawn += chunk
    os.close(leader)
    return process.wait(timeout=60), drawn.decode("utf-8", "replace")


def test_the_command_draws_its_progress_in_a_terminal(tmp_path):
    """The command as a user runs it, in a terminal, its thresholds shortened so the export of a
    small file is long enough to be shown."""
    collector_traces(tmp_path / "traces.jsonl", 300)
    code = ("import sys; from toolscore_export import progress; progress.FIRST_AFTER_S = 0.0; "
            "progress.TERMINAL_EVERY_S = 0.0; from toolscore_core.cli import main; "
            "sys.argv = ['toolscore'] + sys.argv[1:]; main()")
    status, drawn = run_in_terminal([sys.executable, "-c", code, "export", "--per-trace", "traces.jsonl",
                                     "-o", "out.jsonl"], tmp_path)
    assert status == 0, drawn
    lines = drawn.split("\r\n")
    progress_line = next(line for line in lines if "exporting traces.jsonl" in line)
    steps = progress_line.split("\r")[1:]
    assert len(steps) >= 3 and all(step.endswith("\x1b[K") for step in steps), steps
    assert steps[-1].startswith("exporting traces.jsonl (") and " 300 records in " in steps[-1]
    assert "300 record(s) written to out.jsonl" in lines[lines.index(progress_line) + 1]


def test_a_check_tells_of_every_line_and_ends_with_the_count(tmp_path, make_row, rows_file):
    from toolscore_export import check_file

    runs = rows_file(tmp_path / "runs.jsonl", [make_row(task=f"t{n}") for n in range(5)])
    export_runs([runs], tmp_path / "out.jsonl")
    with (tmp_path / "out.jsonl").open("ab") as handle:
        handle.write(b"not json\n")  # a problem line is a line checked too
    told: list[int] = []
    result = check_file(tmp_path / "out.jsonl", on_progress=told.append)
    assert result.records == 5 and [p.where for p in result.problems] == ["line 6", "manifest, $.output.sha256"]
    assert told == [0, 1, 2, 3, 4, 5, 6]


def test_validate_draws_its_progress_in_a_terminal(tmp_path, make_row, rows_file):
    runs = rows_file(tmp_path / "runs.jsonl", [make_row(task=f"t{n}") for n in range(40)])
    export_runs([runs], tmp_path / "out.jsonl")
    code = ("import sys; from toolscore_export import progress; progress.FIRST_AFTER_S = 0.0; "
            "progress.TERMINAL_EVERY_S = 0.0; from toolscore_core.cli import main; "
            "sys.argv = ['toolscore'] + sys.argv[1:]; main()")
    status, drawn = run_in_terminal([sys.executable, "-c", code, "export", "validate", "out.jsonl"], tmp_path)
    assert status == 0, drawn
    lines = drawn.split("\r\n")
    progress_line = next(line for line in lines if "checking out.jsonl" in line)
    assert progress_line.split("\r")[-1].startswith("checking out.jsonl (") and " 40 lines in " in progress_line
    assert lines[lines.index(progress_line) + 1] == "out.jsonl: 40 record(s) valid; manifest matches"
