"""``manifest.prepared_sources`` against ``prepare``, the general walk it skips for a source
dict of leaves under string keys (issue 11): equal values of the same types at every place,
on random sources of every shape, and the same manifest bytes either way."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from toolscore_export import export_runs
from toolscore_export.canonical import prepare
from toolscore_export.manifest import build_manifest, manifest_text, prepared_sources

ROOT = Path(__file__).resolve().parents[2]


class Name(str):
    """A str subclass: prepare keeps it as a key but a value of it is not an exact leaf."""


def _shape(value: Any) -> Any:
    """``value`` with every place's exact type beside it: equal shapes mean equal values of equal types."""
    if isinstance(value, dict):
        return ("dict", [(type(k).__name__, k, _shape(v)) for k, v in value.items()])
    if isinstance(value, list | tuple):
        return (type(value).__name__, [_shape(v) for v in value])
    return (type(value).__name__, value)


def _leaf(rng: random.Random) -> Any:
    return rng.choice([None, True, 0, 2**70, "t.json", "caf\u00e9", "\udcff", 0.5, 2.0, Name("n"), (1, 2),
                       [1, "a"], {"k": 1.0}, {3: "x"}, b"raw"])


def _source(rng: random.Random) -> Any:
    if rng.random() < 0.05:
        return _leaf(rng)
    plain = {"path": "data/t.json", "name": "t.json", "kind": "trace", "format": None, "sha256": "ab" * 32,
             "bytes": 8540, "records": 1, "superseded_rows": 0, "skipped_torn_line": rng.choice([None, 3])}
    for _ in range(rng.choice([0, 0, 1, 2])):
        plain[rng.choice(["path", "bytes", "extra", 7, Name("key"), (1, 2)])] = _leaf(rng)
    return plain


def test_prepared_sources_is_prepare_on_random_sources() -> None:
    rng = random.Random(11)
    for _ in range(3000):
        sources = [_source(rng) for _ in range(rng.randint(0, 4))]
        assert _shape(prepared_sources(sources)) == _shape(prepare(sources))
    for odd in [(), ({"a": 1},), "text", None]:
        assert _shape(prepared_sources(odd)) == _shape(prepare(odd))  # type: ignore[arg-type]


def test_prepared_sources_copies_the_dicts() -> None:
    """The manifest must not share a dict with its caller (prepare never does)."""
    given = [{"path": "a", "records": 1}]
    got = prepared_sources(given)
    given[0]["records"] = 2
    assert got == [{"path": "a", "records": 1}]


def _reference(sources: list[Any]) -> str:
    """The manifest built with every source prepared by the general walk first."""
    return manifest_text(build_manifest(fmt="aef", sources=prepare(sources), output=Path("o.jsonl"),
                                        output_sha256="cd" * 32, size=5, records=2, created_at="2026-12-04"))


def test_the_manifest_text_is_the_same_either_way() -> None:
    rng = random.Random(7)
    for _ in range(500):
        sources = [_source(rng) for _ in range(rng.randint(0, 3))]
        built = manifest_text(build_manifest(fmt="aef", sources=sources, output=Path("o.jsonl"),
                                             output_sha256="cd" * 32, size=5, records=2, created_at="2026-12-04"))
        assert built == _reference(sources)


def test_an_exports_manifest_keeps_its_key_order(tmp_path: Path) -> None:
    source = tmp_path / "t.json"
    source.write_bytes((ROOT / "tests" / "adapters" / "fixtures" / "otel" / "mcp_spans.json").read_bytes())
    manifest = export_runs([source], tmp_path / "o.jsonl").manifest
    assert list(manifest) == ["schema", "schema_version", "tool", "created_at", "format", "record_schema",
                              "record_schema_version", "canonical_form", "sources", "output", "manifest_sha256"]
