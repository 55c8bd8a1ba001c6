"""`toolscore eval` as a tool-scorer 1.10.0 script calls it: `-f FORMAT`, `-o results.json`
(1.10.0 wrote JSON there) and a gold file with 1.10.0's `side_effects` key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

FLIGHTS = Path(__file__).parent / "fixtures" / "eval_flights"
GOLD = FLIGHTS / "gold.json"
TRACE = FLIGHTS / "trace_good.json"


def test_short_format_option(invoke: Any) -> None:
    result = invoke("eval", "-f", "custom", str(GOLD), str(TRACE))
    assert result.exit_code == 0, result.output
    assert "-f, --format" in invoke("eval", "--help").output


@pytest.mark.parametrize(("name", "starts"), [
    ("results.json", "{"), ("report.md", "#"), ("report.html", "<!"), ("junit.xml", "<?xml"),
])
def test_output_without_report_is_written_in_the_format_its_suffix_names(invoke: Any, tmp_path: Path, name: str,
                                                                          starts: str) -> None:
    out = tmp_path / name
    result = invoke("eval", str(GOLD), str(TRACE), "-o", str(out))
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert text.lstrip().lower().startswith(starts.lower()), text[:80]
    if name.endswith(".json"):
        assert json.loads(text)["score"] == 1.0


def test_an_explicit_report_wins_over_the_suffix(invoke: Any, tmp_path: Path) -> None:
    out = tmp_path / "table.json"
    assert invoke("eval", str(GOLD), str(TRACE), "--report", "console", "-o", str(out)).exit_code == 0
    with pytest.raises(json.JSONDecodeError):
        json.loads(out.read_text(encoding="utf-8"))
    other = tmp_path / "table.txt"
    assert invoke("eval", str(GOLD), str(TRACE), "-o", str(other)).exit_code == 0
    assert "Overall Score" in other.read_text(encoding="utf-8")


def test_a_110_side_effects_key_says_why_it_is_refused(invoke: Any, tmp_path: Path) -> None:
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([{"tool": "create_resource", "args": {"name": "t"},
                                 "side_effects": {"file_exists": "t.txt"}}]), encoding="utf-8")
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps([{"tool": "create_resource", "args": {"name": "t"}}]), encoding="utf-8")
    result = invoke("eval", str(gold), str(trace))
    assert result.exit_code == 2
    assert "$[0].side_effects" in result.output
    assert "side-effect checks are not part of Toolscore" in result.output
    assert "Traceback" not in result.output


def test_an_error_flag_is_a_flag_not_the_message_true() -> None:
    from toolscore import evaluate

    result = evaluate(expected=[{"tool": "a"}], actual=[
        {"tool": "a", "args": {}, "error": True},
        {"tool": "a", "args": {}, "error": False, "result": "ok"},
        {"tool": "a", "args": {}, "error": "Name has already been taken"},
        {"tool": "a", "args": {}, "is_error": False, "error": True},
    ])
    assert [(c.is_error, c.error) for c in result.actual.calls] == [
        (True, None), (False, None), (True, "Name has already been taken"), (False, None)]
