"""Planning and writing the files of ``toolscore init``.

Why plan first: ``--dry-run`` must show exactly what a real run would do, and a real run must
never overwrite a user's file without ``--force``. So each file gets a decided action
(write, overwrite, skip because it exists, error because the path cannot be a file) before
anything touches the disk, and writing only carries the plan out.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from toolscore_pytest.init.frameworks import Framework
from toolscore_pytest.init.templates import (
    README_FILE,
    TEST_FILE,
    WORKFLOW_FILE,
    render_readme,
    render_test,
    render_workflow,
)

WRITE = "write"
OVERWRITE = "overwrite"
SKIP = "skip"
BLOCKED = "blocked"


@dataclass
class Planned:
    """One file of the scaffold and what will happen to it."""

    relpath: str
    content: str
    action: str = WRITE
    reason: str = ""


def plan(root: Path, framework: Framework, *, workflow: bool, force: bool) -> list[Planned]:
    """The files for ``framework`` under ``root``, each with its action decided."""
    files = [Planned(TEST_FILE, render_test(framework))]
    if workflow:
        files.append(Planned(WORKFLOW_FILE, render_workflow()))
    files.append(Planned(README_FILE, render_readme()))
    for item in files:
        _decide(root, item, force)
    return files


def _decide(root: Path, item: Planned, force: bool) -> None:
    target = root / item.relpath
    blocker = _blocking_parent(root, item.relpath)
    if blocker is not None:
        item.action, item.reason = BLOCKED, f"{blocker} exists and is not a folder"
    elif target.is_dir():
        item.action, item.reason = BLOCKED, "a folder of that name exists"
    elif target.exists() or target.is_symlink():
        item.action, item.reason = (OVERWRITE, "replaced (--force)") if force else (SKIP, "exists; --force overwrites it")


def _blocking_parent(root: Path, relpath: str) -> str | None:
    """The first parent of ``relpath`` that exists but is not a folder (so nothing can be written below it)."""
    parts = Path(relpath).parts[:-1]
    for depth in range(1, len(parts) + 1):
        parent = root.joinpath(*parts[:depth])
        if parent.exists() and not parent.is_dir():
            return Path(*parts[:depth]).as_posix()
    return None


def write(root: Path, files: list[Planned]) -> None:
    """Carry out the plan: write each file planned for writing. A failure marks that file
    blocked with the reason and the others are still written."""
    for item in files:
        if item.action not in (WRITE, OVERWRITE):
            continue
        target = root / item.relpath
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            if item.action == OVERWRITE and target.is_symlink():
                target.unlink()  # replace the link itself, never write through it to elsewhere
            target.write_text(item.content, encoding="utf-8", newline="\n")
        except OSError as exc:
            item.action, item.reason = BLOCKED, f"could not be written ({exc.strerror or type(exc).__name__})"
