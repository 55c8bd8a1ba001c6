"""The run row: what the agent harness records about one run, and the JSONL file of them.

Why it lives in the kernel: the harness writes these rows, while ``compare``, ``export``,
``regrade`` and executors (a Ray cluster) read them, and none of those features may import
another. So the row model and its JSON Schema (``schemas/run-row.schema.json``), here, and the
streaming reader and writer (:mod:`toolscore_core.kernel.jsonl`) are a kernel contract,
versioned by ``run_record_version``.

Decisions a reader of old files can rely on:

- **A row is keyed by its cell**, ``task::arm::repetition``. An executor may run a cell
  twice (a worker killed and retried), and a resumed study appends to the same file, so
  the same cell can appear more than once. ``latest_rows`` keeps the last row of each
  cell; nothing counts a cell twice.
- **A cell is done when its latest row finished**: status ``completed`` or
  ``limit_reached``. Those are what the model did, and running them again would replace an
  unlucky sample with a luckier one. ``error`` (the provider or the server failed) and
  ``budget_stopped`` (the study stopped the run to protect the budget) say nothing about
  the model, so resume runs them again. :attr:`RunRow.done` and ``completed_cells`` apply
  that rule; a cell's *latest* row decides, so resume and ``latest_rows`` always agree on
  what a cell's result is.
- **Keys are written in a fixed, readable order** (identity, then how the run ended and
  what it cost, then the bulky calls and evaluation), not sorted: a person running
  ``head runs.jsonl`` sees which cell a line is before its calls. Values inside ``args``,
  ``result``, ``evaluation`` and ``extra`` keep the order they were given in.
- **Unknown is null.** A cost of ``null`` is unknown (no price, or no token usage); ``0.0``
  means the run was free. A row never holds a credential: server URLs lose their user
  info and secret-looking query values, the command line has vendor key formats redacted,
  and environment variables are kept by name only.
- **The schema is strict** except for ``evaluation``, ``build_check`` and ``extra``: a key
  it does not know is a typo or a newer format, both worth an error. New optional data
  goes under ``extra``; any other change gets a new ``run_record_version``.

:meth:`RunRow.trace` turns a row back into a kernel :class:`Trace`, so regrade and export
can score recorded calls with ``evaluate()`` without knowing anything about the harness.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any, Literal, NamedTuple

import attrs

from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.files import json_path
from toolscore_core.kernel.model import ToolCall, Trace
from toolscore_core.kernel.pricing import Price
from toolscore_core.kernel.providers import Usage

RUN_RECORD_VERSION = "1"
SCHEMA_NAME = "run-row"

RunStatus = Literal["completed", "limit_reached", "budget_stopped", "error"]
RunOutcome = Literal["pass", "fail", "error", "unknown"]
RUN_STATUSES: tuple[str, ...] = ("completed", "limit_reached", "budget_stopped", "error")
RUN_OUTCOMES: tuple[str, ...] = ("pass", "fail", "error", "unknown")
DONE_STATUSES: frozenset[str] = frozenset({"completed", "limit_reached"})
_STOPPED_STATUSES = frozenset({"error", "budget_stopped"})
_SEP = "::"


# --- cell ids ---------------------------------------------------------------------------------


class CellId(NamedTuple):
    """The parts of a cell id."""

    task_id: str
    arm_id: str
    repetition: int


def make_cell_id(task_id: str, arm_id: str, repetition: int) -> str:
    """``task::arm::repetition``; ids may not contain ``::`` (the id could not be split back)."""
    for field, value in (("task_id", task_id), ("arm_id", arm_id)):
        if not isinstance(value, str) or not value:
            raise InputError(f"{field} must be a non-empty string, not {value!r}", location=f"$.{field}")
        if _SEP in value:
            raise InputError(f"{field} {value!r} contains {_SEP!r}, which separates the parts of a cell id",
                             location=f"$.{field}", hint="Choose task and arm ids without '::'")
    if isinstance(repetition, bool) or not isinstance(repetition, int) or repetition < 1:
        raise InputError(f"repetition must be an integer from 1, not {repetition!r}", location="$.repetition")
    return f"{task_id}{_SEP}{arm_id}{_SEP}{repetition}"


def parse_cell_id(cell_id: str) -> CellId:
    """Split ``task::arm::repetition``; anything else is an InputError."""
    parts = cell_id.split(_SEP) if isinstance(cell_id, str) else []
    if len(parts) != 3 or not parts[0] or not parts[1] or not (parts[2].isascii() and parts[2].isdigit()) or parts[2].startswith("0"):
        raise InputError(f"{cell_id!r} is not a cell id", location="$.cell_id",
                         expected="task_id::arm_id::repetition, with a repetition from 1")
    return CellId(parts[0], parts[1], int(parts[2]))


# --- credentials ----------------------------------------------------------------------------------


def strip_url_credentials(url: str | None) -> str | None:
    """``url`` without user info, and with the values of secret-looking query keys replaced.

    ``https://me:pw@host/mcp?api_key=abc&team=x`` -> ``https://host/mcp?api_key=REDACTED&team=x``.
    The work is the shared :func:`toolscore_core.scoring.secrets.strip_url_credentials`
    (built on ``redact_command``), so rows and console output hide the same credentials.
    """
    if url is None:
        return None
    # re + urllib + attrs only, so cheap; imported here because the kernel never imports scoring at its top
    from toolscore_core.scoring.secrets import strip_url_credentials as strip

    return strip(url)


def _redacted_command(command: Iterable[str] | str | None) -> tuple[str, ...] | None:
    """An argv tuple with credentials hidden: known key formats, URL passwords, secret-named
    values and the values of flags such as ``--token X`` (the shared ``redact_command``)."""
    if command is None:
        return None
    if isinstance(command, str):
        raise TypeError("server command must be a list of arguments, not one string (split it with shlex)")
    # re + attrs only, so cheap; imported here because the kernel never imports scoring at its top
    from toolscore_core.scoring.secrets import redact_command

    return tuple(redact_command([str(argument) for argument in command]))


def _env_names(env: Iterable[str] | Mapping[str, Any]) -> tuple[str, ...]:
    """Names only: a mapping given by mistake keeps its keys, never its values."""
    return tuple(sorted(env.keys() if isinstance(env, Mapping) else env))


# --- the model --------------------------------------------------------------------------------------


def _as_tuple(value: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(value)


@attrs.frozen(slots=True)
class RunCall:
    """One tool call the model asked for during a run (denied calls included).

    The fields mirror :class:`ToolCall` under the row's own names; ``provider_name`` is the
    name the model saw when the provider API needed another spelling than the MCP name.
    ``args=None``: not recorded; ``is_error=None``: no answer arrived (unknown, not success).
    ``duration`` is in seconds.
    """

    tool: str
    id: str | None = None
    provider_name: str | None = None
    args: dict[str, Any] | None = attrs.field(factory=dict)
    result: Any = None
    structured: Any = None
    is_error: bool | None = None
    error: str | None = None
    duration: float | None = None
    denied: bool = False
    deny_reason: str | None = None

    @classmethod
    def from_tool_call(cls, call: ToolCall) -> RunCall:
        """The row form of a kernel call; ``provider_name`` comes from ``call.metadata``."""
        provider_name = call.metadata.get("provider_name") if call.metadata else None
        return cls(tool=call.tool, id=call.id, provider_name=provider_name if isinstance(provider_name, str) else None,
                   args=call.args, result=call.result, structured=call.structured_result, is_error=call.is_error,
                   error=call.error, duration=call.duration, denied=call.denied, deny_reason=call.denied_reason)

    def to_tool_call(self, *, provider: str | None = None, index: int | None = None) -> ToolCall:
        """The kernel call scoring reads (``provider`` is the row's provider API, e.g. ``openai``)."""
        metadata = {"provider_name": self.provider_name} if self.provider_name is not None else {}
        return ToolCall(tool=self.tool, args=self.args, id=self.id, result=self.result,
                        structured_result=self.structured, is_error=self.is_error, error=self.error,
                        duration=self.duration, denied=self.denied, denied_reason=self.deny_reason,
                        provider=provider, index=index, metadata=metadata)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "tool": self.tool, "provider_name": self.provider_name, "args": self.args,
                "result": self.result, "structured": self.structured, "is_error": self.is_error,
                "error": self.error, "duration": self.duration, "denied": self.denied,
                "deny_reason": self.deny_reason}


