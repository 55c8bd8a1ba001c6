"""Where snapshots live on disk: one small, stable JSON file per snapshot.

A snapshot is a reviewed list of tool calls that a test's agent made once, kept as the
baseline later runs are compared with. The files are meant to be read in a pull request,
so they are plain JSON with sorted keys, and writing the same calls twice gives the same
bytes (no timestamps): an unchanged snapshot never shows up in a diff.

File names are the ones tool-scorer 1.10.0 used (``<sanitized name>-<sha1[:8]>.json``), so
an existing snapshot directory keeps working, and its files are read as they are.

Only the standard library and attrs are imported here: the pytest plugin imports this
module in every test session that uses the fixture, and the commands import it for
``toolscore snapshots``; neither should pay for scoring code.
"""

from __future__ import annotations

import builtins
import contextlib
import difflib
import hashlib
import json
import os
import re
import tempfile
import unicodedata
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from toolscore_core import InputError

DEFAULT_DIR = Path(".toolscore/snapshots")
SCHEMA_VERSION = 1
SOURCES = ("pytest", "record", "trace")

# Path separators, drive letters, glob and redirection characters and whitespace: what
# 1.10.0 replaced with ``__``. Control and format characters (escape sequences, NUL, bidi
# overrides) are replaced too: they have no business in a file name anyone reads.
_UNSAFE = re.compile(r'[/\\:\[\]<>|*?"]|\s')
_STEM_LIMIT = 100
_HOSTILE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})


def _created_with() -> str:
    from toolscore_pytest import __version__

    return f"toolscore-pytest {__version__}"


def _as_calls(calls: Iterable[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    return tuple(calls)


@attrs.frozen
class Snapshot:
    """One recorded baseline.

    :param name: the pytest node id (parametrized ids included) or a ``--name``.
    :param calls: ``{"tool": str, "args": {...}}`` dicts, in the order they were made.
    :param approved: whether a person has reviewed it; only approved snapshots are
        compared against, a pending one is re-recorded on every run.
    :param source: what wrote it: ``"pytest"`` (the fixture), ``"record"`` or ``"trace"``.
    :param options: the matching options recorded with it (may be empty).
    """

    name: str
    calls: tuple[dict[str, Any], ...] = attrs.field(default=(), converter=_as_calls)
    approved: bool = False
    source: str = "pytest"
    options: Mapping[str, Any] = attrs.field(factory=dict)

    def to_json(self) -> str:
        """The file's text: stable, so the same snapshot always gives the same bytes."""
        data: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "name": self.name,
            "approved": self.approved,
            "source": self.source,
            "calls": [dict(call) for call in self.calls],
            "created_with": _created_with(),
        }
        if self.options:
            data["options"] = dict(self.options)
        try:
            return json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
        except (TypeError, ValueError) as exc:
            raise InputError(
                f"cannot save snapshot {_shown(self.name)}: its calls are not plain JSON ({exc})",
                hint="convert values such as datetime, Decimal or numpy numbers to strings or "
                "numbers before the agent output reaches toolscore_snapshot",
            ) from None


def _shown(name: str) -> str:
    """``name`` quoted and made safe to print (it can come from a hostile file)."""
    from toolscore_core import visible

    return repr(visible(name))


def sanitize(name: str) -> str:
    """The file-name stem of ``name`` before its hash: 1.10.0's rule, plus control characters."""
    text = name.replace("::", "__")
    text = _UNSAFE.sub("__", text)
    text = "".join("__" if unicodedata.category(ch) in _HOSTILE_CATEGORIES else ch for ch in text)
    text = text.strip(".")
    return (text or "snapshot")[:_STEM_LIMIT]


def _parse(path: Path, text: str) -> Snapshot:
    """A :class:`Snapshot` from a file's text, or an InputError saying where it is wrong."""
    fix = "fix the file, or delete it and run the test again to record it afresh"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not valid JSON ({exc.msg})", file=path, location=f"line {exc.lineno}, column {exc.colno}", hint=fix
        ) from None
    if not isinstance(data, dict):
        raise InputError("a snapshot must be a JSON object", file=path, location="$",
                         expected='{"name": ..., "calls": [...]}', hint=fix)
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise InputError("missing or empty snapshot name", file=path, location="$.name",
                         expected="a string (the test's node id)", hint=fix)
    calls = data.get("calls")
    if not isinstance(calls, list):
        raise InputError("missing or invalid calls", file=path, location="$.calls",
                         expected="a list of {\"tool\": ..., \"args\": {...}} objects", hint=fix)
    for index, call in enumerate(calls):
        if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
            raise InputError("a call needs a tool name", file=path, location=f"$.calls[{index}].tool",
                             expected="a string", hint=fix)
        if not isinstance(call.get("args", {}), dict):
            raise InputError("call arguments must be an object", file=path,
                             location=f"$.calls[{index}].args", expected="a JSON object", hint=fix)
    approved = data.get("approved", False)
    if not isinstance(approved, bool):
        raise InputError("approved must be true or false", file=path, location="$.approved", hint=fix)
    source = data.get("source", "pytest")
    if not isinstance(source, str):
        raise InputError("source must be a string", file=path, location="$.source",
                         expected=" or ".join(SOURCES), hint=fix)
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise InputError("options must be an object", file=path, location="$.options", hint=fix)
    return Snapshot(name=name, calls=tuple(calls), approved=approved, source=source, options=options)


