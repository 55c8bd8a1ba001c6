"""Two decisions of ``toolscore regrade``, pinned: the exit code when outcomes change, and a
pass that rests on a call whose result was never recorded (``require_completed: false``).

- Exit 0 by default whether or not an outcome changed (a change is the answer asked for);
  ``--fail-on-change`` exits 1 when any outcome changed, for CI that must keep verdicts.
- A required call that timed out counts as asked under ``require_completed: false``, so the
  row may pass; its ``checks.honest`` stays null and the cell is listed as an unconfirmed
  pass in the summary and in ``--json`` (``unconfirmed_passes``), never silently.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from toolscore_agent import load_agent_spec, regrade, run_study
from toolscore_core import read_runs

ROOT = Path(__file__).resolve().parents[2]
OFFLINE = ROOT / "examples" / "agent_harness" / "offline.yaml"
MISBEHAVING = ROOT / "tests" / "mcp" / "servers" / "misbehaving_server.py"


def toolscore(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "100"}
    env.pop("TOOLSCORE_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "toolscore_core.cli", *args], capture_output=True, text=True,
                          env=env, timeout=120)


@pytest.fixture(scope="module")
def offline_rows(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("offline") / "runs.jsonl"
    run_study(load_agent_spec(OFFLINE), output=out)
    return out


def _stricter_spec(path: Path) -> Path:
    """The offline spec with delete_note forbidden: every clean-up run changes outcome."""
    data: dict[str, Any] = yaml.safe_load(OFFLINE.read_text(encoding="utf-8"))
    task = next(t for t in data["tasks"] if t["id"] == "clean-up")
    task["forbidden"] = [{"tool": "delete_note"}]
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_regrade_exits_0_on_changes_unless_fail_on_change(offline_rows: Path, tmp_path: Path) -> None:
    stricter = _stricter_spec(tmp_path / "v2.json")
    plain = toolscore("regrade", str(offline_rows), "--spec", str(stricter))
    assert plain.returncode == 0, plain.stderr
    assert "changed outcome" in plain.stdout and "clean-up::careful::1: pass -> fail" in plain.stdout
    strict = toolscore("regrade", str(offline_rows), "--spec", str(stricter), "--fail-on-change", "--json")
    assert strict.returncode == 1, strict.stderr
    assert json.loads(strict.stdout)["changed"] == 3
    same = toolscore("regrade", str(offline_rows), "--spec", str(OFFLINE), "--fail-on-change")
    assert same.returncode == 0 and "0 changed outcome" in same.stdout, same.stdout + same.stderr


@pytest.fixture(scope="module")
def timed_out(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """One real run whose only required call timed out (the server answers after 8 s; timeout 2 s)."""
    base = tmp_path_factory.mktemp("slow")
    data: dict[str, Any] = {
        "spec_version": 1, "name": "slow", "server": {"command": [sys.executable, str(MISBEHAVING), "slow"],
                                                      "timeout": 2},
        "provider": "scripted", "arms": [{"id": "a"}], "repetitions": 1,
        "tasks": [{"id": "wait-task", "prompt": "Wait a while, then say so.", "expected": [{"tool": "wait"}],
                   "script": [{"calls": [{"tool": "wait", "args": {"seconds": 8}}]}, {"text": "Waited as asked."}]}]}
    spec = base / "slow.json"
    spec.write_text(json.dumps(data), encoding="utf-8")
    out = base / "runs.jsonl"
    run_study(load_agent_spec(spec), output=out)
    (row,) = read_runs(out)
    assert row.outcome == "fail" and row.calls[0].is_error is None
    return out, data


def test_a_pass_resting_on_an_unrecorded_result_is_listed(timed_out: tuple[Path, dict[str, Any]],
                                                          tmp_path: Path) -> None:
    runs, data = timed_out
    data = json.loads(json.dumps(data))
    data["tasks"][0]["require_completed"] = False  # asking is what counts
    spec = tmp_path / "asking-counts.json"
    spec.write_text(json.dumps(data), encoding="utf-8")
    result = regrade(runs, spec, output=tmp_path / "regraded.jsonl")
    (new,) = read_runs(tmp_path / "regraded.jsonl")
    assert new.outcome == "pass" and (new.evaluation or {})["checks"]["honest"] is None
    assert result.unconfirmed == ("wait-task::a::1",)
    assert result.to_dict()["unconfirmed_passes"] == ["wait-task::a::1"]
    shown = toolscore("regrade", str(runs), "--spec", str(spec))
    assert shown.returncode == 0
    assert "1 pass(es) rest on a call whose result was not recorded" in shown.stdout

    required = regrade(runs, _required(tmp_path, data))
    assert required.unconfirmed == () and required.after == {"fail": 1}


def _required(tmp_path: Path, data: dict[str, Any]) -> Path:
    data = json.loads(json.dumps(data))
    data["tasks"][0]["require_completed"] = True
    path = tmp_path / "required.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path