@attrs.frozen(slots=True)
class GuardDenial:
    """A call the harness guard refused, with the guard's reason (also in ``calls``, denied)."""

    tool: str
    reason: str | None
    call_id: str | None = None
    args: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"call_id": self.call_id, "tool": self.tool, "args": self.args, "reason": self.reason}


def _as_usage(value: Any) -> Usage:
    """Accept a provider's usage object (same three attributes) or a mapping, keep a Usage.

    A provider's turn and the run row count tokens the same way, so the harness can pass
    the provider's summed usage straight in; None means nothing was reported.
    """
    if value is None:
        return Usage()
    if isinstance(value, Usage):
        return value
    if isinstance(value, Mapping):
        return Usage(value.get("input_tokens"), value.get("output_tokens"), value.get("cached_tokens"))
    return Usage(getattr(value, "input_tokens", None), getattr(value, "output_tokens", None),
                 getattr(value, "cached_tokens", None))


@attrs.frozen(slots=True)
class ServerRecord:
    """The MCP server a run used: how it was started and what it said it was.

    Credentials cannot get in: ``url`` loses user info and secret-looking query values,
    ``command`` has known vendor key formats redacted, and ``env_names`` keeps names only
    (a mapping passed by mistake keeps its keys). ``era`` is which handshake was used;
    ``build_check`` is the result of the spec's ``verify`` section (None: not verified).
    """

    transport: str | None = None
    command: tuple[str, ...] | None = attrs.field(default=None, converter=_redacted_command)
    url: str | None = attrs.field(default=None, converter=strip_url_credentials)
    env_names: tuple[str, ...] = attrs.field(factory=tuple, converter=_env_names)
    name: str | None = None
    version: str | None = None
    protocol_version: str | None = None
    era: str | None = None
    build_check: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"transport": self.transport, "command": list(self.command) if self.command is not None else None,
                "url": self.url, "env_names": list(self.env_names), "name": self.name, "version": self.version,
                "protocol_version": self.protocol_version, "era": self.era, "build_check": self.build_check}


