"""Build one neutral run record (``toolscore.run-record`` version 1) from what a source holds.

Every source kind (a harness run row, a trace file, an evaluation receipt) is first turned
into a :class:`RunInput`, the few facts a record is made of, so the rules below are written
once:

- **requested and completed calls, one each per call, correlated by ``call_id``.** A call
  without an id, or whose id an earlier call of the run already used, gets ``call-<n>``
  (``n`` its 1-based position) and ``call_id_source: "synthesized"``; the source's own id,
  if any, stays in ``source_call_id``. An importer can then join the two lists on one key.
- **Unknown is null and is listed.** A call whose answer was not captured has status
  ``unknown`` (never ``ok``); a cost nobody knows is ``null`` (never ``0``); and
  ``coverage.unknown`` names every field that is unknown, so "no value" is never read as
  "empty" or "zero".
- **Credentials are redacted before anything is hashed or written**, so a record's hashes
  are the hashes of exactly what the file holds.
- **Every hash is SHA-256 over the canonical JSON** of :mod:`toolscore_export.canonical`;
  ``hashes.record_sha256`` is taken over the record with that one key absent.
"""

from __future__ import annotations

import hashlib
import operator
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from toolscore_core.kernel.model import draft_of, fills_soundly
from toolscore_export import canonical
from toolscore_export.canonical import (
    CANONICAL_FORM,
    is_prepared,
    prepare,
    prepared_bytes,
    sha256_fast,
    sha256_prepared,
)
from toolscore_export.redaction import can_skip_redaction, may_hold_a_secret

RECORD_SCHEMA = "toolscore.run-record"
RECORD_VERSION = "1"
RECORD_HASH_KEY = "record_sha256"
CALL_STATUSES = ("ok", "error", "denied", "unknown")


@attrs.frozen(slots=True)
class SourceRef:
    """Where a record came from: the source kind, its format, the file's name, line and hash."""

    kind: str  # run-row | trace | receipt
    name: str  # the file's name only (a full path could carry a user's home directory)
    sha256: str
    format: str | None = None
    line: int | None = None


@attrs.frozen(slots=True)
class RunInput:
    """The facts of one run, whatever the source; ``None`` always means unknown.

    ``calls`` are dicts with the run row's call keys (``id, tool, provider_name, args,
    result, structured, is_error, error, duration, denied, deny_reason``) plus optional
    ``span_id``, ``trace_id`` and ``cost_usd``. ``final_answer_known`` separates "the model
    gave no text" (known, null) from "the source did not capture it" (unknown).
    """

    run_id: str
    source: SourceRef
    outcome: str = "unknown"
    task_id: str | None = None
    arm_id: str | None = None
    provider: str | None = None
    model: str | None = None
    repetition: int | None = None
    study: str | None = None
    attempts: int = 1
    status: str | None = None
    error: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    turns: int | None = None
    prompt: str | None = None
    final_answer: str | None = None
    final_answer_known: bool = False
    calls: Sequence[Mapping[str, Any]] = ()
    usage: Mapping[str, Any] | None = None
    cost_usd: float | None = None
    price: Mapping[str, Any] | None = None
    server: Mapping[str, Any] | None = None
    evaluation: Mapping[str, Any] | None = None
    trace_id: str | None = None
    span_source: bool = False  # the source is made of spans: the record says which is the run's (or null)
    span_id: str | None = None  # the run's own span (the agent's, else the root), when span_source
    prepared: bool = False  # every value is prepared and redacted already (the fast path for run rows)


_RunInputDraft = draft_of(RunInput)  # a RunInput being filled (see trace_run_input)
_TRACE_RUN_FIELDS = ("run_id", "source", "outcome", "task_id", "arm_id", "provider", "model", "repetition", "study",
                     "attempts", "status", "error", "started_at", "finished_at", "turns", "prompt", "final_answer",
                     "final_answer_known", "calls", "usage", "cost_usd", "price", "server", "evaluation", "trace_id",
                     "span_source", "span_id", "prepared")
