"""``compare_runs`` and ``toolscore compare`` on rows written by real scripted studies.

Each study runs the real harness: the scripted provider, the guard, and the bundled sample
notes server (one process per run). The planted differences: ``good`` saves every note
under the title asked for and ``bad`` under a wrong one (fails min_score) on all ten tasks;
``lucky`` equals ``good`` except on one task. The first must read as significant, the
second as noise.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from toolscore_agent import compare_runs, load_agent_spec, run_study
from toolscore_agent.compare_report import render_console, render_html, render_markdown
from toolscore_core import RunRow, RunWriter

SAMPLE = [sys.executable, "-m", "toolscore_mcp.sample_server"]
TASKS = 10


def _script(title: str) -> list[dict[str, Any]]:
    return [{"calls": [{"tool": "create_note", "args": {"title": title, "body": "text"}}]},
            {"text": f"Saved the note {title}."}]


def write_spec(path: Path, arms: dict[str, set[int]], *, repetitions: int = 1) -> Path:
    """A study of ten note tasks; ``arms[arm]`` is the set of task numbers that arm gets right."""
    tasks = []
    for number in range(TASKS):
        title = f"note-{number}"
        tasks.append({
            "id": f"t{number}", "prompt": f"Save a note titled {title}.",
            "expected": [{"tool": "create_note", "args": {"title": title}}], "min_score": 0.9,
            "script": {arm: _script(title if number in right else f"wrong-{number}") for arm, right in arms.items()},
        })
    spec = {"spec_version": 1, "name": "planted", "server": {"command": SAMPLE}, "provider": "scripted",
            "model": "scripted", "arms": [{"id": arm} for arm in arms], "repetitions": repetitions, "seed": 1,
            "limits": {"max_turns": 4, "max_calls": 4}, "tasks": tasks}
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def run(spec: Path, output: Path) -> Path:
    run_study(load_agent_spec(spec), output=output)
    return output


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """good right on every task, bad on none, lucky on all but t0 (so good beats it on one task)."""
    folder = tmp_path_factory.mktemp("planted")
    everything = set(range(TASKS))
    spec = write_spec(folder / "spec.json", {"good": everything, "bad": set(), "lucky": everything - {0}})
    return run(spec, folder / "runs.jsonl")


def test_an_arm_better_on_every_task_is_significant(planted: Path) -> None:
    result = compare_runs(planted, arms=["bad", "good"])
    (pair,) = result.pairs
    assert (pair.tasks, pair.b_better, pair.a_better, pair.ties) == (10, 10, 0, 0)
    assert pair.p_value == pytest.approx(2 / 2 ** 10)
    assert pair.significant
    assert pair.wording == "good passes 10 more of 10 tasks; p = 0.002: significant at 5 %"
    assert pair.difference == 1.0 and pair.interval is not None and pair.interval[0] > 0.5


def test_an_arm_better_on_one_task_only_is_not_significant(planted: Path) -> None:
    result = compare_runs(planted, arms=["lucky", "good"])
    (pair,) = result.pairs
    assert (pair.b_better, pair.a_better, pair.ties) == (1, 0, 9)
    assert pair.p_value == 1.0 and not pair.significant
    assert pair.wording == "good passes 1 more of 10 tasks; p = 1.00: not significant at 5 % (could be noise)"


def test_per_arm_and_per_task_aggregates(planted: Path) -> None:
    result = compare_runs(planted)
    assert list(result.arms) == ["bad", "good", "lucky"]
    assert [(p.a, p.b) for p in result.pairs] == [("bad", "good"), ("bad", "lucky"), ("good", "lucky")]
    good, lucky = result.arms["good"], result.arms["lucky"]
    assert (good.runs, good.passes, good.pass_rate) == (10, 10, 1.0)
    assert lucky.outcomes == {"pass": 9, "fail": 1, "error": 0, "unknown": 0}
    assert lucky.interval == pytest.approx((0.5958, 0.9821), abs=1e-4)  # Wilson 9 of 10
    assert good.calls == 10 and good.mean_turns == 2.0 and good.input_tokens > 0
    assert good.cost_per_pass_usd == 0.0 and good.unknown_cost == 0  # scripted runs are free, and known
    assert result.arms["bad"].cost_per_pass_usd is None  # nothing passed
    # the task that separates the arms is visible per task x arm
    assert result.tasks["t0"]["good"].pass_rate == 1.0 and result.tasks["t0"]["lucky"].pass_rate == 0.0
    assert result.tasks["t1"]["good"].pass_rate == result.tasks["t1"]["lucky"].pass_rate == 1.0


def test_pass_hat_k_runs_to_the_repetitions_and_a_retried_cell_counts_once(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "spec.json", {"good": set(range(TASKS)), "half": set(range(5))}, repetitions=2)
    runs = run(spec, tmp_path / "runs.jsonl")
    rows = [json.loads(line) for line in runs.read_text(encoding="utf-8").splitlines()]
    # a retry of a cell appended later (its latest row wins): t9::half::1 now passes
    retried = next(row for row in rows if row["cell_id"] == "t9::half::1")
    with RunWriter(runs) as writer:
        writer.write(RunRow(task_id="t9", arm_id="half", repetition=1, status="completed", outcome="pass",
                            cost_usd=0.0, calls=(), turns=retried["turns"]))
    result = compare_runs(runs)
    assert result.rows == 41 and result.cells == 40 and result.superseded == 1
    half = result.arms["half"]
    assert half.runs == 20 and half.passes == 11
    # per task (n=2): five tasks 2/2, t9 1/2, four 0/2
    assert half.pass_hat_k == {1: pytest.approx((5 * 1 + 0.5) / 10), 2: pytest.approx(5 / 10)}


def test_error_and_unknown_runs_stay_in_every_population_and_unknown_cost_is_not_zero(
        tmp_path: Path, planted: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_bytes(planted.read_bytes())
    with RunWriter(runs) as writer:  # an errored run and one with an unknown cost, as the harness writes them
        writer.write(RunRow(task_id="t0", arm_id="good", repetition=2, status="error", outcome="error",
                            error="provider failed", cost_usd=None))
        writer.write(RunRow(task_id="extra", arm_id="good", repetition=1, status="completed", outcome="unknown",
                            cost_usd=None))
    result = compare_runs(runs, arms=["lucky", "good"])
    good = result.arms["good"]
    assert good.runs == 12 and good.outcomes == {"pass": 10, "fail": 0, "error": 1, "unknown": 1}
    assert good.pass_rate == pytest.approx(10 / 12)
    assert result.tasks["t0"]["good"].pass_rate == 0.5  # the error counts against its task too
    assert good.mean_cost_usd is None and good.cost_per_pass_usd is None and good.unknown_cost == 2
    assert result.pairs[0].unpaired_tasks == ("extra",)
    text = render_markdown(result)
    assert "unknown (2 run(s) without a cost)" in text


def test_a_task_without_expected_calls_is_unknown_and_counts(tmp_path: Path) -> None:
    spec = json.loads(write_spec(tmp_path / "s.json", {"good": {0}}).read_text(encoding="utf-8"))
    spec["tasks"] = spec["tasks"][:2]
    del spec["tasks"][1]["expected"], spec["tasks"][1]["min_score"]
    (tmp_path / "s.json").write_text(json.dumps(spec), encoding="utf-8")
    result = compare_runs(run(tmp_path / "s.json", tmp_path / "runs.jsonl"))
    assert result.arms["good"].outcomes == {"pass": 1, "fail": 0, "error": 0, "unknown": 1}
    assert result.arms["good"].pass_rate == 0.5
    assert result.pairs == ()


def toolscore(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ}
    env.pop("TOOLSCORE_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "toolscore_core.cli", *args], capture_output=True, text=True,
                          env=env, timeout=120)


def test_the_command_prints_the_verdict_and_writes_json(planted: Path, tmp_path: Path) -> None:
    done = toolscore("compare", "--runs", str(planted), "--arms", "bad", "good")
    assert done.returncode == 0, done.stderr
    assert "good passes 10 more of 10 tasks; p = 0.002: significant at 5 %" in done.stdout
    assert "Per task x arm" in done.stdout
    out = tmp_path / "c.json"
    done = toolscore("compare", "--runs", str(planted), "--report", "json", "-o", str(out))
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["arms"]["good"]["pass_rate"] == 1.0 and len(data["pairs"]) == 3
    assert data["pairs"][0]["p_value"] == pytest.approx(2 / 2 ** 10)


def test_bad_input_is_a_short_error_with_exit_2(tmp_path: Path, planted: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    row = json.loads(planted.read_text(encoding="utf-8").splitlines()[0])
    row["outcome"] = "maybe"
    bad.write_text(json.dumps(row) + "\n" + json.dumps(row) + "\n", encoding="utf-8")
    done = toolscore("compare", "--runs", str(bad))
    assert done.returncode == 2
    assert "line 1, $.outcome" in done.stderr and "Traceback" not in done.stderr
    done = toolscore("compare", "--runs", str(planted), "--arms", "good", "nobody")
    assert done.returncode == 2 and "arm 'nobody' is not in the runs" in done.stderr
    assert "bad, good, lucky" in done.stderr
    done = toolscore("compare", "--runs", str(tmp_path / "missing.jsonl"))
    assert done.returncode == 2 and "file not found" in done.stderr
    done = toolscore("compare")
    assert done.returncode == 2 and "no runs file given" in done.stderr and "Traceback" not in done.stderr


def test_more_files_are_read_in_order_and_a_torn_last_line_is_a_warning(planted: Path, tmp_path: Path) -> None:
    lines = planted.read_text(encoding="utf-8").splitlines(keepends=True)
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    first.write_text("".join(lines[:12]), encoding="utf-8")
    second.write_text("".join(lines[12:]) + lines[0][:40], encoding="utf-8")  # a crash mid-write
    done = toolscore("compare", "--runs", str(first), str(second), "--report", "json")
    assert done.returncode == 0, done.stderr
    assert "skipped a torn last line" in done.stderr
    data = json.loads(done.stdout)
    assert data["cells"] == 30 and data["arms"]["good"]["runs"] == 10 and len(data["torn"]) == 1
    root = toolscore("--help")
    assert "compare" in root.stdout


def test_hostile_ids_are_escaped_in_markdown_and_html(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    with RunWriter(runs) as writer:
        for arm, outcome in (("<script>alert(1)</script>", "pass"), ("x|y\x1b[2J", "fail")):
            writer.write(RunRow(task_id="<img src=x onerror=alert(2)>", arm_id=arm, repetition=1,
                                status="completed", outcome=outcome, cost_usd=0.01))
    result = compare_runs(runs)
    page = render_html(result)
    assert "<script>" not in page and "<img" not in page and "\x1b" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    text = render_markdown(result)
    assert "<script>" not in text and "\x1b" not in text and "x\\|y" in text
    console = render_console(result)
    assert "\x1b" not in console and "x|y\\x1b[2J" in console  # the escape is shown, not obeyed


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class _Page(HTMLParser):
    """What the browser built: the bars of each chart, the scripts, external URLs, visible text."""

    def __init__(self) -> None:
        super().__init__()
        self.svgs = 0
        self.bars: list[dict[str, str | None]] = []
        self.scripts = 0
        self.external: list[str] = []
        self.text: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.svgs += tag == "svg"
        self.scripts += tag == "script"
        if tag == "rect" and values.get("class") == "bar":
            self.bars.append(values)
        if tag in {"head", "style", "title"}:
            self.hidden += 1
        self.external += [v for name, v in attrs if name in {"src", "href"} and v and "://" in v]
        self.external += [name for name, _ in attrs if name.startswith("on")]

    def handle_endtag(self, tag: str) -> None:
        if tag in {"head", "style", "title"}:
            self.hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self.hidden and data.strip():
            self.text.append(" ".join(data.split()))


@pytest.mark.e2e
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (run `make browser`)")
def test_the_html_report_shows_the_chart_in_a_browser_and_runs_no_outside_script(
        planted: Path, tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_bytes(planted.read_bytes())
    with RunWriter(runs) as writer:  # an arm whose id is markup
        writer.write(RunRow(task_id="t0", arm_id="<script>document.title='pwned'</script>", repetition=1,
                            status="completed", outcome="pass", cost_usd=0.02))
    page = tmp_path / "compare.html"
    done = toolscore("compare", "--runs", str(runs), "--report", "html", "-o", str(page))
    assert done.returncode == 0, done.stderr
    assert CHROMIUM is not None
    browser = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'p'}",
         "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=60, check=False)
    assert browser.returncode == 0, browser.stderr[-2000:]
    seen = _Page()
    seen.feed(browser.stdout)
    assert seen.svgs == 2  # pass rate with intervals, and cost per pass
    assert [bar["data-arm"] for bar in seen.bars] == ["<script>document.title='pwned'</script>", "bad", "good",
                                                      "lucky"]
    widths = {bar["data-arm"]: float(bar["width"] or 0) for bar in seen.bars}
    assert widths["good"] == 400.0 and widths["bad"] == 0.0 and 300 < widths["lucky"] < 400
    assert seen.scripts == 0 and seen.external == []
    text = " | ".join(seen.text)
    assert "<script>document.title='pwned'</script>" in text  # shown as text, never run
    assert "pwned" not in browser.stdout.split("<title>")[1].split("</title>")[0]
    assert "good passes 10 more of 10 tasks; p = 0.002: significant at 5 %" in text
    assert "$0.0200" in text  # cost per pass of the markup arm, drawn in the second chart
