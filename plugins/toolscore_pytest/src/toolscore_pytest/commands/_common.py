"""What the snapshot commands share: finding the store, printing outside text, close names.

Snapshot names, tool names and arguments come from test ids, trace files and models: any
of them can hold escape sequences or bidi overrides, so every one goes through
:func:`shown` (or :func:`shown_value`) before it is printed.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from toolscore_pytest.store import Snapshot, SnapshotStore

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
#: Longest argument text shown in a table cell (``--json`` shows all of it).
ARGS_LIMIT = 120


def dir_option(fn: Any) -> Any:
    """The ``--dir`` option every snapshot command takes (tool-scorer 1.10.0's spelling)."""
    return click.option(
        "--dir", "directory", metavar="PATH", default=None,
        help="Snapshot store directory (default: .toolscore/snapshots in the project root, "
             "found upward from here).")(fn)


def open_store(directory: str | None) -> SnapshotStore:
    """The store of ``--dir``, or of the project that holds the current directory."""
    from toolscore_pytest.store import DEFAULT_DIR, SnapshotStore, find_root

    if directory is not None:
        return SnapshotStore(Path(directory))
    return SnapshotStore(find_root(Path.cwd()) / DEFAULT_DIR)


def shown(text: Any, limit: int = 200) -> str:
    """Outside text made safe and short for one line of a terminal."""
    from toolscore_core import visible

    return str(visible(text, limit))


def quoted(name: str) -> str:
    """A snapshot name as printed in messages: made visible, then quoted (not ``repr``:
    that would double the backslashes of the escapes and mislead about the name)."""
    return f"'{shown(name)}'"


def shown_value(value: Any, limit: int = ARGS_LIMIT) -> str:
    """A JSON value (a call's arguments) as one safe line."""
    try:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return shown(text, limit)


def unknown_names(names: Iterable[str], known: Iterable[str], root: Path) -> Any:
    """An InputError for names not in the store, suggesting close ones (or saying none exist)."""
    from toolscore_core import InputError

    missing = list(names)
    known = sorted(known)
    close: list[str] = []
    for name in missing:
        close += [c for c in difflib.get_close_matches(name, known, n=3, cutoff=0.5) if c not in close]
    which = ", ".join(quoted(n) for n in missing)
    if close:
        hint = "Did you mean " + ", ".join(quoted(c) for c in close) + "?"
    elif known:
        hint = "`toolscore snapshots list` shows the recorded names"
    else:
        hint = "No snapshot is recorded there yet: run the tests (or `toolscore record`) first"
    noun = "snapshot" if len(missing) == 1 else "snapshots"
    return InputError(f"no {noun} named {which} in {shown(str(root))}", hint=hint)


def state(snapshot: Snapshot) -> str:
    return "approved" if snapshot.approved else "pending"


def display_path(path: Path) -> str:
    """``path`` relative to the current directory when it is below it (shorter to read)."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def table(headers: list[str], rows: list[list[str]]) -> list[str]:
    """Plain aligned columns (no colour, no box): readable in a CI log and easy to grep."""
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return lines
