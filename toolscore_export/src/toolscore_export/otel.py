"""A run record's verdict as an OpenTelemetry ``gen_ai.evaluation.result`` event, in OTLP/JSON.

Why events and not records: teams already run an observability backend that holds their
agents' traces; a verdict sent there as the GenAI semantic conventions' evaluation event
lands next to the spans it judges, with no importer to write. The attribute names are the
conventions' own (``gen_ai.evaluation.name``, ``gen_ai.evaluation.score.value``,
``gen_ai.evaluation.score.label``, ``gen_ai.evaluation.explanation``); what the conventions
have no name for is under ``toolscore.*``.

The event is a log record (the OTLP logs data model) with ``eventName`` set. It carries the
run's trace id when the source had one (an OTLP trace does; a harness row does not), the
span id of the run's own span when the source named it (``trace_context.span_id``), and
the span ids of the run's tool calls as ``toolscore.call_span_ids``, so a backend can join
it to the spans. A record without a verdict (a trace exported without ``--gold``) has
nothing to report and yields no event.

OTLP/JSON differs from protobuf's own JSON mapping in two ways this module follows: trace
and span ids are hex strings, and 64-bit integers are decimal strings.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

EVENT_NAME = "gen_ai.evaluation.result"
EVALUATION_NAME = "toolscore.tool_calling"
SCOPE_NAME = "toolscore-export"
SEVERITY = {"pass": (9, "INFO"), "fail": (13, "WARN")}
_TRACE_ID = re.compile(r"[0-9a-f]{32}")
_SPAN_ID = re.compile(r"[0-9a-f]{16}")


def attribute(key: str, value: Any) -> dict[str, Any] | None:
    """One OTLP/JSON ``KeyValue``; None for a value that is unknown (an absent attribute)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    if isinstance(value, float):
        return {"key": key, "value": {"doubleValue": value}}
    if isinstance(value, (list, tuple)):
        values = [{"stringValue": utf8_text(str(v))} for v in value if v is not None]
        return {"key": key, "value": {"arrayValue": {"values": values}}}
    return {"key": key, "value": {"stringValue": utf8_text(str(value))}}


def utf8_text(text: str) -> str:
    """``text`` as valid UTF-8 (protobuf strings must be): a lone surrogate becomes its escape."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def unix_nanos(stamp: Any) -> str | None:
    """An ISO 8601 time as OTLP's ``fixed64`` nanoseconds (a decimal string), None when unknown."""
    if not isinstance(stamp, str):
        return None
    try:
        moment = _dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_dt.timezone.utc)
    delta = moment - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
    return str((delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1_000)


def explanation(record: Mapping[str, Any]) -> str:
    """Why the run passed or failed, in one line: the outcome reasons, else the verdict."""
    evaluation = record.get("evaluation") or {}
    reasons = [r for r in evaluation.get("outcome_reasons") or [] if isinstance(r, str)]
    if reasons:
        return "; ".join(reasons)
    parts = []
    if isinstance(evaluation.get("score"), (int, float)):
        parts.append(f"score {evaluation['score']:.2f}")
    for key in ("grade", "verdict"):
        if evaluation.get(key) is not None:
            parts.append(f"{key} {evaluation[key]}")
    if record.get("error"):
        parts.append(f"error: {record['error']}")
    return ", ".join(parts) if parts else f"outcome {record.get('outcome')}"


def has_verdict(record: Mapping[str, Any]) -> bool:
    return record.get("outcome") in SEVERITY or record.get("evaluation") is not None


def evaluation_event(record: Mapping[str, Any], observed_nanos: str) -> dict[str, Any]:
    """The OTLP/JSON ``LogRecord`` of ``record``'s verdict (call :func:`has_verdict` first)."""
    evaluation = record.get("evaluation") or {}
    variant = record.get("variant") or {}
    score = evaluation.get("score")
    spans = [c.get("span_id") for c in record.get("requested_calls") or []]
    spans = [s for s in spans if isinstance(s, str) and _SPAN_ID.fullmatch(s)]
    pairs = [
        attribute("gen_ai.evaluation.name", EVALUATION_NAME),
        attribute("gen_ai.evaluation.score.value", float(score) if isinstance(score, (int, float))
                  and not isinstance(score, bool) else None),
        attribute("gen_ai.evaluation.score.label", record.get("outcome")),
        attribute("gen_ai.evaluation.explanation", explanation(record)),
        attribute("gen_ai.provider.name", variant.get("provider")),
        attribute("gen_ai.request.model", variant.get("model")),
        attribute("toolscore.run_id", record.get("run_id")),
        attribute("toolscore.task_id", record.get("task_id")),
        attribute("toolscore.variant.id", variant.get("id")),
        attribute("toolscore.study", record.get("study")),
        attribute("toolscore.repetition", record.get("repetition")),
        attribute("toolscore.grade", evaluation.get("grade")),
        attribute("toolscore.verdict", evaluation.get("verdict")),
        attribute("toolscore.passed", record.get("passed")),
        attribute("toolscore.calls", (record.get("coverage") or {}).get("calls")),
        attribute("toolscore.call_span_ids", spans or None),
        attribute("toolscore.record_sha256", (record.get("hashes") or {}).get("record_sha256")),
    ]
    event: dict[str, Any] = {"observedTimeUnixNano": observed_nanos, "eventName": EVENT_NAME}
    when = unix_nanos(record.get("finished_at"))
    if when is not None:
        event["timeUnixNano"] = when
    number, text = SEVERITY.get(str(record.get("outcome")), (9, "INFO"))
    event["severityNumber"] = number
    event["severityText"] = text
    event["attributes"] = [p for p in pairs if p is not None]
    context = record.get("trace_context") or {}
    trace_id, span_id = context.get("trace_id"), context.get("span_id")
    if isinstance(trace_id, str) and _TRACE_ID.fullmatch(trace_id.lower()) and set(trace_id) != {"0"}:
        event["traceId"] = trace_id.lower()
        if isinstance(span_id, str) and _SPAN_ID.fullmatch(span_id.lower()) and set(span_id) != {"0"}:
            event["spanId"] = span_id.lower()  # the run's own span: the event sits on the agent run it judges
    return event


def export_request(events: list[dict[str, Any]], version: str) -> dict[str, Any]:
    """An OTLP/JSON ``ExportLogsServiceRequest`` holding ``events`` (one resource, one scope)."""
    return {"resourceLogs": [{
        "resource": {"attributes": [attribute("service.name", "toolscore")]},
        "scopeLogs": [{"scope": {"name": SCOPE_NAME, "version": version}, "logRecords": events}],
    }]}


def event_batches(records: Iterable[Mapping[str, Any]], size: int, observed_nanos: str) -> Iterator[list[dict[str, Any]]]:
    """The events of ``records`` in lists of at most ``size`` (records without a verdict skipped)."""
    batch: list[dict[str, Any]] = []
    for record in records:
        if not has_verdict(record):
            continue
        batch.append(evaluation_event(record, observed_nanos))
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


__all__ = ["EVALUATION_NAME", "EVENT_NAME", "attribute", "evaluation_event", "event_batches", "explanation",
           "export_request", "has_verdict", "unix_nanos"]
