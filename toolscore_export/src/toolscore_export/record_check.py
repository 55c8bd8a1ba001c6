"""A structural fast path for the run-record schema: "surely valid", or "ask the validator".

Why: ``export validate`` spent about half of a record's check in the compiled schema validator
(fastjsonschema), some 125 µs of 250 on a trace's record, for records that are nearly always
exactly what an export wrote. :func:`surely_valid_record` is the same schema
(``schemas/run-record-v1.schema.json``) written out by hand as plain type tests, several times
cheaper. It is one-sided, as :mod:`toolscore_export.row_check` is for run rows: it answers True
only for a record the schema accepts; for anything unusual (``1.0`` where an integer is asked,
a tuple, a NaN, a key it does not expect) it answers False and the caller runs the real
validator, which accepts the record or names the field that broke it. So it can make a valid
record cheaper, never let a bad one through and never change an error.
tests/export/test_record_check_s37.py checks it against fastjsonschema and the reference
``jsonschema`` validator over every field of several records, each mutated many ways.

Each test below mirrors one rule of the schema: integers are exact ``int`` (never ``bool``),
numbers ``int`` or a ``float`` at or above a minimum (a NaN is below none, so it is left to the
validator), ``minLength`` as the schema states, a SHA-256 as 64 lowercase hex digits, and a
timestamp by the very expression fastjsonschema applies for ``date-time``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

_RECORD_KEYS = frozenset({
    "schema", "schema_version", "run_id", "task_id", "variant", "repetition", "study", "attempts", "source",
    "status", "outcome", "passed", "error", "started_at", "finished_at", "turns", "prompt", "final_answer",
    "requested_calls", "completed_calls", "usage", "cost", "server", "evaluation", "trace_context", "coverage",
    "hashes"})
_REQUESTED_KEYS = frozenset({"call_id", "call_id_source", "source_call_id", "index", "tool", "provider_name", "args",
                             "args_sha256", "denied", "deny_reason", "span_id"})
_COMPLETED_KEYS = frozenset({"call_id", "status", "result", "structured", "error", "result_sha256", "duration_s",
                             "cost_usd"})
_VARIANT_KEYS = frozenset({"id", "provider", "model"})
_SOURCE_KEYS = frozenset({"kind", "format", "file", "line"})
_USAGE_KEYS = frozenset({"input_tokens", "output_tokens", "cached_tokens"})
_COST_KEYS = frozenset({"usd", "price"})
_COVERAGE_COUNTS = ("calls", "calls_with_result", "calls_with_duration", "calls_with_cost")
_COVERAGE_FLAGS = ("final_answer_known", "prompt_known", "cost_known")
_COVERAGE_KEYS = frozenset({*_COVERAGE_COUNTS, *_COVERAGE_FLAGS, "unknown"})
_HASHES_KEYS = frozenset({"algorithm", "canonical_form", "source_file", "prompt", "final_answer", "record_sha256"})
_TRACE_CONTEXT_KEYS = frozenset({"trace_id", "span_id"})
_EVALUATION_NUMBERS = ("score", "min_score", "required_call_recall")
_EVALUATION_TEXTS = ("grade", "verdict")

_RUN_STATUSES = frozenset({"completed", "limit_reached", "budget_stopped", "error"})
_OUTCOMES = frozenset({"pass", "fail", "error", "unknown"})
_SOURCE_KINDS = frozenset({"run-row", "trace", "receipt"})
_ID_SOURCES = frozenset({"source", "synthesized"})
_CALL_STATUSES = frozenset({"ok", "error", "denied", "unknown"})

# A value's exact type looked up in a set: the schema's "string or null" without a call.
_TEXT = frozenset({str, type(None)})
_FLAG = frozenset({bool, type(None)})
_HEX = "0123456789abcdef"


@functools.cache
def _date_time() -> Callable[[str], Any]:
    """The match of fastjsonschema's own ``date-time`` expression (draft-07, as the schema states)."""
    from fastjsonschema.draft07 import CodeGeneratorDraft07

    return re.compile(CodeGeneratorDraft07.FORMAT_REGEXS["date-time"]).match


def _sha256(value: Any) -> bool:
    return type(value) is str and len(value) == 64 and not value.strip(_HEX)


def _sha256_or_null(value: Any) -> bool:
    return value is None or _sha256(value)


def _count(value: Any, least: int) -> bool:
    """An integer of at least ``least``, or null."""
    return value is None or (type(value) is int and value >= least)


def _amount(value: Any) -> bool:
    """A number of at least 0, or null (``money``, ``duration_s``)."""
    return value is None or (type(value) is int and value >= 0) or (type(value) is float and value >= 0)


def _number(value: Any) -> bool:
    """A number, or null; a float only when it equals itself (a NaN goes to the validator)."""
    kind = type(value)
    return value is None or kind is int or (kind is float and value == value)


def _timestamp(value: Any) -> bool:
    return value is None or (type(value) is str and _date_time()(value) is not None)