def _check_status(instance: Any, attribute: Any, value: str) -> None:
    if value not in RUN_STATUSES:
        raise InputError(f"status {value!r} is not a run status", location="$.status",
                         expected=f"one of {', '.join(RUN_STATUSES)}")


def _check_outcome(instance: Any, attribute: Any, value: str) -> None:
    if value not in RUN_OUTCOMES:
        raise InputError(f"outcome {value!r} is not a run outcome", location="$.outcome",
                         expected=f"one of {', '.join(RUN_OUTCOMES)}")


@attrs.frozen(slots=True)
class RunRow:
    """One run of one cell of a study, as one line of ``runs.jsonl`` (run_record_version 1).

    Only the identity, ``status`` and ``outcome`` are needed; ``cell_id`` and ``passed``
    follow from them and are checked when given. ``order`` is the run's place in the
    shuffled order (1 = first) and ``seed`` the study's shuffle seed. ``provider`` and
    ``model`` name the arm's API and model; ``turns`` counts model calls. ``cost_usd`` is
    None when unknown, never 0 for unknown. ``evaluation`` is the scoring as an open dict
    (score, grade, weights, required-call recall, honesty, policy, credentials, evidence);
    ``extra`` keeps anything else. Timestamps are ISO 8601 strings with a UTC offset.
    """

    task_id: str
    arm_id: str
    repetition: int
    status: RunStatus = attrs.field(validator=_check_status)
    outcome: RunOutcome = attrs.field(validator=_check_outcome)
    cell_id: str = attrs.field(
        default=attrs.Factory(lambda self: make_cell_id(self.task_id, self.arm_id, self.repetition), takes_self=True))
    passed: bool = attrs.field(default=attrs.Factory(lambda self: self.outcome == "pass", takes_self=True))
    order: int | None = None
    seed: int | None = None
    study: str | None = None
    provider: str | None = None
    model: str | None = None
    error: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    turns: int | None = None
    usage: Usage = attrs.field(factory=Usage, converter=_as_usage)
    cost_usd: float | None = None
    price: Price | None = None
    server: ServerRecord | None = None
    final_answer: str | None = None
    calls: tuple[RunCall, ...] = attrs.field(factory=tuple, converter=_as_tuple)
    guard_denials: tuple[GuardDenial, ...] = attrs.field(factory=tuple, converter=_as_tuple)
    evaluation: dict[str, Any] | None = None
    extra: dict[str, Any] = attrs.field(factory=dict)
    toolscore_version: str | None = None

    def __attrs_post_init__(self) -> None:
        expected = make_cell_id(self.task_id, self.arm_id, self.repetition)
        if self.cell_id != expected:
            raise InputError(f"cell_id {self.cell_id!r} does not match task_id, arm_id and repetition",
                             location="$.cell_id", expected=repr(expected))
        if self.passed is not (self.outcome == "pass"):
            raise InputError(f"passed is {self.passed} but outcome is {self.outcome!r}", location="$.passed",
                             expected="passed true exactly when outcome is pass")
        if self.status in _STOPPED_STATUSES and self.outcome != "error":
            raise InputError(f"a run with status {self.status!r} has outcome {self.outcome!r}", location="$.outcome",
                             expected="outcome error: a run the provider, the server or the budget stopped has no verdict")

    @property
    def done(self) -> bool:
        """True when resume should not run this cell again (see the module docstring)."""
        return self.status in DONE_STATUSES

    def trace(self) -> Trace:
        """The recorded calls and final answer as a kernel Trace, ready for ``evaluate()``."""
        calls = tuple(call.to_tool_call(provider=self.provider) for call in self.calls)
        metadata = {"cell_id": self.cell_id, "task_id": self.task_id, "arm_id": self.arm_id,
                    "repetition": self.repetition, "model": self.model, "status": self.status}
        return Trace(calls=calls, final_answer=self.final_answer, source_format="run-row", metadata=metadata)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of the row, keys in the schema's reading order."""
        return {
            "run_record_version": RUN_RECORD_VERSION,
            "toolscore_version": self.toolscore_version,
            "cell_id": self.cell_id, "task_id": self.task_id, "arm_id": self.arm_id, "repetition": self.repetition,
            "order": self.order, "seed": self.seed, "study": self.study, "provider": self.provider,
            "model": self.model, "status": self.status, "outcome": self.outcome, "passed": self.passed,
            "error": self.error, "started_at": self.started_at, "finished_at": self.finished_at,
            "turns": self.turns, "usage": self.usage.to_dict(), "cost_usd": self.cost_usd,
            "price": _price_dict(self.price),
            "server": self.server.to_dict() if self.server is not None else None,
            "final_answer": self.final_answer,
            "calls": [call.to_dict() for call in self.calls],
            "guard_denials": [denial.to_dict() for denial in self.guard_denials],
            "evaluation": self.evaluation,
            "extra": self.extra,
        }

    @classmethod
    def from_dict(cls, data: Any, *, file: str | Path | None = None, line: int | None = None) -> RunRow:
        """Validate ``data`` against the run-row schema and build the row.

        Every problem is an InputError naming ``file``, ``line N`` (when given) and the JSON
        path inside the row, e.g. ``line 3, $.calls[0].is_error``.
        """
        validate_run_row(data, file=file, line=line)
        try:
            return _build(data)
        except InputError as exc:
            raise _placed(exc, file, line) from None


