"""Bulk scoring on a real local Ray instance, started inside a network namespace (conftest.py).

The child is the real console script, so option parsing, the executor's plugin loading and
the single-writer results file are all exercised.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.ray, pytest.mark.slow]

TOOLSCORE = str(Path(sys.executable).with_name("toolscore"))

GOLD = [{"tool": "search", "args": {"q": "flights"}}, {"tool": "book", "args": {"id": 1}}]


def _corpus(root: Path, n: int = 40) -> Path:
    (root / "gold.json").write_text(json.dumps(GOLD), encoding="utf-8")
    traces = root / "traces"
    traces.mkdir()
    for i in range(n):
        calls = [{"tool": "search", "args": {"q": "flights" if i % 3 else "hotels"}, "result": "ok"}]
        if i % 4:
            calls.append({"tool": "book", "args": {"id": 1}, "result": "booked"})
        (traces / f"t{i:03d}.json").write_text(json.dumps(calls), encoding="utf-8")
    (traces / "broken.json").write_text("[{", encoding="utf-8")
    return root


def _rows(path: Path) -> dict[str, dict]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    by_path = {row["path"]: row for row in rows}
    assert len(by_path) == len(rows), "a trace has more than one row"
    return by_path


def test_rows_from_ray_equal_the_local_executors(tmp_path: Path, in_netns: Any) -> None:
    root = _corpus(tmp_path)
    base = [TOOLSCORE, "eval", "gold.json", "--traces", "traces/*.json", "--workers", "2"]
    ray_run = in_netns([*base, "-o", "ray.jsonl", "--executor", "ray"], root)
    local = subprocess.run([*base, "-o", "local.jsonl"], cwd=root, capture_output=True, text=True, timeout=120)
    assert ray_run.returncode == local.returncode == 1, ray_run.stderr[-2000:]  # the broken trace fails the batch
    assert "Traceback" not in ray_run.stderr
    ray_rows, local_rows = _rows(root / "ray.jsonl"), _rows(root / "local.jsonl")
    assert len(ray_rows) == 41
    assert ray_rows == local_rows
    assert ray_rows["traces/broken.json"]["error"]["type"] == "InputError"
    assert len({row["score"] for row in ray_rows.values()}) >= 3  # the traces really score differently


def test_a_rerun_on_ray_resumes_and_writes_each_trace_once(tmp_path: Path, in_netns: Any) -> None:
    root = _corpus(tmp_path, n=12)
    args = [TOOLSCORE, "eval", "gold.json", "--traces", "traces/*.json", "-o", "out.jsonl", "--executor", "ray",
            "--workers", "2"]
    first = in_netns(args, root)
    assert first.returncode == 1, first.stderr[-2000:]
    (root / "traces" / "t100.json").write_text(json.dumps(GOLD), encoding="utf-8")
    second = in_netns(args, root)
    assert second.returncode == 1, second.stderr[-2000:]
    rows = _rows(root / "out.jsonl")  # asserts one row per trace
    assert len(rows) == 14 and rows["traces/t100.json"]["score"] == 1.0


def test_an_address_where_no_cluster_answers_is_bad_input(tmp_path: Path) -> None:
    root = _corpus(tmp_path, n=2)
    result = subprocess.run([TOOLSCORE, "eval", "gold.json", "--traces", "traces/*.json", "-o", "o.jsonl",
                             "--executor", "ray", "--ray-address", "127.0.0.1:9"], cwd=root,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "no Ray cluster answers at --ray-address 127.0.0.1:9" in result.stderr
    assert "Traceback" not in result.stderr and not (root / "o.jsonl").exists()


@pytest.mark.parametrize("port", ["\u00b2", "99999", "65536"])
def test_a_port_that_is_not_a_tcp_port_is_bad_input(tmp_path: Path, port: str) -> None:
    """"²" passes str.isdigit but not int(), and a port over 65535 made the socket call raise
    OverflowError: both were tracebacks before they became this message."""
    root = _corpus(tmp_path, n=2)
    result = subprocess.run([TOOLSCORE, "eval", "gold.json", "--traces", "traces/*.json", "-o", "o.jsonl",
                             "--executor", "ray", "--ray-address", f"127.0.0.1:{port}"], cwd=root,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "is not a Ray cluster address" in result.stderr
    assert "Traceback" not in result.stderr and not (root / "o.jsonl").exists()


def test_the_ray_executor_is_listed_without_importing_ray() -> None:
    code = ("import sys; from toolscore_core import get_plugin_manager; from toolscore_core.kernel.registry import "
            "collect; names = collect(get_plugin_manager(), 'executors').names(); "
            "print('ray' in names, 'ray' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["True", "False"], out.stderr


def test_a_ray_worker_killed_mid_run_still_gives_every_row_once(tmp_path: Path, netns_popen: Any,
                                                                busy_ray_workers: Any) -> None:
    import signal
    import time

    root = _corpus(tmp_path, n=0)
    traces = root / "traces"
    (traces / "broken.json").unlink()
    big = [{"tool": "search", "args": {"q": "flights", "page": i}, "result": "ok"} for i in range(3000)]
    for i in range(24):  # slow enough (a shard takes a while) for a worker to be caught busy
        (traces / f"big{i:02d}.json").write_text(json.dumps(big), encoding="utf-8")
    driver = netns_popen([TOOLSCORE, "eval", "gold.json", "--traces", "traces/*.json", "-o", "out.jsonl",
                          "--executor", "ray", "--workers", "2"], root)
    killed = None
    deadline = time.monotonic() + 120
    while killed is None and driver.poll() is None and time.monotonic() < deadline:
        busy = busy_ray_workers()
        if busy:
            os.kill(busy[0], signal.SIGKILL)
            killed = busy[0]
        time.sleep(0.05)
    _, err = driver.communicate(timeout=240)
    assert killed is not None, "no Ray worker was seen running a task"
    assert "Traceback" not in err
    rows = _rows(root / "out.jsonl")  # asserts one row per trace
    assert len(rows) == 24
    assert all(row["error"] is None and row["calls"] == 3000 for row in rows.values()), err[-2000:]


#: Runs one task on a private local Ray instance and prints the niceness of the driver and of
#: the Ray worker that ran it (``os.nice(0)`` changes nothing and returns the current value).
NICENESS_PROBE = """
import os
from toolscore_ray import RayExecutor
executor = RayExecutor(workers=1)
try:
    [result] = list(executor.run(os.nice, [("probe", 0)]))
finally:
    executor.close()
print(os.nice(0), result.value, result.error)
"""


def test_a_private_ray_instance_runs_its_workers_at_the_drivers_priority_unless_told(
        tmp_path: Path, in_netns: Any) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(NICENESS_PROBE, encoding="utf-8")
    plain = in_netns([sys.executable, str(probe)], tmp_path)
    assert plain.returncode == 0, plain.stderr[-2000:]
    driver, worker, error = plain.stdout.split()[-3:]
    assert error == "None" and worker == driver  # Ray's default would be the driver's + 15
    told = in_netns(script=f"RAY_worker_niceness=4 exec {shlex.quote(sys.executable)} {shlex.quote(str(probe))}",
                    cwd=tmp_path)
    assert told.returncode == 0, told.stderr[-2000:]
    driver, worker, _ = told.stdout.split()[-3:]
    assert int(worker) == min(19, int(driver) + 4)  # the user's own setting wins