_DRAFTS_SOUND = fills_soundly(_RunInputDraft, RunInput, _TRACE_RUN_FIELDS)


def trace_run_input(run_id: str, source: SourceRef, outcome: str, task_id: str | None, final_answer: str | None,
                    calls: Sequence[Mapping[str, Any]], evaluation: Mapping[str, Any] | None, trace_id: str | None,
                    span_source: bool, span_id: str | None, prepared: bool) -> RunInput:
    """``RunInput(run_id=run_id, ...)`` of a trace (every other field at its default), made as a
    draft: plain slot stores, then ``__class__`` (the kernel's ``model.draft_of``).

    Why: a RunInput made by its frozen ``__init__`` stores 28 fields through ``__setattr__``,
    about 3 us of a trace's record in a worker; the draft, a fraction of it. What it hands
    out is a RunInput in every way (a test compares both constructions field by field).
    """
    if not _DRAFTS_SOUND:
        return RunInput(run_id=run_id, source=source, outcome=outcome, task_id=task_id, final_answer=final_answer,
                        calls=calls, evaluation=evaluation, trace_id=trace_id, span_source=span_source,
                        span_id=span_id, prepared=prepared)
    run = _RunInputDraft()
    run.run_id, run.source, run.outcome, run.task_id = run_id, source, outcome, task_id
    run.arm_id = run.provider = run.model = run.repetition = run.study = None
    run.attempts = 1
    run.status = run.error = run.started_at = run.finished_at = run.turns = run.prompt = None
    run.final_answer, run.final_answer_known, run.calls = final_answer, False, calls
    run.usage = run.cost_usd = run.price = run.server = None
    run.evaluation, run.trace_id, run.span_source, run.span_id, run.prepared = (evaluation, trace_id, span_source,
                                                                                span_id, prepared)
    run.__class__ = RunInput
    return run


def _redactor() -> Any:
    from toolscore_core import redact_text

    return redact_text


def call_status(call: Mapping[str, Any]) -> str:
    """``denied`` (the guard refused it), ``error``/``ok`` (the answer said so), else ``unknown``."""
    if call.get("denied"):
        return "denied"
    is_error = call.get("is_error")
    if is_error is True:
        return "error"
    if is_error is False:
        return "ok"
    return "unknown"


def correlate_ids(calls: Sequence[Mapping[str, Any]]) -> list[tuple[str, str, str | None]]:
    """``(call_id, call_id_source, source_call_id)`` per call: unique ids, synthesized where needed."""
    given = [i if isinstance(i := c.get("id"), str) and i else None for c in calls]
    taken = set(given)
    taken.discard(None)
    if len(taken) == len(given):  # every call has an id of its own (none is None): nothing to synthesize
        return [(g, "source", g) for g in given if g is not None]
    used: set[str] = set()
    out: list[tuple[str, str, str | None]] = []
    for n, source_id in enumerate(given, start=1):
        if source_id is not None and source_id not in used:
            used.add(source_id)
            out.append((source_id, "source", source_id))
            continue
        candidate, k = f"call-{n}", 1
        while candidate in taken or candidate in used:  # never collide with a real id
            k += 1
            candidate = f"call-{n}-{k}"
        used.add(candidate)
        out.append((candidate, "synthesized", source_id))
    return out


def redacted_copy(value: Any, text: Any) -> Any:
    """``prepare(value, text)`` for a redactor ``text``, cheaper when nothing in it can be a credential.

    The value is prepared without redaction first and written as JSON once; only when that
    text could hold a credential (:func:`~toolscore_export.redaction.may_hold_a_secret`,
    the test a run row's raw line gets) is every string redacted, which gives the same
    value as redacting in the first walk (the walk is idempotent on a prepared value).
    Why: a large OTLP trace has tens of thousands of calls, and scanning each of their
    strings on its own was a third of its export.
    """
    plain = prepare(value)
    if not may_hold_a_secret(prepared_bytes(plain, sort_keys=False).decode("utf-8", "surrogatepass")):
        return plain
    return prepare(plain, text)


