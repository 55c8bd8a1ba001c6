"""Baselines: the figures of one accepted run, saved so later runs can be compared with it.

A baseline file is small, versioned JSON written by ``toolscore eval --save-baseline`` and
read by ``toolscore regression``. It holds numbers and names only (never an argument
value, so never a credential)::

    {
      "toolscore_baseline": 1,             # format version; readers refuse newer ones
      "created": "2026-12-02T12:00:00Z",
      "gold_file": "gold.json",            # as given on the command line
      "gold_digest": "sha256:...",         # of the gold file's content (regression warns on change)
      "trace_file": "trace.json",
      "mode": "default",                   # order mode the score was computed with
      "weights": {"selection_accuracy": 0.4, ...},  # weights the score was computed with
      "score": 0.9, "grade": "A", "verdict": "PASS",
      "metrics": {"selection_accuracy": 1.0, "argument_f1": 1.0, "sequence_accuracy": 0.5,
                  "redundancy": 1.0, "identical_rate": 0.0, "required_call_recall": 0.0},
      "counts": {"expected_calls": 2, "actual_calls": 1, "failed_calls": 1,
                 "policy_violations": 0, "credentials": 0}
    }

Its JSON Schema ships as ``toolscore_core/schemas/baseline.schema.json``.

A regression is: the score falls by more than the tolerance, or a run has more policy
violations or more credentials in tool arguments than the baseline had. Each metric's
change is reported, but only the score decides (metrics trade off against each other).

Plugins and scripts use :func:`save_baseline`, :func:`load_baseline` and
:func:`compare_baseline` through ``toolscore_core``; the rest of this module serves the CLI.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any

import attrs

from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.model import Evaluation

BASELINE_VERSION = 1
METRIC_NAMES: tuple[str, ...] = ("selection_accuracy", "argument_f1", "sequence_accuracy", "redundancy",
                                 "identical_rate", "required_call_recall")
COUNT_NAMES: tuple[str, ...] = ("expected_calls", "actual_calls", "failed_calls", "policy_violations",
                                "credentials")
# Counts where more is worse and any increase is a regression.
GATED_COUNTS: tuple[str, ...] = ("policy_violations", "credentials")
# A change smaller than this is floating-point noise, not a change.
EPSILON = 1e-9


def _security(evaluation: Evaluation) -> dict[str, Any]:
    data = evaluation.metrics.get("security_metrics")
    return data if isinstance(data, dict) else {}


def _efficiency(evaluation: Evaluation) -> dict[str, Any]:
    data = evaluation.metrics.get("efficiency_metrics")
    return data if isinstance(data, dict) else {}


def counts(evaluation: Evaluation) -> dict[str, int]:
    """The counts a baseline keeps (how many, never what)."""
    security = _security(evaluation)
    credentials = security.get("secret_count")
    if not isinstance(credentials, int):
        credentials = len(security.get("secrets") or ())
    failed = _efficiency(evaluation).get("error_count")
    if not isinstance(failed, int):
        failed = sum(1 for c in evaluation.actual.calls if c.is_error)
    return {
        "expected_calls": len(evaluation.expected),
        "actual_calls": len(evaluation.actual.calls),
        "failed_calls": failed,
        "policy_violations": len(evaluation.policy_violations),
        "credentials": credentials,
    }


def make_baseline(evaluation: Evaluation, *, gold_file: str | None = None,
                  trace_file: str | None = None) -> dict[str, Any]:
    """The baseline record of ``evaluation`` (what :func:`save_baseline` writes)."""
    now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
    return {
        "toolscore_baseline": BASELINE_VERSION,
        "created": now.isoformat().replace("+00:00", "Z"),
        "gold_file": gold_file,
        "trace_file": trace_file,
        "mode": evaluation.mode,
        "weights": {k: float(v) for k, v in evaluation.weights.items()},
        "score": float(evaluation.score),
        "grade": evaluation.grade,
        "verdict": evaluation.verdict,
        "metrics": {name: float(getattr(evaluation, name)) for name in METRIC_NAMES},
        "counts": counts(evaluation),
    }


def save_baseline(evaluation: Evaluation, path: str | Path, *, gold_file: str | None = None,
                  trace_file: str | None = None) -> dict[str, Any]:
    """Write ``evaluation``'s baseline to ``path`` and return what was written.

    ``gold_file`` and ``trace_file`` are recorded as given (for people reading the file
    later); a file that cannot be written is an :class:`InputError`.
    """
    data = make_baseline(evaluation, gold_file=gold_file, trace_file=trace_file)
    if gold_file is not None:
        from toolscore_core.reports.gold_digest import DIGEST_KEY, gold_digest

        data[DIGEST_KEY] = gold_digest(gold_file)
    from toolscore_core.kernel.files import write_atomic

    # atomic: eight CI jobs saving the same baseline at once leave one whole file, never a mix
    write_atomic(Path(path), json.dumps(data, indent=2) + "\n", what="the baseline")
    return data


def _number(data: dict[str, Any], key: str, file: Path, where: str, *, unit: bool = True) -> float:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (unit and not 0 <= value <= 1):
        raise InputError(f"{key!r} must be a number{' between 0 and 1' if unit else ''}, not {value!r}",
                         file=file, location=f"{where}.{key}" if where != "$" else f"$.{key}")
    return float(value)


def load_baseline(path: str | Path) -> dict[str, Any]:
    """Read and check a baseline file; every problem names the file and the place in it."""
    from toolscore_core.kernel.files import load_data_file

    file = Path(path)
    data = load_data_file(file)
    hint = "Write it with `toolscore eval GOLD TRACE --save-baseline FILE`"
    from toolscore_core.reports import baseline_110

    if baseline_110.is_legacy(data):  # tool-scorer 1.10.0's baselines keep working
        return baseline_110.read_legacy(data, file)
    if not isinstance(data, dict) or "toolscore_baseline" not in data:
        raise InputError("is not a Toolscore baseline (no 'toolscore_baseline' version key)", file=file,
                         location="$", hint=hint)
    version = data["toolscore_baseline"]
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise InputError(f"has an invalid baseline version {version!r}", file=file,
                         location="$.toolscore_baseline", expected="a positive integer")
    if version > BASELINE_VERSION:
        raise InputError(f"is baseline version {version}; this Toolscore reads up to {BASELINE_VERSION}",
                         file=file, location="$.toolscore_baseline", hint="Upgrade Toolscore")
    _number(data, "score", file, "$")
    metrics = data.get("metrics", {})
    if not isinstance(metrics, dict):
        raise InputError("'metrics' must be an object", file=file, location="$.metrics")
    for name in metrics:
        _number(metrics, name, file, "$.metrics")
    counts_ = data.get("counts", {})
    if not isinstance(counts_, dict):
        raise InputError("'counts' must be an object", file=file, location="$.counts")
    for name, value in counts_.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InputError(f"count {name!r} must be a whole number >= 0, not {value!r}", file=file,
                             location=f"$.counts.{name}")
    weights = data.get("weights", {})
    if not isinstance(weights, dict) or not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in weights.values()
    ):
        raise InputError("'weights' must map metric names to numbers", file=file, location="$.weights")
    mode = data.get("mode")
    if mode is not None and not isinstance(mode, str):
        raise InputError("'mode' must be a string", file=file, location="$.mode")
    _check_schema(data, file)
    return data


def _check_schema(data: dict[str, Any], file: Path) -> None:
    """Whatever the checks above did not name: the shipped schema (schemas/baseline.schema.json)."""
    import fastjsonschema

    from toolscore_core.kernel.files import json_path
    from toolscore_core.scoring.contracts import validator

    try:
        validator("baseline")(data)
    except fastjsonschema.JsonSchemaValueException as exc:
        where = json_path([str(p) for p in (exc.path or [])[1:]])
        message = str(exc.message).split(" ", 1)[-1] if str(exc.message).startswith("data") else str(exc.message)
        raise InputError(message, file=file, location=where,
                         expected="a baseline written by `toolscore eval --save-baseline`") from None


@attrs.frozen
class Change:
    name: str
    baseline: float | None
    current: float | None
    regressed: bool

    @property
    def delta(self) -> float | None:
        if self.baseline is None or self.current is None:
            return None
        return self.current - self.baseline


@attrs.frozen
class Comparison:
    """The outcome of ``toolscore regression``: every change, and whether any is a regression."""

    score: Change
    metrics: tuple[Change, ...]
    counts: tuple[Change, ...]
    tolerance: float
    #: True for a tool-scorer 1.10.0 baseline: it has no score, so each metric decides.
    by_metric: bool = False

    @property
    def regressed(self) -> bool:
        return (self.score.regressed or any(c.regressed for c in self.counts)
                or (self.by_metric and any(c.regressed for c in self.metrics)))

    def reasons(self) -> list[str]:
        out: list[str] = []
        if self.score.regressed and self.score.delta is not None:
            out.append(f"score fell {abs(self.score.delta) * 100:.1f} points "
                       f"({self.score.baseline * 100:.1f}% -> {self.score.current * 100:.1f}%), "  # type: ignore[operator]
                       f"more than the tolerance of {self.tolerance * 100:.1f} points")
        for change in self.metrics if self.by_metric else ():
            if change.regressed and change.delta is not None:
                way = "rose" if change.delta > 0 else "fell"
                out.append(f"{change.name} {way} {abs(change.delta) * 100:.1f} points "
                           f"({change.baseline * 100:.1f}% -> {change.current * 100:.1f}%), "  # type: ignore[operator]
                           f"more than the tolerance of {self.tolerance * 100:.1f} points")
        for change in self.counts:
            if change.regressed:
                out.append(f"{change.name.replace('_', ' ')} rose from {int(change.baseline or 0)} "
                           f"to {int(change.current or 0)}")
        return out


def compare_baseline(baseline: dict[str, Any], evaluation: Evaluation, tolerance: float = 0.0) -> Comparison:
    """Compare ``evaluation`` with ``baseline`` (as read by :func:`load_baseline`).

    ``tolerance`` is how far the score may fall (a fraction: 0.02 is two points) before
    it counts as a regression; policy violations and credentials may never rise. A
    tool-scorer 1.10.0 baseline (no score) is compared metric by metric instead.
    """
    if baseline.get("source") is not None:
        return _compare_by_metric(baseline, evaluation, tolerance)
    base_score = float(baseline["score"])
    score = Change("score", base_score, evaluation.score,
                   evaluation.score < base_score - tolerance - EPSILON)
    base_metrics = baseline.get("metrics", {})
    metrics = tuple(
        Change(name, base_metrics.get(name), float(getattr(evaluation, name)), False) for name in METRIC_NAMES
    )
    now = counts(evaluation)
    base_counts = baseline.get("counts", {})
    count_changes = tuple(
        Change(name, base_counts.get(name), float(now[name]),
               name in GATED_COUNTS and now[name] > int(base_counts.get(name, 0)))
        for name in COUNT_NAMES
    )
    return Comparison(score, metrics, count_changes, tolerance)


def _compare_by_metric(baseline: dict[str, Any], evaluation: Evaluation, tolerance: float) -> Comparison:
    """A tool-scorer 1.10.0 baseline: each metric both tools compute, with the tolerance.

    Its counts are unknown, so they are shown and never decide; metrics only tool-scorer
    computed are shown with no current value.
    """
    from toolscore_core.reports.baseline_110 import current_metrics, metric_regressed

    now = current_metrics(evaluation)
    metrics = tuple(
        Change(name, value, now.get(name),
               name in now and metric_regressed(name, value, now[name], tolerance, EPSILON))
        for name, value in baseline.get("metrics", {}).items()
    )
    current_counts = counts(evaluation)
    count_changes = tuple(Change(name, None, float(current_counts[name]), False) for name in COUNT_NAMES)
    return Comparison(Change("score", None, evaluation.score, False), metrics, count_changes, tolerance,
                      by_metric=True)


#: The name ``toolscore regression`` has always used; the public API says ``compare_baseline``
#: because ``from toolscore_core import compare`` would not say what is compared.
compare = compare_baseline


__all__ = [
    "BASELINE_VERSION",
    "Change",
    "Comparison",
    "compare",
    "compare_baseline",
    "counts",
    "load_baseline",
    "make_baseline",
    "save_baseline",
]
