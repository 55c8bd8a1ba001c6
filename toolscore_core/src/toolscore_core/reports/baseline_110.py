"""tool-scorer 1.10.0's baseline files, read by ``toolscore regression`` as they are.

Why: a team moving from tool-scorer keeps its saved baselines in the repository, and CI
runs ``toolscore regression baseline.json trace.json -g gold.json`` unchanged. Those files
look like this (written by 1.10.0's ``eval --save-baseline``)::

    {"version": "1.10.0", "created_at": "...", "gold_file_hash": "<md5 of the gold file's bytes>",
     "metrics": {"invocation_accuracy": 1.0, "selection_accuracy": 1.0, "tool_correctness": 1.0,
                 "sequence_accuracy": 1.0, "argument_f1": 0.67, "argument_precision": 0.67,
                 "argument_recall": 0.67, "redundant_rate": 0.0},
     "metadata": {"gold_calls_count": 2, "trace_calls_count": 2}}

They hold no overall score, weights or counts, so a run is compared with one metric by
metric (as 1.10.0 did): a metric Toolscore also computes regresses when it moves the wrong
way by more than the tolerance (``redundant_rate`` the other way round: lower is better).
Metrics Toolscore does not compute (``invocation_accuracy``, ``tool_correctness``,
``semantic_score``) are shown and not compared. The gold-file MD5 is kept as an
``md5:`` digest, so ``regression`` still warns when the gold file changed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.model import Evaluation

#: The ``source`` a normalised record carries, and how messages name the file's origin.
SOURCE = "tool-scorer 1.10.0"
#: Metrics where a rise is the regression.
LOWER_IS_BETTER = frozenset({"redundant_rate"})
_MD5_HEX = frozenset("0123456789abcdef")


def is_legacy(data: Any) -> bool:
    """Whether ``data`` has the shape of a tool-scorer baseline (and not of ours)."""
    return (isinstance(data, dict) and "toolscore_baseline" not in data and isinstance(data.get("metrics"), dict)
            and any(key in data for key in ("gold_file_hash", "created_at", "version")))


def read_legacy(data: dict[str, Any], file: Path) -> dict[str, Any]:
    """Check a tool-scorer baseline and return it in the shape :func:`load_baseline` returns."""
    metrics: dict[str, float] = {}
    for name, value in data["metrics"].items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise InputError(f"metric {name!r} must be a number between 0 and 1, not {value!r}", file=file,
                             location=f"$.metrics.{name}")
        metrics[str(name)] = float(value)
    digest = data.get("gold_file_hash")
    if digest is not None and not isinstance(digest, str):
        raise InputError(f"'gold_file_hash' must be a string, not {digest!r}", file=file,
                         location="$.gold_file_hash")
    digest = (digest or "").strip().lower()
    if digest and (len(digest) != 32 or not set(digest) <= _MD5_HEX):
        raise InputError("'gold_file_hash' is not an MD5 digest (32 hex digits)", file=file,
                         location="$.gold_file_hash")
    created = data.get("created_at")
    return {
        "toolscore_baseline": 1,
        "source": SOURCE,
        "version": data.get("version") if isinstance(data.get("version"), str) else None,
        "created": created if isinstance(created, str) else None,
        "gold_file": None,
        "gold_digest": f"md5:{digest}" if digest else None,
        "score": None,
        "metrics": metrics,
        "counts": {},
        "weights": {},
        "mode": None,
    }


def current_metrics(evaluation: Evaluation) -> dict[str, float]:
    """The run's figures under tool-scorer's names (only those Toolscore computes)."""
    details: dict[str, Any] = {}
    entry = evaluation.metrics.get("argument_f1")
    if isinstance(entry, dict) and isinstance(entry.get("details"), dict):
        details = entry["details"]
    out = {
        "selection_accuracy": float(evaluation.selection_accuracy),
        "sequence_accuracy": float(evaluation.sequence_accuracy),
        "argument_f1": float(evaluation.argument_f1),
        "redundant_rate": 1.0 - float(evaluation.redundancy),
    }
    for name in ("precision", "recall"):
        value = details.get(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[f"argument_{name}"] = float(value)
    return out


def metric_regressed(name: str, baseline: float, current: float, tolerance: float, epsilon: float) -> bool:
    """Whether ``current`` moved the wrong way from ``baseline`` by more than ``tolerance``."""
    if name in LOWER_IS_BETTER:
        return current > baseline + tolerance + epsilon
    return current < baseline - tolerance - epsilon


__all__ = ["LOWER_IS_BETTER", "SOURCE", "current_metrics", "is_legacy", "metric_regressed", "read_legacy"]
