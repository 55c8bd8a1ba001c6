"""Fixtures of the export tests: run rows written with the kernel's own RunWriter (the harness's format)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolscore_core import GuardDenial, Price, RunCall, RunRow, RunWriter, ServerRecord

GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # a GitHub token shape, built so no scanner flags this file


def row(task: str = "clean-up", arm: str = "careful", repetition: int = 1, **changes: Any) -> RunRow:
    """A realistic finished run: one ok call, one denied call, one call with no answer."""
    fields: dict[str, Any] = dict(
        task_id=task, arm_id=arm, repetition=repetition, status="completed", outcome="pass", order=repetition,
        seed=7, study="notes-offline", provider="scripted", model="scripted",
        started_at="2026-12-02T10:15:00+00:00", finished_at="2026-12-02T10:15:01.250000+00:00", turns=3,
        usage={"input_tokens": 120, "output_tokens": 40, "cached_tokens": None}, cost_usd=0.0,
        price=Price(0.0, 0.0, "scripted (free)"),
        server=ServerRecord(transport="stdio", command=("python", "-m", "sample"), name="notes", version="1.0"),
        final_answer="I could not delete 'old': the guard refused it.",
        calls=(
            RunCall(tool="list_notes", id="toolu_1", args={}, result=[{"type": "text", "text": "old, new"}],
                    is_error=False, duration=0.012),
            RunCall(tool="delete_note", id=None, args={"title": "old"}, denied=True,
                    deny_reason="this study never deletes", is_error=True,
                    error="denied by the harness guard: this study never deletes"),
            RunCall(tool="create_note", id="toolu_3", args={"title": "groceries", "body": 1.0}, result=None,
                    is_error=None, duration=None),
        ),
        guard_denials=(GuardDenial(tool="delete_note", reason="this study never deletes",
                                   args={"title": "old"}),),
        evaluation={"score": 0.95, "grade": "A", "verdict": "PASS", "min_score": 0.9, "passed_min_score": True,
                    "required_call_recall": 1.0, "outcome_reasons": [], "findings": [], "evidence": []},
        toolscore_version="0.1.0",
    )
    fields.update(changes)
    return RunRow(**fields)


def write_rows(path: Path, rows: list[RunRow]) -> Path:
    with RunWriter(path) as writer:
        for item in rows:
            writer.write(item)
    return path


@pytest.fixture
def make_row():
    return row


@pytest.fixture
def rows_file():
    return write_rows


@pytest.fixture
def ghp() -> str:
    return GHP
