"""Wall time of ``toolscore mcp test`` as a user runs it (the real CLI in a subprocess).

Targets: the bundled sample server, server-everything over stdio (offline: its gzip tool
may only fetch from 127.0.0.1), and our faulty server with a tool that never answers (the
goal: such a tool costs at most ``--max-timeouts`` x ``--timeout``, never the whole run).
Each at concurrency 1 and 4, median of ``--repeats`` runs. Writes the "## MCP scorecard"
section of bench/RESULTS.md (``--no-write`` to only print it).

    .venv/bin/python bench/bench_mcp_test.py [--repeats 3] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "RESULTS.md"
SERVERS = Path(os.environ.get("TOOLSCORE_MCP_SERVERS") or REPO / ".cache" / "mcp-servers")
EVERYTHING = SERVERS / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
FAULTY = REPO / "tests" / "mcp" / "servers" / "scorecard_faulty_server.py"
SECTION = "## MCP scorecard"


def targets() -> list[tuple[str, str, list[str]]]:
    """(label, TARGET, extra options)."""
    found = [("sample server (`toolscore demo`'s)",
              shlex.join([sys.executable, "-m", "toolscore_mcp.sample_server"]), ["--allow-destructive"])]
    if EVERYTHING.is_file():
        found.append(("server-everything, stdio", shlex.join(["node", str(EVERYTHING), "stdio"]),
                      ["--timeout", "2", "--max-timeouts", "1"]))
    else:
        print(f"server-everything not installed at {EVERYTHING}: run `make servers`", file=sys.stderr)
    found.append(("faulty server: a tool that never answers + a good one",
                  shlex.join([sys.executable, str(FAULTY), "--tools", "ok_echo,hang"]),
                  ["--timeout", "1", "--max-timeouts", "2"]))
    return found


def run_once(target: str, extra: list[str], concurrency: int) -> tuple[float, dict[str, object]]:
    env = {**os.environ, "GZIP_ALLOWED_DOMAINS": "127.0.0.1"}
    env.pop("GITHUB_STEP_SUMMARY", None)
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "toolscore_core.cli", "mcp", "test", target, "--report", "json",
                           "--concurrency", str(concurrency), *extra],
                          capture_output=True, text=True, env=env, timeout=600, encoding="utf-8")
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"mcp test failed ({proc.returncode}): {proc.stderr[-500:]}")
    return elapsed, json.loads(proc.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    rows = []
    for label, target, extra in targets():
        for concurrency in (1, 4):
            times = []
            card: dict[str, object] = {}
            for _ in range(args.repeats):
                elapsed, card = run_once(target, extra, concurrency)
                times.append(elapsed)
            results = card["results"]
            assert isinstance(results, list)
            rows.append((label, concurrency, statistics.median(times), min(times), max(times), len(results),
                         card["grade"], round(float(card["duration"]) * 1000)))  # type: ignore[arg-type]
            print(rows[-1], file=sys.stderr)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        SECTION, "",
        f"Script: `bench/bench_mcp_test.py --repeats {args.repeats}`, "
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, load average {load:.1f} on 2 cores (shared with "
        "the other jobs, so absolute times are inflated; compare rows with each other). Wall time of the whole "
        "CLI run: Python start-up, plugin loading, server start, handshake, lint, the scenarios (6 per "
        "tool by default) and the report.",
        "",
        "| target | concurrency | wall (median) | min | max | scenarios | grade | scenario phase |",
        "|---|---:|---:|---:|---:|---:|:---:|---:|",
    ]
    for label, concurrency, median, low, high, count, grade, phase in rows:
        lines.append(f"| {label} | {concurrency} | {median:.2f} s | {low:.2f} s | {high:.2f} s | {count} | {grade} "
                     f"| {phase} ms |")
    lines += [
        "",
        "- \"scenario phase\" is the runner's own duration (scenarios + annotation checks), from the JSON report.",
        "- server-everything's `trigger-long-running-operation` sleeps about 10 s per call; with `--timeout 2 "
        "--max-timeouts 1` it costs one 2 s timeout and is then skipped with a finding, which is most of that row.",
        "- The faulty server's `hang` tool never answers: with `--timeout 1 --max-timeouts 2` it costs about 2 s "
        "whatever the number of its scenarios (at concurrency 4 its two hung calls wait side by side, so about "
        "1 s), and the run goes on; tool-scorer 1.10.0 hangs forever on such a tool.",
    ]
    section = "\n".join(lines) + "\n"
    print(section)
    if args.no_write:
        return
    text = RESULTS.read_text(encoding="utf-8")
    pattern = re.compile(rf"^{re.escape(SECTION)}\n.*?(?=^## |\Z)", re.MULTILINE | re.DOTALL)
    if pattern.search(text):
        text = pattern.sub(lambda _: section + "\n", text)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    RESULTS.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
