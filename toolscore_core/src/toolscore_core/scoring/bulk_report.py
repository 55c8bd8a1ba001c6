"""The aggregate of a bulk run: what a person (and a CI step) reads after thousands of rows.

Kept separate from the run itself (:mod:`toolscore_core.scoring.bulk`) because it is pure
arithmetic over rows: the same summary comes from rows streamed now and rows read back from
an earlier run's output, and tests can check it against traces scored one by one.

Memory stays flat: scores are kept as floats (8 bytes a trace, for the median), the worst
traces in a bounded heap, everything else as counters.

The summary's ``exit_code`` is the bulk run's verdict: 0 every trace scored at or above its
bar; 1 a trace scored below its bar (``--min-score``, or the gold's ``min_score``) or could
not be scored (its row has an ``error``). Exit 2 (bad invocation) never reaches a summary.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from typing import Any

SUMMARY_MARK = "toolscore_bulk_summary"
SUMMARY_VERSION = 1
BUCKETS = 10  # score distribution in tenths: 0-10%, ..., 90-100% (100% in the last)


class Aggregate:
    """Counts rows as they come; :meth:`summary` is the report of everything added."""

    def __init__(self, *, worst: int = 10) -> None:
        self.worst_n = max(0, worst)
        self.scores: list[float] = []
        self.grades: Counter[str] = Counter()
        self.buckets = [0] * BUCKETS
        self.findings: Counter[str] = Counter()
        self.finding_traces: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.error_examples: list[dict[str, Any]] = []
        self.below_bar = 0
        self._worst: list[tuple[float, str, dict[str, Any]]] = []  # max-heap by (-score, path) of the lowest

    def add(self, row: dict[str, Any]) -> None:
        error = row.get("error")
        if error:
            kind = str(error.get("type", "Error")) if isinstance(error, dict) else "Error"
            self.errors[kind] += 1
            if self.worst_n:  # the first N by path, so the same whatever order rows came in
                message = error.get("message") if isinstance(error, dict) else str(error)
                self.error_examples.append({"path": str(row.get("path")), "type": kind, "message": message})
                if len(self.error_examples) > 2 * self.worst_n:
                    self._trim_examples()
            return
        score = float(row["score"])
        self.scores.append(score)
        self.grades[str(row.get("grade"))] += 1
        self.buckets[min(BUCKETS - 1, int(score * BUCKETS))] += 1
        if row.get("passed") is False:
            self.below_bar += 1
        for code, count in (row.get("findings") or {}).items():
            self.findings[code] += int(count)
            self.finding_traces[code] += 1
        if self.worst_n:
            entry = (-score, str(row.get("path")), {"path": row.get("path"), "score": score,
                                                   "grade": row.get("grade")})
            if len(self._worst) < self.worst_n:
                heapq.heappush(self._worst, entry)
            elif entry[:2] > self._worst[0][:2]:  # a total order: the same N whatever order rows came in
                heapq.heapreplace(self._worst, entry)

    def _trim_examples(self) -> None:
        self.error_examples.sort(key=lambda e: e["path"])
        del self.error_examples[self.worst_n:]

    def summary(self, *, traces: int, new: int, skipped: int, results: str | None) -> dict[str, Any]:
        scores = sorted(self.scores)
        self._trim_examples()
        failed = self.below_bar + sum(self.errors.values())
        return {
            SUMMARY_MARK: SUMMARY_VERSION,
            "results": results,
            "traces": traces,
            "scored_now": new,
            "skipped_resumed": skipped,
            "scored": len(scores),
            "errors": sum(self.errors.values()),
            "below_min_score": self.below_bar,
            "score": _stats(scores),
            "distribution": {_bucket_name(i): n for i, n in enumerate(self.buckets)},
            "grades": dict(sorted(self.grades.items())),
            "worst": [entry for _, _, entry in sorted(self._worst, key=lambda e: (-e[0], e[1]))],
            "findings": {code: {"count": self.findings[code], "traces": self.finding_traces[code]}
                         for code in sorted(self.findings, key=lambda c: (-self.findings[c], c))},
            "errors_by_type": dict(sorted(self.errors.items())),
            "error_examples": self.error_examples,
            "exit_code": 1 if failed else 0,
        }


def _bucket_name(index: int) -> str:
    low = index * 100 // BUCKETS
    return f"{low}-{low + 100 // BUCKETS}%"


def _quantile(scores: list[float], q: float) -> float:
    """Nearest-rank quantile of sorted ``scores`` (a value some trace really has)."""
    rank = max(1, math.ceil(q * len(scores)))
    return scores[rank - 1]


def _stats(scores: list[float]) -> dict[str, float | None]:
    if not scores:
        return {"mean": None, "min": None, "p10": None, "median": None, "p90": None, "max": None}
    return {"mean": math.fsum(scores) / len(scores), "min": scores[0], "p10": _quantile(scores, 0.1),
            "median": _quantile(scores, 0.5), "p90": _quantile(scores, 0.9), "max": scores[-1]}


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def summary_lines(summary: dict[str, Any], *, summary_file: str | None = None) -> list[str]:
    """The summary as plain lines for the terminal (no colour: it goes to CI logs as often)."""
    lines = [f"Traces: {summary['traces']} ({summary['scored_now']} scored now, "
             f"{summary['skipped_resumed']} already in the results), "
             f"{summary['scored']} scored, {summary['errors']} could not be scored"]
    stats = summary["score"]
    if summary["scored"]:
        lines.append("Score: " + "  ".join(f"{name} {_pct(stats[name])}"
                                          for name in ("mean", "min", "p10", "median", "p90", "max")))
        widest = max(summary["distribution"].values()) or 1
        lines.append("Distribution:")
        for name, count in summary["distribution"].items():
            bar = "#" * (0 if not count else max(1, round(30 * count / widest)))
            lines.append(f"  {name:>8} {count:>7} {bar}")
        lines.append("Grades: " + ", ".join(f"{grade} {n}" for grade, n in summary["grades"].items()))
    if summary["findings"]:
        lines.append("Findings by kind (count in traces):")
        for code, seen in summary["findings"].items():
            lines.append(f"  {code:<28} {seen['count']:>7} in {seen['traces']} trace(s)")
    if summary["worst"]:
        lines.append(f"Worst {len(summary['worst'])}:")
        for entry in summary["worst"]:
            lines.append(f"  {_pct(entry['score']):>6} {entry['grade']}  {entry['path']}")
    if summary["errors"]:
        lines.append("Errors: " + ", ".join(f"{kind} {n}" for kind, n in summary["errors_by_type"].items()))
        for example in summary["error_examples"]:
            first = str(example["message"]).splitlines()[0] if example["message"] else ""
            lines.append(f"  {example['path']}: {first}")
    if summary["below_min_score"]:
        lines.append(f"FAIL {summary['below_min_score']} trace(s) scored below the bar")
    if summary_file:
        lines.append(f"Wrote the summary to {summary_file}")
    return lines


__all__ = ["Aggregate", "summary_lines"]
