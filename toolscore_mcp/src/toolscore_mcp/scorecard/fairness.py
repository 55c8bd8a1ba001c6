"""Fairness rules of ``mcp test``: which tools are safe to call, and which failures are ours.

Why: grading a server by calling its tools must neither change the user's world nor blame
the server for our own guesses. Two rules live here so the runner and the judge share them.

Side effects. A tool is *destructive* when annotated ``destructiveHint: true`` or named
like delete/drop/remove; it *writes* when annotated ``readOnlyHint: false`` or named (or
described, by its first word) like create/write/move/edit/set/add/... Both are called
only with ``--allow-destructive``. Annotations win over names, both ways:

- ``readOnlyHint: true`` makes a tool safe even when its name says "set" or "delete": the
  server vouches for it, and the runner checks that claim afterwards (a read-only tool that
  changes what the other read tools return is a finding).
- ``readOnlyHint: false`` means "may change its environment" in the MCP specification, so
  such a tool writes even if it is named like a reader; ``destructiveHint: false`` only
  lowers it from destructive to writing.
- ``idempotentHint: true`` does not make a writer safe: creating a directory twice is
  idempotent and still creates it.

Our guesses. A valid call built from a value we made up (``"example"`` for a path, a
number for ``head``) may fail only because the value does not exist on that server; an
error that says so ("no such file", "not found", "invalid ...") is inconclusive, not
"fails on valid input". Values the server gave us (``enum``, ``const``, ``default``,
``examples``, resources, allowed directories, list results) count as real.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from toolscore_core.kernel.model import ToolDefinition

SideEffect = Literal["destructive", "writes"]

DESTRUCTIVE_WORDS = frozenset({"delete", "drop", "remove", "destroy", "purge", "erase", "wipe", "truncate",
                               "kill", "rm", "unlink", "revoke", "reset", "overwrite", "del"})
WRITE_WORDS = frozenset({"create", "write", "move", "rename", "edit", "set", "add", "put", "upload", "insert",
                         "update", "append", "save", "post", "send", "mkdir", "modify", "patch", "upsert",
                         "store", "publish", "submit", "mv", "cp", "copy"})

INVENTED_REFUSED = "refuses-invented-value"

# What a server says when the *value* was wrong for it (missing, unknown, malformed),
# as opposed to the tool being broken.
_INPUT_COMPLAINT = re.compile(
    r"no such|not found|does ?n[o']t exist|not exist|\benoent\b|\benotdir\b|\beisdir\b|is a directory"
    r"|not a directory|not a file|\binvalid\b|\bunknown\b|unrecogni[sz]ed|not allowed|outside (?:of )?(?:the )?allowed"
    r"|access denied|must be|must not|\bexpected\b|cannot specify|can ?not be used together|mutually exclusive"
    r"|only one of|out of range|no match|\b404\b|bad request|unsupported (?:value|format|type)|malformed"
    r"|could not (?:find|parse)|failed to parse|illegal operation",
    re.IGNORECASE,
)


def _words(text: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text).lower()
    return [word for word in re.split(r"[^a-z0-9]+", spaced) if word]


def _verb_stem(word: str) -> set[str]:
    """``creates`` -> {creates, create}; ``pushes`` -> {pushes, push}: third-person descriptions."""
    stems = {word}
    if word.endswith("es"):
        stems.add(word[:-2])
    if word.endswith("s"):
        stems.add(word[:-1])
    return stems


def side_effect(tool: ToolDefinition) -> SideEffect | None:
    """``destructive``, ``writes`` or ``None`` (safe to call while grading)."""
    hints: dict[str, Any] = dict(tool.annotations or {})
    if hints.get("readOnlyHint") is True:
        return None
    if hints.get("destructiveHint") is True:
        return "destructive"
    names = _words(tool.name)
    description = _words(tool.description or "")[:1]
    leading = _verb_stem(description[0]) if description else set()
    if hints.get("destructiveHint") is not False and (
            any(word in DESTRUCTIVE_WORDS for word in names) or leading & DESTRUCTIVE_WORDS):
        return "destructive"
    if hints.get("readOnlyHint") is False:
        return "writes"
    if any(word in WRITE_WORDS or word in DESTRUCTIVE_WORDS for word in names):
        return "writes"
    if leading & (WRITE_WORDS | DESTRUCTIVE_WORDS):
        return "writes"
    return None


def skip_reason(effect: SideEffect) -> str:
    """The line the scorecard shows next to a tool it did not call."""
    if effect == "destructive":
        return "destructive: not called without --allow-destructive"
    return "writes (creates or changes data): not called without --allow-destructive"


def complains_about_input(message: str | None) -> bool:
    """True when an error message says the input was wrong rather than the tool broken."""
    return bool(message) and bool(_INPUT_COMPLAINT.search(message or ""))
