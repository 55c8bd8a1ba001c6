"""``toolscore agent run --executor ray``: a study's cells as Ray tasks, one budget actor.

Each scenario is the real console script in a network namespace (conftest.py) starting a
private local Ray instance. The offline example must give the same rows on Ray as on the
study's threads; a priced study whose worst case crosses ``max_usd`` must stop with the
cluster's total spend within the cap (every cell reserved in the one ledger actor) and
resume; a Ray worker SIGKILLed mid-cell and a driver SIGKILLed mid-study must both end with
every cell exactly once in the file.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from toolscore_core import read_runs

pytestmark = [pytest.mark.ray, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "agent_harness" / "offline.yaml"
TOOLSCORE = str(Path(sys.executable).with_name("toolscore"))

def _comparable(path: Path) -> dict[str, dict[str, Any]]:
    """Rows by cell id without what differs between two identical runs (times, durations);
    asserts that no cell has two rows."""
    rows: dict[str, dict[str, Any]] = {}
    for row in read_runs(path):
        data = row.to_dict()
        for key in ("started_at", "finished_at"):
            data.pop(key)
        for call in data.get("calls") or []:
            call.pop("duration", None)
        assert data["cell_id"] not in rows, f"cell {data['cell_id']} has two rows"
        rows[data["cell_id"]] = data
    return rows


def _spent(stdout: str) -> float:
    line = next(line for line in stdout.splitlines() if line.startswith("spent $"))
    return float(line.split("$", 1)[1].split()[0])


def test_a_study_on_ray_gives_the_same_rows_as_threads(tmp_path: Path, in_netns: Any) -> None:
    on_ray = in_netns([TOOLSCORE, "agent", "run", str(EXAMPLE), "-o", "ray.jsonl", "--executor", "ray",
                       "--workers", "2"], tmp_path)
    threads = subprocess.run([TOOLSCORE, "agent", "run", str(EXAMPLE), "-o", "threads.jsonl", "--workers", "2"],
                             cwd=tmp_path, capture_output=True, text=True, timeout=240)
    assert on_ray.returncode == threads.returncode == 1, on_ray.stderr[-2000:]  # sloppy's runs fail
    assert "Traceback" not in on_ray.stderr
    rows = _comparable(tmp_path / "ray.jsonl")
    assert len(rows) == 12
    assert rows == _comparable(tmp_path / "threads.jsonl")
    assert on_ray.stdout.splitlines()[-7:] == threads.stdout.splitlines()[-7:]  # the same outcomes table


def test_a_priced_study_on_ray_stops_within_the_cap_and_resumes(tmp_path: Path, in_netns: Any,
                                                                write_priced: Any) -> None:
    args = [TOOLSCORE, "agent", "run", "priced.yaml", "-o", "runs.jsonl", "--executor", "ray", "--workers", "2"]
    write_priced(tmp_path, 2.5)
    first = in_netns(args, tmp_path)
    assert first.returncode == 3, first.stdout[-1500:] + first.stderr[-1500:]  # stopped by the budget
    assert "Traceback" not in first.stderr
    rows = list(read_runs(tmp_path / "runs.jsonl"))
    ids = [r.cell_id for r in rows]
    assert len(ids) == len(set(ids)) < 8  # every cell at most once; the cap stopped it early
    assert any(r.status == "budget_stopped" for r in rows)
    paid = sum(r.cost_usd or 0.0 for r in rows)
    assert 0 < paid <= _spent(first.stdout) <= 2.5 + 1e-9  # spent, read from the one ledger actor, within the cap
    # a rerun with a larger cap resumes: only the cells not done run, each once in the file
    write_priced(tmp_path, 1000)
    second = in_netns(args, tmp_path)
    assert second.returncode == 0, second.stdout[-1500:] + second.stderr[-1500:]
    latest = {r.cell_id: r for r in read_runs(tmp_path / "runs.jsonl")}
    assert len(latest) == 8 and all(r.done for r in latest.values())
    assert sum(not r.done for r in read_runs(tmp_path / "runs.jsonl")) == sum(r.status == "budget_stopped"
                                                                              for r in rows)


def test_a_ray_worker_killed_mid_cell_still_gives_every_cell_once(tmp_path: Path, netns_popen: Any,
                                                                  busy_ray_workers: Any) -> None:
    driver = netns_popen([TOOLSCORE, "agent", "run", str(EXAMPLE), "-o", "runs.jsonl", "--executor", "ray",
                          "--workers", "2"], tmp_path)
    killed = None
    deadline = time.monotonic() + 120
    while killed is None and driver.poll() is None and time.monotonic() < deadline:
        busy = busy_ray_workers()
        if busy:
            os.kill(busy[0], signal.SIGKILL)
            killed = busy[0]
        time.sleep(0.02)
    out, err = driver.communicate(timeout=240)
    assert killed is not None, "no Ray worker was seen running a cell"
    assert driver.returncode == 1, out[-1500:] + err[-1500:]  # sloppy's runs fail; no error row
    assert "Traceback" not in err
    rows = _comparable(tmp_path / "runs.jsonl")  # asserts one row per cell
    assert len(rows) == 12
    outcomes = {(row["arm_id"], row["outcome"]) for row in rows.values()}
    assert outcomes == {("careful", "pass"), ("sloppy", "fail")}, outcomes


def test_a_driver_killed_mid_study_resumes_from_the_output_file(tmp_path: Path, netns_popen: Any,
                                                                in_netns: Any) -> None:
    args = [TOOLSCORE, "agent", "run", str(EXAMPLE), "-o", "runs.jsonl", "--executor", "ray", "--workers", "2"]
    out = tmp_path / "runs.jsonl"
    driver = netns_popen(args, tmp_path)
    deadline = time.monotonic() + 120
    while driver.poll() is None and time.monotonic() < deadline:
        if out.exists() and out.read_bytes().count(b"\n") >= 3:
            driver.send_signal(signal.SIGKILL)  # no clean-up at all: not even Python's
            break
        time.sleep(0.02)
    driver.communicate(timeout=60)
    assert driver.returncode == -signal.SIGKILL, "the driver finished before it could be killed"
    before = _comparable(out)
    assert 3 <= len(before) < 12
    again = in_netns(args, tmp_path)
    assert again.returncode == 1, again.stdout[-1500:] + again.stderr[-1500:]
    assert f"{len(before)} run(s) already in runs.jsonl, skipped" in again.stdout
    rows = _comparable(out)  # asserts one row per cell
    assert len(rows) == 12
    assert {cell: rows[cell] for cell in before} == before  # the rows written before the kill are kept as they were


def test_a_ray_address_with_another_executor_is_bad_input(tmp_path: Path) -> None:
    result = subprocess.run([TOOLSCORE, "agent", "run", str(EXAMPLE), "-o", "r.jsonl", "--executor", "local",
                             "--ray-address", "auto"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "--ray-address applies to --executor ray, not to --executor local" in result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "r.jsonl").exists()


def test_a_ray_address_alone_means_ray_and_a_dead_one_is_bad_input(tmp_path: Path) -> None:
    result = subprocess.run([TOOLSCORE, "agent", "run", str(EXAMPLE), "-o", "r.jsonl", "--ray-address",
                             "127.0.0.1:9"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "no Ray cluster answers at --ray-address 127.0.0.1:9" in result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "r.jsonl").exists()


def test_a_dead_budget_ledger_stops_the_study_and_a_rerun_resumes(tmp_path: Path, netns_popen: Any,
                                                                  busy_ray_workers: Any, in_netns: Any) -> None:
    """The ledger actor is never restarted (it would come back empty, having forgotten what was
    reserved): killed mid-study, the study stops with one clear line and exit 1, no traceback,
    and keeps its rows; the same command then finishes it, every cell once."""
    args = [TOOLSCORE, "agent", "run", str(EXAMPLE), "-o", "runs.jsonl", "--executor", "ray", "--workers", "2"]
    out = tmp_path / "runs.jsonl"
    driver = netns_popen(args, tmp_path)
    killed = None
    deadline = time.monotonic() + 120
    while killed is None and driver.poll() is None and time.monotonic() < deadline:
        ledgers = busy_ray_workers(b"ray::BudgetLedger")
        if ledgers and out.exists() and out.stat().st_size:
            os.kill(ledgers[0], signal.SIGKILL)
            killed = ledgers[0]
        time.sleep(0.02)
    stdout, stderr = driver.communicate(timeout=240)
    assert killed is not None, "the ledger actor was not seen while the study ran"
    assert driver.returncode == 1, stdout[-1500:] + stderr[-1500:]
    assert "toolscore: error: the study's budget ledger (the Ray actor BudgetLedger) is gone" in stderr
    assert "run the same command again to resume" in stderr and "Traceback" not in stderr
    before = _comparable(out)  # asserts one row per cell
    assert 1 <= len(before) < 12
    again = in_netns(args, tmp_path)
    assert again.returncode == 1, again.stdout[-1500:] + again.stderr[-1500:]
    assert len(_comparable(out)) == 12