def redacted_calls(calls: Sequence[Mapping[str, Any]], text: Any) -> list[Any]:
    """``[redacted_copy(dict(c), text) for c in calls]``, with one credential test for all the calls.

    Why: each call's own test (its JSON text searched for every anchor) cost a third of
    building an OTLP record. Here the calls are prepared and written as one JSON list; when
    that text holds no escape and no anchor (:data:`~toolscore_export.redaction.ESCAPES`,
    :func:`~toolscore_export.redaction.has_anchor`), neither does any call's own text, a part
    of it (a number is written with digits, ``.``, ``e``, ``+`` and ``-`` alone, which make no
    anchor whichever encoder writes it), so each call's test would have found nothing to
    redact and its copy is the plain one. An anchor anywhere, even a harmless one, sends every
    call through its own test, as before.
    """
    plain = plain_calls(calls)
    if can_skip_redaction(prepared_bytes(plain, sort_keys=False)):
        return plain
    return [redacted_copy(dict(call), text) for call in calls]


def plain_calls(calls: Sequence[Mapping[str, Any]]) -> list[Any]:
    """``[prepare(dict(c)) for c in calls]`` without the copy of a call that is a dict already
    (prepare builds a new dict from it either way)."""
    return [prepare(call) if type(call) is dict else prepare(dict(call)) for call in calls]


def _redactable(run: RunInput) -> list[Any]:
    """The run-level values :func:`build_record` redacts, as it hands them to ``prepare``."""
    return [run.run_id, run.task_id, run.arm_id, run.study, run.source.name, run.error, run.prompt,
            run.final_answer, dict(run.usage or {}), dict(run.price) if run.price is not None else None,
            dict(run.server) if run.server is not None else None,
            dict(run.evaluation) if run.evaluation is not None else None]


def redacted_run(run: RunInput) -> tuple[list[Any], list[Any]]:
    """The run's calls and its :func:`_redactable` values, prepared and redacted, with one
    credential test for all of them.

    Why: a trace's record redacts its calls and up to twelve run-level values (its name,
    prompt, answer, usage...), and each string's own scan cost more than the rest of the
    record. The argument of :func:`redacted_calls` holds for the values as for the calls:
    when the JSON text of all of them together holds no escape and no anchor, no part of it
    does, so redacting would change nothing and the plain copies are the redacted ones.
    Otherwise each is redacted as before, the calls by :func:`redacted_calls`.
    """
    calls = plain_calls(run.calls)
    values = prepare(_redactable(run))  # a list is prepared item by item: one call, leaves kept inline
    if can_skip_redaction(prepared_bytes([calls, values], sort_keys=False)):
        return calls, values
    text = _redactor()
    return redacted_calls(run.calls, text), [prepare(value, text) for value in _redactable(run)]


def clean_prepared(calls: Sequence[Mapping[str, Any]], values: list[Any]) -> bool:
    """True when ``calls`` (a list of dicts) and ``values`` are prepared already
    (:func:`~toolscore_export.canonical.is_prepared`) and none of their strings can hold a
    credential: a run of them may then be given to :func:`build_record` as prepared.

    Why: :func:`redacted_run` would copy such calls and values into equal ones and, by the
    same test of the same JSON text, redact nothing, which is the larger part of building a
    trace's record. ``values`` must hold the strings of the run's :func:`_redactable` values
    (the anchor test reads strings only: no anchor spans two JSON tokens, so any arrangement
    of the same strings gives its answer). A trace call's own keys, the same constants in
    every call, hold no anchor (a test checks it) and are left out of the text: 40% of it; so
    is its duration when a number. Its fields that are usually leaves are fetched and their
    types tested at once, in C (field by field, they were half of the test).
    """
    if type(calls) is not list:
        return False
    leaves, normal = canonical._LEAVES, canonical.normal_number
    scanned: list[Any] = []
    for call in calls:  # a loop: a generator is a frame of its own on Python 3.11
        if type(call) is dict and len(call) == _TRACE_CALL_SIZE:  # a trace call's keys, if each of them is found
            try:
                head, args, duration = _head_fields(call), call["args"], call["duration"]
            except KeyError:
                head = None
            if (head is not None and leaves.issuperset(map(type, head)) and (args is None or is_prepared(args))
                    and (type(duration) in _NUMBER_LEAVES or (type(duration) is float and normal(duration) is duration))):
                scanned.append(head)  # its keys are the constants, with no anchor: not scanned
                scanned.append(args)  # nor its duration, a number (digits, '.', 'e', '+' and '-' make no anchor)
                continue
        if not is_prepared(call):
            return False
        scanned.append(call)
    return is_prepared(values) and can_skip_redaction(prepared_bytes([scanned, values], sort_keys=False))


