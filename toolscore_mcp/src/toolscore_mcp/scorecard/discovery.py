"""Real values for the happy path, asked of the server before any scenario runs.

Why: a "valid" call built from a made-up path (``"example"``) is valid for the schema but
not for the server, and a read tool that answers "no such file" to it is not broken. So
before generating scenarios the runner asks the server what exists, with read-only calls:

- ``resources/list`` (when the server has resources): URIs for ``uri`` parameters;
- a read-only tool that lists allowed directories or roots (the filesystem server's
  ``list_allowed_directories``): real directories for path parameters;
- a read-only directory-listing tool on those directories (``[FILE] a.txt`` /
  ``[DIR] sub`` lines): real files for tools that read files.

Every call here is bounded (a few calls, a short timeout, the run's deadline) and any
failure just means fewer real values: discovery never fails a run or blames a tool.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from toolscore_core.kernel.model import ToolDefinition
from toolscore_mcp.scorecard.fairness import side_effect

MAX_CALLS = 6
MAX_SECONDS_PER_CALL = 5.0
MAX_VALUES = 20

PATH_NAMES = frozenset({"path", "paths", "file", "files", "filename", "filepath", "file_path", "filenames",
                        "dir", "directory", "dirname", "folder", "root", "cwd", "source", "destination",
                        "src", "dest", "target_path", "source_path", "destination_path"})
# Tools named with these words take a directory; other path-taking tools get a file.
DIRECTORY_WORDS = frozenset({"directory", "directories", "dir", "dirs", "folder", "folders", "tree", "list",
                             "search", "find", "walk", "ls", "glob"})
_ABSOLUTE = re.compile(r"^(?:/|[A-Za-z]:[\\/])\S")
_ENTRY = re.compile(r"^\s*\[(FILE|DIR)\]\s+(.+?)\s*$", re.IGNORECASE)


@attrs.frozen
class ServerValues:
    """What exists on the server, as far as its read-only answers told us."""

    directories: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    resource_uris: tuple[str, ...] = ()

    def value_for(self, tool: str, prop: str, schema: Mapping[str, Any]) -> tuple[Any, bool] | None:
        """A value for ``prop`` of ``tool`` and whether it is real (drawn from the server);
        ``None`` when the server told us nothing that fits."""
        kind = schema.get("type")
        if kind == "array":
            items = schema.get("items")
            if not isinstance(items, Mapping) or items.get("type", "string") != "string":
                return None
            single = self.value_for(tool, prop, items)
            return ([single[0]], single[1]) if single is not None else None
        if kind not in (None, "string") or "pattern" in schema or "enum" in schema or "const" in schema:
            return None
        name = _words(prop)
        if self.resource_uris and "uri" in name:
            return self.resource_uris[0], True
        if not self.directories or not (set(name) & PATH_NAMES or "path" in _words(str(schema.get("description", "")))):
            return None
        if set(_words(tool)) & DIRECTORY_WORDS:
            return self.directories[0], True
        if self.files:
            return self.files[0], True
        # a file-reading tool and no file known: a path inside an allowed directory, made up
        return os.path.join(self.directories[0], "example.txt"), False


def _words(text: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text).lower()
    return [word for word in re.split(r"[^a-z0-9]+", spaced) if word]


def _text(result: Any) -> str:
    from toolscore_mcp.scorecard.judge import answer_text

    return answer_text(result) if isinstance(result, dict) else ""


def _read_only(tool: ToolDefinition) -> bool:
    return (tool.annotations or {}).get("readOnlyHint") is True and side_effect(tool) is None


def _required(tool: ToolDefinition) -> list[str]:
    schema = tool.input_schema if isinstance(tool.input_schema, Mapping) else {}
    required = schema.get("required")
    return [r for r in required if isinstance(r, str)] if isinstance(required, list) else []


def _lists_directories(tool: ToolDefinition) -> bool:
    words = set(_words(tool.name))
    return bool(words & {"allowed", "roots", "workspace", "workspaces"}) and bool(
        words & {"directories", "directory", "dirs", "roots", "paths", "folders", "workspaces"})


def _lists_entries(tool: ToolDefinition) -> str | None:
    """The path parameter of a read-only directory-listing tool (``list_directory``), or None."""
    words = set(_words(tool.name))
    if not ({"list", "ls"} & words and {"directory", "dir", "folder", "files"} & words):
        return None
    required = _required(tool)
    if len(required) == 1 and set(_words(required[0])) & PATH_NAMES:
        return required[0]
    return None


class _Budget:
    """At most MAX_CALLS bounded calls, none past the run's deadline; stops after a timeout."""

    def __init__(self, client: Any, timeout: float, remaining: Callable[[], float]) -> None:
        self.client = client
        self.timeout = timeout
        self.remaining = remaining
        self.calls = 0
        self.stopped = False

    def limit(self) -> float | None:
        left = self.remaining()
        if self.stopped or self.calls >= MAX_CALLS or left <= 1.0:
            return None
        self.calls += 1
        return max(0.05, min(self.timeout, MAX_SECONDS_PER_CALL, left / 4))

    def call_tool(self, name: str, args: dict[str, Any]) -> str | None:
        limit = self.limit()
        if limit is None:
            return None
        try:
            outcome = self.client.call_tool(name, args, timeout=limit)
        except Exception:  # a broken client is the runner's business, not discovery's
            self.stopped = True
            return None
        if getattr(outcome, "crashed", False) or getattr(outcome, "timed_out", False):
            self.stopped = True
            if getattr(outcome, "crashed", False):
                _restart(self.client)
            return None
        if getattr(outcome, "is_error", False) or getattr(outcome, "result", None) is None:
            return None
        return _text(outcome.result)

    def resources(self) -> list[str]:
        limit = self.limit()
        if limit is None:
            return []
        try:
            result = self.client.request("resources/list", {}, timeout=limit)
        except Exception:  # no resources, or the server refused: nothing drawn from them
            return []
        listed = result.get("resources") if isinstance(result, dict) else None
        if not isinstance(listed, list):
            return []
        return [str(item["uri"]) for item in listed
                if isinstance(item, dict) and isinstance(item.get("uri"), str)][:MAX_VALUES]


