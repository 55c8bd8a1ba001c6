"""A complete third-party plugin: one trace adapter and one MCP lint rule.

It imports only public names from ``toolscore_core`` (what ``toolscore_core.__all__``
lists), exactly as an outside author would, and is found through the entry points in its
pyproject.toml: no registration code, no configuration.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any, ClassVar

from toolscore_core import (
    Finding,
    InputError,
    LintRule,
    ServerDefinition,
    Severity,
    ToolCall,
    Trace,
    TraceAdapter,
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


@hookimpl
def toolscore_register_adapters() -> list[type[TraceAdapter]]:
    return [StepLogAdapter]


@hookimpl
def toolscore_register_lint_rules() -> list[type[LintRule]]:
    return [SnakeCaseToolNames]