# The keys of a trace's calls (sources.trace_calls): those that are usually leaves (their types
# tested at once, in C), then the arguments (walked) and the duration (a number). A dict of
# thirteen keys in which each of them is found has exactly these keys.
_HEAD_FIELDS = ("id", "tool", "provider_name", "is_error", "error", "denied", "deny_reason", "span_id", "trace_id",
                "result", "structured")
_TRACE_CALL_KEYS = frozenset((*_HEAD_FIELDS, "args", "duration"))
_TRACE_CALL_SIZE = len(_TRACE_CALL_KEYS)
_head_fields = operator.itemgetter(*_HEAD_FIELDS)
_NUMBER_LEAVES = frozenset({int, bool, type(None)})  # the leaves whose JSON text holds no string


def _same(value: Any) -> Any:
    return value


_NULL_SHA256 = hashlib.sha256(b"null").hexdigest()  # an unknown result's hash: no need to take it each time
try:  # CPython's own SHA-256: half OpenSSL's cost on a few dozen bytes (no context to set up), far more on kilobytes
    from _sha256 import sha256 as _short_sha256
except ImportError:  # pragma: no cover - a build without it
    _short_sha256 = hashlib.sha256
_SHORT = 64  # bytes: shorter JSON (a call's arguments, a short result) is hashed by _short_sha256
_OK, _ERROR, _DENIED, _UNKNOWN = CALL_STATUSES

CallParts = tuple[list[dict[str, Any]], list[dict[str, Any]], list[str], Any, tuple[int, int, int]]


def record_calls(calls: Sequence[Mapping[str, Any]]) -> CallParts:
    """A record's requested and completed calls from prepared, redacted ``calls``: both lists, what
    they leave unknown, the first call's trace id (a string, else None) and the counts of calls
    with a result, a duration and a cost.

    By :func:`fast_calls` when orjson writes every value (nearly always), else by
    :func:`general_calls`, the reference: the same lists either way (a test compares them).
    """
    if canonical._FAST:
        try:
            return fast_calls(calls)
        except TypeError:  # orjson refused a value: the general path hashes it by the stdlib encoder
            pass
    return general_calls(calls)


