"""``regrade`` and ``toolscore regrade`` on rows written by real scripted studies.

The rows come from the offline example (12 runs on the bundled sample server) and from two
small studies against a misbehaving server: one whose tool call times out (its outcome is
unknown) and one whose server never starts (no evaluation). The new specs are the offline
example's file with one change each, written as JSON next to the rows.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from toolscore_agent import load_agent_spec, regrade, run_study
from toolscore_agent.outcome import grade_run
from toolscore_core import InputError, RunRow, read_runs

ROOT = Path(__file__).resolve().parents[2]
OFFLINE = ROOT / "examples" / "agent_harness" / "offline.yaml"
MISBEHAVING = ROOT / "tests" / "mcp" / "servers" / "misbehaving_server.py"
CAREFUL_CLEANUP = {"clean-up::careful::1", "clean-up::careful::2", "clean-up::careful::3"}
SLOPPY_SAVE = {"save-a-note::sloppy::1", "save-a-note::sloppy::2", "save-a-note::sloppy::3"}


def toolscore(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "100"}
    env.pop("TOOLSCORE_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "toolscore_core.cli", *args], capture_output=True, text=True,
                          env=env, timeout=120)


def offline_spec() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(OFFLINE.read_text(encoding="utf-8"))
    return data


def write_spec(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def task_of(data: dict[str, Any], task_id: str) -> dict[str, Any]:
    task: dict[str, Any] = next(t for t in data["tasks"] if t["id"] == task_id)
    return task


def rows(path: Path) -> dict[str, RunRow]:
    return {row.cell_id: row for row in read_runs(path)}


@pytest.fixture(scope="module")
def offline_rows(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The offline example's 12 real rows: careful passes 6, sloppy fails 6."""
    out = tmp_path_factory.mktemp("offline") / "runs.jsonl"
    run_study(load_agent_spec(OFFLINE), output=out)
    assert sum(1 for _ in read_runs(out)) == 12
    return out


def misbehaving_spec(path: Path, mode: str, **task: Any) -> Path:
    data = {"spec_version": 1, "name": f"misbehaving-{mode}",
            "server": {"command": [sys.executable, str(MISBEHAVING), mode], "timeout": 2},
            "provider": "scripted", "arms": [{"id": "a"}], "repetitions": 1,
            "tasks": [{"id": "wait-task", "prompt": "Wait a while, then say so.",
                       "expected": [{"tool": "wait"}],
                       "script": [{"calls": [{"tool": "wait", "args": {"seconds": 8}}]},
                                  {"text": "Waited as asked."}], **task}]}
    return write_spec(path, data)


