"""The hash an export gives its manifest is the one the strict check recomputes, whatever its sources hold.

``build_manifest`` hashes the manifest it built (a prepared value) with the fast encoder;
``manifest_hash``, which ``toolscore export verify`` uses on a manifest read back, keeps the
strict stdlib encoder. Random source lists (non-ASCII and undecodable names, lone surrogates,
integers past 64 bits, floats orjson writes differently, nulls) must give the same hash both
ways, and the manifest an export writes must pass the check.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from toolscore_export import canonical
from toolscore_export.manifest import MANIFEST_HASH_KEY, build_manifest, manifest_hash

NAMES = ["runs.jsonl", "trace-01.json", "caf\u00e9/\U0001f600.json", "bad-\udcff.json", "\u2028", "q\"uote\\d", "C:\\x"]


def source(rng: random.Random) -> dict[str, Any]:
    name = rng.choice(NAMES) + rng.choice(["", str(rng.randrange(10**6))])
    return {"path": "data/" + name, "name": name, "kind": rng.choice(["run-row", "trace", "receipt"]),
            "format": rng.choice([None, "otel", "aef"]), "sha256": f"{rng.getrandbits(256):064x}",
            "bytes": rng.choice([0, 8540, 2**40, 2**64 + 3]), "records": rng.randrange(5000),
            "superseded_rows": rng.choice([0, 1, 10**20]), "skipped_torn_line": rng.choice([None, 7]),
            "extra": rng.choice([None, 0.5, canonical.normal_number(3e-6), canonical.normal_number(2.0), True])}


def built(sources: list[dict[str, Any]], created_at: str = "2026-12-04T18:00:00+00:00") -> dict[str, Any]:
    return build_manifest(fmt="aef", sources=sources, output=Path("out") / "records.jsonl",
                          output_sha256="ab" * 32, size=123, records=len(sources), created_at=created_at)


@pytest.mark.parametrize("seed", range(4))
def test_a_built_manifest_carries_the_hash_the_strict_encoder_gives(seed: int) -> None:
    rng = random.Random(seed)
    for count in (0, 1, 2, 5, 40, 300):
        manifest = built([source(rng) for _ in range(count)])
        assert manifest[MANIFEST_HASH_KEY] == manifest_hash(manifest)


def test_one_changed_source_changes_the_hash() -> None:
    rng = random.Random(7)
    sources = [source(rng) for _ in range(20)]
    first = built(sources)[MANIFEST_HASH_KEY]
    sources[11] = {**sources[11], "records": sources[11]["records"] + 1}
    assert built(sources)[MANIFEST_HASH_KEY] != first


def test_an_exported_manifest_passes_the_check(tmp_path: Path) -> None:
    from toolscore_export import export_runs

    root = Path(__file__).resolve().parents[1] / "adapters" / "fixtures" / "otel"
    traces = sorted(root.glob("*.json"))[:4]
    result = export_runs(traces, tmp_path / "records.jsonl", workers=1)
    written = json.loads(result.manifest_file.read_text(encoding="utf-8"))
    assert written[MANIFEST_HASH_KEY] == manifest_hash(written) == result.manifest[MANIFEST_HASH_KEY]
    assert len(written["sources"]) == len(traces)
