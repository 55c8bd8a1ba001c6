"""``toolscore agent run`` through the real command line: output, exit codes, dry run, resume
after SIGKILL, the budget, and the report's wording."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from toolscore_agent import report
from toolscore_agent.study import StudyResult, plan_study
from toolscore_core import RunCall, RunRow, read_runs

SAMPLE = [sys.executable, "-m", "toolscore_mcp.sample_server"]


def toolscore(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "100"}
    env.pop("TOOLSCORE_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "toolscore_core.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=240)


def write_spec(path: Path, **changes: Any) -> Path:
    """A scripted study on the sample server, as a JSON spec file."""
    spec: dict[str, Any] = {
        "spec_version": 1, "name": "cli-study",
        "server": {"command": SAMPLE},
        "provider": "scripted", "model": "scripted",
        "arms": [{"id": "one"}, {"id": "two"}],
        "repetitions": 2, "seed": 3,
        "limits": {"max_turns": 4, "max_calls": 6},
        "tasks": [
            {"id": "note", "prompt": "Save a note titled groceries.",
             "expected": [{"tool": "create_note"}],
             "script": [{"calls": [{"tool": "create_note", "args": {"title": "groceries"}}]},
                        {"text": "Saved the note groceries."}]},
            {"id": "list", "prompt": "List the notes.",
             "expected": [{"tool": "list_notes"}],
             "script": [{"calls": [{"tool": "list_notes", "args": {}}]}, {"text": "There are no notes."}]},
        ],
    }
    spec.update(changes)
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def rows_of(path: Path) -> list[RunRow]:
    return list(read_runs(path))


# --- the report's wording (no run needed) ------------------------------------------------------


def _plan() -> Any:
    sys.path.insert(0, str(Path(__file__).parent))
    from test_study import spec_of

    return plan_study(spec_of())


def test_the_header_is_the_documented_one() -> None:
    assert report.header_lines(_plan()) == [
        "notes-offline: 2 task(s) x 2 arm(s) x 3 repetition(s) = 12 run(s), seed 7",
        "  arm careful: scripted scripted, price $0.0/0.0 per 1M (scripted (free))",
        "  arm sloppy: scripted scripted, price $0.0/0.0 per 1M (scripted (free))",
        "  worst case $0.0000 (max_turns 6, budget max_usd none)",
    ]


def test_a_run_line_counts_calls_and_denials_and_shows_the_cost() -> None:
    denied = RunCall(tool="delete_note", denied=True, deny_reason="this study never deletes")
    row = RunRow(task_id="clean-up", arm_id="careful", repetition=2, status="completed", outcome="pass", order=1,
                 calls=(RunCall(tool="list_notes", is_error=False), denied), cost_usd=0.0)
    assert report.run_line(row) == "    1. clean-up::careful::2: pass (completed, 2 call(s), 1 denied, $0.0000)"
    failed = RunRow(task_id="t", arm_id="a", repetition=1, status="error", outcome="error", order=12,
                    error="provider error (RateLimited): slow down\x1b[2J\nnow")
    assert report.run_line(failed) == ("    12. t::a::1: error (error, 0 call(s), cost unknown): "
                                       "provider error (RateLimited): slow down\\x1b[2J\\nnow")


def test_the_outcomes_table_is_the_documented_one() -> None:
    from rich.console import Console

    plan = _plan()
    rows = tuple(RunRow(task_id=c.task.id, arm_id=c.arm.id, repetition=c.repetition, status="completed",
                        outcome="pass" if c.arm.id == "careful" else "fail") for c in plan.cells)
    buffer = io.StringIO()
    Console(file=buffer, width=100).print(report.outcomes_table(StudyResult(plan=plan, rows=rows, skipped=0,
                                                                           spent_usd=0.0)))
    assert [line.rstrip() for line in buffer.getvalue().splitlines()] == [
        "        Outcomes (this invocation)",
        "┏━━━━━━━━━┳━━━━━━┳━━━━━━┳━━━━━━━┳━━━━━━━━━┓",
        "┃ Arm     ┃ pass ┃ fail ┃ error ┃ unknown ┃",
        "┡━━━━━━━━━╇━━━━━━╇━━━━━━╇━━━━━━━╇━━━━━━━━━┩",
        "│ careful │    6 │    0 │     0 │       0 │",
        "│ sloppy  │    0 │    6 │     0 │       0 │",
        "└─────────┴──────┴──────┴───────┴─────────┘",
    ]


def test_prices_and_money_read_as_the_docs_write_them() -> None:
    from toolscore_core import Price

    assert report.price_text(Price(0.1, 0.5, "list price")) == "price $0.1/0.5 per 1M (list price)"
    assert report.price_text(None).startswith("price unknown")
    assert report.money(None) == "unknown" and report.money(float("inf")) == "unbounded"
    assert report.money(0.73629) == "$0.7363"


def test_on_a_terminal_the_bar_shows_runs_done_and_spend_against_the_cap() -> None:
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=100)
    with report.ProgressBar(console, 3, 2.0) as bar:
        for n in range(1, 4):
            bar.advance(f"    {n}. t::a::{n}: pass (completed, 1 call(s), $0.1000)", 0.1 * n)
    text = buffer.getvalue()
    assert all(f"    {n}. t::a::{n}: pass" in text for n in range(1, 4))
    assert "3/3" in text and "spent $0.3000 of $2.0000" in text and "ETA" in text


# --- the command ---------------------------------------------------------------------------------


def test_help_teaches_with_examples() -> None:
    out = toolscore("agent", "--help")
    assert out.returncode == 0, out.stderr
    assert "toolscore agent run study.yaml --dry-run" in out.stdout
    assert "--workers 4" in out.stdout and "offline.yaml" in out.stdout
    run_help = toolscore("agent", "run", "--help")
    for option in ("--dry-run", "--allow-unknown-price", "--workers", "--only-task", "--only-arm", "--output"):
        assert option in run_help.stdout


def test_a_study_prints_its_plan_runs_and_table_and_exits_0_when_all_pass(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "study.json")
    out = toolscore("agent", "run", str(spec), "-o", str(tmp_path / "runs.jsonl"))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "cli-study: 2 task(s) x 2 arm(s) x 2 repetition(s) = 8 run(s), seed 3"
    assert lines[3] == "  worst case $0.0000 (max_turns 4, budget max_usd none)"
    runs = [line for line in lines if re.match(r"    \d+\. ", line)]
    assert len(runs) == 8 and all(": pass (completed, 1 call(s), $0.0000)" in line for line in runs)
    assert [line.split(".")[0].strip() for line in runs] == [str(n) for n in range(1, 9)]
    assert "Outcomes (this invocation)" in out.stdout
    assert "│ one │    4 │    0 │     0 │       0 │" in out.stdout
    assert len(rows_of(tmp_path / "runs.jsonl")) == 8
    assert "\x1b" not in out.stdout  # not a terminal: plain lines, no bar, no colour


def test_a_failed_run_exits_1(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "study.json", repetitions=1)
    data = json.loads(spec.read_text())
    data["tasks"][1]["script"] = [{"text": "I did not look."}]  # list_notes was expected
    spec.write_text(json.dumps(data))
    out = toolscore("agent", "run", str(spec), "-o", str(tmp_path / "runs.jsonl"))
    assert out.returncode == 1, out.stderr
    assert "list::one::1: fail (completed, 0 call(s), $0.0000)" in out.stdout


def test_dry_run_lists_cells_and_calls_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    server = [sys.executable, "-c", f"open({str(marker)!r}, 'w').write('x')"]
    spec = write_spec(tmp_path / "study.json", server={"command": server})
    out = toolscore("agent", "run", str(spec), "--dry-run", "-o", str(tmp_path / "runs.jsonl"))
    assert out.returncode == 0, out.stderr
    assert sum(": would run" in line for line in out.stdout.splitlines()) == 8
    assert "worst case $0.0000" in out.stdout and "no server was started" in out.stdout
    assert not marker.exists() and not (tmp_path / "runs.jsonl").exists()


def test_only_task_then_the_rest_resumes_and_says_what_it_skipped(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "study.json")
    runs = tmp_path / "runs.jsonl"
    first = toolscore("agent", "run", str(spec), "-o", str(runs), "--only-task", "note")
    assert first.returncode == 0, first.stderr
    assert "  4 of 8 run(s) selected" in first.stdout
    second = toolscore("agent", "run", str(spec), "-o", str(runs))
    assert second.returncode == 0, second.stderr
    assert f"  4 run(s) already in {runs}, skipped" in second.stdout
    assert sum(bool(re.match(r"    \d+\. ", line)) for line in second.stdout.splitlines()) == 4
    ids = [r.cell_id for r in rows_of(runs)]
    assert len(ids) == len(set(ids)) == 8


def test_a_bad_spec_exits_2_with_one_paragraph(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "study.json", repetitions="three")
    out = toolscore("agent", "run", str(spec), "-o", str(tmp_path / "runs.jsonl"))
    assert out.returncode == 2
    assert "Traceback" not in out.stderr and "study.json" in out.stderr and "repetitions" in out.stderr
    missing = toolscore("agent", "run", str(tmp_path / "nope.yaml"))
    assert missing.returncode == 2 and "Traceback" not in missing.stderr


def test_an_unknown_price_is_refused_with_exit_2_unless_allowed(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "study.json", arms=[{"id": "one", "provider": "openai", "model": "nobody-prices-this"}])
    out = toolscore("agent", "run", str(spec), "--dry-run")
    assert out.returncode == 2 and "arm 'one'" in out.stderr and "--allow-unknown-price" in out.stderr
    allowed = toolscore("agent", "run", str(spec), "--dry-run", "--allow-unknown-price")
    assert allowed.returncode == 0, allowed.stderr
    assert "price unknown" in allowed.stdout and "worst case unknown" in allowed.stdout


def _priced_spec(path: Path, max_usd: float, repetitions: int) -> Path:
    return write_spec(path, model="scripted-priced", repetitions=repetitions, max_output_tokens=50,
                      pricing={"scripted-priced": {"input_per_million": 1000.0, "output_per_million": 1000.0}},
                      budget={"max_usd": max_usd})


def test_the_budget_stops_the_study_with_exit_3_before_crossing_max_usd(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    out = toolscore("agent", "run", str(_priced_spec(tmp_path / "study.json", 5.0, 4)), "-o", str(runs))
    assert out.returncode == 3, out.stderr
    assert "budget stopped the study" in out.stdout
    rows = rows_of(runs)
    assert rows[-1].status == "budget_stopped" and 1 < len(rows) < 16
    assert sum(r.cost_usd or 0.0 for r in rows) <= 5.0


def test_four_workers_never_spend_more_than_max_usd(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    out = toolscore("agent", "run", str(_priced_spec(tmp_path / "study.json", 9.0, 6)), "-o", str(runs),
                    "--workers", "4")
    assert out.returncode == 3, out.stderr
    rows = rows_of(runs)
    assert 0 < sum(r.cost_usd or 0.0 for r in rows) <= 9.0
    assert len({r.cell_id for r in rows}) == len(rows) < 24


# --- SIGKILL mid-study, then resume ----------------------------------------------------------------


def _line_count(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


@pytest.mark.parametrize("kill_after", [1, 4, 9])
def test_a_study_killed_with_sigkill_resumes_without_losing_or_duplicating_a_row(
        tmp_path: Path, kill_after: int) -> None:
    spec = write_spec(tmp_path / "study.json", repetitions=4)  # 16 runs
    runs = tmp_path / "runs.jsonl"
    argv = [sys.executable, "-m", "toolscore_core.cli", "agent", "run", str(spec), "-o", str(runs)]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while _line_count(runs) < kill_after and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
    survived = [r.cell_id for r in rows_of(runs)]  # a torn last line is skipped by the reader
    assert kill_after <= len(survived) < 16
    again = toolscore("agent", "run", str(spec), "-o", str(runs))
    assert again.returncode == 0, again.stderr
    assert f"{len(survived)} run(s) already in {runs}, skipped" in again.stdout
    ids = [r.cell_id for r in rows_of(runs)]
    assert ids[: len(survived)] == survived  # nothing written before the kill was lost
    assert len(ids) == len(set(ids)) == 16  # and no cell was written twice