@pytest.fixture(scope="module")
def timed_out_rows(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """One real run whose only (required) call timed out after 2 s: its outcome is unknown."""
    base = tmp_path_factory.mktemp("slow")
    spec = misbehaving_spec(base / "slow.json", "slow")
    out = base / "runs.jsonl"
    run_study(load_agent_spec(spec), output=out)
    (row,) = read_runs(out)
    assert row.status == "completed" and row.calls[0].is_error is None
    return out, spec


# --- the same spec changes nothing ---------------------------------------------------------------


def test_the_same_spec_changes_nothing_and_leaves_the_input_alone(offline_rows: Path, tmp_path: Path) -> None:
    before = offline_rows.read_bytes()
    out = tmp_path / "regraded.jsonl"
    result = regrade(offline_rows, OFFLINE, output=out)
    assert offline_rows.read_bytes() == before
    assert (result.rows, result.regraded, result.changes, result.missing_tasks) == (12, 12, (), {})
    assert result.before == result.after == {"pass": 6, "fail": 6}
    old, new = rows(offline_rows), rows(out)
    assert list(new) == list(old)  # every row, in the order read
    for cell, row in new.items():
        assert (row.outcome, row.evaluation) == (old[cell].outcome, old[cell].evaluation), cell
        assert row.calls == old[cell].calls and row.final_answer == old[cell].final_answer
        assert row.extra["regrade"] == {"spec": "notes-offline", "previous_outcome": old[cell].outcome}


def test_the_harness_rows_carry_tri_state_checks(offline_rows: Path) -> None:
    old = rows(offline_rows)
    assert old["clean-up::careful::1"].evaluation["checks"] == {  # type: ignore[index]
        "completed": True, "min_score": True, "honest": True}
    assert old["clean-up::sloppy::1"].evaluation["checks"]["honest"] is False  # type: ignore[index]
    assert old["save-a-note::sloppy::1"].evaluation["checks"] == {  # type: ignore[index]
        "completed": True, "min_score": False, "required_calls": True, "honest": True}


# --- stricter and looser specs ---------------------------------------------------------------------


def test_a_new_forbidden_rule_fails_the_runs_that_asked_for_it(offline_rows: Path, tmp_path: Path) -> None:
    data = offline_spec()
    task_of(data, "clean-up")["forbidden"] = [{"tool": "delete_note", "reason": "never even ask"}]
    result = regrade(offline_rows, write_spec(tmp_path / "v2.json", data))
    assert {c.cell_id for c in result.changes} == CAREFUL_CLEANUP
    assert {(c.old, c.new) for c in result.changes} == {("pass", "fail")}
    assert all("forbidden call(s) requested: delete_note" in " ".join(c.reasons) for c in result.changes)
    assert result.after == {"pass": 3, "fail": 9} and result.output is None


def test_min_score_lowered_then_raised_moves_exactly_the_runs_near_the_bar(offline_rows: Path,
                                                                          tmp_path: Path) -> None:
    data = offline_spec()
    task_of(data, "save-a-note")["min_score"] = 0.8  # sloppy's wrong title scores 85 %
    lenient = tmp_path / "lenient.jsonl"
    result = regrade(offline_rows, write_spec(tmp_path / "v2.json", data), output=lenient)
    assert {c.cell_id for c in result.changes} == SLOPPY_SAVE
    assert {(c.old, c.new) for c in result.changes} == {("fail", "pass")}
    assert all(c.reasons == () for c in result.changes)
    assert rows(lenient)["save-a-note::sloppy::1"].evaluation["checks"]["min_score"] is True  # type: ignore[index]

    task_of(data, "save-a-note")["min_score"] = 0.9  # raised back: the offline example's own bar
    strict = regrade(lenient, write_spec(tmp_path / "v3.json", data), output=tmp_path / "strict.jsonl")
    assert {c.cell_id for c in strict.changes} == SLOPPY_SAVE
    assert {(c.old, c.new) for c in strict.changes} == {("pass", "fail")}
    assert all("below min_score 90.0%" in c.reasons[0] for c in strict.changes)
    assert strict.after == {"pass": 6, "fail": 6}


def test_a_task_missing_from_the_new_spec_is_reported_and_kept(offline_rows: Path, tmp_path: Path) -> None:
    data = offline_spec()
    data["tasks"] = [task_of(data, "save-a-note")]
    out = tmp_path / "regraded.jsonl"
    result = regrade(offline_rows, write_spec(tmp_path / "v2.json", data), output=out)
    assert result.missing_tasks == {"clean-up": 6} and result.missing_rows == 6
    assert (result.rows, result.regraded) == (12, 6)
    old, new = rows(offline_rows), rows(out)
    assert len(new) == 12
    for cell in (c for c in old if c.startswith("clean-up::")):
        assert new[cell].to_dict() == old[cell].to_dict()  # written unchanged
    assert "regrade" in new["save-a-note::careful::1"].extra


# --- unknown stays unknown -----------------------------------------------------------------------------


def test_a_call_without_a_recorded_result_stays_unknown(timed_out_rows: tuple[Path, Path], tmp_path: Path) -> None:
    runs, spec = timed_out_rows
    (row,) = read_runs(runs)
    assert row.outcome == "fail"
    evaluation = row.evaluation or {}
    assert evaluation["evidence"][0]["state"] == "unknown"
    assert evaluation["checks"]["required_calls"] is None and evaluation["checks"]["honest"] is None

    looser = json.loads(spec.read_text(encoding="utf-8"))
    looser["tasks"][0]["min_score"] = 0.1  # a spec that asks less of the score
    out = tmp_path / "regraded.jsonl"
    result = regrade(runs, write_spec(tmp_path / "v2.json", looser), output=out)
    (new,) = read_runs(out)
    assert result.changes == () and new.outcome == "fail" and not new.passed
    checks = (new.evaluation or {})["checks"]
    assert checks["min_score"] is True and checks["required_calls"] is None and checks["honest"] is None
    assert (new.evaluation or {})["evidence"][0]["state"] == "unknown"


def test_grade_run_reads_a_row_like_the_run_that_wrote_it(timed_out_rows: tuple[Path, Path]) -> None:
    runs, spec = timed_out_rows
    (row,) = read_runs(runs)
    grade = grade_run(row, load_agent_spec(spec).tasks[0])
    assert grade.outcome == row.outcome and grade.evaluation == row.evaluation


def test_a_run_the_budget_stopped_stays_error_under_any_spec(tmp_path: Path) -> None:
    spec = {"spec_version": 1, "name": "tight", "server": {"command": [sys.executable, "-m", "toolscore_mcp.sample_server"]},
            "provider": "scripted", "arms": [{"id": "a", "pricing": [1000, 1000]}], "repetitions": 1,
            "budget": {"max_usd": 0.001},
            "tasks": [{"id": "t", "prompt": "List the notes.", "expected": [{"tool": "list_notes"}],
                       "script": [{"calls": [{"tool": "list_notes", "args": {}}]}, {"text": "Listed."}]}]}
    runs = tmp_path / "runs.jsonl"
    run_study(load_agent_spec(write_spec(tmp_path / "tight.json", spec)), output=runs)
    (row,) = read_runs(runs)
    assert (row.status, row.outcome) == ("budget_stopped", "error")
    spec["tasks"][0]["expected"] = []  # nothing to hold the run against: unknown, were it graded
    spec["tasks"][0]["forbidden"] = [{"tool": "delete_note"}]
    result = regrade(runs, write_spec(tmp_path / "v2.json", spec), output=tmp_path / "regraded.jsonl")
    (new,) = read_runs(tmp_path / "regraded.jsonl")
    assert result.changes == () and (new.status, new.outcome) == ("budget_stopped", "error")
    assert "the budget stopped the run" in (new.evaluation or {})["outcome_reasons"][0]


# --- files and the command ---------------------------------------------------------------------------


def test_the_output_may_not_be_the_input(offline_rows: Path) -> None:
    before = offline_rows.read_bytes()
    with pytest.raises(InputError, match="never overwrites"):
        regrade(offline_rows, OFFLINE, output=offline_rows)
    assert offline_rows.read_bytes() == before


def test_an_existing_file_that_is_not_a_runs_file_is_not_replaced(offline_rows: Path, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n", encoding="utf-8")
    with pytest.raises(InputError, match="not a runs file"):
        regrade(offline_rows, OFFLINE, output=notes)
    assert notes.read_text(encoding="utf-8") == "my notes\n"
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]  # no temporary file left


def test_cli_prints_the_changed_runs_and_writes_the_rows(offline_rows: Path, tmp_path: Path) -> None:
    data = offline_spec()
    task_of(data, "clean-up")["forbidden"] = [{"tool": "delete_note"}]
    data["tasks"] = [task_of(data, "clean-up")]
    out = tmp_path / "regraded.jsonl"
    proc = toolscore("regrade", str(offline_rows), "--spec", str(write_spec(tmp_path / "v2.json", data)),
                     "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "regrade with spec notes-offline: 12 row(s), 6 regraded, 3 changed outcome"
    for cell in CAREFUL_CLEANUP:
        assert any(line.strip().startswith(f"{cell}: pass -> fail (forbidden call(s) requested: delete_note")
                   for line in lines), proc.stdout
    assert "  task 'save-a-note' is not in the new spec: 6 row(s) kept unchanged" in lines
    assert "outcomes after:  pass 3, fail 9, error 0, unknown 0" in lines
    assert len(list(read_runs(out))) == 12


def test_cli_json(offline_rows: Path) -> None:
    proc = toolscore("regrade", str(offline_rows), "--spec", str(OFFLINE), "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert (report["rows"], report["changed"], report["output"]) == (12, 0, None)
    assert report["outcomes_before"] == report["outcomes_after"] == {"pass": 6, "fail": 6}


@pytest.mark.parametrize("case", ["missing runs", "bad spec", "same file", "no such directory"])
def test_cli_bad_input_is_exit_2_without_a_traceback(case: str, offline_rows: Path, tmp_path: Path) -> None:
    runs, spec, extra = str(offline_rows), str(OFFLINE), []
    if case == "missing runs":
        runs, expected = str(tmp_path / "nope.jsonl"), "does not exist"
    elif case == "bad spec":
        data = copy.deepcopy(offline_spec())
        task_of(data, "clean-up")["min_score"] = "high"
        spec, expected = str(write_spec(tmp_path / "bad.json", data)), "min_score"
    elif case == "same file":
        extra, expected = ["-o", runs], "never overwrites"
    else:
        extra, expected = ["-o", str(tmp_path / "nodir" / "x.jsonl")], "directory does not exist"
    proc = toolscore("regrade", runs, "--spec", spec, *extra)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert expected in proc.stderr and "Traceback" not in proc.stderr


def test_regrade_is_the_function_whatever_was_imported_first() -> None:
    code = ("import toolscore_agent.regrade_cmd, toolscore_agent.regrading\n"
            "from toolscore_agent import regrade\nfrom toolscore.mcp.agent import regrade as facade\n"
            "print(callable(regrade), regrade is facade, regrade.__module__)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["True", "True", "toolscore_agent.regrading"], proc.stderr
