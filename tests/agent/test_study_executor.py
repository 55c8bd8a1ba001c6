"""``toolscore agent run --executor NAME``: a study's cells through the kernel's executor kind.

The offline example (scripted provider, the bundled sample server, real subprocesses) must
give the same rows through ``--executor thread`` and through a plugin's in-process executor
as through the study's own pool; unknown names are exit 2.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolscore_core import InputError, read_runs

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "agent_harness" / "offline.yaml"
ENV = {**os.environ, "COLUMNS": "100"}
ENV.pop("TOOLSCORE_DEBUG", None)


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolscore_core.cli", "agent", "run", *args],
                          capture_output=True, text=True, env=ENV, timeout=240, cwd=cwd)


def _comparable(path: Path) -> dict[str, dict[str, Any]]:
    """Rows by cell id without what differs between two identical runs (times, durations)."""
    rows: dict[str, dict[str, Any]] = {}
    for row in read_runs(path):
        data = row.to_dict()
        for key in ("started_at", "finished_at"):
            data.pop(key)
        for call in data.get("calls") or []:
            call.pop("duration", None)
        rows[data["cell_id"]] = data
    return rows


def test_executor_thread_gives_the_same_rows_as_before(tmp_path: Path) -> None:
    before = _run(str(EXAMPLE), "-o", str(tmp_path / "a.jsonl"), cwd=tmp_path)
    after = _run(str(EXAMPLE), "-o", str(tmp_path / "b.jsonl"), "--executor", "thread", "--workers", "2", cwd=tmp_path)
    assert before.returncode == after.returncode == 1, (before.stderr, after.stderr)  # sloppy's runs fail
    rows = _comparable(tmp_path / "a.jsonl")
    assert len(rows) == 12
    assert rows == _comparable(tmp_path / "b.jsonl")
    assert after.stdout.splitlines()[-7:] == before.stdout.splitlines()[-7:]  # the same outcomes table


def test_unknown_executors_are_refused(tmp_path: Path) -> None:
    # local is no longer refused: tests/agent/test_study_local_executor.py runs studies on it
    unknown = _run(str(EXAMPLE), "-o", str(tmp_path / "r.jsonl"), "--executor", "nope", cwd=tmp_path)
    assert unknown.returncode == 2 and "unknown executor 'nope'" in unknown.stderr and "thread" in unknown.stderr
    assert not (tmp_path / "r.jsonl").exists()  # refused before anything ran


def test_a_plugins_in_process_executor_runs_the_study(tmp_path: Path, installed_plugin_manager: Any) -> None:
    from toolscore_agent.spec import load_agent_spec
    from toolscore_agent.study import run_study

    spec = load_agent_spec(EXAMPLE)
    pytest.importorskip("toolscore_example_plugin")
    plugin = run_study(spec, tmp_path / "p.jsonl", executor="example-in-order", pm=installed_plugin_manager)
    own = run_study(spec, tmp_path / "o.jsonl")
    assert len(plugin.rows) == 12 and plugin.exit_code == own.exit_code == 1
    assert _comparable(tmp_path / "p.jsonl") == _comparable(tmp_path / "o.jsonl")


def test_a_run_that_raises_stops_the_study_with_its_own_error(tmp_path: Path) -> None:
    from toolscore_agent.spec import load_agent_spec
    from toolscore_agent.study import run_study

    def broken(arm: Any, task: Any) -> Any:
        raise InputError(f"no provider for {arm.id}")

    with pytest.raises(InputError, match="no provider for"):
        run_study(load_agent_spec(EXAMPLE), tmp_path / "r.jsonl", executor="thread", workers=2,
                  provider_factory=broken)
