"""Sources given twice and a source that is the output: found by device and inode first, always as resolve() finds them."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from toolscore_core import InputError
from toolscore_export import export_runs
from toolscore_export.same_file import SeenPaths, file_id, may_be

TRACE = Path(__file__).resolve().parents[2] / "tests" / "adapters" / "fixtures" / "otel" / "mcp_spans.json"


def maze(root: Path) -> list[Path]:
    """Files, a hard link, symlinks (relative, absolute, to a folder, dangling, a loop) and spellings with ``..``."""
    (root / "d").mkdir()
    (root / "e").mkdir()
    for name in ("a.json", "b.json", "d/c.json"):
        (root / name).write_text("{}", encoding="utf-8")
    os.link(root / "a.json", root / "hard.json")
    (root / "rel.json").symlink_to("a.json")
    (root / "abs.json").symlink_to(root / "d" / "c.json")
    (root / "dir").symlink_to(root / "d", target_is_directory=True)
    (root / "dangling.json").symlink_to("nowhere.json")
    (root / "loop1").symlink_to("loop2")
    (root / "loop2").symlink_to("loop1")
    return [root / "a.json", root / "b.json", root / "d" / "c.json", root / "hard.json", root / "rel.json",
            root / "abs.json", root / "dir" / "c.json", root / "e" / ".." / "a.json", root / "dangling.json",
            root / "missing.json", root / "loop1", root / "d" / ".." / "dir" / "c.json", Path("relative-missing")]


def outcome(call, *args):
    """A value, or that the call raised: a loop is resolve()'s RuntimeError, and SeenPaths' InputError."""
    try:
        return "value", call(*args)
    except (RuntimeError, ValueError):
        return ("raises",)


def resolved_twin(resolved: dict[Path, Path], path: Path) -> Path | None:
    """What the export did: every path resolved, the first path of each resolved path kept."""
    key = path.resolve()
    if key in resolved:
        return resolved[key]
    resolved[key] = path
    return None


def test_an_earlier_twin_is_the_one_resolve_finds_whatever_the_paths(tmp_path):
    paths = maze(tmp_path)
    rng = random.Random(5)
    for _ in range(300):
        order = [rng.choice(paths) for _ in range(rng.randint(1, 8))]
        seen, resolved = SeenPaths(), {}
        for path in order:
            expected = outcome(resolved_twin, resolved, path)
            assert outcome(seen.earlier, path) == expected, (order, path)
            if expected[0] == "raises":
                break


def test_may_be_is_never_false_for_a_path_that_resolves_to_the_target(tmp_path):
    paths = maze(tmp_path)
    for target in paths:
        if not target.exists():
            continue
        for path in paths:
            if path.exists() and path.resolve() == target.resolve():
                assert may_be(path, file_id(target)), (path, target)
    assert not may_be(paths[1], file_id(paths[0]))  # another inode: no resolve needed
    assert may_be(paths[9], file_id(paths[0]))  # a path that cannot be read: resolved and compared


def test_the_export_still_refuses_a_source_given_twice_and_a_source_that_is_the_output(tmp_path):
    source = tmp_path / "t.json"
    source.write_bytes(TRACE.read_bytes())
    (tmp_path / "link.json").symlink_to(source)
    with pytest.raises(InputError) as twice:
        export_runs([source, tmp_path / "link.json"], tmp_path / "out.jsonl")
    assert "given twice" in twice.value.message
    os.link(source, tmp_path / "hard.json")  # the same inode, another path: not the same source by the rule
    assert export_runs([source, tmp_path / "hard.json"], tmp_path / "out.jsonl").records == 2
    with pytest.raises(InputError) as over:
        export_runs([source], tmp_path / "link.json")
    assert "is also a source" in over.value.message