def fast_calls(calls: Sequence[Mapping[str, Any]]) -> CallParts:
    """:func:`general_calls` with each hash taken from orjson's bytes in line, and the status and the
    unknowns decided in line (TypeError when orjson refuses a value).

    Why: a hash by :func:`~toolscore_export.canonical.sha256_fast` is a call, a test and an
    exception guard each, and a record takes two a call; a run row's or a trace's calls
    are most of its record.
    """
    dumps, sort, sha, short_sha = canonical._orjson.dumps, canonical._SORTED, hashlib.sha256, _short_sha256
    requested: list[dict[str, Any]] = []
    completed: list[dict[str, Any]] = []
    unknown: list[str] = []
    with_result = with_duration = with_cost = 0
    trace_id = None
    for index, (call, (call_id, id_source, source_id)) in enumerate(zip(calls, correlate_ids(calls), strict=True)):
        get = call.get
        args, result, structured = get("args"), get("result"), get("structured")
        if args is not None:
            written = dumps(args, option=sort)
            args_sha = (short_sha if len(written) < _SHORT else sha)(written).hexdigest()
        else:
            args_sha = None
        denied = get("denied")
        if denied:
            status = _DENIED
        else:
            is_error = get("is_error")
            status = _ERROR if is_error is True else _OK if is_error is False else _UNKNOWN
        duration, cost = get("duration"), get("cost_usd")
        requested.append({
            "call_id": call_id, "call_id_source": id_source, "source_call_id": source_id, "index": index,
            "tool": get("tool"), "provider_name": get("provider_name"), "args": args,
            "args_sha256": args_sha, "denied": bool(denied), "deny_reason": get("deny_reason"),
            "span_id": get("span_id"),
        })
        captured = status != _UNKNOWN or result is not None or structured is not None
        if captured and result is not None:
            written = dumps(result, option=sort)
            result_sha = (short_sha if len(written) < _SHORT else sha)(written).hexdigest()
        else:
            result_sha = _NULL_SHA256 if captured else None
        completed.append({
            "call_id": call_id, "status": status, "result": result, "structured": structured, "error": get("error"),
            "result_sha256": result_sha,
            "duration_s": duration, "cost_usd": cost,
        })
        if trace_id is None and isinstance(get("trace_id"), str):
            trace_id = call["trace_id"]
        with_result += status != _UNKNOWN
        with_duration += duration is not None
        with_cost += cost is not None
        if status == _UNKNOWN or not captured or args is None or duration is None:
            call_unknowns(unknown, call_id, status == _UNKNOWN, captured, args is None, duration is None)
    cost_unknowns(unknown, completed, with_cost)
    return requested, completed, unknown, trace_id, (with_result, with_duration, with_cost)


_REQUESTED_KEYS = ("call_id", "call_id_source", "source_call_id", "index", "tool", "provider_name", "args",
                   "args_sha256", "denied", "deny_reason", "span_id")
_COMPLETED_KEYS = ("call_id", "status", "result", "structured", "error", "result_sha256", "duration_s", "cost_usd")


def general_calls(calls: Sequence[Mapping[str, Any]]) -> CallParts:
    """:func:`record_calls` written plainly, each hash by :func:`~toolscore_export.canonical.sha256_fast`:
    the reference :func:`fast_calls` is tested against."""
    pairs = [_general_call(call, index, ids)
             for index, (call, ids) in enumerate(zip(calls, correlate_ids(calls), strict=True))]
    requested = [asked for asked, _ in pairs]
    completed = [done for _, done in pairs]
    unknown: list[str] = []
    for asked, done in pairs:  # a result is captured exactly when it is hashed
        call_unknowns(unknown, asked["call_id"], done["status"] == "unknown", done["result_sha256"] is not None,
                      asked["args"] is None, done["duration_s"] is None)
    with_cost = sum(done["cost_usd"] is not None for done in completed)
    cost_unknowns(unknown, completed, with_cost)
    trace_id = next((call["trace_id"] for call in calls if isinstance(call.get("trace_id"), str)), None)
    counts = (sum(done["status"] != "unknown" for done in completed),
              sum(done["duration_s"] is not None for done in completed), with_cost)
    return requested, completed, unknown, trace_id, counts


def _general_call(call: Mapping[str, Any], index: int,
                  ids: tuple[str, str, str | None]) -> tuple[dict[str, Any], dict[str, Any]]:
    """One call's requested and completed entries, by the general rules."""
    call_id, id_source, source_id = ids
    get = call.get
    args, status = get("args"), call_status(call)
    result, structured = get("result"), get("structured")
    captured = status != "unknown" or result is not None or structured is not None
    asked = (call_id, id_source, source_id, index, get("tool"), get("provider_name"), args,
             sha256_fast(args) if args is not None else None, bool(get("denied", False)), get("deny_reason"),
             get("span_id"))
    done = (call_id, status, result, structured, get("error"), sha256_fast(result) if captured else None,
            get("duration"), get("cost_usd"))
    return dict(zip(_REQUESTED_KEYS, asked, strict=True)), dict(zip(_COMPLETED_KEYS, done, strict=True))


