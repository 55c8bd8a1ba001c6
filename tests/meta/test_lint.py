"""ruff and mypy stay clean: part of the suite, so CI enforces the style rules too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ["toolscore_core/src", "toolscore_adapters/src", "toolscore_mcp/src", "toolscore_agent/src",
           "toolscore_export/src", "plugins/toolscore_providers/src", "examples/third_party_plugin/src"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=900)


def test_ruff_is_clean():
    result = run("ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_mypy_is_clean():
    result = run("mypy", *SOURCES)
    assert result.returncode == 0, result.stdout + result.stderr