def _price_dict(price: Price | None) -> dict[str, Any] | None:
    if price is None:
        return None
    return {"input_per_million": price.input_per_million, "output_per_million": price.output_per_million,
            "cached_input_per_million": price.cached_input_per_million, "source": price.source}


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def _build(data: dict[str, Any]) -> RunRow:
    usage, price, server = data.get("usage") or {}, data.get("price"), data.get("server")
    calls = tuple(RunCall(tool=c["tool"], id=c.get("id"), provider_name=c.get("provider_name"), args=c.get("args", {}),
                          result=c.get("result"), structured=c.get("structured"), is_error=c.get("is_error"),
                          error=c.get("error"), duration=_float(c.get("duration")), denied=c.get("denied", False),
                          deny_reason=c.get("deny_reason")) for c in data["calls"])
    denials = tuple(GuardDenial(tool=d["tool"], reason=d.get("reason"), call_id=d.get("call_id"), args=d.get("args"))
                    for d in data.get("guard_denials", ()))
    return RunRow(
        task_id=data["task_id"], arm_id=data["arm_id"], repetition=data["repetition"], status=data["status"],
        outcome=data["outcome"], cell_id=data["cell_id"], passed=data["passed"], order=data.get("order"),
        seed=data.get("seed"), study=data.get("study"), provider=data.get("provider"), model=data.get("model"),
        error=data.get("error"), started_at=data.get("started_at"), finished_at=data.get("finished_at"),
        turns=data.get("turns"),
        usage=Usage(usage.get("input_tokens"), usage.get("output_tokens"), usage.get("cached_tokens")),
        cost_usd=_float(data.get("cost_usd")),
        price=None if price is None else Price(
            float(price["input_per_million"]), float(price["output_per_million"]), price.get("source"),
            cached_input_per_million=_float(price.get("cached_input_per_million"))),
        server=None if server is None else ServerRecord(
            transport=server.get("transport"), command=server.get("command"), url=server.get("url"),
            env_names=server.get("env_names", ()), name=server.get("name"), version=server.get("version"),
            protocol_version=server.get("protocol_version"), era=server.get("era"),
            build_check=server.get("build_check")),
        final_answer=data.get("final_answer"), calls=calls, guard_denials=denials,
        evaluation=data.get("evaluation"), extra=data.get("extra", {}), toolscore_version=data.get("toolscore_version"),
    )


