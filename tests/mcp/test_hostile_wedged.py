"""A server that never starts, and a single-threaded server that one tool wedges.

``servers/wedging_server.py`` answers one request at a time, so its ``sleepy`` tool (120 s)
stops it answering anything, ping included. Without the wedge check every later call timed
out and was blamed; now the runner pings after a timeout, restarts a server that does not
answer, and only ``sleepy`` is blamed. Everything runs through the real CLI, and every
test checks that no server process is left behind.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

SERVER = Path(__file__).resolve().parent / "servers" / "wedging_server.py"
GOOD = ("echo", "multiply", "shout", "measure", "mirror", "greet")


def server_command(tag: str, *extra: str) -> str:
    return shlex.join([sys.executable, str(SERVER), "--tag", tag, *extra])


def toolscore(*args: str, limit: float = 120.0) -> tuple[subprocess.CompletedProcess[str], float]:
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "toolscore_core.cli", *args], capture_output=True, text=True,
                          timeout=limit, env=env, encoding="utf-8")
    elapsed = time.monotonic() - started
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc, elapsed


def processes_tagged(tag: str) -> list[int]:
    """Pids whose command line carries ``tag`` (what ``ps`` would show), zombies excluded."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().split(")")[-1].split()[0]
        except OSError:
            continue
        if tag.encode() in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def findings(data: dict[str, Any], code: str) -> list[str]:
    return sorted(f["tool"] for f in data["findings"] if f["code"] == code)


def test_one_wedging_tool_among_nine_is_the_only_one_blamed_with_default_options() -> None:
    tag = f"wedge-{uuid.uuid4().hex}"
    proc, elapsed = toolscore("mcp", "test", server_command(tag), "--report", "json", "--ci")
    print(f"mcp test against the wedging server took {elapsed:.1f} s")
    assert elapsed < 40, f"took {elapsed:.1f} s"
    data = json.loads(proc.stdout)
    assert findings(data, "tool-timeout") == ["sleepy"]  # nobody else is blamed for its 120 s
    assert findings(data, "server-wedged") == ["sleepy"]
    assert findings(data, "server-crash") == ["crasher"]
    assert findings(data, "oversized-answer") == ["bulky"]
    assert "server-unrecoverable" not in {f["code"] for f in data["findings"]}
    tools = {row["name"]: row for row in data["tools"]}
    for name in GOOD:
        assert tools[name]["run"] >= 2 and tools[name]["passed"] == tools[name]["run"], tools[name]
    assert tools["sleepy"]["run"] == 1 and "wedged the server" in tools["sleepy"]["skipped"]
    assert tools["crasher"]["passed"] == 0 and tools["bulky"]["passed"] < tools["bulky"]["run"]
    assert "checking that the server still answers (ping)" in proc.stderr
    assert processes_tagged(tag) == []


def test_a_wedge_under_concurrency_is_still_blamed_on_the_one_tool() -> None:
    tag = f"wedge-{uuid.uuid4().hex}"
    proc, elapsed = toolscore("mcp", "test", server_command(tag), "--concurrency", "3", "--timeout", "2", "--scenarios", "2",
                              "--report", "json")
    assert elapsed < 60, f"took {elapsed:.1f} s"
    data = json.loads(proc.stdout)
    assert findings(data, "tool-timeout") == ["sleepy"]
    assert findings(data, "server-wedged") == ["sleepy"]
    tools = {row["name"]: row for row in data["tools"]}
    assert all(tools[name]["run"] >= 2 and tools[name]["passed"] == tools[name]["run"] for name in GOOD), tools
    assert processes_tagged(tag) == []


def test_a_stdio_server_that_never_answers_initialize_costs_the_timeout() -> None:
    tag = f"silent-{uuid.uuid4().hex}"
    command = server_command(tag, "--silent")
    proc, elapsed = toolscore("mcp", "list", command, "--timeout", "2")
    assert proc.returncode == 2 and elapsed < 2 * 2 + 3, f"took {elapsed:.1f} s"
    assert "no answer to server/discover or initialize within 2 s (waiting for the server to start)" in proc.stderr
    proc, elapsed = toolscore("mcp", "test", command, "--timeout", "2", "--ci")
    assert proc.returncode == 2 and elapsed < 2 * 2 + 3, f"took {elapsed:.1f} s"
    assert "toolscore: waiting for the server to start (initialize, up to 2 s)" in proc.stderr
    proc, elapsed = toolscore("mcp", "test", command, "--deadline", "3")  # --deadline bounds start-up too
    assert proc.returncode == 2 and elapsed < 3 + 3, f"took {elapsed:.1f} s"
    assert "within 3 s" in proc.stderr
    assert processes_tagged(tag) == []
