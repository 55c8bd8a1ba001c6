"""``toolscore demo`` through the real CLI, as a first-time user runs it: the seed's figures,
offline, in seconds."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path


def toolscore(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolscore_core.cli", *args], capture_output=True, text=True,
                          timeout=90, cwd=cwd, encoding="utf-8")


def test_demo_prints_the_seed_scorecard(tmp_path: Path) -> None:
    started = time.monotonic()
    proc = toolscore("demo", cwd=tmp_path)
    elapsed = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    out = proc.stdout
    assert elapsed < 15, elapsed  # "in seconds": typically under 2 s here
    assert "│ MCP Scorecard: notes-server 1.0.0    │" in out
    assert "│ Grade B   Score 87%                  │" in out
    assert "│ happy 80%  |  edge 100%  |  lint 93% │" in out
    rows = dict(re.findall(r"│ (\w+)\s+│\s+(\d+/\d+) │\s+[\d.]+ ms │\s+\d+ │", out))
    assert rows == {"create_note": "6/6", "list_notes": "6/6", "search_notes": "6/6", "delete_note": "6/6",
                    "export_notes": "3/6"}
    tokens = dict(re.findall(r"│ (\w+)\s+│\s+\d+/\d+ │\s+[\d.]+ ms │\s+(\d+) │", out))
    assert tokens == {"create_note": "80", "list_notes": "59", "search_notes": "48", "delete_note": "52",
                      "export_notes": "64"}
    assert "Tool definitions cost ~303 estimated tokens of context across 5 tool(s)." in out
    issues = re.findall(r"^  (\d)\. (\w+)\s+(.+)$", out, re.MULTILINE)
    assert issues == [
        ("1", "export_notes", "fails on valid input (export failed: storage backend not configured)"),
        ("2", "delete_note", "property 'note_id' is missing a 'type'"),
        ("3", "search_notes", "description is very short (< 10 chars)"),
    ]
    assert out.count("     -> ") == 3
    assert 'toolscore mcp test "python your_server.py"' in out
    assert "\x1b[" not in out  # not a terminal: no colour codes in a CI log


def test_demo_can_write_a_report(tmp_path: Path) -> None:
    target = tmp_path / "SCORECARD.md"
    proc = toolscore("demo", "--output", str(target), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# MCP Scorecard\n\nServer: `notes-server 1.0.0`\n")
    assert "Grade B" in proc.stdout  # the console scorecard is still shown
