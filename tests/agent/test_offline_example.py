"""The documented offline example, through the real command line: the same header, the same
first runs and the same outcomes table as the docs show, from our own code."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from toolscore_core import read_runs

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "agent_harness" / "offline.yaml"
# The example starts its server as `python -m ...`; the harness reads a bare `python` as the
# interpreter Toolscore runs in, so this works even where no `python` is on PATH at all.
ENV = {**os.environ, "COLUMNS": "100", "PATH": "/usr/bin:/bin"}


def test_the_offline_example_prints_the_documented_output(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    out = subprocess.run([sys.executable, "-m", "toolscore_core.cli", "agent", "run", str(EXAMPLE), "-o", str(runs)],
                         capture_output=True, text=True, env=ENV, timeout=240, cwd=tmp_path)
    assert out.returncode == 1, out.stderr  # sloppy's runs fail, as the docs show
    lines = [line.rstrip() for line in out.stdout.splitlines()]
    assert lines[:4] == [
        "notes-offline: 2 task(s) x 2 arm(s) x 3 repetition(s) = 12 run(s), seed 7",
        "  arm careful: scripted scripted, price $0.0/0.0 per 1M (scripted (free))",
        "  arm sloppy: scripted scripted, price $0.0/0.0 per 1M (scripted (free))",
        "  worst case $0.0000 (max_turns 6, budget max_usd none)",
    ]
    assert lines[4:7] == [
        "    1. clean-up::careful::2: pass (completed, 2 call(s), 1 denied, $0.0000)",
        "    2. clean-up::sloppy::3: fail (completed, 2 call(s), 1 denied, $0.0000)",
        "    3. save-a-note::sloppy::1: fail (completed, 1 call(s), $0.0000)",
    ]
    assert sum(bool(re.match(r"    \d+\. ", line)) for line in lines) == 12
    assert lines[-7:] == [
        "        Outcomes (this invocation)",
        "┏━━━━━━━━━┳━━━━━━┳━━━━━━┳━━━━━━━┳━━━━━━━━━┓",
        "┃ Arm     ┃ pass ┃ fail ┃ error ┃ unknown ┃",
        "┡━━━━━━━━━╇━━━━━━╇━━━━━━╇━━━━━━━╇━━━━━━━━━┩",
        "│ careful │    6 │    0 │     0 │       0 │",
        "│ sloppy  │    0 │    6 │     0 │       0 │",
        "└─────────┴──────┴──────┴───────┴─────────┘",
    ]
    rows = list(read_runs(runs))
    assert len({r.cell_id for r in rows}) == len(rows) == 12
    careful = [r for r in rows if r.arm_id == "careful"]
    sloppy = [r for r in rows if r.arm_id == "sloppy"]
    assert {r.outcome for r in careful} == {"pass"} and {r.outcome for r in sloppy} == {"fail"}
    cleanups = [r for r in rows if r.task_id == "clean-up"]
    # the guard refused every delete, so none reached the server
    assert all(any(c.denied and c.tool == "delete_note" for c in r.calls) for r in cleanups)
    assert all(r.guard_denials for r in cleanups)
    # sloppy claims the delete it never did: an error-severity honesty finding
    assert all(r.final_answer and "deleted" in r.final_answer for r in sloppy if r.task_id == "clean-up")


def test_the_offline_example_resumes_with_nothing_left_to_do(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    argv = [sys.executable, "-m", "toolscore_core.cli", "agent", "run", str(EXAMPLE), "-o", str(runs)]
    first = subprocess.run(argv, capture_output=True, text=True, timeout=240, cwd=tmp_path, env=ENV)
    assert first.returncode == 1, first.stderr
    again = subprocess.run(argv, capture_output=True, text=True, timeout=240, cwd=tmp_path, env=ENV)
    assert again.returncode == 0, again.stderr  # nothing ran, so nothing failed
    assert f"  12 run(s) already in {runs}, skipped" in again.stdout
    assert "│ careful │    0 │    0 │     0 │       0 │" in again.stdout
    assert len(list(read_runs(runs))) == 12
