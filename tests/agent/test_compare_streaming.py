"""compare streams rows into per-(task, arm) sums: memory flat in rows, a retried cell counted once.

The memory test feeds the reader 2,000 and then 20,000 distinct cells of the same 20
(task, arm) groups and measures what it allocates with tracemalloc: one slot per cell (the
former design, ~50 bytes a cell) would add ~900 KB; one bit per cell adds a few KB. The
retry tests check that the second pass gives exactly what a file holding only the latest
row of each cell gives, in every report.
"""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toolscore_agent import compare_runs
from toolscore_agent.compare import _Cells
from toolscore_agent.compare_report import RENDERERS

OUTCOMES = ("pass", "fail", "pass", "unknown", "error", "pass", "fail")


def _row(task: str, arm: str, repetition: int, outcome: str, cost: float | None = 0.001,
         usage: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"run_record_version": "1", "cell_id": f"{task}::{arm}::{repetition}", "task_id": task, "arm_id": arm,
            "repetition": repetition, "status": "error" if outcome == "error" else "completed", "outcome": outcome,
            "passed": outcome == "pass", "cost_usd": cost, "turns": 2,
            "usage": usage if usage is not None else {"input_tokens": 10, "output_tokens": 3},
            "calls": [{"tool": "create_note"}], "guard_denials": []}


def _rows(count: int, tasks: int = 10, arms: int = 2) -> Iterator[dict[str, Any]]:
    for i in range(count):
        yield _row(f"t{i % tasks}", f"a{(i // tasks) % arms}", i // (tasks * arms) + 1, OUTCOMES[i % len(OUTCOMES)])


def _allocated(count: int) -> int:
    cells = _Cells()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        for number, data in enumerate(_rows(count), start=1):
            cells.add(data, Path("runs.jsonl"), number)
        return tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()


def test_memory_does_not_grow_with_the_rows() -> None:
    small, large = _allocated(2_000), _allocated(20_000)
    assert large - small < 100_000, (small, large)  # one slot per cell would add ~900 KB


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _reports(files: list[Path]) -> dict[str, Any]:
    """Every report, less the header lines that name the files and count the superseded rows."""
    result = compare_runs(files)
    out: dict[str, Any] = {name: [line for line in RENDERERS[name](result).splitlines() if " file(s)" not in line]
                           for name in ("console", "md")}
    data = result.to_dict()
    out["json"] = {key: data[key] for key in ("arms", "tasks", "pairs", "cells")}
    return out


def test_a_retried_cell_counts_once_with_its_latest_row_in_every_report(tmp_path: Path) -> None:
    first = [_row(f"t{t}", arm, rep, "fail", cost=0.1) for t in range(4) for arm in ("a", "b") for rep in (1, 2, 3)]
    retries = [_row("t1", "a", 2, "pass", cost=0.0003), _row("t2", "b", 3, "error", cost=None),
               _row("t1", "a", 2, "unknown", cost=1e-7, usage={}), _row("t0", "b", 1, "pass", cost=0.2)]
    latest = {r["cell_id"]: r for r in first + retries}
    expected = _reports([_write(tmp_path / "latest.jsonl", [latest[r["cell_id"]] for r in first])])
    assert _reports([_write(tmp_path / "first.jsonl", first), _write(tmp_path / "retries.jsonl", retries)]) == expected
    result = compare_runs([tmp_path / "first.jsonl", tmp_path / "retries.jsonl"])
    assert (result.rows, result.cells, result.superseded) == (28, 24, 4)
    assert result.tasks["t1"]["a"].outcomes["unknown"] == 1 and result.tasks["t2"]["b"].unknown_cost == 1


def test_a_huge_repetition_number_is_kept_outside_the_bitmap(tmp_path: Path) -> None:
    rows = [_row("t", "a", 10**9, "fail"), _row("t", "a", 1, "pass"), _row("t", "a", 10**9, "pass")]
    result = compare_runs(_write(tmp_path / "runs.jsonl", rows))
    assert (result.cells, result.superseded, result.arms["a"].passes) == (2, 1, 2)


def test_a_torn_last_line_is_reported_once_although_the_file_is_read_twice(tmp_path: Path) -> None:
    rows = [_row("t", "a", 1, "fail"), _row("t", "a", 1, "pass")]
    path = _write(tmp_path / "runs.jsonl", rows)
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"run_record_version": "1", "cell_id": "t::a::2"')  # cut off mid-row
    heard: list[Any] = []
    result = compare_runs(path, on_torn=heard.append)
    assert len(heard) == 1 and len(result.torn) == 1
    assert result.arms["a"].passes == 1 and result.cells == 1


def test_the_json_report_escapes_what_could_drive_a_terminal_and_only_that(tmp_path: Path) -> None:
    from toolscore_agent.compare_report import render_json
    from toolscore_core.reports.text import json_visible

    clean = compare_runs(_write(tmp_path / "clean.jsonl", list(_rows(40))))
    hostile = compare_runs(_write(tmp_path / "hostile.jsonl", [_row("t\u202e\u0085x", "a\u001b[2J", 1, "pass")]))
    for result in (clean, hostile):
        document = json.dumps(result.to_dict(), indent=2, ensure_ascii=False)
        assert render_json(result) == json_visible(document) + "\n"
    text = render_json(hostile)
    assert "\u202e" not in text and "\u0085" not in text and "\u001b" not in text and "\\u202e" in text
