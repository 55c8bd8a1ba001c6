"""The scaffolded suite really passes: ``toolscore init`` in a temporary project per
framework, then a real ``python -m pytest -q`` in that folder (CI unset) records a pending
snapshot; once approved, the same suite replays under CI and fails on drift."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from toolscore_pytest.init.frameworks import lookup

CREATED = "toolscore: 1 snapshot created (pending approval)"
TEST_FILE = "tests/test_toolscore_snapshots.py"
Runner = Callable[..., subprocess.CompletedProcess[str]]


def _snapshots(root: Path) -> Any:
    from toolscore_pytest.store import SnapshotStore

    return SnapshotStore(root / ".toolscore" / "snapshots")


@pytest.mark.parametrize("key", ["openai", "anthropic", "langgraph", "pydantic_ai", "openai_agents",
                                 "claude_agent_sdk", "crewai", "mcp"])
def test_scaffold_from_declared_dependency_passes_first_run(tmp_path: Path, key: str, init_cli: Callable[..., Any],
                                                            run_pytest: Runner,
                                                            projects: dict[str, tuple[str, str]]) -> None:
    # Half the frameworks declared in pyproject.toml, half in requirements.txt: no import anywhere.
    if key in ("openai", "langgraph", "openai_agents", "crewai"):
        (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "demo"\ndependencies = ["{projects[key][1]}"]\n')
        where = "pyproject.toml"
    else:
        (tmp_path / "requirements.txt").write_text(projects[key][1] + "\n")
        where = "requirements.txt"
    result = init_cli(str(tmp_path))
    assert result.exit_code == 0, result.output
    assert f"Detected framework: {lookup(key).label} (dependency in {where})" in result.output  # type: ignore[union-attr]
    assert "Next: run `pytest`" in result.output

    done = run_pytest(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert CREATED in done.stdout
    assert "1 passed" in done.stdout
    [snapshot] = _snapshots(tmp_path).pending()
    assert snapshot.name == f"{TEST_FILE}::test_books_a_flight"
    assert [c["tool"] for c in snapshot.calls] == ["search_flights"]


def test_generic_scaffold_passes_first_run(tmp_path: Path, init_cli: Callable[..., Any], run_pytest: Runner) -> None:
    assert init_cli(str(tmp_path)).exit_code == 0
    done = run_pytest(tmp_path)
    assert done.returncode == 0 and CREATED in done.stdout, done.stdout + done.stderr


def test_approved_scaffold_replays_in_ci_and_fails_on_drift(tmp_path: Path, init_cli: Callable[..., Any],
                                                            run_pytest: Runner) -> None:
    (tmp_path / "agent.py").write_text("from openai import OpenAI\n")
    assert init_cli(str(tmp_path)).exit_code == 0

    in_ci = run_pytest(tmp_path, {"CI": "true"})  # the workflow's run before anything is approved
    assert in_ci.returncode != 0, in_ci.stdout
    assert not (tmp_path / ".toolscore" / "snapshots").exists() or _snapshots(tmp_path).list() == []

    assert run_pytest(tmp_path).returncode == 0
    approved = _snapshots(tmp_path).approve_all()
    assert len(approved) == 1

    replay = run_pytest(tmp_path, {"CI": "true"})
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "1 passed" in replay.stdout and CREATED not in replay.stdout

    test_file = tmp_path / TEST_FILE
    source = test_file.read_text()
    assert source.count('"NYC"') == 1  # the destination inside the sample's JSON arguments
    test_file.write_text(source.replace('"NYC"', '"BOS"'))
    drift = run_pytest(tmp_path, {"CI": "true"})
    assert drift.returncode == 1, drift.stdout + drift.stderr
    assert "1 failed" in drift.stdout and "BOS" in drift.stdout


def test_the_seed_quickstart_loop(tmp_path: Path, run_pytest: Runner) -> None:
    """The README's loop with the installed console scripts: toolscore init, pytest,
    toolscore approve --all, pytest (here with CI set, as the scaffolded workflow runs it)."""
    import sys

    toolscore = str(Path(sys.executable).with_name("toolscore"))
    (tmp_path / "requirements.txt").write_text("langgraph>=0.3\n")
    init = subprocess.run([toolscore, "init"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert init.returncode == 0 and "Detected framework: LangGraph" in init.stdout, init.stdout + init.stderr
    first = run_pytest(tmp_path)
    assert first.returncode == 0 and CREATED in first.stdout, first.stdout + first.stderr
    approve = subprocess.run([toolscore, "approve", "--all"], cwd=tmp_path, capture_output=True, text=True,
                             timeout=60)
    assert approve.returncode == 0, approve.stdout + approve.stderr
    assert _snapshots(tmp_path).pending() == [] and len(_snapshots(tmp_path).list()) == 1
    replay = run_pytest(tmp_path, {"CI": "true"})
    assert replay.returncode == 0 and "1 passed" in replay.stdout, replay.stdout + replay.stderr
