"""CLI start-up: wall time and imported-module count of `toolscore --help` and `toolscore plugins`.

Run: .venv/bin/python bench/bench_cli_startup.py [--runs N] [--compare-venv PATH]
Each command runs N times in a fresh process; we report the median and the minimum wall time
(the minimum is the least disturbed by other load on the machine) and the number of modules
in sys.modules when the command finishes. --compare-venv times another install's
`toolscore --help` (e.g. a venv with the published tool-scorer) the same way.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

COUNT_MODULES = (
    "import sys, io, contextlib\n"
    "from toolscore_core.cli import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    try: main(sys.argv[1:])\n"
    "    except SystemExit: pass\n"
    "print(len(sys.modules))\n"
)


def time_command(cmd: list[str], runs: int) -> tuple[float, float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000, min(samples) * 1000


def module_count(python: str, args: list[str]) -> int:
    out = subprocess.run([python, "-c", COUNT_MODULES, *args], capture_output=True, text=True, check=True)
    return int(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--compare-venv", type=Path)
    opts = parser.parse_args()
    venv_bin = Path(sys.executable).parent
    toolscore = str(venv_bin / "toolscore")
    rows = []
    for label, args in (("toolscore --help", ["--help"]), ("toolscore plugins", ["plugins"])):
        median, best = time_command([toolscore, *args], opts.runs)
        rows.append((label, median, best, module_count(sys.executable, args)))
    baseline = time_command([sys.executable, "-c", "pass"], opts.runs)
    rows.append(("python -c pass (floor)", baseline[0], baseline[1], None))
    if opts.compare_venv:
        other = str(opts.compare_venv / "bin" / "toolscore")
        median, best = time_command([other, "--help"], opts.runs)
        rows.append((f"{opts.compare_venv.name}: toolscore --help", median, best, None))
    print(f"{'command':<40} {'median ms':>10} {'min ms':>8} {'modules':>8}")
    for label, median, best, modules in rows:
        print(f"{label:<40} {median:>10.1f} {best:>8.1f} {modules if modules is not None else '-':>8}")
    print(f"(runs={opts.runs}, cpus={os.cpu_count()}, python={sys.version.split()[0]})")


if __name__ == "__main__":
    main()
