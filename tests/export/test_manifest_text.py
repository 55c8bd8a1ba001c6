"""The manifest's text written by orjson is what ``json.dumps(indent=2)`` writes, byte for byte,
on real manifests and on random prepared values (and anything orjson refuses goes to json)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

from toolscore_export import canonical, export_runs, manifest
from toolscore_export.manifest import manifest_text

ROOT = Path(__file__).resolve().parents[2]
OTEL = ROOT / "tests" / "adapters" / "fixtures" / "otel"


def reference(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, allow_nan=False) + "\n"


def test_orjson_writes_manifests_here() -> None:
    assert manifest._INDENT_FAST  # else the tests below compare json with itself


def test_the_manifest_of_an_export_of_every_otlp_fixture(tmp_path: Path) -> None:
    sources = [*sorted(OTEL.iterdir()), ROOT / "examples" / "otel_genai_spans.json"]
    result = export_runs(sources, tmp_path / "out.jsonl", workers=1)
    assert manifest_text(result.manifest) == reference(result.manifest)
    assert result.manifest_file.read_text(encoding="utf-8") == reference(result.manifest)


TEXTS = ["", "a", "é\u2028\u2029ü\U0001f600", "\ud800", "\x00\x01\x1f\x7f", "line\nbreak\r\t\b\f", "quo\"te\\", "/</"]


def random_value(rng: random.Random, depth: int = 0) -> Any:
    if depth > 4 or rng.random() < 0.4:
        return rng.choice([
            lambda: rng.choice(TEXTS), lambda: rng.randint(-(2**70), 2**70), lambda: rng.randint(-9, 9),
            lambda: rng.random() * 10 ** rng.randint(-30, 30),
            lambda: rng.choice([1.0, -0.0, 0.5, 1e-7, 1e-5, 1e15, 1e16, 1e300, 5e-324, math.nan, math.inf]),
            lambda: None, lambda: rng.choice([True, False]),
        ])()
    items = [random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if rng.random() < 0.5:
        return {rng.choice(TEXTS) + str(i): item for i, item in enumerate(items)}
    return items


def test_random_prepared_values_are_written_as_json_writes_them() -> None:
    rng = random.Random(3)
    for _ in range(3000):
        value = canonical.prepare({"sources": [random_value(rng)], "n": random_value(rng)})
        assert manifest_text(value) == reference(value), value
