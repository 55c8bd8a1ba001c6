"""`toolscore regression` as a tool-scorer 1.10.0 CI job calls it: its option spellings and
its baseline files (real ones, written by the published 1.10.0; see fixtures/baseline_110)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

OLD = Path(__file__).parent / "fixtures" / "baseline_110"
GOLD = OLD / "gold.json"
GOOD = OLD / "trace_good.json"
WORSE = OLD / "trace_worse.json"


@pytest.fixture
def ours(invoke: Any, tmp_path: Path) -> Path:
    path = tmp_path / "baseline.json"
    assert invoke("eval", str(GOLD), str(GOOD), "--save-baseline", str(path)).exit_code == 0
    return path


def test_fixture_baselines_are_tool_scorers_own() -> None:
    data = json.loads((OLD / "baseline_good.json").read_text(encoding="utf-8"))
    assert data["version"] == "1.10.0" and "toolscore_baseline" not in data
    import hashlib

    assert data["gold_file_hash"] == hashlib.md5(GOLD.read_bytes(), usedforsecurity=False).hexdigest()


# -- 1. the option spellings ---------------------------------------------------------------

def test_short_options_and_threshold_are_accepted(invoke: Any, ours: Path) -> None:
    result = invoke("regression", str(ours), str(GOOD), "-g", str(GOLD), "-t", "0.1", "-f", "custom")
    assert result.exit_code == 0, result.output
    assert "tolerance 10.0 points" in result.stdout
    long = invoke("regression", str(ours), str(GOOD), "--gold-file", str(GOLD), "--threshold", "0.1")
    assert long.exit_code == 0, long.output
    assert "tolerance 10.0 points" in long.stdout


def test_threshold_is_the_tolerance(invoke: Any, tmp_path: Path, ours: Path) -> None:
    trace = tmp_path / "extra.json"
    calls = json.loads(GOOD.read_text(encoding="utf-8"))
    calls.append({"tool": "search_flights", "args": {"origin": "SFO", "destination": "NYC"}})
    trace.write_text(json.dumps(calls), encoding="utf-8")
    assert invoke("regression", str(ours), str(trace), "-g", str(GOLD)).exit_code == 1
    assert invoke("regression", str(ours), str(trace), "-g", str(GOLD), "-t", "0.5").exit_code == 0
    bad = invoke("regression", str(ours), str(trace), "-g", str(GOLD), "--threshold", "5")
    assert bad.exit_code == 2 and "--tolerance 5 is outside 0..1" in bad.output


def test_help_shows_both_spellings(invoke: Any) -> None:
    text = invoke("regression", "--help").output
    for spelling in ("-g, --gold-file", "-t, --tolerance, --threshold", "-f, --format", "-o, --output",
                     "-v, --verbose"):
        assert spelling in text


def test_output_writes_the_comparison_as_json(invoke: Any, tmp_path: Path, ours: Path) -> None:
    out = tmp_path / "cmp" / "comparison.json"
    out.parent.mkdir()
    result = invoke("regression", str(ours), str(WORSE), "-g", str(GOLD), "-o", str(out))
    assert result.exit_code == 1, result.output
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["passed"] is False and data["compared_by"] == "score"
    score = next(i for i in data["items"] if i["metric_name"] == "score")
    assert score["status"] == "regression" and score["baseline_value"] == 1.0
    assert data["reasons"] and data["reasons"][0].startswith("score fell")


def test_verbose_notes_go_to_stderr(invoke: Any, ours: Path) -> None:
    result = invoke("regression", str(ours), str(GOOD), "-g", str(GOLD), "-v")
    assert result.exit_code == 0
    assert f"toolscore: baseline {ours}" in result.stderr
    assert "toolscore: baseline" not in result.stdout


# -- 2. tool-scorer 1.10.0's baseline files ----------------------------------------------------

def test_a_110_baseline_loads_and_passes_on_the_same_run(invoke: Any) -> None:
    result = invoke("regression", str(OLD / "baseline_good.json"), str(GOOD), "-g", str(GOLD))
    assert result.exit_code == 0, result.output
    assert "PASS no regression (6 metric(s) of the tool-scorer 1.10.0 baseline compared" in result.stdout
    assert "saved by tool-scorer 1.10.0" in result.stderr
    assert "invocation_accuracy, tool_correctness not computed by Toolscore" in result.stderr
    assert "warning" not in result.stderr  # same gold file: its MD5 matches


def test_a_110_baseline_catches_a_worse_run_metric_by_metric(invoke: Any) -> None:
    result = invoke("regression", str(OLD / "baseline_good.json"), str(WORSE), "-g", str(GOLD))
    assert result.exit_code == 1, result.output
    assert "REGRESSION selection_accuracy fell 50.0 points (100.0% -> 50.0%)" in result.stdout
    assert "REGRESSION redundant_rate rose 50.0 points (0.0% -> 50.0%)" in result.stdout
    assert "Traceback" not in result.output


def test_a_110_baseline_of_a_worse_run_sees_the_better_one_as_no_regression(invoke: Any) -> None:
    result = invoke("regression", str(OLD / "baseline_worse.json"), str(GOOD), "-g", str(GOLD))
    assert result.exit_code == 0, result.output


def test_a_110_baseline_warns_when_the_gold_changed(invoke: Any, tmp_path: Path) -> None:
    gold = tmp_path / "gold.json"
    shutil.copyfile(GOLD, gold)
    same = invoke("regression", str(OLD / "baseline_good.json"), str(GOOD), "-g", str(gold), "--strict")
    assert same.exit_code == 0, same.output  # a copy with the same bytes is the same gold file
    expected = json.loads(GOLD.read_text(encoding="utf-8"))
    expected[1]["args"]["flight_id"] = "FL-1"
    gold.write_text(json.dumps(expected), encoding="utf-8")
    warned = invoke("regression", str(OLD / "baseline_good.json"), str(GOOD), "-g", str(gold))
    assert f"toolscore: warning: {gold} differs from the gold file the baseline was saved with" in warned.stderr
    assert "MD5 of the file's bytes" in warned.stderr
    strict = invoke("regression", str(OLD / "baseline_good.json"), str(GOOD), "-g", str(gold), "--strict")
    assert strict.exit_code == 2
    assert "differs from the gold file" in strict.output and "(--strict)" in strict.output


def test_a_110_baseline_json_output_uses_its_metric_names(invoke: Any, tmp_path: Path) -> None:
    out = tmp_path / "c.json"
    invoke("regression", str(OLD / "baseline_good.json"), str(GOOD), "-g", str(GOLD), "-o", str(out))
    items = {i["metric_name"]: i for i in json.loads(out.read_text(encoding="utf-8"))["items"]}
    assert items["argument_f1"]["status"] == "improvement"  # Toolscore reads the $regex matcher
    assert items["redundant_rate"]["status"] == "stable"
    assert items["tool_correctness"]["status"] == "not compared"


@pytest.mark.parametrize(("change", "where"), [
    ({"metrics": {"selection_accuracy": 1.5}}, "$.metrics.selection_accuracy"),
    ({"metrics": {"selection_accuracy": "high"}}, "$.metrics.selection_accuracy"),
    ({"gold_file_hash": "not-a-digest"}, "$.gold_file_hash"),
    ({"gold_file_hash": 12}, "$.gold_file_hash"),
])
def test_a_broken_110_baseline_is_bad_input(invoke: Any, tmp_path: Path, change: dict[str, Any],
                                            where: str) -> None:
    data = json.loads((OLD / "baseline_good.json").read_text(encoding="utf-8"))
    data.update(change)
    path = tmp_path / "b.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = invoke("regression", str(path), str(GOOD), "-g", str(GOLD))
    assert result.exit_code == 2, result.output
    assert str(path) in result.output and where in result.output
    assert "Traceback" not in result.output


def test_compare_baseline_reads_a_110_baseline_from_python() -> None:
    from toolscore_core.reports.baseline import compare_baseline, load_baseline
    from toolscore_core.scoring.evaluation import evaluate_trace

    base = load_baseline(OLD / "baseline_good.json")
    assert base["gold_digest"] == "md5:c4fa22e30c47b0c1fa4b7cdbc4ee7b5c" and base["score"] is None
    comparison = compare_baseline(base, evaluate_trace(GOLD, WORSE), tolerance=0.05)
    assert comparison.regressed and comparison.by_metric
    assert {c.name for c in comparison.metrics if c.regressed} == {
        "selection_accuracy", "sequence_accuracy", "argument_f1", "argument_precision", "argument_recall",
        "redundant_rate"}


def test_a_110_baseline_saved_without_a_gold_hash_says_it_cannot_check(invoke: Any, tmp_path: Path) -> None:
    data = json.loads((OLD / "baseline_good.json").read_text(encoding="utf-8"))
    data["gold_file_hash"] = ""  # 1.10.0 writes "" when it was not given the gold file
    path = tmp_path / "b.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = invoke("regression", str(path), str(GOOD), "-g", str(GOLD), "--strict")
    assert result.exit_code == 0, result.output  # nothing known to differ: --strict has nothing to refuse
    assert "records no gold-file digest (saved by tool-scorer 1.10.0)" in result.stderr
