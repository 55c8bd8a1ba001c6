"""Bulk scoring: ``evaluate_many`` and ``toolscore eval GOLD --traces ... -o results.jsonl``.

Real files in a temporary directory: every trace fixture of the repository (OpenAI, Anthropic,
Gemini, LangChain, OTel, MCP recordings, frameworks...), generated call lists, and bad files
(empty, invalid UTF-8, not JSON, no calls, big). Worker processes are real (``local``).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from toolscore_core.kernel.errors import InputError
from toolscore_core.scoring.bulk import (
    evaluate_many,
    file_sha256,
    find_traces,
    pattern_base,
    read_rows,
    shard_size,
    summary_path_for,
)

REPO = Path(__file__).parents[2]
GOLD = REPO / "tests" / "core" / "fixtures" / "eval_flights" / "gold.json"
FIXTURE_DIRS = [REPO / "tests" / "adapters" / "fixtures", REPO / "tests" / "core" / "fixtures"]
BAD = {"empty.json": "is empty", "bad_utf8.json": "UTF-8", "malformed.json": "not valid JSON",
       "no_calls.json": "no tool call found"}


def _calls(i: int, n: int = 3) -> list[dict[str, Any]]:
    """A call list that scores differently with ``i``: right, wrong arguments, wrong tool."""
    destination = "NYC" if i % 3 else "BOS"
    calls: list[dict[str, Any]] = [{"tool": "search_flights", "args": {"origin": "SFO", "destination": destination},
                                    "result": {"flights": [f"FL-{i}"]}}]
    if i % 4:
        calls.append({"tool": "book_flight", "args": {"flight_id": f"FL-{i}"}, "result": "booked"})
    if i % 5 == 0:
        calls.append({"tool": "cancel_booking", "args": {"booking_id": "BK-1"}, "result": "cancelled"})
    while len(calls) < n:
        calls.append({"tool": "search_flights", "args": {"origin": "SFO", "destination": "LAX", "page": len(calls)},
                      "result": "none"})
    return calls


def make_corpus(root: Path, generated: int = 170, calls: int = 3) -> Path:
    """``root/traces``: fixtures of every format, ``generated`` call lists, and the bad files."""
    traces = root / "traces"
    for base in FIXTURE_DIRS:
        for found in sorted(base.rglob("*.json*")):
            if found.name == "gold.json" or found.parent.name.startswith("baseline"):
                continue  # gold files and saved baselines are not traces
            target = traces / "formats" / found.relative_to(base)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(found, target)
    for i in range(generated):
        target = traces / "gen" / f"g{i % 4}" / f"run{i:04d}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(_calls(i, calls)), encoding="utf-8")
    bad = traces / "bad"
    bad.mkdir(parents=True)
    (bad / "empty.json").write_bytes(b"")
    (bad / "bad_utf8.json").write_bytes(b'[{"tool": "search_flights", "args": {"origin": "\xff\xfe"}}]')
    (bad / "malformed.json").write_text('[{"tool": "search_flights", ', encoding="utf-8")
    (bad / "no_calls.json").write_text("[]", encoding="utf-8")
    big = [{"tool": "search_flights", "args": {"origin": "SFO", "destination": "NYC", "page": i}, "result": "x" * 40}
           for i in range(2000)]
    (traces / "big.json").write_text(json.dumps(big), encoding="utf-8")
    return traces


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_corpus(tmp_path_factory.mktemp("bulk"))


def _pattern(traces: Path) -> str:
    return str(traces / "**" / "*.json*")


def _all_files(traces: Path) -> list[Path]:
    return sorted(p for p in traces.rglob("*") if p.is_file())


def _rows(path: Path) -> list[dict[str, Any]]:
    return list(read_rows(path))


def _by_path(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {row["path"]: row for row in rows}


def test_every_trace_is_one_row_and_bad_ones_carry_their_error(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    result = evaluate_many(GOLD, _pattern(corpus), output=out, workers=2)
    files = _all_files(corpus)
    assert len(files) >= 200
    rows = _rows(out)
    assert len(rows) == len(files) == len(result.rows)
    assert Counter(row["path"] for row in rows) == Counter(str(p) for p in files)  # each exactly once
    by_path = _by_path(rows)
    for name, words in BAD.items():
        row = by_path[str(corpus / "bad" / name)]
        assert row["score"] is None and row["error"]["type"] == "InputError"
        assert words in row["error"]["message"] and name in row["error"]["message"]
    assert by_path[str(corpus / "big.json")]["calls"] == 2000
    formats = {row["format"] for row in rows if row["format"]}
    assert len(formats) >= 8  # many adapters really read their files
    for row in rows:
        assert row["sha256"] == file_sha256(row["path"])
    assert result.summary["errors"] == len(BAD) and result.exit_code == 1
    assert json.loads(summary_path_for(out).read_text())["traces"] == len(files)


def test_aggregate_equals_scoring_each_file_alone(corpus: Path, tmp_path: Path) -> None:
    from toolscore_core.scoring.evaluation import evaluate_trace
    from toolscore_core.scoring.verdict import below_bar

    result = evaluate_many(GOLD, _pattern(corpus), output=tmp_path / "r.jsonl", workers=2, min_score=0.8, worst=5)
    scores: dict[str, float] = {}
    grades: Counter[str] = Counter()
    findings: Counter[str] = Counter()
    errors = 0
    below = 0
    for path in _all_files(corpus):
        try:
            evaluation = evaluate_trace(GOLD, path, min_score=0.8)
        except InputError:
            errors += 1
            continue
        scores[str(path)] = evaluation.score
        grades[evaluation.grade] += 1
        below += below_bar(evaluation.score, 0.8)
        for finding in evaluation.findings:
            findings[finding.code] += finding.details.get("omitted", 1)
    summary = result.summary
    assert {row["path"]: row["score"] for row in result.rows if row["score"] is not None} == scores
    assert summary["scored"] == len(scores) and summary["errors"] == errors
    assert summary["grades"] == dict(sorted(grades.items()))
    assert summary["below_min_score"] == below > 0
    assert summary["score"]["mean"] == pytest.approx(sum(scores.values()) / len(scores))
    assert summary["score"]["min"] == min(scores.values()) and summary["score"]["max"] == max(scores.values())
    assert {code: seen["count"] for code, seen in summary["findings"].items()} == dict(findings)
    assert sum(summary["distribution"].values()) == len(scores)
    worst = sorted(scores.items(), key=lambda item: (item[1], item[0]))[:5]
    assert [entry["score"] for entry in summary["worst"]] == [score for _, score in worst]
    assert summary["exit_code"] == 1


def _comparable(rows: list[dict[str, Any]] | tuple[dict[str, Any], ...]) -> list[str]:
    return sorted(json.dumps(row, sort_keys=True) for row in rows)


def test_one_worker_two_workers_and_threads_give_the_same_rows(corpus: Path, tmp_path: Path) -> None:
    serial = evaluate_many(GOLD, _pattern(corpus), output=tmp_path / "a.jsonl", workers=1)
    pooled = evaluate_many(GOLD, _pattern(corpus), output=tmp_path / "b.jsonl", workers=2, executor="local")
    threads = evaluate_many(GOLD, _pattern(corpus), output=tmp_path / "c.jsonl", workers=2, executor="thread")
    assert _comparable(serial.rows) == _comparable(pooled.rows) == _comparable(threads.rows)
    assert _comparable(_rows(tmp_path / "a.jsonl")) == _comparable(_rows(tmp_path / "b.jsonl"))
    summaries = [dict(r.summary, results=None) for r in (serial, pooled, threads)]
    assert summaries[0] == summaries[1] == summaries[2]


def test_resume_skips_done_traces_and_rescores_a_changed_one(tmp_path: Path) -> None:
    traces = make_corpus(tmp_path, generated=20)
    out = tmp_path / "r.jsonl"
    first = evaluate_many(GOLD, _pattern(traces), output=out, workers=1)
    again = evaluate_many(GOLD, _pattern(traces), output=out, workers=1)
    assert again.rows == () and again.skipped == len(first.rows)
    assert dict(again.summary, scored_now=0, skipped_resumed=0) == dict(first.summary, scored_now=0,
                                                                          skipped_resumed=0)
    changed = traces / "gen" / "g1" / "run0001.json"
    changed.write_text(json.dumps(_calls(0)), encoding="utf-8")
    third = evaluate_many(GOLD, _pattern(traces), output=out, workers=1)
    assert [row["path"] for row in third.rows] == [str(changed)]
    assert third.rows[0]["sha256"] == file_sha256(changed)
    assert len(_rows(out)) == len(first.rows) + 1


def test_a_gold_directory_scores_each_trace_against_its_own_gold(tmp_path: Path) -> None:
    traces, golds = tmp_path / "traces", tmp_path / "golds"
    for name, calls in {"a/one.json": _calls(1), "a/two.json": _calls(3), "b/three.json": _calls(2)}.items():
        (traces / name).parent.mkdir(parents=True, exist_ok=True)
        (traces / name).write_text(json.dumps(calls), encoding="utf-8")
    for name in ("a/one.json", "a/two.json"):
        (golds / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(GOLD, golds / name)
    (golds / "a" / "two.json").write_text(json.dumps([{"tool": "search_flights"}]), encoding="utf-8")
    result = evaluate_many(golds, str(traces / "**" / "*.json"), workers=1)
    rows = _by_path(list(result.rows))
    assert rows[str(traces / "a" / "one.json")]["gold"] == str(golds / "a" / "one.json")
    assert rows[str(traces / "a" / "two.json")]["score"] != rows[str(traces / "a" / "one.json")]["score"]
    missing = rows[str(traces / "b" / "three.json")]
    assert missing["error"]["type"] == "InputError" and str(golds / "b" / "three.json") in missing["error"]["message"]


def test_shards_and_pattern_bases() -> None:
    assert shard_size(10, 2) == 1 and shard_size(1000, 2) == 125 and shard_size(200, 2) == 25
    assert shard_size(100_000, 2) == 256 and shard_size(3000, 2) == 256 and shard_size(1500, 4) == 93
    assert pattern_base("traces/**/*.json") == "traces" and pattern_base("a/b/c.json") == "a/b"
    assert pattern_base("*.json") == "." and pattern_base("a/x*/y.json") == "a"


# --- the command ----------------------------------------------------------------------------------------


def _ok(result: Any, code: int) -> str:
    assert result.exit_code == code, (result.exit_code, result.output)
    assert "Traceback" not in result.output
    return str(result.output)


def test_cli_bulk_run_prints_the_aggregate_and_writes_the_summary(corpus: Path, tmp_path: Path, invoke: Any) -> None:
    out = tmp_path / "results.jsonl"
    text = _ok(invoke("eval", str(GOLD), "--traces", _pattern(corpus), "-o", str(out), "--workers", "2"), 1)
    files = _all_files(corpus)
    assert f"Traces: {len(files)} ({len(files)} scored now, 0 already in the results)" in text
    assert "Distribution:" in text and "Grades: " in text and "Worst 10:" in text
    assert "Findings by kind" in text and "Errors: InputError 4" in text
    assert f"Wrote the summary to {summary_path_for(out)}" in text
    assert len(_rows(out)) == len(files)


def test_cli_exit_codes(tmp_path: Path, invoke: Any) -> None:
    good = tmp_path / "good"
    good.mkdir()
    for i in (1, 2):
        shutil.copyfile(GOLD.parent / "trace_good.json", good / f"t{i}.json")
    pattern = str(good / "*.json")
    out = str(tmp_path / "r.jsonl")
    _ok(invoke("eval", str(GOLD), "--traces", pattern, "-o", out, "--workers", "1"), 0)
    shutil.copyfile(GOLD.parent / "trace.json", good / "t3.json")  # scores 47%
    assert "FAIL 1 trace(s) scored below the bar" in _ok(
        invoke("eval", str(GOLD), "--traces", pattern, "-o", out, "--min-score", "0.9", "--workers", "1"), 1)
    unknown = _ok(invoke("eval", str(GOLD), "--traces", pattern, "-o", out, "--executor", "nope"), 2)
    assert "unknown executor 'nope'" in unknown and "local" in unknown and "thread" in unknown
    assert "no trace file matched" in _ok(invoke("eval", str(GOLD), "--traces", str(tmp_path / "none/*.json"),
                                                 "-o", out), 2)
    assert "gold file not found" in _ok(invoke("eval", str(tmp_path / "nogold.json"), "--traces", pattern, "-o", out), 2)
    assert "-o" in _ok(invoke("eval", str(GOLD), "--traces", pattern), 2)
    assert "not both" in _ok(invoke("eval", str(GOLD), str(good / "t1.json"), "--traces", pattern, "-o", out), 2)
    assert "no trace given" in _ok(invoke("eval", str(GOLD)), 2)
    assert "--save-baseline" in _ok(invoke("eval", str(GOLD), "--traces", pattern, "-o", out,
                                           "--save-baseline", str(tmp_path / "b.json")), 2)
    foreign = tmp_path / "foreign.jsonl"
    foreign.write_text('{"something": "else"}\n', encoding="utf-8")
    assert "not a bulk results file" in _ok(invoke("eval", str(GOLD), "--traces", pattern, "-o", str(foreign)), 2)
    assert foreign.read_text(encoding="utf-8") == '{"something": "else"}\n'  # untouched


def test_single_trace_usage_is_unchanged(invoke: Any) -> None:
    text = _ok(invoke("eval", str(GOLD), str(GOLD.parent / "trace_good.json")), 0)
    assert "Overall Score" in text


def test_resume_after_the_run_was_killed(tmp_path: Path) -> None:
    traces = make_corpus(tmp_path, generated=160, calls=60)  # shards of ~45 traces, ~0.4 s each: killed mid-way
    out = tmp_path / "r.jsonl"
    argv = [sys.executable, "-m", "toolscore_core.cli", "eval", str(GOLD), "--traces", _pattern(traces),
            "-o", str(out), "--workers", "1"]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if out.exists() and out.read_bytes().count(b"\n") >= 20:
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the run ended before it could be killed"
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    before = _rows(out)
    files = _all_files(traces)
    assert 20 <= len(before) < len(files)
    with out.open("ab") as handle:  # what a kill in the middle of a write leaves
        handle.write(b'{"toolscore_bulk": 1, "path": "tor')
    changed = Path(before[0]["path"])
    changed.write_text(json.dumps(_calls(7)), encoding="utf-8")

    result = evaluate_many(GOLD, _pattern(traces), output=out, workers=2, keep_rows=False)
    rows = _rows(out)
    assert Counter(row["path"] for row in rows) == Counter(
        {str(p): 2 if p == changed else 1 for p in files})  # every trace once; the changed one again
    latest = {row["path"]: row for row in rows}
    assert latest[str(changed)]["sha256"] == file_sha256(changed)
    assert result.skipped == len(before) - 1 and result.summary["traces"] == len(files)
    assert (tmp_path / "r.jsonl.torn").read_bytes().startswith(b'{"toolscore_bulk": 1, "path": "tor')


def test_progress_is_periodic_lines_off_a_terminal_and_one_line_on_one() -> None:
    import io

    from toolscore_core.cli.eval_bulk import Progress

    log = io.StringIO()
    quiet = Progress(log, every=0.0)
    quiet(5, 10)
    quiet(10, 10)
    assert [line.split(" (")[0] for line in log.getvalue().splitlines()] == [
        "toolscore: 5/10 traces", "toolscore: 10/10 traces"]

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    live = Progress(screen)
    live(10, 10)
    live.finish()
    assert screen.getvalue().startswith("\r10/10 traces") and screen.getvalue().endswith("\n")


def test_the_results_and_summary_files_among_the_traces_are_never_scored(tmp_path: Path) -> None:
    shutil.copyfile(GOLD.parent / "trace_good.json", tmp_path / "t.json")
    out = tmp_path / "results.json"  # matched by the pattern itself
    for _ in range(2):
        result = evaluate_many(GOLD, str(tmp_path / "*.json"), output=out, workers=1)
    assert [row["path"] for row in _rows(out)] == [str(tmp_path / "t.json")]
    assert result.summary["traces"] == 1 and result.skipped == 1 and result.exit_code == 0


@pytest.mark.parametrize("spelling", ["absolute", "relative", "dot-relative", "parent-relative", "cwd"])
def test_found_traces_carry_the_relative_path_relpath_gives(tmp_path: Path, monkeypatch: Any,
                                                             spelling: str) -> None:
    root = tmp_path / "work" / "traces"
    for name in ("a/x.json", "a/b/y.json", "z.json", "..odd.json"):  # ..odd.json: hidden from globs
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("[]", encoding="utf-8")
    monkeypatch.chdir(root if spelling in ("parent-relative", "cwd") else root.parent)
    pattern = {"absolute": f"{root}/**/*.json", "relative": "traces/**/*.json", "dot-relative": "./traces//**/*.json",
               "parent-relative": "../traces/**/*.json", "cwd": "**/*.json"}[spelling]
    plain = "..odd.json" if spelling == "cwd" else str(Path(pattern_base(pattern)) / "..odd.json")
    refs = find_traces([pattern, plain])
    assert len(refs) == 4
    for ref, base in zip(refs, [pattern_base(pattern)] * 3 + [pattern_base(plain)], strict=True):
        assert ref.relative == os.path.relpath(ref.path, base)
    assert refs[-1].relative == "..odd.json" and refs[0].relative == os.path.join("a", "b", "y.json")


def test_a_link_to_the_results_file_among_the_traces_is_never_scored(tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    traces.mkdir()
    shutil.copyfile(GOLD.parent / "trace_good.json", traces / "t.json")
    out = tmp_path / "results.jsonl"
    evaluate_many(GOLD, str(traces / "*.json"), output=out, workers=1)
    (traces / "also-results.json").symlink_to(out)  # another name for the file being written
    (traces / "dir.json").mkdir()  # a directory matched by the pattern is not a trace either
    result = evaluate_many(GOLD, str(traces / "*.json"), output=out, workers=1)
    assert result.summary["traces"] == 1 and result.skipped == 1
    assert [ref.path for ref in find_traces(str(traces / "*.json"))] == [str(traces / "also-results.json"),
                                                                          str(traces / "t.json")]


def test_resume_scores_again_a_trace_whose_worker_died_but_not_an_unreadable_one(tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    traces.mkdir()
    shutil.copyfile(GOLD.parent / "trace_good.json", traces / "died.json")
    (traces / "empty.json").write_bytes(b"")
    out = tmp_path / "r.jsonl"
    first = evaluate_many(GOLD, str(traces / "*.json"), output=out, workers=1)
    died = next(row for row in first.rows if row["path"].endswith("died.json"))
    lines = [json.dumps(row) for row in first.rows if row is not died]
    lines.append(json.dumps({**died, "score": None, "error": {"type": "WorkerDied", "message": "killed by SIGKILL"}}))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    again = evaluate_many(GOLD, str(traces / "*.json"), output=out, workers=1)
    assert [row["path"] for row in again.rows] == [str(traces / "died.json")]
    assert again.rows[0]["score"] == died["score"] and again.skipped == 1
    assert again.summary["errors"] == 1 and again.summary["errors_by_type"] == {"InputError": 1}


def test_a_plugins_executor_scores_the_same_rows_and_the_api_is_public(
        tmp_path: Path, installed_plugin_manager: Any) -> None:
    import toolscore
    import toolscore_core

    pytest.importorskip("toolscore_example_plugin")
    traces = make_corpus(tmp_path, generated=12)
    plugin = evaluate_many(GOLD, _pattern(traces), executor="example-in-order", workers=2,
                           plugin_manager=installed_plugin_manager)
    local = evaluate_many(GOLD, _pattern(traces), workers=1)
    assert _comparable(plugin.rows) == _comparable(local.rows)
    assert toolscore.evaluate_many is toolscore_core.evaluate_many is evaluate_many