def call_unknowns(unknown: list[str], call_id: str, no_status: bool, captured: bool, no_args: bool,
                  no_duration: bool) -> None:
    """Add to ``unknown`` what one call's record leaves unknown, in the order the list names them."""
    if no_status:
        unknown.append(f"calls[{call_id}].status")
    if not captured:
        unknown.append(f"calls[{call_id}].result")
    if no_args:
        unknown.append(f"calls[{call_id}].args")
    if no_duration:
        unknown.append(f"calls[{call_id}].duration_s")


def cost_unknowns(unknown: list[str], completed: list[dict[str, Any]], with_cost: int) -> None:
    """Add to ``unknown`` the calls whose cost is unknown: all of them as one entry when none is known."""
    if completed and with_cost == 0:
        unknown.append("calls[*].cost_usd")
    elif with_cost < len(completed):
        unknown.extend(f"calls[{c['call_id']}].cost_usd" for c in completed if c["cost_usd"] is None)


def run_unknowns(unknown: list[str], fields: tuple[Any, Any, Any, Any], final_known: bool,
                 usage: Mapping[str, Any], cost_usd: Any) -> None:
    """Add to ``unknown`` the run-level fields nobody knows: ``fields`` are the status, prompt,
    start and finish, in that order (the order the list names them in).

    Written out, with the usual usage names made once: the loop over the four fields and the
    names made anew were half of this, which every record (a trace's, a run row's) pays."""
    status, prompt, started_at, finished_at = fields
    if status is None:
        unknown.append("status")
    if prompt is None:
        unknown.append("prompt")
    if started_at is None:
        unknown.append("started_at")
    if finished_at is None:
        unknown.append("finished_at")
    if not final_known:
        unknown.append("final_answer")
    for key, value in usage.items():
        if value is None:
            unknown.append(_USAGE_UNKNOWN.get(key) or f"usage.{key}")
    if cost_usd is None:
        unknown.append("cost.usd")


_USAGE_UNKNOWN = {key: f"usage.{key}" for key in ("input_tokens", "output_tokens", "cached_tokens")}


def coverage(calls: int, counts: tuple[int, int, int], final_known: bool, prompt_known: bool, cost_known: bool,
             unknown: list[str]) -> dict[str, Any]:
    """A record's ``coverage`` block; ``counts``: the calls with a result, a duration and a cost."""
    with_result, with_duration, with_cost = counts
    return {
        "calls": calls,
        "calls_with_result": with_result,
        "calls_with_duration": with_duration,
        "calls_with_cost": with_cost,
        "final_answer_known": final_known,
        "prompt_known": prompt_known,
        "cost_known": cost_known,
        "unknown": unknown,
    }


def distinct_redacted_id(redacted: str, sha256: str, line: int | None) -> str:
    """The run id of a run whose id held a credential: ``redacted`` (the id with it hidden), ``@``,
    the first 12 hex digits of its source file's SHA-256 and, when known, ``:`` and its line.

    Why: a preview keeps the first four and the last two characters of a key, so two runs whose ids
    differ only inside their keys (``deploy-ghp_…R8::arm::1`` twice) would be written as one run
    twice, a file ``export validate`` refuses and an importer would merge. Where a run comes from
    tells it apart and says nothing of the key (a hash of the key would, of a guessable one)."""
    return f"{redacted}@{sha256[:12]}" + (f":{line}" if line is not None else "")


