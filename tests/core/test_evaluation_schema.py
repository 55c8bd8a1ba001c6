"""Evaluation.to_dict(): versioned, JSON-safe, complete, redacted, bounded, and valid
against the JSON Schema shipped in the package; from_dict() rebuilds it."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from toolscore_core.kernel.model import Evaluation
from toolscore_core.scoring.contracts import load_schema, validator
from toolscore_core.scoring.evaluation import evaluate, evaluate_trace
from toolscore_core.scoring.matchers import Regex

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "guardrails"


def _records() -> list[dict]:
    guardrails = evaluate_trace(EXAMPLES / "gold.json", EXAMPLES / "trace.json", forbidden=EXAMPLES / "forbidden.json",
                                min_score=0.9)
    flights = evaluate(
        [{"tool": "search_flights", "args": {"origin": "SFO", "destination": "NYC"}},
         {"tool": "book_flight", "args": {"flight_id": Regex(r"FL-\d+")}}],
        [{"tool": "search_flights", "args": {"origin": "SFO", "destination": "BOS"}},
         {"tool": "cancel_booking", "args": {"booking_id": "BK-1"}, "result": {"ok": True, "n": float("nan")}}],
        mode="superset",
    )
    empty = evaluate([], [])
    unrecorded = evaluate([{"tool": "a", "args": {"x": 1}}], [{"tool": "a", "args": None, "result": ("t", 1)}])
    return [r.to_dict() for r in (guardrails, flights, empty, unrecorded)]


@pytest.mark.parametrize("index", range(4))
def test_records_validate_against_the_shipped_schema(index: int) -> None:
    record = _records()[index]
    validator("evaluation")(record)
    # JSON-safe: strict JSON (no NaN), and a JSON round trip changes nothing.
    text = json.dumps(record, allow_nan=False, ensure_ascii=False)
    assert json.loads(text) == record


def test_schema_file_is_a_valid_draft7_document() -> None:
    schema = load_schema("evaluation")
    assert schema["properties"]["schema_version"] == {"const": "1"}
    assert set(schema["required"]) >= {"score", "grade", "verdict", "weights", "expected", "actual", "findings"}


def test_record_is_complete_for_the_guardrails_run() -> None:
    record = _records()[0]
    assert record["schema_version"] == "1" and record["kind"] == "toolscore.evaluation"
    assert record["grade"] in "ABCDF" and record["verdict"] in ("PASS", "WARN", "FAIL")
    assert record["passed"] is False and record["min_score"] == 0.9
    assert sum(record["weights"].values()) == pytest.approx(1.0)
    for name in ("selection_accuracy", "argument_f1", "sequence_accuracy", "redundancy", "identical_rate",
                 "required_call_recall"):
        assert 0 <= record[name] <= 1
        assert name == "identical_rate" or name in record["metrics"]
    assert record["required_calls"] == {"completed": 1, "required": 2}
    assert len(record["actual"]) == 5 and len(record["expected"]) == 2
    deploy = record["actual"][3]
    assert deploy["is_error"] is True and deploy["error"].startswith("deploy failed") and deploy["duration"] == 1.1
    assert record["actual"][0]["result"] == "42 passed in 3.1s"
    assert record["expected"][0]["paired_with"] == 0
    assert record["policy_violations"][0]["index"] == 1 and record["policy_violations"][0]["rule"] == 0
    assert record["metrics"]["security_metrics"]["secrets"][0]["preview"] == "AKIA…LE"
    assert record["top_issues"] and all(set(i) == {"tool", "problem", "fix"} for i in record["top_issues"])
    text = json.dumps(record, ensure_ascii=False)
    assert "AKIAIOSFODNN7EXAMPLE" not in text
    assert "deploying with key AKIA…LE" in text


def test_matchers_are_written_in_their_json_forms() -> None:
    record = _records()[1]
    assert record["expected"][1]["args"] == {"flight_id": {"$regex": "FL-\\d+"}}
    assert record["mode"] == "superset"
    assert record["actual"][1]["result"] == {"ok": True, "n": "nan"}
    assert record["pairs"][1]["tool_match"] is False


def test_records_are_bounded() -> None:
    long_text = "word " * 50_000
    many = list(range(5000))
    result = evaluate([{"tool": "t"}], [{"tool": "t", "args": {"text": long_text, "ids": many}, "result": long_text}])
    record = result.to_dict()
    args = record["actual"][0]["args"]
    assert len(args["text"]) < 600 and "(250000 characters)" in args["text"]
    assert len(args["ids"]) == 51 and args["ids"][-1] == "… 4950 more item(s)"
    assert len(json.dumps(record)) < 20_000
    wider = result.to_dict(max_string=2000)
    assert len(wider["actual"][0]["args"]["text"]) > 2000


def test_from_dict_round_trip() -> None:
    original = evaluate_trace(EXAMPLES / "gold.json", EXAMPLES / "trace.json", forbidden=EXAMPLES / "forbidden.json")
    record = original.to_dict()
    rebuilt = Evaluation.from_dict(json.loads(json.dumps(record)))
    assert rebuilt.score == original.score and rebuilt.grade == original.grade
    assert rebuilt.required_call_recall == original.required_call_recall
    assert [f.message for f in rebuilt.findings] == [f.message for f in original.findings]
    assert [(p.expected_index, p.actual_index) for p in rebuilt.pairs] == [
        (p.expected_index, p.actual_index) for p in original.pairs]
    assert rebuilt.expected == original.expected
    assert [c.tool for c in rebuilt.actual.calls] == [c.tool for c in original.actual.calls]
    assert rebuilt.to_dict()["score"] == record["score"]
    assert not math.isnan(rebuilt.score)


@pytest.mark.parametrize("bad", [{}, {"schema_version": "9", "kind": "toolscore.evaluation"}, [], {"kind": "x"},
                                 {"schema_version": "1", "kind": "toolscore.evaluation"}])
def test_from_dict_rejects_what_is_not_a_record(bad: object) -> None:
    from toolscore_core.kernel.errors import InputError

    with pytest.raises(InputError):
        Evaluation.from_dict(bad)  # type: ignore[arg-type]
