"""The driver's short cuts per source file (issue 11), each compared with the general path it
stands for: a source's ``stat`` made once and handed on (output check -> duplicate check ->
``look_at``), a small file read by its descriptor, and a source's name taken off its path
string. Random and fixture inputs; no mocks."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from toolscore_export import export_runs
from toolscore_export.same_file import SeenPaths, file_info
from toolscore_export.sources import SourceStats, _name, _read_small, look_at

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "adapters" / "fixtures"
TRACES = sorted(p for p in FIXTURES.rglob("*") if p.is_file())


def _random_path(rng: random.Random) -> str:
    parts = ["", ".", "..", "a", "b.json", "x y", "é", "t.jsonl", "\udcff"]
    text = "/".join(rng.choice(parts) for _ in range(rng.randint(1, 5)))
    return text + rng.choice(["", "/", "/.", "//", "/./"])


def test_name_is_the_paths_name_on_random_and_edge_strings() -> None:
    rng = random.Random(11)
    edges = ["", ".", "..", "/", "//", "///x", "a/.", "a/./", "a/..", "./a", "a//b", "/a/b/", "x.", ".x"]
    for text in edges + [_random_path(rng) for _ in range(3000)]:
        assert _name(text) == Path(text).name, text


def test_source_stats_names_as_the_path_does(tmp_path: Path) -> None:
    for text in ["a/b.json", "a/.", "b/", str(tmp_path / "t.json"), "."]:
        stats = SourceStats(path=text, kind="trace", sha256="0", size=1)
        assert stats.to_dict()["name"] == Path(text).name


@pytest.mark.parametrize("size", [0, 1, 7, 4096, 65536, 65537, 200_001])
def test_read_small_reads_what_open_reads(tmp_path: Path, size: int) -> None:
    data = random.Random(size).randbytes(size)
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    for told in {0, max(size - 1, 0), size, size + 5, 1}:  # the stat may be stale: read to the end all the same
        with path.open("rb") as handle:
            assert _read_small(path, told) == handle.read()


def test_read_small_errors_as_open_does(tmp_path: Path) -> None:
    missing = tmp_path / "gone.json"
    with pytest.raises(FileNotFoundError) as general:
        missing.open("rb")
    with pytest.raises(FileNotFoundError) as fast:
        _read_small(missing, 10)
    assert str(fast.value) == str(general.value)


@pytest.mark.parametrize("path", TRACES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_look_at_with_a_given_stat_is_look_at(path: Path) -> None:
    assert look_at(path, os.stat(path)) == look_at(path)
    twin, info = SeenPaths().earlier_info(path)
    assert twin is None and info is not None and look_at(path, info) == look_at(path)


def test_earlier_info_finds_what_earlier_finds(tmp_path: Path) -> None:
    one = tmp_path / "one.json"
    one.write_text("{}")
    (tmp_path / "sub").mkdir()
    again = tmp_path / "sub" / ".." / "one.json"
    other = tmp_path / "two.json"
    other.write_text("{}")
    paths = [one, other, again, tmp_path / "missing.json", one]
    plain, fast = SeenPaths(), SeenPaths()
    for path in paths:
        found, info = fast.earlier_info(path, file_info(path))
        assert found == plain.earlier(path)
        assert (info is None) == (file_info(path) is None)


def _manifest_without_time(result: object) -> dict:
    manifest = dict(result.manifest)  # type: ignore[attr-defined]
    for key in ("created_at", "manifest_sha256"):
        manifest.pop(key)
    return manifest


@pytest.mark.parametrize("workers", [1, 2])
def test_an_existing_output_changes_nothing(tmp_path: Path, workers: int) -> None:
    """The output check's ``stat`` of each source is handed to the reader only when the output
    exists: the same records and manifest either way, and a source given twice is still caught."""
    trace = (FIXTURES / "otel" / "mcp_spans.json").read_bytes()
    sources = []
    for index in range(30):
        sources.append(tmp_path / f"t{index}.json")
        sources[-1].write_bytes(trace)
    out = tmp_path / "out.jsonl"
    assert not out.exists()
    first = export_runs(sources, out, workers=workers)
    bytes_first = out.read_bytes()
    second = export_runs(sources, out, workers=workers)  # now the output exists
    assert out.read_bytes() == bytes_first and second.records == first.records == 30
    assert _manifest_without_time(second) == _manifest_without_time(first)
    twice = [*sources, tmp_path / "." / "t3.json"]
    with pytest.raises(Exception, match="is given twice") as caught:
        export_runs(twice, out, workers=workers)
    assert str(caught.value.file) == str(twice[-1])  # type: ignore[attr-defined]