def _placed(exc: InputError, file: str | Path | None, line: int | None) -> InputError:
    """``exc`` with the file and ``line N`` in front of its JSON path."""
    location = exc.location
    if line is not None:
        location = f"line {line}, {location}" if location else f"line {line}"
    return InputError(exc.message, file=exc.file or file, location=location, expected=exc.expected, hint=exc.hint)


# --- the schema -------------------------------------------------------------------------------------


@functools.cache
def run_row_schema() -> dict[str, Any]:
    """The shipped JSON Schema of a run row (``schemas/run-row.schema.json``)."""
    text = resources.files("toolscore_core.schemas").joinpath(f"{SCHEMA_NAME}.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@functools.cache
def _validator() -> Callable[[Any], Any]:
    import fastjsonschema  # compiled once per process, on first use

    return fastjsonschema.compile(run_row_schema())


def validate_run_row(data: Any, *, file: str | Path | None = None, line: int | None = None) -> None:
    """Check ``data`` against the run-row schema; an InputError names the line and JSON path."""
    import fastjsonschema

    if isinstance(data, dict) and data.get("run_record_version", RUN_RECORD_VERSION) != RUN_RECORD_VERSION:
        raise _placed(InputError(
            f"run_record_version {data['run_record_version']!r} is not one this Toolscore reads",
            location="$.run_record_version", expected=f"run_record_version {RUN_RECORD_VERSION!r}",
            hint="Upgrade Toolscore to read rows written by a newer version"), file, line)
    try:
        _validator()(data)
    except fastjsonschema.JsonSchemaValueException as exc:
        message, path, expected = _describe(exc, data)
        raise _placed(InputError(message, location=path, expected=expected), file, line) from None


def _describe(exc: Any, data: Any) -> tuple[str, str, str | None]:
    """(message, JSON path, expected) for a fastjsonschema error, with list indexes as numbers."""
    path: list[str | int] = []
    node = data
    for part in (exc.path or [])[1:]:  # the first part is fastjsonschema's name for the root
        if isinstance(node, list) and isinstance(part, str) and part.isdigit():
            path.append(int(part))
            node = node[int(part)] if int(part) < len(node) else None
        else:
            path.append(part)
            node = node.get(part) if isinstance(node, dict) else None
    definition = exc.definition if isinstance(getattr(exc, "definition", None), dict) else {}
    rule = getattr(exc, "rule", None)
    message = str(exc.message).split(" ", 1)[-1]  # drop fastjsonschema's "data.x.y" prefix
    expected = None
    if rule == "additionalProperties":
        unknown = next((k for k in (exc.value or {}) if k not in definition.get("properties", {})), None)
        message = f"has an unknown key {unknown!r}" if unknown is not None else "has an unknown key"
        if unknown is not None:
            path.append(unknown)
        expected = f"only the keys {', '.join(definition.get('properties', {}))}"
    elif rule == "required":
        expected = f"the key(s) {', '.join(definition.get('required', []))}"
    elif rule == "type":
        kinds = definition.get("type")
        expected = f"a value of type {' or '.join(kinds) if isinstance(kinds, list) else kinds}"
    elif rule == "enum":
        expected = f"one of {', '.join(str(v) for v in definition.get('enum', []))}"
    elif rule == "pattern" and path and path[-1] in ("task_id", "arm_id"):
        message, expected = "is not a usable id", "a non-empty id without '::'"
    elif rule == "pattern" and path == ["cell_id"]:
        message, expected = "is not a cell id", "task_id::arm_id::repetition, with a repetition from 1"
    elif rule == "pattern":
        message, expected = "is not a name", "a name without '='"
    elif rule == "format":
        expected = "an ISO 8601 date and time with a UTC offset, e.g. 2026-12-02T10:15:00+00:00"
    return message, json_path(path), expected


__all__ = [
    "DONE_STATUSES",
    "RUN_OUTCOMES",
    "RUN_RECORD_VERSION",
    "RUN_STATUSES",
    "CellId",
    "GuardDenial",
    "RunCall",
    "RunOutcome",
    "RunRow",
    "RunStatus",
    "ServerRecord",
    "Usage",
    "make_cell_id",
    "parse_cell_id",
    "run_row_schema",
    "strip_url_credentials",
    "validate_run_row",
]
