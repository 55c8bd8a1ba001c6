"""A source that is a symbolic link leading back to itself is a named error (exit 2), never a
traceback: resolving it to compare it with the other sources raised Python's own error."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink"), reason="symbolic links")


@pytest.mark.parametrize("first", [False, True])
def test_a_symlink_loop_among_the_sources_is_named(tmp_path, make_row, first):
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps(make_row().to_dict()) + "\n", encoding="utf-8")
    loop, back = tmp_path / "loop.jsonl", tmp_path / "back.jsonl"
    os.symlink(back, loop)
    os.symlink(loop, back)
    sources = [loop] if first else [runs, loop]
    done = subprocess.run([sys.executable, "-m", "toolscore_core.cli", "export", *map(str, sources),
                           "-o", str(tmp_path / "out.jsonl")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "loop.jsonl: is a symbolic link that leads back to itself" in done.stderr
    assert not (tmp_path / "out.jsonl").exists()