def _requested(call: Any) -> bool:
    if type(call) is not dict or call.keys() != _REQUESTED_KEYS:
        return False
    call_id, source, index, args = call["call_id"], call["call_id_source"], call["index"], call["args"]
    return (type(call_id) is str and call_id != ""
            and type(source) is str and source in _ID_SOURCES
            and type(index) is int and index >= 0
            and type(call["source_call_id"]) in _TEXT and type(call["tool"]) in _TEXT
            and type(call["provider_name"]) in _TEXT and type(call["deny_reason"]) in _TEXT
            and type(call["span_id"]) in _TEXT
            and (args is None or type(args) is dict)
            and _sha256_or_null(call["args_sha256"])
            and type(call["denied"]) is bool)


def _completed(call: Any) -> bool:
    if type(call) is not dict or call.keys() != _COMPLETED_KEYS:
        return False
    call_id, status = call["call_id"], call["status"]
    return (type(call_id) is str and call_id != ""
            and type(status) is str and status in _CALL_STATUSES
            and type(call["error"]) in _TEXT
            and _sha256_or_null(call["result_sha256"])
            and _amount(call["duration_s"]) and _amount(call["cost_usd"]))


def _evaluation(evaluation: Any) -> bool:
    """An object or null; the fields it names typed as the schema types them, any others free."""
    if evaluation is None:
        return True
    if type(evaluation) is not dict:
        return False
    get = evaluation.get
    for key in _EVALUATION_NUMBERS:
        if not _number(get(key)):
            return False
    for key in _EVALUATION_TEXTS:
        if type(get(key)) not in _TEXT:
            return False
    if type(get("passed_min_score")) not in _FLAG:
        return False
    reasons, findings = get("outcome_reasons"), get("findings")
    if reasons is not None and (type(reasons) is not list or not all(type(item) is str for item in reasons)):
        return False
    return findings is None or (type(findings) is list and all(type(item) is dict for item in findings))


def _parts(record: dict[str, Any]) -> bool:
    """The record's objects other than its calls: variant, source, usage, cost, trace context,
    coverage and hashes."""
    variant, source, usage, cost = record["variant"], record["source"], record["usage"], record["cost"]
    context, coverage, hashes = record["trace_context"], record["coverage"], record["hashes"]
    if not (type(variant) is dict and variant.keys() == _VARIANT_KEYS
            and all(type(value) in _TEXT for value in variant.values())):
        return False
    if not (type(source) is dict and source.keys() == _SOURCE_KEYS
            and type(source["kind"]) is str and source["kind"] in _SOURCE_KINDS
            and type(source["format"]) in _TEXT and type(source["file"]) is str and _count(source["line"], 1)):
        return False
    if not (type(usage) is dict and usage.keys() == _USAGE_KEYS and all(_count(value, 0) for value in usage.values())):
        return False
    if not (type(cost) is dict and cost.keys() == _COST_KEYS and _amount(cost["usd"])
            and (cost["price"] is None or type(cost["price"]) is dict)):
        return False
    if not (type(context) is dict and "trace_id" in context and context.keys() <= _TRACE_CONTEXT_KEYS
            and all(type(value) in _TEXT for value in context.values())):
        return False
    if not (type(coverage) is dict and coverage.keys() == _COVERAGE_KEYS
            and all(type(coverage[key]) is int and coverage[key] >= 0 for key in _COVERAGE_COUNTS)
            and all(type(coverage[key]) is bool for key in _COVERAGE_FLAGS)):
        return False
    unknown = coverage["unknown"]
    if not (type(unknown) is list and all(type(item) is str for item in unknown) and len(set(unknown)) == len(unknown)):
        return False
    return (type(hashes) is dict and hashes.keys() == _HASHES_KEYS
            and hashes["algorithm"] == "sha256" and type(hashes["algorithm"]) is str
            and hashes["canonical_form"] == "toolscore-cjson-1" and type(hashes["canonical_form"]) is str
            and _sha256(hashes["source_file"]) and _sha256(hashes["record_sha256"])
            and _sha256_or_null(hashes["prompt"]) and _sha256_or_null(hashes["final_answer"]))


def surely_valid_record(record: Any) -> bool:
    """True only when the run-record schema accepts ``record``; False means "run the validator"."""
    if type(record) is not dict or record.keys() != _RECORD_KEYS:
        return False
    schema, version, run_id, status = record["schema"], record["schema_version"], record["run_id"], record["status"]
    outcome, attempts, server = record["outcome"], record["attempts"], record["server"]
    if not (type(schema) is str and schema == "toolscore.run-record"
            and type(version) is str and version == "1"
            and type(run_id) is str and run_id != ""
            and (status is None or (type(status) is str and status in _RUN_STATUSES))
            and type(outcome) is str and outcome in _OUTCOMES
            and type(record["passed"]) in _FLAG
            and type(attempts) is int and attempts >= 1
            and _count(record["repetition"], 1) and _count(record["turns"], 0)
            and type(record["task_id"]) in _TEXT and type(record["study"]) in _TEXT
            and type(record["error"]) in _TEXT and type(record["prompt"]) in _TEXT
            and type(record["final_answer"]) in _TEXT
            and _timestamp(record["started_at"]) and _timestamp(record["finished_at"])
            and (server is None or type(server) is dict)
            and _evaluation(record["evaluation"])
            and _parts(record)):
        return False
    requested, completed = record["requested_calls"], record["completed_calls"]
    if type(requested) is not list or type(completed) is not list:
        return False
    return all(map(_requested, requested)) and all(map(_completed, completed))  # map: no generator frame


__all__ = ["surely_valid_record"]