class SnapshotStore:
    """The snapshot directory. Nothing is created until the first :meth:`save`."""

    def __init__(self, root: Path | str = DEFAULT_DIR) -> None:
        self.root = Path(root)

    def path_for(self, name: str) -> Path:
        """The file of snapshot ``name``: always directly inside :attr:`root`.

        The stem has no separators and ends in a hash of the whole name, so no name (not
        ``../../x``, not an absolute path) can point outside the directory, and two names
        that sanitize alike still get two files.
        """
        if not isinstance(name, str) or not name:
            raise InputError("a snapshot needs a non-empty name", expected="a string such as a pytest node id")
        digest = hashlib.sha1(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        return self.root / f"{sanitize(name)}-{digest}.json"

    def _read(self, path: Path) -> Snapshot:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise InputError("not UTF-8 text", file=path, hint="a snapshot file is JSON in UTF-8") from None
        except OSError as exc:
            raise InputError(f"cannot read the snapshot ({exc.strerror})", file=path) from None
        return _parse(path, text)

    def load(self, name: str) -> Snapshot | None:
        """The snapshot called ``name``, or None when it has not been recorded."""
        path = self.path_for(name)
        if not path.is_file():
            return None
        snapshot = self._read(path)
        if snapshot.name != name:
            raise InputError(
                f"the file holds snapshot {_shown(snapshot.name)}, not {_shown(name)}",
                file=path, location="$.name", hint="rename or delete the file",
            )
        return snapshot

    def save(self, snapshot: Snapshot) -> Path:
        """Write ``snapshot`` atomically (a crash never leaves half a baseline); return its path."""
        path = self.path_for(snapshot.name)
        text = snapshot.to_json()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        except OSError as exc:
            raise InputError(f"cannot write the snapshot ({exc.strerror})", file=path) from None
        try:
            with open(fd, "w", encoding="utf-8", newline="\n") as stream:
                stream.write(text)
            os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        return path

    def approve(self, name: str) -> Snapshot:
        """Mark ``name`` approved and save it; an unknown name is an InputError naming close ones."""
        snapshot = self.load(name)
        if snapshot is None:
            known = [s.name for s in self.list()]
            close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
            hint = ("did you mean " + ", ".join(_shown(c) for c in close) + "?") if close else (
                "run `toolscore snapshots` to see the recorded names" if known
                else "run the test first: it records the snapshot")
            raise InputError(f"no snapshot named {_shown(name)} in {self.root}", hint=hint)
        approved = attrs.evolve(snapshot, approved=True)
        if not snapshot.approved:
            self.save(approved)
        return approved

    def approve_all(self) -> builtins.list[Snapshot]:
        """Approve every pending snapshot; return the ones that were pending (now approved)."""
        done = []
        for snapshot in self.pending():
            approved = attrs.evolve(snapshot, approved=True)
            self.save(approved)
            done.append(approved)
        return done

    def delete(self, name: str) -> None:
        """Remove snapshot ``name``; nothing happens when it does not exist."""
        with contextlib.suppress(FileNotFoundError):
            self.path_for(name).unlink()

    def list(self) -> builtins.list[Snapshot]:
        """Every snapshot in the directory, sorted by name; a malformed file is an InputError."""
        if not self.root.is_dir():
            return []
        found = [self._read(path) for path in sorted(self.root.glob("*.json")) if not path.name.startswith(".")]
        return sorted(found, key=lambda s: s.name)

    def pending(self) -> builtins.list[Snapshot]:
        """The snapshots still waiting for review, sorted by name."""
        return [s for s in self.list() if not s.approved]


def find_root(start: Path | str) -> Path:
    """The project directory for ``start``: nearest one upward with ``.toolscore/``,
    ``pyproject.toml`` or ``.git`` (so the commands find the snapshots pytest wrote from
    any subfolder); ``start`` itself when none is found."""
    here = Path(start).resolve()
    if here.is_file():
        here = here.parent
    for folder in (here, *here.parents):
        if (folder / ".toolscore").is_dir() or (folder / "pyproject.toml").is_file() or (folder / ".git").exists():
            return folder
    return here
