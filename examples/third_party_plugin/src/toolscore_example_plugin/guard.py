"""The ``example-no-shell`` guard: denies shell-like tools before they reach a server."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from typing import ClassVar

from toolscore_core import Guard, GuardContext, GuardDecision, ToolCall, deny


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
