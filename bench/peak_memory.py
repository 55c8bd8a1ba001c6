"""The memory a command holds at its peak, as a user measuring it would see it: the main process's
peak resident size (VmHWM, what ``/usr/bin/time -v`` calls "Maximum resident set size"), and the
most memory the command's whole process tree held at one moment (the sum of each process's
proportional set size, PSS: pages shared by forked workers counted once between them).

Run: .venv/bin/python bench/peak_memory.py [--every 0.05] -- COMMAND [ARGS...]
e.g. .venv/bin/python bench/peak_memory.py -- .venv/bin/toolscore export --per-trace traces.jsonl -o out.jsonl

Why both: a bench that reports the growth of one process's peak (bench_export.py does, to take
the interpreter and its imports out) says nothing of the 25-30 MiB every Python process starts
with, nor of worker processes; a goal like "under 100 MB" is read by users off the whole
process, and by operators off the whole tree. The tree's figure is sampled (``--every``
seconds), so a peak shorter than that can be missed; the main process's is the kernel's own
high-water mark, read just before it exits (Linux /proc only).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time


def _status_kib(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as handle:
            return [int(child) for child in handle.read().split()]
    except OSError:
        return []


def _tree(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(_children(current))
    return found


def _pss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--every", type=float, default=0.05, help="seconds between samples of the tree")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    opts = parser.parse_args()
    command = opts.command[1:] if opts.command[:1] == ["--"] else opts.command
    if not command:
        parser.error("give the command to measure after --")
    started = time.perf_counter()
    process = subprocess.Popen(command)
    main_hwm = tree_pss = most_processes = 0
    at_peak: list[int] = []  # each process's PSS when the tree's was highest, the main process first
    while True:
        try:
            main_hwm = max(main_hwm, _status_kib(process.pid, "VmHWM"))
            pids = _tree(process.pid)
            most_processes = max(most_processes, len(pids))
            each = [_pss_kib(pid) for pid in pids]
            if sum(each) > tree_pss:
                tree_pss, at_peak = sum(each), each
        except OSError:
            pass  # it is exiting
        if process.poll() is not None:
            break
        time.sleep(opts.every)
    wall = time.perf_counter() - started
    print(f"exit {process.returncode} after {wall:.1f} s", file=sys.stderr)
    print(f"main process peak RSS {main_hwm / 1024:.1f} MiB ({main_hwm * 1024 / 1e6:.1f} MB); "
          f"whole tree's peak PSS {tree_pss / 1024:.1f} MiB ({tree_pss * 1024 / 1e6:.1f} MB) "
          f"over up to {most_processes} processes", file=sys.stderr)
    print("  at the tree's peak, PSS of each process (main first): "
          + ", ".join(f"{kib / 1024:.1f}" for kib in at_peak) + " MiB", file=sys.stderr)
    return process.returncode


if __name__ == "__main__":
    sys.exit(main())
