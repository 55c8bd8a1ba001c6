"""Running the real console script beside a real Ray, inside a network namespace.

Ray binds to the machine's interface address unless loopback is the only interface, so
every scenario runs as a child in a fresh namespace (``unshare --net``, then ``lo`` up):
the Ray processes, the driver and anything they start talk over 127.0.0.1, and no test
traffic leaves the machine. A namespace lives as long as its first process, so a scenario
that needs a cluster and two drivers runs as one shell script inside one namespace.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

TOOLSCORE = str(Path(sys.executable).with_name("toolscore"))
RAY = str(Path(sys.executable).with_name("ray"))


@functools.cache
def netns_available() -> bool:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    probe = subprocess.run(["unshare", "--net", "sh", "-c", "ip link set lo up"], capture_output=True, timeout=30)
    return probe.returncode == 0


def quote(arg: str) -> str:
    """``arg`` as one word of a POSIX shell command line."""
    return "'" + arg.replace("'", "'\\''") + "'"


def netns_env() -> dict[str, str]:
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0", NO_COLOR="1")
    env.pop("RAY_ADDRESS", None)  # a stale address must not be joined
    return env


def netns_argv(script: str) -> list[str]:
    """The command that runs the shell ``script`` in a new namespace with loopback up."""
    return ["unshare", "--net", "sh", "-c", f"ip link set lo up && {script}"]


@pytest.fixture
def in_netns() -> Callable[..., subprocess.CompletedProcess[str]]:
    """``in_netns(args, cwd, timeout=240)``: run one command in a fresh namespace; or
    ``in_netns(script=..., cwd=...)`` for a shell script (several commands, one namespace)."""
    if not netns_available():
        pytest.skip("needs `unshare --net` (a network namespace) to run Ray on loopback only")

    def run(args: list[str] | None = None, cwd: Path | None = None, timeout: float = 240,
            script: str | None = None) -> subprocess.CompletedProcess[str]:
        command = script if script is not None else "exec " + " ".join(quote(a) for a in args or [])
        return subprocess.run(netns_argv(command), cwd=cwd, env=netns_env(), capture_output=True, text=True,
                              timeout=timeout)

    return run


@pytest.fixture
def netns_popen() -> Callable[..., subprocess.Popen[str]]:
    """``netns_popen(args, cwd)``: start one command in a fresh namespace, output piped."""
    if not netns_available():
        pytest.skip("needs `unshare --net` (a network namespace) to run Ray on loopback only")

    def start(args: list[str], cwd: Path, **kwargs: Any) -> subprocess.Popen[str]:
        command = "exec " + " ".join(quote(a) for a in args)
        return subprocess.Popen(netns_argv(command), cwd=cwd, env=netns_env(), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, **kwargs)

    return start


def ray_task_pids(task: bytes = b"ray::_run_item") -> list[int]:
    """Pids of Ray worker processes running one of our tasks (their title names the task)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                title = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if title.startswith(task):
                found.append(int(entry.name))
    return found


@pytest.fixture
def busy_ray_workers() -> Callable[[], list[int]]:
    return ray_task_pids


#: A scripted study whose model calls have a price: its worst case crosses a small ``max_usd``.
PRICED = """\
spec_version: 1
name: notes-priced
server:
  command: "python -m toolscore_mcp.sample_server"
  timeout: 30
provider: scripted
arms:
  - {id: careful, model: scripted-priced, max_output_tokens: 50}
  - {id: sloppy, model: scripted-priced, max_output_tokens: 50}
pricing:
  scripted-priced: {input_per_million: 1000, output_per_million: 1000}
budget: {max_usd: MAX}
repetitions: 4
seed: 7
limits: {max_turns: 6, max_calls: 10}
tasks:
  - id: save-a-note
    prompt: "Save a note titled 'groceries' with the body 'milk, eggs'."
    expected:
      - {tool: create_note, args: {title: groceries}}
    script:
      - calls: [{tool: create_note, args: {title: groceries, body: "milk, eggs"}}]
      - text: "Saved the note 'groceries'."
"""


@pytest.fixture
def write_priced() -> Callable[[Path, float], Path]:
    """``write_priced(dir, max_usd)``: the priced study as ``dir/priced.yaml``."""

    def write(root: Path, max_usd: float) -> Path:
        path = root / "priced.yaml"
        path.write_text(PRICED.replace("MAX", str(max_usd)), encoding="utf-8")
        return path

    return write
