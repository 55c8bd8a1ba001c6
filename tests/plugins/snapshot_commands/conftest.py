"""Snapshot command tests: the real ``toolscore`` CLI on a temporary project folder.

``cli`` runs a command in this process (click's runner, the installed plugins, the project
as the current directory); ``run_toolscore`` runs the real console entry point in a child
process, for ``record -- CMD`` whose child must inherit a real environment.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from toolscore_pytest.store import Snapshot, SnapshotStore

from toolscore_core.cli import cli as root_cli
from toolscore_core.cli._app import App

TOOLSCORE = [sys.executable, "-m", "toolscore_core.cli"]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty project (a pyproject.toml marks its root), made the current directory."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n", encoding="utf-8")
    monkeypatch.chdir(root)
    monkeypatch.delenv("CI", raising=False)
    return root


@pytest.fixture
def store(project: Path) -> SnapshotStore:
    return SnapshotStore(project / ".toolscore" / "snapshots")


@pytest.fixture
def add_snapshot(store: SnapshotStore) -> Callable[..., Snapshot]:
    def add(name: str, calls: list[dict[str, Any]], *, approved: bool = False, source: str = "pytest") -> Snapshot:
        snapshot = Snapshot(name=name, calls=tuple(calls), approved=approved, source=source)
        store.save(snapshot)
        return snapshot

    return add


@pytest.fixture
def cli() -> Callable[..., Result]:
    def invoke(*args: str, input: str | None = None) -> Result:
        result = CliRunner().invoke(root_cli, list(args), obj=App(), input=input)
        # A traceback is never an answer: anything but SystemExit is a bug.
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result

    return invoke


@pytest.fixture
def run_toolscore(project: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    def run(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        # CI is dropped unless the test sets it: the runner of this suite may have it set.
        full = {k: v for k, v in os.environ.items() if k != "CI"}
        full.update(env or {})
        return subprocess.run([*TOOLSCORE, *args], capture_output=True, text=True, env=full,
                              cwd=project, timeout=timeout)

    return run
