"""A path that names no file says why: missing, a directory, a link to a missing file, or a link
that leads back to itself; exit 2, never a traceback.

``toolscore validate`` of a symbolic link that loops said "file not found" (the link is right
there), and a gold that loops said "cannot be read (Too many levels of symbolic links)"; a link
to a missing file said "file not found". The export already named the loop; every command now
says the same.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolscore_core import InputError
from toolscore_core.kernel.files import not_a_file, read_text
from toolscore_core.kernel.jsonl import iter_json_objects

LOOP = "is a symbolic link that leads back to itself"
DANGLING = "is a symbolic link to a file that does not exist"
GOLD = [{"tool": "search", "args": {"q": "x"}}]


@pytest.fixture
def paths(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "gold.json").write_text(json.dumps(GOLD), encoding="utf-8")
    (tmp_path / "trace.json").write_text(json.dumps([{"tool": "search", "args": {"q": "x"}}]), encoding="utf-8")
    (tmp_path / "loop.json").symlink_to("loop.json")
    (tmp_path / "a.json").symlink_to("b.json")
    (tmp_path / "b.json").symlink_to("a.json")
    (tmp_path / "dangling.json").symlink_to("nowhere.json")
    (tmp_path / "folder").mkdir()
    return {"gold": tmp_path / "gold.json", "trace": tmp_path / "trace.json", "loop": tmp_path / "loop.json",
            "pair": tmp_path / "a.json", "dangling": tmp_path / "dangling.json", "folder": tmp_path / "folder",
            "missing": tmp_path / "missing.json"}


EXPECTED = {"loop": LOOP, "pair": LOOP, "dangling": DANGLING, "folder": "is a directory, not a file",
            "missing": "file not found"}


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "TOOLSCORE_DEBUG"}
    return subprocess.run([sys.executable, "-m", "toolscore_core.cli", *map(str, args)], capture_output=True,
                          text=True, env=env, timeout=120)


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_not_a_file_says_which_kind_of_path_it_is(paths, kind):
    error = not_a_file(paths[kind])
    assert isinstance(error, InputError) and EXPECTED[kind] in str(error) and paths[kind].name in str(error)


@pytest.mark.parametrize("kind", ["loop", "pair", "dangling", "missing"])
def test_reading_text_or_json_lines_names_the_link(paths, kind):
    for read in (read_text, lambda path: list(iter_json_objects(path))):
        with pytest.raises(InputError, match=EXPECTED[kind]):
            read(paths[kind])


@pytest.mark.parametrize("kind", ["loop", "dangling", "folder", "missing"])
def test_validate_and_eval_say_what_the_path_is(paths, kind):
    for args in (("validate", paths[kind]), ("eval", paths["gold"], paths[kind]), ("eval", paths[kind], paths["trace"])):
        done = cli(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert EXPECTED[kind] in done.stderr and "Traceback" not in done.stderr, (args, done.stderr)


def test_a_link_to_a_file_is_read_as_the_file(paths, tmp_path):
    (tmp_path / "linked.json").symlink_to("trace.json")
    done = cli("eval", paths["gold"], tmp_path / "linked.json")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("kind", ["loop", "dangling", "folder", "missing"])
def test_the_export_says_what_a_source_or_gold_path_is(paths, kind, tmp_path):
    for args in (("export", paths[kind], "-o", tmp_path / "out.jsonl"),
                 ("export", paths["trace"], "--gold", paths[kind], "-o", tmp_path / "out.jsonl")):
        done = cli(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert EXPECTED[kind] in done.stderr and "Traceback" not in done.stderr, (args, done.stderr)
    assert "--gold names the gold file" in done.stderr
