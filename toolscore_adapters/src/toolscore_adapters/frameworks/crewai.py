"""CrewAI runs (format ``crewai``, experimental).

CrewAI is not installed in Toolscore's test environment (about 1 GB, and its pins clash
with openai-agents), so this adapter follows the schema documented for crewai 1.15 and is
marked experimental. It reads:

- a ``CrewOutput`` (live, or ``model_dump(mode="json")``: ``raw``, ``tasks_output``,
  ``token_usage``) or a single ``TaskOutput``. Each task's ``messages`` are OpenAI-style chat
  messages: calls from ``assistant.tool_calls`` (native tool calling) or from
  ``Action:`` / ``Action Input:`` / ``Observation:`` text (the ReAct path), results from
  ``role: "tool"`` messages by ``tool_call_id``. The chat messages carry no error flag, so
  ``tool_failures`` records are joined to calls by tool name and arguments (CrewAI records
  no call id). The final answer is ``raw``: the ReAct path leaves it out of the messages.
- the tool events from ``crewai_event_bus`` saved as dicts (``tool_usage_started``,
  ``tool_usage_finished``, ``tool_usage_error``, ``tool_failure_detected``): a started event
  is a call, its finished or error event (by ``started_event_id``, else the next one for the
  same tool) its outcome. CrewAI retries a raising tool itself; a retry (``run_attempts`` > 1
  of the same tool and arguments right after a failed attempt) is the same call, not a new one.
- an agent's ``tools_results`` (live, ``{"tools_results": [...]}``, or the list itself):
  the ``{"tool_name", "tool_args", "result"}`` entries CrewAI appends after each tool run.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any, ClassVar

from toolscore_adapters._common import (
    MalformedArguments,
    from_package,
    invalid_arguments_metadata,
    lenient_arguments,
    parse_arguments,
    result_text,
    to_plain,
)
from toolscore_adapters.frameworks._shared import dicts, iso_time, tag, text_or_json, where
from toolscore_core import InputError, ToolCall, Trace, TraceAdapter

_EVENT_TYPES = frozenset({"tool_usage_started", "tool_usage_finished", "tool_usage_error", "tool_failure_detected",
                          "tool_validate_input_error", "tool_selection_error", "tool_execution_error"})
_REACT = re.compile(
    r"Action:\s*(?P<tool>[^\n]+?)\s*\n\s*Action Input:\s*(?P<args>.*?)(?:\n\s*Observation:\s*(?P<obs>.*))?\Z",
    re.DOTALL,
)


class CrewAIAdapter(TraceAdapter):
    """CrewAI CrewOutput / TaskOutput dumps and tool event lists (experimental)."""

    name: ClassVar[str] = "crewai"
    description: ClassVar[str] = "CrewAI CrewOutput / TaskOutput and tool events (experimental)"
    experimental: ClassVar[bool] = True

    def detect(self, data: Any) -> float:
        if from_package(data, "crewai") and (hasattr(data, "tasks_output") or hasattr(data, "messages")
                                             or isinstance(getattr(data, "tools_results", None), list)):
            return 1.0
        if _is_tools_results(data):
            return 0.9
        if isinstance(data, dict):
            if _is_tools_results(data.get("tools_results")):
                return 0.9
            if isinstance(data.get("tasks_output"), list) and "raw" in data:
                return 0.95
            if isinstance(data.get("messages"), list) and "raw" in data and ("tool_failures" in data or "agent" in data):
                return 0.85
            return 0.0
        if isinstance(data, list) and data:
            events = dicts(data)
            if len(events) == len(data) and all(tag(e, "type") in _EVENT_TYPES and "tool_name" in e for e in events):
                return 0.95
        return 0.0

    def load(self, data: Any) -> Trace:
        if from_package(data, "crewai") and isinstance(getattr(data, "tools_results", None), list):
            return Trace(calls=_tools_results([to_plain(e) for e in data.tools_results], ("tools_results",)),
                         source_format=self.name)
        if _is_tools_results(data):
            return Trace(calls=_tools_results(data, ()), source_format=self.name)
        if isinstance(data, dict) and isinstance(data.get("tools_results"), list):
            return Trace(calls=_tools_results(data["tools_results"], ("tools_results",)), source_format=self.name)
        if from_package(data, "crewai"):
            data = to_plain(data)
        if isinstance(data, dict) and isinstance(data.get("tasks_output"), list):
            calls: list[ToolCall] = []
            for n, task in enumerate(data["tasks_output"]):
                if not isinstance(task, dict):
                    raise InputError("a task output must be an object", location=where("tasks_output", n))
                calls.extend(_task_calls(task, ("tasks_output", n)))
            return Trace(calls=calls, final_answer=text_or_json(data.get("raw")), source_format=self.name,
                         metadata={"token_usage": data.get("token_usage")} if data.get("token_usage") else {})
        if isinstance(data, dict) and isinstance(data.get("messages"), list):
            return Trace(calls=_task_calls(data, ()), final_answer=text_or_json(data.get("raw")), source_format=self.name)
        if isinstance(data, list):  # [] is a run with no tool events, as tool-scorer 1.10.0 read it
            return Trace(calls=_event_calls(data) if data else [], source_format=self.name)
        raise InputError("is not a CrewAI run", expected="a CrewOutput / TaskOutput dump or a list of tool events")


def _is_tools_results(data: Any) -> bool:
    """A list of the entries a CrewAI agent appends to ``agent.tools_results`` after each
    tool run (``{"result", "tool_name", "tool_args"}``; no ``type``, unlike the events)."""
    return isinstance(data, list) and bool(data) and all(
        isinstance(e, dict) and isinstance(e.get("tool_name"), str) and "tool_args" in e and "type" not in e
        for e in data)


def _tools_results(entries: list[Any], path: tuple[str | int, ...]) -> list[ToolCall]:
    """Calls from ``agent.tools_results``: CrewAI records an entry once the tool has run, so
    an entry with a result succeeded; it records no error flag and no call id."""
    calls = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("tool_name"), str) or not entry["tool_name"]:
            raise InputError("a tools_results entry needs a 'tool_name'", location=where(*path, i),
                             expected='{"tool_name": "search", "tool_args": {...}, "result": "..."}')
        raw = entry.get("tool_args")
        metadata: dict[str, Any] = {}
        try:
            args = parse_arguments(raw, where=where(*path, i, "tool_args")) if raw is not None else {}
        except MalformedArguments as exc:  # the model's broken argument text: kept, reported
            args, metadata = None, invalid_arguments_metadata(raw, exc.reason)
        if entry.get("result_as_answer"):
            metadata["result_as_answer"] = True
        calls.append(ToolCall(tool=entry["tool_name"], args=args, result=entry.get("result"),
                              is_error=False if "result" in entry else None, provider="crewai",
                              metadata=metadata))
    return calls


def _task_calls(task: dict[str, Any], path: tuple[str | int, ...]) -> list[ToolCall]:
    messages = task.get("messages") or []
    if not isinstance(messages, list):
        raise InputError("'messages' must be a list", location=where(*path, "messages"))
    calls: list[dict[str, Any]] = []
    by_id: dict[str, dict[str, Any]] = {}
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        here = (*path, "messages", i)
        role = message.get("role")
        if role == "assistant" and isinstance(message.get("tool_calls"), list) and message["tool_calls"]:
            for j, raw in enumerate(message["tool_calls"]):
                call = _native_call(raw, (*here, "tool_calls", j))
                calls.append(call)
                if call["id"]:
                    by_id[call["id"]] = call
        elif role == "assistant" and isinstance(message.get("content"), str):
            match = _REACT.search(message["content"])
            if match:
                call = {"tool": match["tool"].strip(), "id": None, **_react_arguments(match["args"].strip())}
                if match["obs"] is not None:
                    call.update(result=match["obs"].strip(), is_error=False)
                calls.append(call)
        elif role == "tool":
            call_id = message.get("tool_call_id")
            if isinstance(call_id, str) and call_id in by_id:
                by_id[call_id].update(result=result_text(message.get("content")), is_error=False)
    failures = task.get("tool_failures") or []
    if not isinstance(failures, list):
        raise InputError("'tool_failures' must be a list", location=where(*path, "tool_failures"))
    for n, record in enumerate(failures):
        _join_failure(record, calls, (*path, "tool_failures", n))
    return [ToolCall(**call) for call in calls]


def _react_arguments(text: str) -> dict[str, Any]:
    """ReAct ``Action Input`` is free text the model wrote: a JSON object is the arguments;
    anything else leaves them unknown (None) and keeps the text in metadata, since CrewAI
    itself would have rejected that call."""
    if not text:
        return {"args": {}}
    try:
        return {"args": parse_arguments(text, where="Action Input")}
    except InputError:
        return {"args": None, "metadata": {"unparsed_arguments": text}}


def _native_call(raw: Any, path: tuple[str | int, ...]) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise InputError("a tool call must be an object", location=where(*path))
    function: dict[str, Any] = raw["function"] if isinstance(raw.get("function"), dict) else {}
    tool = function.get("name")
    if not isinstance(tool, str) or not tool:
        raise InputError(f"a tool call needs function.name, not {tool!r}", location=where(*path, "function", "name"))
    args, invalid = lenient_arguments(function.get("arguments"), where=where(*path, "function", "arguments"))
    call = {"tool": tool, "id": raw.get("id") if isinstance(raw.get("id"), str) else None, "args": args}
    if invalid is not None:  # cut off or broken argument text: kept and reported, not an error
        call["metadata"] = invalid
    return call


def _join_failure(record: Any, calls: list[dict[str, Any]], path: tuple[str | int, ...]) -> None:
    """Mark the call a ``tool_failures`` record describes (same tool, same arguments)."""
    if not isinstance(record, dict):
        return
    failure: dict[str, Any] = record["failure"] if isinstance(record.get("failure"), dict) else {}
    args = _args_or_none(record.get("tool_args"))
    for call in calls:
        if call["tool"] == record.get("tool_name") and call.get("args") == args and call.get("is_error") is not True:
            call.update(is_error=True, error=text_or_json(failure.get("message")) or "tool failure",
                        metadata={**(call.get("metadata") or {}), "failure_reason": failure.get("reason"),
                                  "failure_code": failure.get("code")})
            return


def _args_or_none(value: Any) -> dict[str, Any] | None:
    try:
        return parse_arguments(value, where="tool_args")
    except InputError:
        return None


def _event_calls(events: list[Any]) -> list[ToolCall]:
    calls: list[dict[str, Any]] = []
    started: dict[str, dict[str, Any]] = {}
    open_calls: list[dict[str, Any]] = []
    for i, event in enumerate(events):
        if not isinstance(event, dict):
            raise InputError("an event must be an object", location=where(i))
        kind = event.get("type")
        tool = event.get("tool_name")
        if kind == "tool_usage_started":
            if not isinstance(tool, str) or not tool:
                raise InputError(f"a tool event needs a tool_name, not {tool!r}", location=where(i, "tool_name"))
            args, invalid = lenient_arguments(event.get("tool_args"), where=where(i, "tool_args"))
            previous = calls[-1] if calls else None
            if (previous is not None and previous["tool"] == tool and previous["args"] == args
                    and previous.get("is_error") is True and (event.get("run_attempts") or 1) > 1):
                call = previous  # CrewAI's own retry of the same call
                call["metadata"]["attempts"] = event.get("run_attempts")
            else:
                call = {"tool": tool, "args": args, "id": None, "metadata": dict(invalid or {}),
                        "_start": iso_time(event.get("timestamp"))}
                calls.append(call)
            open_calls.append(call)
            if isinstance(event.get("event_id"), str):
                started[event["event_id"]] = call
        elif kind in ("tool_usage_finished", "tool_usage_error"):
            link = event.get("started_event_id")
            found = started.get(link) if isinstance(link, str) else None
            if found is None:
                found = next((c for c in open_calls if c["tool"] == tool), None)
            if found is None:
                continue
            call = found
            if call in open_calls:
                open_calls.remove(call)
            failure = event.get("failure") if isinstance(event.get("failure"), dict) else None
            error = event.get("error")
            if kind == "tool_usage_error" or failure is not None:
                message = failure.get("message") if failure else error
                call.update(is_error=True, error=text_or_json(message) or "tool error", result=event.get("output"))
            else:
                call.update(is_error=False, result=event.get("output"), error=None)
            begin = iso_time(event.get("started_at")) or call.get("_start")
            end = iso_time(event.get("finished_at")) or iso_time(event.get("timestamp"))
            if begin is not None and end is not None:
                with contextlib.suppress(TypeError):  # naive and aware timestamps mixed
                    call["duration"] = max(0.0, (end - begin).total_seconds())
    out = []
    for call in calls:
        call.pop("_start", None)
        out.append(ToolCall(**call))
    if not out:
        raise InputError("the CrewAI events hold no tool_usage_started event", expected="at least one tool call")
    return out
