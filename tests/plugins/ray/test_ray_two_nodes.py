"""Two Ray nodes (``ray start --head`` and a second ``ray start --address``), one namespace.

One shell script runs inside one network namespace (conftest.py): it starts the head and
the second node, each with one CPU and its own temp dir, points the real console script at
the head with ``--ray-address`` for a bulk run and for a priced study, then counts, per
node, the Ray workers whose log shows one of our tasks, so "the work ran on both nodes" is
read from Ray's own files. Every Ray process belongs to one of the two ``ray start``
process groups, which the script kills on exit (``ray stop`` would stop every Ray on the
machine).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolscore_core import read_runs

pytestmark = [pytest.mark.ray, pytest.mark.slow]

BIN = Path(sys.executable).parent
GOLD = [{"tool": "search", "args": {"q": "flights"}}]

SCENARIO = """\
set -u
export RAY_AUTH_MODE=disabled RAY_USAGE_STATS_ENABLED=0
T1=$(mktemp -d /tmp/rtXXXXXX); T2=$(mktemp -d /tmp/rtXXXXXX); H=""; N=""
cleanup() {
  [ -n "$H" ] && kill -9 -- "-$H" 2>/dev/null
  [ -n "$N" ] && kill -9 -- "-$N" 2>/dev/null
  sleep 0.5; rm -rf "$T1" "$T2"
}
trap cleanup EXIT
common="--num-cpus=1 --object-store-memory=100000000 --disable-usage-stats"
setsid "$BIN/ray" start --head --port=6390 --include-dashboard=false $common --temp-dir="$T1" > head.log 2>&1 &
H=$!; wait $H || { echo "head failed"; cat head.log; exit 9; }
setsid "$BIN/ray" start --address=127.0.0.1:6390 $common --temp-dir="$T2" > node.log 2>&1 &
N=$!; wait $N || { echo "node failed"; cat node.log; exit 9; }
"$BIN/toolscore" eval gold.json --traces 'traces/*.json' -o ray.jsonl --ray-address 127.0.0.1:6390 \
  > eval.out 2> eval.err
echo "eval=$?"
"$BIN/toolscore" agent run priced.yaml -o runs.jsonl --ray-address 127.0.0.1:6390 > study.out 2> study.err
echo "study=$?"
echo "head_workers=$(grep -l ':task_name:_run_item' "$T1"/session_latest/logs/worker-*.out 2>/dev/null | wc -l)"
echo "node_workers=$(grep -l ':task_name:_run_item' "$T2"/session_latest/logs/worker-*.out 2>/dev/null | wc -l)"
"""

def _corpus(root: Path) -> None:
    (root / "gold.json").write_text(json.dumps(GOLD), encoding="utf-8")
    traces = root / "traces"
    traces.mkdir()
    for i in range(16):  # a shard takes long enough that the second CPU (the other node) gets work
        calls = [{"tool": "search", "args": {"q": "flights" if i % 2 else "hotels", "page": n}, "result": "ok"}
                 for n in range(1500)]
        (traces / f"t{i:02d}.json").write_text(json.dumps(calls), encoding="utf-8")


def test_bulk_and_a_priced_study_on_two_nodes(tmp_path: Path, in_netns: Any, write_priced: Any) -> None:
    _corpus(tmp_path)
    write_priced(tmp_path, 2.5)
    ran = in_netns(script=f"BIN={BIN} exec bash -c {_shell_word(SCENARIO)}", cwd=tmp_path, timeout=300)
    report = dict(re.findall(r"^(\w+)=(\d+)$", ran.stdout, flags=re.M))
    assert report.keys() >= {"eval", "study", "head_workers", "node_workers"}, ran.stdout + ran.stderr
    logs = "".join((tmp_path / name).read_text(encoding="utf-8", errors="replace")[-1500:]
                   for name in ("eval.err", "study.out", "study.err"))
    # bulk: every trace once, the same rows as the local executor's
    assert report["eval"] == "0", logs
    local = subprocess.run([str(BIN / "toolscore"), "eval", "gold.json", "--traces", "traces/*.json", "-o",
                            "local.jsonl"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert local.returncode == 0, local.stderr
    assert _rows(tmp_path / "ray.jsonl") == _rows(tmp_path / "local.jsonl")
    # the priced study: stopped by the one ledger actor with the two nodes' spend within the cap
    assert report["study"] == "3", logs
    rows = list(read_runs(tmp_path / "runs.jsonl"))
    assert len({r.cell_id for r in rows}) == len(rows) < 8
    study_out = (tmp_path / "study.out").read_text(encoding="utf-8")
    spent = float(re.search(r"^spent \$([0-9.]+)", study_out, flags=re.M).group(1))  # type: ignore[union-attr]
    assert 0 < sum(r.cost_usd or 0.0 for r in rows) <= spent <= 2.5 + 1e-9
    # both nodes ran our tasks (each node's own worker logs say so)
    assert int(report["head_workers"]) >= 1 and int(report["node_workers"]) >= 1, report
    assert "Traceback" not in logs


def _rows(path: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    by_path = {row["path"]: row for row in rows}
    assert len(by_path) == len(rows) == 16
    return by_path


def _shell_word(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"
