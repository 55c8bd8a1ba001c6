"""CLI behaviour a tool-scorer 1.10.0 user relies on (issue 12 items 11, 12, names).

Real subprocesses of the installed ``toolscore`` console script: exit codes, what lands on
stdout versus stderr, and Ctrl-C are properties of the process, not of a function.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

TOOLSCORE = str(Path(sys.executable).with_name("toolscore"))
GOLD = [{"tool": "search", "args": {"q": "x"}}, {"tool": "book", "args": {"id": 7}},
        {"tool": "pay", "args": {"amount": 3}}, {"tool": "mail"}, {"tool": "log"}]
# selection 0.8, args 0.75, sequence 0.8: a score in the 70s (a WARN by the fixed bands)
TRACE = [{"tool": "search", "args": {"q": "x"}}, {"tool": "book", "args": {"id": 8}},
         {"tool": "pay", "args": {"amount": 3}}, {"tool": "mail"}]


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}
    return subprocess.run([TOOLSCORE, *args], cwd=cwd, capture_output=True, text=True, timeout=60, env=env)


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "gold.json").write_text(json.dumps(GOLD))
    (tmp_path / "trace.json").write_text(json.dumps(TRACE))
    return tmp_path


# -- item 12: exit codes and where verdict lines go -------------------------------------

def test_ctrl_c_exits_130_with_one_line(tmp_path: Path) -> None:
    calls = [{"tool": "t", "args": {"i": i, "q": "x" * 20}} for i in range(60_000)]
    (tmp_path / "big.json").write_text(json.dumps(calls))
    (tmp_path / "gold.json").write_text(json.dumps([{"tool": "t", "args": {"i": i}} for i in range(0, 60_000, 3)]))
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.Popen([TOOLSCORE, "eval", "gold.json", "big.json", "--verbose"], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()  # "--verbose" says when it starts reading: the command is running
        assert "reading" in first
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    assert proc.returncode == 130, (out, err)
    lines = [line for line in err.splitlines() if not line.startswith("toolscore: [")]
    assert lines == ["toolscore: interrupted"]
    assert "Traceback" not in err and "Aborted" not in err


def test_a_report_on_stdout_gets_stdout_to_itself(files: Path) -> None:
    result = run("eval", "gold.json", "trace.json", "--report", "md", "--min-score", "0.95",
                 "--save-baseline", "base.json", cwd=files)
    assert result.returncode == 1
    assert "FAIL" not in result.stdout.replace("· FAIL (", "")  # the md report's own verdict badge aside
    assert "is below the required" not in result.stdout and "Saved baseline" not in result.stdout
    assert "FAIL score" in result.stderr and "Saved baseline" in result.stderr
    assert result.stdout.lstrip().startswith("#")


def test_verdict_lines_stay_on_stdout_with_the_console_report(files: Path) -> None:
    result = run("eval", "gold.json", "trace.json", "--min-score", "0.95", cwd=files)
    assert result.returncode == 1
    assert "FAIL score" in result.stdout


def test_warn_and_fail_never_both(files: Path) -> None:
    failed = run("eval", "gold.json", "trace.json", "--min-score", "0.95", cwd=files)
    assert failed.returncode == 1
    assert "WARN" not in failed.stdout and "FAIL (" in failed.stdout
    passed = run("eval", "gold.json", "trace.json", "--min-score", "0.7", cwd=files)
    assert passed.returncode == 0
    assert "FAIL" not in passed.stdout and "WARN (" in passed.stdout
    as_json = run("eval", "gold.json", "trace.json", "--min-score", "0.95", "--report", "json", cwd=files)
    assert json.loads(as_json.stdout)["verdict"] == "FAIL"


# -- names: --html, --verbose, redundant_rate ------------------------------------------

def test_html_is_a_shorthand_for_report_html_o(files: Path) -> None:
    result = run("eval", "gold.json", "trace.json", "--html", "out.html", cwd=files)
    assert result.returncode == 0, result.stderr
    assert (files / "out.html").read_text().lstrip().lower().startswith("<!doctype html")
    assert "Overall Score" in result.stdout  # the console summary still prints
    both = run("eval", "gold.json", "trace.json", "--html", "a.html", "-o", "b.html", cwd=files)
    assert both.returncode == 2 and "--html" in both.stderr and "Traceback" not in both.stderr


def test_verbose_says_what_was_read_on_stderr(files: Path) -> None:
    quiet = run("eval", "gold.json", "trace.json", "--report", "json", cwd=files)
    loud = run("eval", "gold.json", "trace.json", "--report", "json", "--verbose", cwd=files)
    assert loud.returncode == quiet.returncode == 0
    assert json.loads(loud.stdout)["score"] == json.loads(quiet.stdout)["score"]
    assert "read 5 expected call(s) and 4 actual call(s)" in loud.stderr
    assert "weights:" in loud.stderr and quiet.stderr == ""


def test_redundant_rate_weight_name_is_redundancy_with_a_note(files: Path) -> None:
    old = run("eval", "gold.json", "trace.json", "--report", "json", "--weight", "redundant_rate=2", cwd=files)
    new = run("eval", "gold.json", "trace.json", "--report", "json", "--weight", "redundancy=2", cwd=files)
    assert old.returncode == new.returncode == 0, old.stderr
    assert json.loads(old.stdout)["score"] == json.loads(new.stdout)["score"]
    assert "deprecated" in old.stderr and "redundancy" in old.stderr
    assert new.stderr == ""


# -- item 11: regression knows when the gold file changed --------------------------------

def _baseline(files: Path) -> dict[str, Any]:
    saved = run("eval", "gold.json", "trace.json", "--save-baseline", "base.json", cwd=files)
    assert saved.returncode == 0, saved.stderr
    data: dict[str, Any] = json.loads((files / "base.json").read_text())
    return data


def test_regression_warns_when_the_gold_file_changed(files: Path) -> None:
    base = _baseline(files)
    assert str(base["gold_digest"]).startswith("sha256:")
    same = run("regression", "base.json", "trace.json", "--gold-file", "gold.json", "--strict", cwd=files)
    assert same.returncode == 0 and "differs" not in same.stderr
    # re-indenting is not a change of meaning
    (files / "gold.json").write_text(json.dumps(GOLD, indent=4))
    assert run("regression", "base.json", "trace.json", "--gold-file", "gold.json", "--strict", cwd=files).returncode == 0
    (files / "gold.json").write_text(json.dumps([*GOLD[:4], {"tool": "log", "args": {"level": "x"}}]))
    warned = run("regression", "base.json", "trace.json", "--gold-file", "gold.json", cwd=files)
    assert "differs from the gold file the baseline was saved with" in warned.stderr
    assert warned.returncode in (0, 1)  # the comparison still runs
    strict = run("regression", "base.json", "trace.json", "--gold-file", "gold.json", "--strict", cwd=files)
    assert strict.returncode == 2 and "differs" in strict.stderr and "Traceback" not in strict.stderr


def test_an_old_baseline_says_the_gold_file_cannot_be_checked(files: Path) -> None:
    base = _baseline(files)
    del base["gold_digest"]
    (files / "base.json").write_text(json.dumps(base))
    result = run("regression", "base.json", "trace.json", "--gold-file", "gold.json", "--strict", cwd=files)
    assert result.returncode == 0
    assert "cannot be detected" in result.stderr


# -- mcp test --no-edge-cases ------------------------------------------------------------

def test_mcp_test_no_edge_cases_runs_only_happy_paths(tmp_path: Path) -> None:
    server = f"{sys.executable} -m toolscore.mcp.sample_server"
    started = time.monotonic()
    plain = run("mcp", "test", server, "--report", "json", "-o", "all.json", cwd=tmp_path)
    happy = run("mcp", "test", server, "--report", "json", "-o", "happy.json", "--no-edge-cases", cwd=tmp_path)
    assert plain.returncode == happy.returncode == 0, happy.stderr
    assert time.monotonic() - started < 60
    every = json.loads((tmp_path / "all.json").read_text())
    only = json.loads((tmp_path / "happy.json").read_text())
    assert {r["scenario"]["category"] for r in every["results"]} == {"happy", "edge"}
    assert {r["scenario"]["category"] for r in only["results"]} == {"happy"}
    assert only["edge"] is None
