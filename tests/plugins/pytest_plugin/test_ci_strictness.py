"""CI strictness: with CI set, a missing or pending snapshot fails and nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

NAME = "test_snap.py::test_books"


def _text(result: pytest.RunResult) -> str:
    return "\n".join(result.outlines + result.errlines)


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_missing_snapshot_fails_in_ci_and_is_not_created(books, monkeypatch):
    monkeypatch.setenv("CI", "true")
    result = books.runpytest()
    result.assert_outcomes(failed=1)
    assert "does not exist, and snapshots are never created in CI" in _text(result)
    assert "toolscore: 1 failed" in result.outlines
    assert not (Path(books.path) / ".toolscore").exists()


def test_pending_snapshot_fails_in_ci_and_is_not_changed_or_approved(books, store, monkeypatch):
    books.runpytest()
    before = _tree(store.root)
    monkeypatch.setenv("CI", "1")
    monkeypatch.setenv("AGENT_VARIANT", "wrong_tool")  # would be re-recorded locally
    result = books.runpytest()
    result.assert_outcomes(failed=1)
    assert "is pending approval" in _text(result)
    assert _tree(store.root) == before


def test_allow_pending_warns_in_ci_and_writes_nothing(books, store, monkeypatch):
    monkeypatch.setenv("CI", "true")
    result = books.runpytest("--toolscore-allow-pending")
    result.assert_outcomes(passed=1, warnings=1)
    assert "--toolscore-allow-pending: not failing" in _text(result)
    assert "toolscore: 1 missing" in result.outlines
    assert not store.root.exists()
    monkeypatch.delenv("CI")
    books.runpytest()  # recorded locally: pending
    before = _tree(store.root)
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("AGENT_VARIANT", "wrong_arg")
    books.runpytest("--toolscore-allow-pending").assert_outcomes(passed=1, warnings=1)
    assert _tree(store.root) == before and store.load(NAME).approved is False


def test_approved_snapshot_replays_in_ci(books, store, monkeypatch):
    books.runpytest()
    store.approve(NAME)
    monkeypatch.setenv("CI", "true")
    books.runpytest().assert_outcomes(passed=1)
    monkeypatch.setenv("AGENT_VARIANT", "wrong_arg")
    books.runpytest().assert_outcomes(failed=1)


def test_update_is_refused_in_ci(books, store, monkeypatch):
    books.runpytest()
    store.approve(NAME)
    before = _tree(store.root)
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("AGENT_VARIANT", "wrong_tool")
    result = books.runpytest("--toolscore-update")
    result.assert_outcomes(failed=1)
    assert "--toolscore-update is refused in CI" in _text(result)
    assert _tree(store.root) == before


@pytest.mark.parametrize("value", ["false", "0", ""])
def test_ci_false_zero_or_empty_is_not_ci(books, store, monkeypatch, value):
    monkeypatch.setenv("CI", value)
    books.runpytest().assert_outcomes(passed=1, warnings=1)
    assert store.load(NAME) is not None


def test_toolscore_record_allows_recording_a_pending_snapshot_under_ci(books, store, monkeypatch):
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("TOOLSCORE_RECORD", "1")
    books.runpytest().assert_outcomes(passed=1, warnings=1)
    snapshot = store.load(NAME)
    assert snapshot is not None and snapshot.approved is False
