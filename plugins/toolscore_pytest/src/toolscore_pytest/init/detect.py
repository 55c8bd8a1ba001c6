"""Which agent framework a project uses, from its imports and declared dependencies.

Why a bounded scan: ``toolscore init`` runs in whatever folder the user is in, which may
hold a virtualenv, ``node_modules`` or a data dump. Only Python sources and dependency files
are read, environment and build folders are skipped, files over a size limit are skipped and
the walk stops after a fixed number of files, so init stays instant anywhere.

Nothing read here may stop init: an unreadable file or a broken ``pyproject.toml`` becomes a
warning line and the scan goes on.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolscore_pytest.init.frameworks import FRAMEWORKS, GENERIC, Framework

MAX_FILES = 2000
MAX_FILE_BYTES = 512 * 1024
MAX_DEPTH = 8
SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", "env", ".env", "node_modules", "__pycache__", "site-packages",
    ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", "build", "dist", ".eggs", ".toolscore",
    ".cache", ".idea", ".vscode",
})

_REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_IMPORT_LINE = re.compile(r"^\s*(?:from\s+([A-Za-z_]\w*)[\w.]*\s+import|import\s+([A-Za-z_]\w*))", re.MULTILINE)


@dataclass
class Detection:
    """What the scan found: evidence per framework key, and warnings about files it could not read."""

    evidence: dict[str, list[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    files_scanned: int = 0
    truncated: bool = False

    def add(self, key: str, where: str) -> None:
        seen = self.evidence.setdefault(key, [])
        if where not in seen:
            seen.append(where)

    @property
    def found(self) -> list[Framework]:
        """The frameworks seen, in priority order (the first one is chosen)."""
        return [f for f in FRAMEWORKS if f.key in self.evidence]

    @property
    def chosen(self) -> Framework:
        found = self.found
        return found[0] if found else next(f for f in FRAMEWORKS if f.key == GENERIC)


def normalise(name: str) -> str:
    """A distribution name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def detect(root: Path) -> Detection:
    """Scan ``root`` for framework imports and dependencies."""
    result = Detection()
    local = _local_modules(root)
    by_module = {m: f.key for f in FRAMEWORKS for m in f.modules if m not in local}
    by_dist = {d: f.key for f in FRAMEWORKS for d in f.dists}
    _scan_pyproject(root, by_dist, result)
    for path in sorted(root.glob("requirements*.txt")) + sorted(root.glob("requirements/*.txt")):
        _scan_requirements(root, path, by_dist, result)
    for path in _python_files(root, result):
        text = _read(root, path, result)
        if text is None:
            continue
        result.files_scanned += 1
        for module in _imported_modules(text):
            key = by_module.get(module)
            if key is not None:
                result.add(key, f"import in {_rel(root, path)}")
    return result


def _local_modules(root: Path) -> set[str]:
    """Top-level module names the project itself defines: a local ``agents`` package is the
    user's own code, not the OpenAI Agents SDK (which also imports as ``agents``)."""
    names: set[str] = set()
    for base in (root, root / "src"):
        try:
            entries = list(base.iterdir()) if base.is_dir() else []
        except OSError:
            continue
        for entry in entries:
            if entry.suffix == ".py":
                names.add(entry.stem)
            elif entry.is_dir() and (entry / "__init__.py").is_file():
                names.add(entry.name)
    return names


def _python_files(root: Path, result: Detection) -> Iterator[Path]:
    count = 0
    for dirpath, dirnames, filenames in os.walk(root, onerror=None):
        depth = len(Path(dirpath).relative_to(root).parts)
        dirnames[:] = sorted(d for d in dirnames
                             if d not in SKIP_DIRS and not d.startswith(".") and not d.endswith(".egg-info")
                             and depth < MAX_DEPTH)
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            if count >= MAX_FILES:
                result.truncated = True
                return
            count += 1
            yield Path(dirpath) / name


def _read(root: Path, path: Path, result: Detection) -> str | None:
    """The text of ``path``, or None (with a warning when it exists but cannot be read)."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        result.warnings.append(f"{_rel(root, path)}: could not be read ({exc.strerror or type(exc).__name__}); skipped")
        return None


def _imported_modules(text: str) -> set[str]:
    """Top-level names imported by a Python source; a file that does not parse is read
    line by line instead, so a half-edited file still counts."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {a or b for a, b in _IMPORT_LINE.findall(text)}
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def _scan_requirements(root: Path, path: Path, by_dist: dict[str, str], result: Detection) -> None:
    text = _read(root, path, result)
    if text is None:
        return
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        _match_requirement(line, by_dist, result, _rel(root, path))


def _match_requirement(spec: str, by_dist: dict[str, str], result: Detection, where: str) -> None:
    match = _REQUIREMENT_NAME.match(spec)
    if match:
        key = by_dist.get(normalise(match.group(1)))
        if key is not None:
            result.add(key, f"dependency in {where}")


def _scan_pyproject(root: Path, by_dist: dict[str, str], result: Detection) -> None:
    path = root / "pyproject.toml"
    if not path.is_file():
        return
    text = _read(root, path, result)
    if text is None:
        return
    try:
        data = _load_toml(text)
    except Exception as exc:  # any parser error (or a missing parser) is a warning, never a traceback
        result.warnings.append(f"pyproject.toml: not readable as TOML ({_first_line(exc)}); its dependencies were not checked")
        return
    for spec in _pyproject_requirements(data):
        _match_requirement(spec, by_dist, result, "pyproject.toml")


def _load_toml(text: str) -> dict[str, Any]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    return tomllib.loads(text)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:120] if text else type(exc).__name__


def _pyproject_requirements(data: Any) -> Iterator[str]:
    """Every requirement string or name the common layouts declare: PEP 621 (with its
    extras), PEP 735 dependency groups, Poetry (with its groups), PDM dev dependencies.
    Unexpected types are skipped: the file is the user's, not ours to validate."""
    if not isinstance(data, dict):
        return
    project = data.get("project")
    if isinstance(project, dict):
        yield from _strings(project.get("dependencies"))
        extras = project.get("optional-dependencies")
        if isinstance(extras, dict):
            for value in extras.values():
                yield from _strings(value)
    groups = data.get("dependency-groups")
    if isinstance(groups, dict):
        for value in groups.values():
            yield from _strings(value)
    tool = data.get("tool")
    if not isinstance(tool, dict):
        return
    poetry = tool.get("poetry")
    if isinstance(poetry, dict):
        yield from _keys(poetry.get("dependencies"))
        yield from _keys(poetry.get("dev-dependencies"))
        poetry_groups = poetry.get("group")
        if isinstance(poetry_groups, dict):
            for group in poetry_groups.values():
                if isinstance(group, dict):
                    yield from _keys(group.get("dependencies"))
    pdm = tool.get("pdm")
    if isinstance(pdm, dict) and isinstance(pdm.get("dev-dependencies"), dict):
        for value in pdm["dev-dependencies"].values():
            yield from _strings(value)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, list):
        yield from (item for item in value if isinstance(item, str))


def _keys(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        yield from (key for key in value if isinstance(key, str))


def _rel(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()
