"""What replaying approved snapshots adds to a pytest run (issue 9: 1,000 replays under 2 s).

Generates a suite of N tests (10 files) whose deterministic agent returns three tool calls,
twice: once calling ``toolscore_snapshot`` against an approved baseline (written beforehand
with ``SnapshotStore``), once only calling the agent. Each suite runs in its own pytest
process; the figure is the difference, wall and CPU (the child's user + system time), best
of ``--repeat`` runs. Both suites load the same plugins, so the difference is what the
fixture costs: reading the snapshot, reading the calls, and one evaluation per test.

    python bench/bench_snapshots.py --tests 1000 --repeat 3
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FILES = 10
AGENT = '''
def run_agent(i):
    return [{"tool": "search_flights", "args": {"destination": "NYC", "case": i}},
            {"tool": "pick_flight", "args": {"flight_id": f"FL-{i}", "seats": 2}},
            {"tool": "book_flight", "args": {"flight_id": f"FL-{i}", "passenger": "Ada"}}]
'''


def calls_for(i: int) -> list[dict[str, object]]:
    return [{"tool": "search_flights", "args": {"destination": "NYC", "case": i}},
            {"tool": "pick_flight", "args": {"flight_id": f"FL-{i}", "seats": 2}},
            {"tool": "book_flight", "args": {"flight_id": f"FL-{i}", "passenger": "Ada"}}]


def make_suite(root: Path, tests: int, fixture: bool) -> None:
    root.mkdir(parents=True)
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (root / "bench_agent.py").write_text(AGENT, encoding="utf-8")
    per_file = -(-tests // FILES)
    for f in range(FILES):
        lines = ["from bench_agent import run_agent", ""]
        for i in range(f * per_file, min(tests, (f + 1) * per_file)):
            if fixture:
                lines += [f"def test_case_{i}(toolscore_snapshot):", f"    toolscore_snapshot(run_agent({i}))", ""]
            else:
                lines += [f"def test_case_{i}():", f"    assert run_agent({i})", ""]
        (root / f"test_suite_{f}.py").write_text("\n".join(lines), encoding="utf-8")
    if fixture:
        from toolscore_pytest.store import Snapshot, SnapshotStore

        store = SnapshotStore(root / ".toolscore" / "snapshots")
        for f in range(FILES):
            for i in range(f * per_file, min(tests, (f + 1) * per_file)):
                store.save(Snapshot(name=f"test_suite_{f}.py::test_case_{i}", calls=tuple(calls_for(i)),
                                    approved=True))


def run(root: Path) -> tuple[float, float, str]:
    """One pytest run of ``root``: (wall s, child CPU s, last output line)."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "TOOLSCORE_RECORD", "TOOLSCORE_RECORD_UPDATE")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=900)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise SystemExit(f"pytest failed in {root}:\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}")
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    return wall, cpu, " | ".join(lines[-2:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="toolscore-bench-snapshots-") as tmp:
        plain, snap = Path(tmp) / "plain", Path(tmp) / "snapshots"
        make_suite(plain, args.tests, fixture=False)
        make_suite(snap, args.tests, fixture=True)
        best: dict[str, tuple[float, float]] = {}
        for _ in range(args.repeat):
            for label, root in (("plain", plain), ("snapshots", snap)):
                wall, cpu, tail = run(root)
                print(f"{label:>9}: wall {wall:6.2f} s  cpu {cpu:6.2f} s   {tail}", flush=True)
                old = best.get(label)
                best[label] = (min(wall, old[0]), min(cpu, old[1])) if old else (wall, cpu)
        wall_added = best["snapshots"][0] - best["plain"][0]
        cpu_added = best["snapshots"][1] - best["plain"][1]
        load = os.getloadavg()[0]
        print(f"\n{args.tests} approved snapshot replays add {wall_added:.2f} s wall, {cpu_added:.2f} s CPU "
              f"(best of {args.repeat}; load average {load:.1f}); goal: under 2 s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
