"""`toolscore eval`: the seed's examples 1 and 3 through the CLI, reports, exit codes, bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
EXAMPLE1 = FIXTURES / "eval_example1"
FLIGHTS = FIXTURES / "eval_flights"
GUARDRAILS = Path(__file__).parents[2] / "examples" / "guardrails"
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"


def _ok(result: Any, code: int = 0) -> str:
    assert result.exit_code == code, (result.exit_code, result.output)
    assert "Traceback" not in result.output
    return result.output


def test_example_1_console_report(invoke: Any) -> None:
    out = _ok(invoke("eval", str(EXAMPLE1 / "gold.json"), str(EXAMPLE1 / "session_calls.json")))
    assert "│ Overall Score      │  90.0% │" in out
    assert "│ Selection Accuracy │ 100.0% │" in out
    assert "│ Argument F1        │ 100.0% │" in out
    assert "│ Sequence Accuracy  │  50.0% │" in out
    assert "│ Grade A   PASS (90.0%) │" in out
    assert "Required calls completed: 0 of 2 (missing or failed; not part of the default score)" in out
    assert "Top issues to fix\n  1. list_allowed_directories  expected call to `list_allowed_directories` never happened" in out
    assert "Behavior and safety\n  WARNING  1 of 1 tool calls failed (read_text_file)" in out
    assert "  2. " not in out.split("Top issues to fix")[1].split("Behavior and safety")[0]  # told once
    assert "\x1b[" not in out  # not a terminal: plain text


def test_example_1_weighting_required_calls(invoke: Any) -> None:
    out = _ok(invoke("eval", str(EXAMPLE1 / "gold.json"), str(EXAMPLE1 / "session_calls.json"),
                     "--weight", "required_call_recall=0.3"), 0)
    assert "Grade D   FAIL (69.2%)" in out
    assert "│ Required Call Recall │" in out
    assert "Required calls completed: 0 of 2 (weighted into the score)" in out


def test_example_1_from_an_mcp_recording(installed_plugin_manager: Any) -> None:
    from click.testing import CliRunner

    from toolscore_core.cli import App, cli
    from toolscore_core.kernel.traces import adapter_registry

    assert "mcp" in adapter_registry(installed_plugin_manager).names()
    result = CliRunner().invoke(cli, ["eval", str(EXAMPLE1 / "gold.json"), str(EXAMPLE1 / "session.json")],
                                obj=App(pm=installed_plugin_manager), catch_exceptions=False)
    out = _ok(result)
    assert "Grade A   PASS (90.0%)" in out
    assert "1 of 1 tool calls failed (read_text_file)" in out


def test_min_score_fails_with_exit_1(invoke: Any) -> None:
    out = _ok(invoke("eval", str(FLIGHTS / "gold.json"), str(FLIGHTS / "trace.json"), "--min-score", "0.9"), 1)
    assert "FAIL score 47.0% is below the required 90.0% (--min-score)" in out
    assert "destination: 'NYC' ≠ 'BOS'" in out
    _ok(invoke("eval", str(FLIGHTS / "gold.json"), str(FLIGHTS / "trace_good.json"), "--min-score", "0.9"), 0)


def test_min_score_from_the_gold_file(invoke: Any, tmp_path: Path) -> None:
    gold = tmp_path / "gold.yaml"
    gold.write_text(
        "expected:\n  - tool: search_flights\n    args: {origin: SFO, destination: NYC}\n"
        "  - tool: book_flight\n    args:\n      flight_id: {$regex: 'FL-\\d+'}\nmin_score: 0.9\n",
        encoding="utf-8",
    )
    out = _ok(invoke("eval", str(gold), str(FLIGHTS / "trace.json")), 1)
    assert "below the required 90.0% (min_score in the gold file)" in out
    _ok(invoke("eval", str(gold), str(FLIGHTS / "trace_good.json")), 0)
    _ok(invoke("eval", str(gold), str(FLIGHTS / "trace.json"), "--min-score", "0.4"), 0)


@pytest.fixture
def guardrails(tmp_path: Path) -> Path:
    target = tmp_path / "guardrails"
    shutil.copytree(GUARDRAILS, target)
    return target


def test_example_3_fails_on_violations(invoke: Any, guardrails: Path) -> None:
    out = _ok(invoke("eval", str(guardrails / "gold.json"), str(guardrails / "trace.json"),
                     "--forbidden", str(guardrails / "forbidden.json"), "--fail-on-violations"), 1)
    assert "Required calls completed: 1 of 2 (missing or failed; not part of the default score)" in out
    assert "ERROR    call 2 run_shell matches forbidden rule 1: destructive shell command" in out
    assert "ERROR    call 3 http_post passes a credential (aws_access_key_id) in 'body.text': AKIA…LE" in out
    assert "WARNING  2 of 5 tool calls failed (deploy x2)" in out
    assert "WARNING  1 call repeats a failed call with the same arguments" in out
    assert out.rstrip().endswith("ERROR 2 forbidden call(s) or credential(s) found (--fail-on-violations)")
    assert AWS_KEY not in out
    # Without the flag the same findings are reported but do not fail the run.
    _ok(invoke("eval", str(guardrails / "gold.json"), str(guardrails / "trace.json"),
               "--forbidden", str(guardrails / "forbidden.json")), 0)


@pytest.mark.parametrize("report", ["md", "html", "json", "junit"])
def test_every_report_format_to_a_file(invoke: Any, tmp_path: Path, report: str) -> None:
    target = tmp_path / f"report.{report}"
    out = _ok(invoke("eval", str(FLIGHTS / "gold.json"), str(FLIGHTS / "trace.json"),
                     "--report", report, "--output", str(target)))
    assert f"Wrote the {report} report to {target}" in out
    assert "Overall Score" in out  # the console summary still prints
    text = target.read_text(encoding="utf-8")
    if report == "json":
        data = json.loads(text)
        assert data["grade"] == "F"
        assert round(data["score"], 2) == 0.47
    elif report == "junit":
        root = ET.fromstring(text)
        suite = root.find("testsuite")
        assert suite is not None and int(suite.get("failures", "0")) >= 2
    elif report == "md":
        assert "**Grade F · FAIL (47.0%)**" in text
        assert "destination: 'NYC' ≠ 'BOS'" in text
    else:
        assert text.startswith("<!DOCTYPE html>")
        assert "Grade F" in text


def test_report_to_stdout(invoke: Any) -> None:
    out = _ok(invoke("eval", str(FLIGHTS / "gold.json"), str(FLIGHTS / "trace.json"), "--report", "json"))
    assert json.loads(out)["verdict"] == "FAIL"


def test_mode_option_reaches_the_score(invoke: Any, tmp_path: Path) -> None:
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([{"tool": "a"}, {"tool": "b"}]), encoding="utf-8")
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps([{"tool": "b"}, {"tool": "a"}]), encoding="utf-8")
    default = json.loads(_ok(invoke("eval", str(gold), str(trace), "--report", "json")))
    unordered = json.loads(_ok(invoke("eval", str(gold), str(trace), "--report", "json", "--mode", "unordered")))
    assert unordered["score"] > default["score"]
    assert unordered["mode"] == "unordered"


def _error(result: Any, *needles: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.output)
    text = result.output
    assert "Traceback" not in text
    assert text.count("toolscore: error:") == 1 or "Error:" in text
    for needle in needles:
        assert needle in text, (needle, text)
    return text


@pytest.mark.parametrize(
    ("name", "content", "needle"),
    [
        ("empty.json", b"", "is empty"),
        ("broken.json", b'[{"tool": "a",]', "line 1, column"),
        ("broken.yaml", b"- tool: a\n  args: [unclosed\n", "not valid YAML"),
        ("shape.json", b'{"tool": "a"}', ""),
        ("dollar.json", b'[{"tool": "a", "args": {"x": {"$regexx": "a"}}}]', "$regexx"),
        ("latin1.json", b'[{"tool": "caf\xe9"}]', "not valid UTF-8"),
        ("notool.json", b'[{"tool": 3}]', ""),
    ],
)
def test_bad_gold_files_exit_2_naming_the_file(invoke: Any, tmp_path: Path, name: str, content: bytes,
                                               needle: str) -> None:
    gold = tmp_path / name
    gold.write_bytes(content)
    _error(invoke("eval", str(gold), str(FLIGHTS / "trace.json")), str(gold), needle)


@pytest.mark.parametrize(
    ("name", "content", "needle"),
    [
        ("empty.json", b"", "is empty"),
        ("broken.json", b'[{"tool": "a"', "not valid JSON"),
        ("latin1.json", b'[{"tool": "caf\xe9"}]', "not valid UTF-8"),
        ("shape.json", b'{"nothing": "here"}', "no trace format recognised"),
    ],
)
def test_bad_trace_files_exit_2_naming_the_file(invoke: Any, tmp_path: Path, name: str, content: bytes,
                                                needle: str) -> None:
    trace = tmp_path / name
    trace.write_bytes(content)
    _error(invoke("eval", str(FLIGHTS / "gold.json"), str(trace)), str(trace), needle)


def test_missing_files_exit_2(invoke: Any, tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    _error(invoke("eval", str(missing), str(FLIGHTS / "trace.json")), str(missing), "not found")
    _error(invoke("eval", str(FLIGHTS / "gold.json"), str(missing)), str(missing), "not found")
    _error(invoke("eval", str(FLIGHTS / "gold.json"), str(FLIGHTS / "trace.json"), "--forbidden", str(missing)),
           str(missing))


def test_a_trace_file_with_no_calls_is_an_input_error_not_a_silent_f(invoke: Any, tmp_path: Path) -> None:
    trace = tmp_path / "none.json"
    trace.write_text("[]", encoding="utf-8")
    _error(invoke("eval", str(FLIGHTS / "gold.json"), str(trace), "--min-score", "0.5"),
           "no tool call found", "read as custom", str(trace))


def test_bad_options_exit_2(invoke: Any) -> None:
    gold, trace = str(FLIGHTS / "gold.json"), str(FLIGHTS / "trace.json")
    _error(invoke("eval", gold, trace, "--weight", "selection"), "NAME=VALUE")
    _error(invoke("eval", gold, trace, "--weight", "selection=lots"), "not a number")
    _error(invoke("eval", gold, trace, "--weight", "selectoin=0.5"), "selectoin")
    _error(invoke("eval", gold, trace, "--min-score", "90"), "outside 0..1")
    _error(invoke("eval", gold, trace, "--report", "pdf"), "pdf", "console")
    _error(invoke("eval", gold, trace, "--mode", "sideways"), "sideways")
    _error(invoke("eval", gold, trace, "--format", "no-such-format"), "no-such-format")


def test_help_teaches_with_examples(invoke: Any) -> None:
    out = _ok(invoke("eval", "--help"))
    assert "toolscore eval gold.json trace.json --forbidden forbidden.json --fail-on-violations" in out
    assert "--save-baseline" in out
    assert "Exit codes" in out
