"""A complete third-party plugin: a trace adapter, an MCP lint rule, a model provider, a guard
and an executor.

It imports only public names from ``toolscore_core`` (what ``toolscore_core.__all__``
lists), exactly as an outside author would, and is found through the entry points in its
pyproject.toml: no registration code, no configuration.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, ClassVar

from toolscore_core import (
    Executor,
    Finding,
    Guard,
    GuardContext,
    GuardDecision,
    InputError,
    LintRule,
    ModelRequest,
    ModelToolCall,
    ModelTurn,
    Provider,
    ServerDefinition,
    Severity,
    ToolCall,
    ToolResultMessage,
    Trace,
    TraceAdapter,
    Usage,
    WorkError,
    WorkResult,
    deny,
    estimate_request_tokens,
    hookimpl,
)


class StepLogAdapter(TraceAdapter):
    """Reads the "step log" that a fictional agent framework writes::

        {"steplog": 1, "steps": [{"call": "search", "input": {...}, "output": "...", "ok": true}],
         "answer": "..."}
    """

    name: ClassVar[str] = "steplog"
    description: ClassVar[str] = "step logs of the example framework (examples/third_party_plugin)"

    def detect(self, data: Any) -> float:
        if isinstance(data, dict) and data.get("steplog") == 1 and isinstance(data.get("steps"), list):
            return 1.0
        return 0.0

    def load(self, data: Any) -> Trace:
        if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
            raise InputError("is not a step log", location="$",
                             expected='{"steplog": 1, "steps": [{"call": ..., "input": {...}}]}')
        calls = []
        for i, step in enumerate(data["steps"]):
            if not isinstance(step, dict) or not isinstance(step.get("call"), str):
                raise InputError("a step needs a 'call' string", location=f"$.steps[{i}]")
            ok = step.get("ok")
            if not isinstance(step.get("input", {}), (dict, type(None))):
                raise InputError("a step's 'input' must be an object", location=f"$.steps[{i}].input")
            calls.append(
                ToolCall(
                    tool=step["call"],
                    args=dict(step.get("input") or {}),
                    result=step.get("output"),
                    is_error=None if ok is None else not ok,
                    error=None if ok in (None, True) else str(step.get("output")),
                )
            )
        return Trace(calls=calls, final_answer=data.get("answer"))


_SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")


class SnakeCaseToolNames(LintRule):
    """Tool names in snake_case are the convention most models were tuned on."""

    name: ClassVar[str] = "example-snake-case-names"
    description: ClassVar[str] = "tool names should be snake_case"
    severity: ClassVar[Severity] = "info"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        return list(self._findings(server))

    def _findings(self, server: ServerDefinition) -> Iterator[Finding]:
        for tool in server.tools:
            if not _SNAKE.match(tool.name):
                # finding() sets the code (the rule's name) and the rule's severity, which
                # users may change with `toolscore mcp lint --severity`.
                yield self.finding(
                    f"tool name {tool.name!r} is not snake_case",
                    tool=tool.name,
                    evidence=tool.name,
                    fix="Rename the tool in snake_case, e.g. " + _to_snake(tool.name),
                    key="name",
                )


def _to_snake(name: str) -> str:
    name = re.sub(r"[-\s.]+", "_", name)
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


class CannedProvider(Provider):
    """A model that answers from a list of canned turns: offline tests of an agent loop.

    Each entry of ``turns`` is ``{"call": TOOL, "args": {...}}`` (ask for one tool call) or
    ``{"say": TEXT}`` (the final answer). Its settings arrive as the kernel's factory call
    passes them: ``collect(pm, "providers").create("example-canned", model="canned", turns=[...])``.
    It reports the offline token estimate as usage, so a free price gives a cost of 0, not
    an unknown cost.
    """

    name: ClassVar[str] = "example-canned"
    description: ClassVar[str] = "replays canned turns (examples/third_party_plugin)"

    def __init__(self, model: str | None = "canned", *, turns: Sequence[dict[str, Any]] = (),
                 **options: Any) -> None:
        super().__init__(model, **options)
        self.turns = list(turns)
        self.requests: list[ModelRequest] = []

    def complete(self, request: ModelRequest) -> ModelTurn:
        self.requests.append(request)
        answered = sum(1 for m in request.messages if isinstance(m, ToolResultMessage))
        used = Usage(input_tokens=estimate_request_tokens(request), output_tokens=10)
        if answered >= len(self.turns):
            return ModelTurn(text="", stop_reason="end_turn", usage=used, model=self.model)
        turn = self.turns[answered]
        if "say" in turn:
            return ModelTurn(text=str(turn["say"]), stop_reason="end_turn", usage=used, model=self.model)
        call = ModelToolCall(id=f"canned-{answered + 1}", name=str(turn["call"]), arguments=dict(turn.get("args") or {}))
        return ModelTurn(tool_calls=(call,), stop_reason="tool_use", usage=used, model=self.model)


class NoShellGuard(Guard):
    """Denies calls to shell-like tools (by glob) before they reach a server."""

    name: ClassVar[str] = "example-no-shell"
    description: ClassVar[str] = "denies tools named like shells (examples/third_party_plugin)"

    def __init__(self, patterns: Sequence[str] = ("*shell*", "*exec*", "run_command")) -> None:
        self.patterns = tuple(patterns)

    def check(self, call: ToolCall, context: GuardContext) -> GuardDecision | None:
        for pattern in self.patterns:
            if fnmatch.fnmatchcase(call.tool, pattern):
                return deny(f"{call.tool!r} looks like a shell (pattern {pattern!r}); this plugin never runs one")
        return None


class InOrderExecutor(Executor):
    """Runs every item in the calling process, in input order: the smallest executor there is.

    It shows the contract a real one (a cluster, a queue) keeps: one :class:`WorkResult` per
    key, an item's exception is a result with a :class:`WorkError`, never the end of the run.
    """

    name: ClassVar[str] = "example-in-order"
    description: ClassVar[str] = "runs items one by one in this process (examples/third_party_plugin)"
    in_process: ClassVar[bool] = True  # so a study may run its cells here, sharing its budget

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers  # accepted, and ignored: there is one worker, this process

    def run(self, fn: Callable[[Any], Any], items: Iterable[tuple[Any, Any]]) -> Iterator[WorkResult]:
        for key, item in items:
            try:
                yield WorkResult(key=key, value=fn(item))
            except Exception as exc:
                yield WorkResult(key=key, error=WorkError.from_exception(exc))


@hookimpl
def toolscore_register_providers() -> list[type[Provider]]:
    return [CannedProvider]


@hookimpl
def toolscore_register_guards() -> list[type[Guard]]:
    return [NoShellGuard]


@hookimpl
def toolscore_register_executors() -> list[type[Executor]]:
    return [InOrderExecutor]


@hookimpl
def toolscore_register_adapters() -> list[type[TraceAdapter]]:
    return [StepLogAdapter]


@hookimpl
def toolscore_register_lint_rules() -> list[type[LintRule]]:
    return [SnakeCaseToolNames]
