"""The record of a harness run row, built straight from the row's dict: the fast path of runs files.

Why: run rows are nearly every record of a large export, and building each one through a
:class:`~toolscore_export.record.RunInput` (an attrs object of thirty fields, filled from the
row, then read back by the general rules of :func:`~toolscore_export.record.build_record`,
with a function call and an exception guard per hash) cost about a third of a record's time.

:func:`row_record` gives the same dict, key for key and value for value, as
``build_record(run_input_from_row(row, source, attempts=attempts, prepared=True))`` for
every prepared, validated row: it is that code path written out once for a row's own keys.
A differential test (tests/export/test_row_record.py) holds the two together over varied
rows. Every hash here is orjson's bytes, as :func:`~toolscore_export.canonical.sha256_fast`
takes them; a value orjson refuses (a float it writes differently, a lone surrogate) raises
TypeError, and the whole row then takes the general path, which writes it the slow way.
"""

from __future__ import annotations

import hashlib
from typing import Any

from toolscore_export import canonical
from toolscore_export.record import (
    RECORD_HASH_KEY,
    RECORD_SCHEMA,
    RECORD_VERSION,
    coverage,
    fast_calls,
    run_unknowns,
)

_FINAL_KNOWN_STATUSES = ("completed", "limit_reached")  # the harness kept the whole conversation
_RUN_ROW = "run-row"
_UNKNOWN = "unknown"  # an outcome nobody knows


def row_record(row: dict[str, Any], name: str, sha256: str, line: int, attempts: int) -> dict[str, Any]:
    """The record of a prepared (and redacted), validated run row at ``line`` of the file ``name``."""
    if canonical._FAST:
        try:
            return _record(row, name, sha256, line, attempts)
        except TypeError:  # orjson refused a value: the general path writes it
            pass
    return general_record(row, name, sha256, line, attempts)


def general_record(row: dict[str, Any], name: str, sha256: str, line: int, attempts: int) -> dict[str, Any]:
    """:func:`row_record` by the general path (a RunInput, then build_record): the reference."""
    from toolscore_export.record import SourceRef, build_record
    from toolscore_export.sources import run_input_from_row

    source = SourceRef(_RUN_ROW, name, sha256, format=_RUN_ROW, line=line)
    return build_record(run_input_from_row(row, source, attempts=attempts, prepared=True))


def _evaluation(block: Any) -> dict[str, Any] | None:
    """The verdict part of a row's evaluation block (sources._row_evaluation), spelled out: a dict
    display costs less than a comprehension over the keys."""
    if not isinstance(block, dict):
        return None
    get = block.get
    return {"score": get("score"), "grade": get("grade"), "verdict": get("verdict"), "min_score": get("min_score"),
            "passed_min_score": get("passed_min_score"), "required_call_recall": get("required_call_recall"),
            "outcome_reasons": get("outcome_reasons"), "findings": get("findings")}


def _record(row: dict[str, Any], name: str, sha256: str, line: int, attempts: int) -> dict[str, Any]:
    get = row.get
    calls = row["calls"]
    requested, completed, unknown, trace_id, counts = fast_calls(calls)
    usage_in = get("usage") or {}
    if type(usage_in) is not dict:
        usage_in = dict(usage_in)
    used = usage_in.get
    usage = {"input_tokens": used("input_tokens"), "output_tokens": used("output_tokens"),
             "cached_tokens": used("cached_tokens")}  # record.build_record's keys, in its order
    extra = get("extra") or {}
    prompt = extra.get("prompt") if isinstance(extra.get("prompt"), str) else None
    status, outcome, final_answer = row["status"], row["outcome"], get("final_answer")
    final_known = final_answer is not None or status in _FINAL_KNOWN_STATUSES
    started_at, finished_at, cost_usd = get("started_at"), get("finished_at"), get("cost_usd")
    run_unknowns(unknown, (status, prompt, started_at, finished_at), final_known, usage, cost_usd)
    price, server, evaluation = get("price"), get("server"), get("evaluation")
    dumps, sort, sha = canonical._orjson.dumps, canonical._SORTED, hashlib.sha256
    record: dict[str, Any] = {
        "schema": RECORD_SCHEMA,
        "schema_version": RECORD_VERSION,
        "run_id": row["cell_id"],
        "task_id": row["task_id"],
        "variant": {"id": row["arm_id"], "provider": get("provider"), "model": get("model")},
        "repetition": row["repetition"],
        "study": get("study"),
        "attempts": attempts,
        "source": {"kind": _RUN_ROW, "format": _RUN_ROW, "file": name, "line": line},
        "status": status,
        "outcome": outcome,
        "passed": None if outcome == _UNKNOWN else outcome == "pass",
        "error": get("error"),
        "started_at": started_at,
        "finished_at": finished_at,
        "turns": get("turns"),
        "prompt": prompt,
        "final_answer": final_answer,
        "requested_calls": requested,
        "completed_calls": completed,
        "usage": usage,
        "cost": {"usd": cost_usd, "price": dict(price) if price is not None else None},
        "server": dict(server) if server is not None else None,
        "evaluation": _evaluation(evaluation),
        "trace_context": {"trace_id": trace_id},
        "coverage": coverage(len(calls), counts, final_known, prompt is not None, cost_usd is not None, unknown),
        "hashes": {
            "algorithm": "sha256",
            "canonical_form": canonical.CANONICAL_FORM,
            "source_file": sha256,
            "prompt": sha(dumps(prompt, option=sort)).hexdigest() if prompt is not None else None,
            "final_answer": sha(dumps(final_answer, option=sort)).hexdigest() if final_answer is not None else None,
        },
    }
    record["hashes"][RECORD_HASH_KEY] = sha(dumps(record, option=sort)).hexdigest()  # the key is not there yet
    return record


__all__ = ["general_record", "row_record"]
