"""The ``example-snake-case-names`` MCP lint rule."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import ClassVar

from toolscore_core import Finding, LintRule, ServerDefinition, Severity

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