def _restart(client: Any) -> None:
    from toolscore_mcp.scorecard.runner import restart_client

    try:
        restart_client(client)
    except Exception:  # the runner notices a dead server on its first call and says so
        return


def absolute_paths(text: str) -> list[str]:
    """Absolute paths listed one per line (``Allowed directories:\\n/srv/data``)."""
    found = []
    for line in text.splitlines():
        line = line.strip().lstrip("-*• ").strip()
        if _ABSOLUTE.match(line) and len(line) < 4096:
            found.append(line)
    return found[:MAX_VALUES]


def listed_entries(text: str, directory: str) -> tuple[list[str], list[str]]:
    """Files and directories from ``[FILE] name`` / ``[DIR] name`` lines, as full paths."""
    files: list[str] = []
    dirs: list[str] = []
    for line in text.splitlines():
        match = _ENTRY.match(line)
        if match is None:
            continue
        name = match.group(2)
        path = name if _ABSOLUTE.match(name) else os.path.join(directory, name)
        (files if match.group(1).upper() == "FILE" else dirs).append(path)
    return files[:MAX_VALUES], dirs[:MAX_VALUES]


def discover_values(client: Any, tools: Sequence[ToolDefinition], *, timeout: float,
                    remaining: Callable[[], float]) -> ServerValues:
    """Ask the server (read-only, bounded) for values that exist; see the module docstring."""
    budget = _Budget(client, timeout, remaining)
    capabilities = getattr(client, "capabilities", None)
    uris = budget.resources() if isinstance(capabilities, dict) and "resources" in capabilities else []
    directories: list[str] = []
    for tool in tools:
        if _read_only(tool) and _lists_directories(tool) and not _required(tool):
            directories.extend(absolute_paths(budget.call_tool(tool.name, {}) or ""))
    files: list[str] = []
    sub_directories: list[str] = []
    listers = [(tool.name, prop) for tool in tools if _read_only(tool) and (prop := _lists_entries(tool))]
    for directory in directories[:2]:
        for name, prop in listers[:1]:
            found, dirs = listed_entries(budget.call_tool(name, {prop: directory}) or "", directory)
            files.extend(found)
            sub_directories.extend(dirs)
    return ServerValues(directories=tuple(dict.fromkeys([*directories, *sub_directories]))[:MAX_VALUES],
                        files=tuple(dict.fromkeys(files))[:MAX_VALUES], resource_uris=tuple(uris))
