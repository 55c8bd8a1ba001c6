"""Hostile Streamable HTTP servers: every wait is bounded, no reply is buffered whole.

Each test starts ``servers/http_hostile_server.py`` (a real HTTP server on 127.0.0.1 that
misbehaves below HTTP's framing on purpose) and runs the real CLI against it in a
subprocess, as a user or a CI job would. Bounds are generous (``timeout * 2 + 3`` s) so a
loaded machine does not make them flaky; the failures they catch took minutes or forever.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parent / "servers" / "http_hostile_server.py"
TIMEOUT = 2.0
BOUND = TIMEOUT * 2 + 3  # what every run against a hostile server must stay under
STALLING = ("silent", "trickle-headers", "sse-keepalive")
CAP = "67,108,864-byte limit per message"


@pytest.fixture
def hostile(request: pytest.FixtureRequest) -> Iterator[str]:
    """The URL of a hostile server; ``request.param`` is ``(mode, stage)``."""
    mode, stage = request.param
    proc = subprocess.Popen([sys.executable, str(SERVER), mode, "--at", stage], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    try:
        assert proc.stdout is not None
        selector = selectors.DefaultSelector()
        selector.register(proc.stdout, selectors.EVENT_READ)
        assert selector.select(timeout=20), "the hostile server did not start within 20 s"
        line = proc.stdout.readline().decode()
        assert line.startswith("PORT "), line
        yield f"http://127.0.0.1:{int(line.split()[1])}/mcp"
    finally:
        proc.kill()
        proc.wait(timeout=10)


def toolscore(*args: str, limit: float = 60.0) -> tuple[subprocess.CompletedProcess[str], float]:
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "toolscore_core.cli", *args], capture_output=True, text=True,
                          timeout=limit, env=env, encoding="utf-8")
    elapsed = time.monotonic() - started
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc, elapsed


def run_measured(args: list[str], limit: float = 60.0) -> tuple[int, str, float, int]:
    """(exit code, stderr, seconds, peak RSS in MB) of the CLI.

    The peak is the child's own ``VmHWM``, polled while it runs: ``wait4``'s ``ru_maxrss``
    would not do, because Linux carries the parent's resident size at fork time into it
    (so late in a long test session it reports pytest's size, not the CLI's)."""
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "toolscore_core.cli", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env)
    assert proc.stderr is not None
    stderr: list[bytes] = []
    reader = threading.Thread(target=lambda: stderr.append(proc.stderr.read() if proc.stderr else b""), daemon=True)
    reader.start()
    peak_kb = [0]

    def watch() -> None:
        while proc.poll() is None:
            peak_kb[0] = max(peak_kb[0], _high_water_kb(proc.pid))
            time.sleep(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    killer = threading.Timer(limit, proc.kill)
    killer.start()
    try:
        proc.wait()
    finally:
        killer.cancel()
    watcher.join(timeout=10)
    reader.join(timeout=10)
    return proc.returncode, b"".join(stderr).decode("utf-8", "replace"), time.monotonic() - started, peak_kb[0] // 1024


def _high_water_kb(pid: int) -> int:
    """``VmHWM`` of a running process in kB (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


# -- every wait bounded (issue 8 items 9 and 10) ----------------------------------------------
@pytest.mark.parametrize("hostile", [(mode, "initialize") for mode in STALLING], indirect=True, ids=STALLING)
def test_list_against_a_server_that_stalls_start_up_is_bounded_by_timeout(hostile: str) -> None:
    proc, elapsed = toolscore("mcp", "list", hostile, "--timeout", str(TIMEOUT))
    assert proc.returncode == 2
    assert elapsed < BOUND, f"took {elapsed:.1f} s"
    assert "no answer to server/discover or initialize within 2 s (waiting for the server to start)" in proc.stderr


@pytest.mark.parametrize("hostile", [(mode, "list") for mode in STALLING], indirect=True, ids=STALLING)
def test_list_against_a_server_that_stalls_tools_list_is_bounded_by_timeout(hostile: str) -> None:
    proc, elapsed = toolscore("mcp", "list", hostile, "--timeout", str(TIMEOUT))
    assert proc.returncode == 2
    assert elapsed < BOUND, f"took {elapsed:.1f} s"
    assert "the server did not list its tools: tools/list: no response within 2 s" in proc.stderr


@pytest.mark.parametrize("hostile", [(mode, "call") for mode in STALLING], indirect=True, ids=STALLING)
def test_mcp_test_against_a_tool_that_stalls_is_bounded_and_names_it(hostile: str) -> None:
    # The cancellation after each timeout meets the same stalling reply: it must not wait.
    proc, elapsed = toolscore("mcp", "test", hostile, "--timeout", str(TIMEOUT), "--deadline", "6",
                              "--report", "json", "--ci")
    assert elapsed < BOUND, f"took {elapsed:.1f} s"
    assert proc.returncode == 1 and "blocking issue" in proc.stderr
    data = json.loads(proc.stdout)
    timeouts = [f for f in data["findings"] if f["code"] == "tool-timeout"]
    assert [f["tool"] for f in timeouts] == ["probe"]
    assert "no answer within 2 s" in timeouts[0]["message"]
    assert "toolscore: calling tool probe (scenario 1/" in proc.stderr  # the CI log says what it waits for


@pytest.mark.parametrize("hostile", [("silent", "initialize")], indirect=True)
def test_mcp_test_start_up_is_bounded_by_timeout_and_by_deadline(hostile: str) -> None:
    proc, elapsed = toolscore("mcp", "test", hostile, "--timeout", str(TIMEOUT), "--deadline", "6", "--ci")
    assert proc.returncode == 2 and elapsed < BOUND, f"took {elapsed:.1f} s"
    assert "no answer to server/discover or initialize within 2 s" in proc.stderr
    assert "toolscore: waiting for the server to start (initialize, up to 2 s)" in proc.stderr
    # Without --timeout the start-up may take 30 s, but never more than --deadline.
    proc, elapsed = toolscore("mcp", "test", hostile, "--deadline", "3")
    assert proc.returncode == 2 and elapsed < 3 + 3, f"took {elapsed:.1f} s"
    assert "no answer to server/discover or initialize within 3 s" in proc.stderr


# -- nothing buffered whole (issue 8 item 12, HTTP) ---------------------------------------------
@pytest.mark.parametrize("hostile", [("huge-length", "list"), ("huge-json", "list"), ("huge-sse", "list")],
                         indirect=True, ids=["4GB-content-length-trickled", "1GiB-json-body", "1GiB-sse-line"])
def test_a_huge_reply_is_refused_at_the_cap_with_bounded_memory(hostile: str) -> None:
    code, stderr, elapsed, peak_mb = run_measured(["mcp", "list", hostile, "--timeout", "20"])
    assert code == 2, stderr
    assert CAP in stderr and "tools/list: refused the reply" in stderr
    assert "Traceback" not in stderr
    assert 10 < peak_mb < 400, f"peak RSS {peak_mb} MB: the reply was buffered"  # the server offers 1 GiB or 4 GB
    assert elapsed < 20, f"took {elapsed:.1f} s"


def test_capped_lines_splits_every_line_end_across_chunks() -> None:
    from toolscore_mcp.sse import capped_lines, parse_events

    chunks = [b"data: a\r", b"\ndata: b\rdata: c\n", b"\n: comment\r\n\r\n", b"data: tail"]
    assert list(capped_lines(chunks, 100)) == ["data: a", "data: b", "data: c", "", ": comment", "", "data: tail"]
    events = list(parse_events(capped_lines(chunks, 100)))
    assert [e.data for e in events] == ["a\nb\nc", "tail"]


def test_capped_lines_and_events_refuse_past_the_cap() -> None:
    from toolscore_mcp.sse import OversizedEvent, capped_lines, parse_events

    with pytest.raises(OversizedEvent, match="100-byte limit"):
        list(capped_lines([b"x" * 60, b"x" * 60], 100))  # no line end yet: refused while growing
    with pytest.raises(OversizedEvent):
        list(capped_lines([b"y" * 150 + b"\n"], 100))
    many_lines = [b"data: " + b"z" * 40 + b"\n"] * 5 + [b"\n"]
    with pytest.raises(OversizedEvent):
        list(parse_events(capped_lines(many_lines, 100), max_event_chars=100))
