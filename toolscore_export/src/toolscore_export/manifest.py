"""``OUTPUT.manifest.json``: what an export read, what it wrote, and the hashes that bind them.

The manifest is what makes a records file checkable as a whole: a deleted, added, reordered
or edited line changes the output's SHA-256 and its record count, and the manifest carries
its own hash (``manifest_sha256``, over its canonical JSON with that key absent) so an edit
to the manifest is caught too. It is written after the output is complete and renamed into
place, and any older manifest is removed before the new output replaces the old one: an
interrupted export leaves either the old pair, or a new output without a manifest (which
``toolscore export validate`` reports), never an output with a stale manifest.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolscore_export import canonical
from toolscore_export.canonical import CANONICAL_FORM, prepare, sha256_fast, sha256_prepared
from toolscore_export.record import RECORD_SCHEMA, RECORD_VERSION
from toolscore_export.redaction import shown_text

MANIFEST_SCHEMA = "toolscore.run-record-manifest"
MANIFEST_VERSION = "1"
MANIFEST_SUFFIX = ".manifest.json"
MANIFEST_HASH_KEY = "manifest_sha256"


def manifest_path(output: str | Path) -> Path:
    """``records.jsonl`` -> ``records.jsonl.manifest.json``."""
    out = Path(output)
    return out.with_name(out.name + MANIFEST_SUFFIX)


def build_manifest(*, fmt: str, sources: list[dict[str, Any]], output: Path, output_sha256: str, size: int,
                   records: int, created_at: str) -> dict[str, Any]:
    """The manifest of one export, with its own hash."""
    from toolscore_core import __version__ as core_version
    from toolscore_export import __version__

    manifest: dict[str, Any] = prepare({
        "schema": MANIFEST_SCHEMA,
        "schema_version": MANIFEST_VERSION,
        "tool": {"name": "toolscore-export", "version": __version__, "toolscore_core_version": core_version},
        "created_at": created_at,
        "format": fmt,
        "record_schema": RECORD_SCHEMA,
        "record_schema_version": RECORD_VERSION,
        "canonical_form": CANONICAL_FORM,
        "sources": [],
        "output": {"name": shown_text(output.name), "sha256": output_sha256, "bytes": size, "records": records},
    })
    manifest["sources"] = prepared_sources(sources)  # in its place: the dict keeps the order of its keys
    manifest[MANIFEST_HASH_KEY] = sha256_fast(manifest)  # a prepared value, the key not there yet
    return manifest


def prepared_sources(sources: list[dict[str, Any]]) -> Any:
    """``prepare(sources)``, each source's dict copied as it is when it holds leaves only under
    string keys (what ``SourceStats.to_dict`` gives): ``prepare`` would copy it into an equal one.

    Why: the walk's dict comprehension was 1.0 us a source, this 0.7 us, on an export of
    thousands of small trace files; the check is by exact type, so anything else is prepared.
    """
    if type(sources) is not list:
        return prepare(sources)
    leaves, keys = canonical._LEAVES, canonical._STR_ONLY  # the types tested in C, not by a generator
    return [dict(source) if type(source) is dict and leaves.issuperset(map(type, source.values()))
            and keys.issuperset(map(type, source)) else prepare(source) for source in sources]


def manifest_hash(manifest: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of ``manifest`` without ``manifest_sha256``.

    The strict encoder: a manifest read back from a file may hold what no export writes (NaN,
    ``1.0``), and that must change the hash or fail, never pass. The manifest an export builds
    is prepared, and :func:`build_manifest` hashes it with the fast encoder, whose bytes are the
    same for a prepared value (a manifest of thousands of sources was a tenth of a trace
    file's export for the stdlib encoder's sorted write)."""
    return sha256_prepared({k: v for k, v in manifest.items() if k != MANIFEST_HASH_KEY})


def _dumps_indented(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, allow_nan=False)


def _orjson_indents_alike() -> bool:
    """Whether this orjson writes the probe value indented exactly as :func:`_dumps_indented` does."""
    from toolscore_export import canonical

    if not canonical._FAST:
        return False
    try:
        return bool(canonical._orjson.dumps(canonical._PROBE, option=canonical._orjson.OPT_INDENT_2)
                    == _dumps_indented(canonical._PROBE).encode("utf-8"))
    except (TypeError, ValueError):
        return False


_INDENT_FAST = _orjson_indents_alike()


def manifest_text(manifest: dict[str, Any]) -> str:
    """The manifest file's text: JSON indented by two spaces, keys in their order, non-ASCII as is.

    Written by orjson when it writes the value exactly as ``json.dumps(indent=2)`` does: the
    manifest is a prepared value (see :func:`~toolscore_export.canonical.prepared_bytes`),
    and what orjson refuses (a float it writes differently, a lone surrogate, an integer
    beyond 64 bits) goes to ``json``. Why: with an indent, ``json`` writes in Python, not C,
    and a manifest of thousands of trace files cost a tenth of their export.
    """
    if _INDENT_FAST:
        from toolscore_export.canonical import _orjson

        try:
            return str(_orjson.dumps(manifest, option=_orjson.OPT_INDENT_2).decode("utf-8")) + "\n"
        except TypeError:  # orjson.JSONEncodeError is a TypeError
            pass
    return _dumps_indented(manifest) + "\n"


__all__ = ["MANIFEST_HASH_KEY", "MANIFEST_SCHEMA", "MANIFEST_SUFFIX", "MANIFEST_VERSION", "build_manifest",
           "manifest_hash", "manifest_path", "manifest_text"]