def build_record(run: RunInput) -> dict[str, Any]:
    """The record of ``run``: JSON-ready (prepared, redacted) and carrying its own hash."""
    if run.prepared:  # prepared calls and values are only read here, never changed, so they need no copy
        calls, values, prepare_ = list(run.calls), _redactable(run), _same
    else:
        (calls, values), prepare_ = redacted_run(run), prepare
    run_id, task_id, arm_id, study, source_name, error, prompt, final_answer, usage, price, server, evaluation = values
    if run_id != run.run_id and not run.prepared:  # a credential hidden in it
        run_id = distinct_redacted_id(run_id, run.source.sha256, run.source.line)
    trace_id = run.trace_id
    requested, completed, unknown, call_trace_id, (with_result, with_duration, with_cost) = record_calls(calls)
    if trace_id is None:
        trace_id = call_trace_id

    used = usage.get
    usage = {"input_tokens": used("input_tokens"), "output_tokens": used("output_tokens"),
             "cached_tokens": used("cached_tokens")}
    cost_usd = prepare_(run.cost_usd)
    final_known = run.final_answer_known or final_answer is not None
    run_unknowns(unknown, (run.status, prompt, run.started_at, run.finished_at), final_known, usage, cost_usd)

    passed = None if run.outcome == "unknown" else run.outcome == "pass"
    record: dict[str, Any] = {
        "schema": RECORD_SCHEMA,
        "schema_version": RECORD_VERSION,
        "run_id": run_id,
        "task_id": task_id,
        "variant": {"id": arm_id, "provider": run.provider, "model": run.model},
        "repetition": run.repetition,
        "study": study,
        "attempts": run.attempts,
        "source": {"kind": run.source.kind, "format": run.source.format, "file": source_name,
                   "line": run.source.line},
        "status": run.status,
        "outcome": run.outcome,
        "passed": passed,
        "error": error,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "turns": run.turns,
        "prompt": prompt,
        "final_answer": final_answer,
        "requested_calls": requested,
        "completed_calls": completed,
        "usage": usage,
        "cost": {"usd": cost_usd, "price": price},
        "server": server,
        "evaluation": evaluation,
        "trace_context": {"trace_id": trace_id, "span_id": run.span_id} if run.span_source else {"trace_id": trace_id},
        "coverage": coverage(len(calls), (with_result, with_duration, with_cost), final_known, prompt is not None,
                             cost_usd is not None, unknown),
        "hashes": {
            "algorithm": "sha256",
            "canonical_form": CANONICAL_FORM,
            "source_file": run.source.sha256,
            "prompt": sha256_fast(prompt) if prompt is not None else None,
            "final_answer": sha256_fast(final_answer) if final_answer is not None else None,
        },
    }
    record["hashes"][RECORD_HASH_KEY] = sha256_fast(record)  # the key is not there yet
    return record


def record_line(run: RunInput) -> bytes:
    """The JSON Lines line of ``run``'s record (its newline included): what a worker sends back.

    Why not a writer of its own: one was tried (the calls' fields fetched at once, the ids
    and unknowns decided in line, the sorted bytes hashed without a second dict), and it
    saved about 3 us of a trace's ~140 while repeating all of :func:`build_record` and
    :func:`fast_calls`, which every change of the record would have had to follow.
    """
    return prepared_bytes(build_record(run), sort_keys=False, newline=True)


def record_hash(record: Mapping[str, Any], *, prepared: bool = False) -> str:
    """SHA-256 of the canonical JSON of ``record`` with ``hashes.record_sha256`` absent.

    The strict encoder: a record read back from a file may hold what no export writes
    (NaN, ``1.0``), and that must change the hash or fail, never pass. Such a record is not in
    prepared shape; one that is (every record an export wrote) is hashed by orjson, whose
    bytes for a prepared value are the strict encoder's (:func:`~toolscore_export.canonical.is_prepared`)."""
    hashes = record.get("hashes")
    if isinstance(hashes, Mapping) and RECORD_HASH_KEY in hashes:
        record = {**record, "hashes": {k: v for k, v in hashes.items() if k != RECORD_HASH_KEY}}
    if prepared or is_prepared(record):  # prepared: the caller knows it is (canonical.orjson_line read it)
        return sha256_fast(record)
    return sha256_prepared(record)


__all__ = ["CALL_STATUSES", "RECORD_HASH_KEY", "RECORD_SCHEMA", "RECORD_VERSION", "RunInput", "SourceRef",
           "build_record", "call_status", "correlate_ids", "distinct_redacted_id", "plain_calls", "record_hash", "record_line", "redacted_calls", "redacted_copy",
           "redacted_run"]
