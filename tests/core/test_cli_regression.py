"""`toolscore eval --save-baseline` and `toolscore regression`: 0 pass, 1 regression, 2 error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

FLIGHTS = Path(__file__).parent / "fixtures" / "eval_flights"
GOLD = FLIGHTS / "gold.json"
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"


@pytest.fixture
def baseline(invoke: Any, tmp_path: Path) -> Path:
    path = tmp_path / "baseline.json"
    result = invoke("eval", str(GOLD), str(FLIGHTS / "trace_good.json"), "--save-baseline", str(path))
    assert result.exit_code == 0, result.output
    assert f"Saved baseline to {path} (score 100.0%)" in result.output
    return path


def test_baseline_file_is_versioned_and_complete(baseline: Path) -> None:
    data = json.loads(baseline.read_text(encoding="utf-8"))
    assert data["toolscore_baseline"] == 1
    assert data["score"] == 1.0
    assert data["grade"] == "A" and data["verdict"] == "PASS"
    assert set(data["metrics"]) == {"selection_accuracy", "argument_f1", "sequence_accuracy", "redundancy",
                                    "identical_rate", "required_call_recall"}
    assert data["counts"]["expected_calls"] == 2
    assert data["counts"]["actual_calls"] == 2
    assert data["counts"]["policy_violations"] == 0
    assert data["gold_file"] == str(GOLD)
    assert abs(sum(data["weights"].values()) - 1.0) < 1e-9


def test_same_run_is_no_regression(invoke: Any, baseline: Path) -> None:
    result = invoke("regression", str(baseline), str(FLIGHTS / "trace_good.json"), "--gold-file", str(GOLD))
    assert result.exit_code == 0, result.output
    assert "PASS no regression (score 100.0%, baseline 100.0%, tolerance 0.0 points)" in result.output
    assert "Baseline vs current" in result.output


def test_a_worse_run_is_a_regression(invoke: Any, baseline: Path) -> None:
    result = invoke("regression", str(baseline), str(FLIGHTS / "trace.json"), "--gold-file", str(GOLD))
    assert result.exit_code == 1, result.output
    assert "REGRESSION score fell 53.0 points (100.0% -> 47.0%)" in result.output
    assert "Traceback" not in result.output


def test_tolerance_allows_a_small_drop(invoke: Any, tmp_path: Path) -> None:
    trace = tmp_path / "trace.json"
    calls = json.loads((FLIGHTS / "trace_good.json").read_text(encoding="utf-8"))
    calls.append({"tool": "search_flights", "args": {"origin": "SFO", "destination": "NYC"}})  # one extra call
    trace.write_text(json.dumps(calls), encoding="utf-8")
    base = tmp_path / "b.json"
    assert invoke("eval", str(GOLD), str(FLIGHTS / "trace_good.json"), "--save-baseline", str(base)).exit_code == 0
    strict = invoke("regression", str(base), str(trace), "--gold-file", str(GOLD))
    assert strict.exit_code == 1, strict.output
    loose = invoke("regression", str(base), str(trace), "--gold-file", str(GOLD), "--tolerance", "0.5")
    assert loose.exit_code == 0, loose.output


def test_a_new_credential_is_a_regression_and_never_written(invoke: Any, tmp_path: Path, baseline: Path) -> None:
    trace = tmp_path / "leaky.json"
    calls = json.loads((FLIGHTS / "trace_good.json").read_text(encoding="utf-8"))
    calls[1]["args"]["note"] = f"use {AWS_KEY}"
    trace.write_text(json.dumps(calls), encoding="utf-8")
    result = invoke("regression", str(baseline), str(trace), "--gold-file", str(GOLD), "--tolerance", "1")
    assert result.exit_code == 1, result.output
    assert "REGRESSION credentials rose from 0 to 1" in result.output
    saved = tmp_path / "leaky-baseline.json"
    invoke("eval", str(GOLD), str(trace), "--save-baseline", str(saved))
    assert AWS_KEY not in saved.read_text(encoding="utf-8")
    assert json.loads(saved.read_text(encoding="utf-8"))["counts"]["credentials"] == 1


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("", "is empty"),
        ("{not json", "not valid JSON"),
        ('{"score": 0.5}', "not a Toolscore baseline"),
        ('{"toolscore_baseline": 99, "score": 0.5}', "reads up to 1"),
        ('{"toolscore_baseline": 1, "score": "high"}', "$.score"),
        ('{"toolscore_baseline": 1, "score": 0.5, "counts": {"credentials": -1}}', "$.counts.credentials"),
    ],
)
def test_bad_baselines_exit_2(invoke: Any, tmp_path: Path, content: str, needle: str) -> None:
    path = tmp_path / "baseline.json"
    path.write_text(content, encoding="utf-8")
    result = invoke("regression", str(path), str(FLIGHTS / "trace.json"), "--gold-file", str(GOLD))
    assert result.exit_code == 2, result.output
    assert str(path) in result.output
    assert needle in result.output
    assert "Traceback" not in result.output


def test_gold_file_is_required_and_errors_name_files(invoke: Any, baseline: Path, tmp_path: Path) -> None:
    result = invoke("regression", str(baseline), str(FLIGHTS / "trace.json"))
    assert result.exit_code == 2
    assert "--gold-file" in result.output
    missing = tmp_path / "missing.json"
    result = invoke("regression", str(baseline), str(missing), "--gold-file", str(GOLD))
    assert result.exit_code == 2 and str(missing) in result.output
    result = invoke("regression", str(baseline), str(FLIGHTS / "trace.json"), "--gold-file", str(GOLD),
                    "--tolerance", "2")
    assert result.exit_code == 2 and "outside 0..1" in result.output


def test_help_shows_the_workflow(invoke: Any) -> None:
    out = invoke("regression", "--help").output
    assert "toolscore regression baseline.json new_trace.json --gold-file gold.json" in out
    assert "Exit codes: 0 no regression, 1 regression, 2 bad input." in out


def test_saved_baselines_match_the_shipped_schema(baseline: Path) -> None:
    from toolscore_core.scoring.contracts import validator

    validator("baseline")(json.loads(baseline.read_text(encoding="utf-8")))


def test_schema_catches_what_the_checks_do_not(invoke: Any, tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps({"toolscore_baseline": 1, "score": 0.5, "grade": "Z"}), encoding="utf-8")
    result = invoke("regression", str(path), str(FLIGHTS / "trace.json"), "--gold-file", str(GOLD))
    assert result.exit_code == 2, result.output
    assert f"{path}, at $.grade:" in result.output
    assert "Traceback" not in result.output
