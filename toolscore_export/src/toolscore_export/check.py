"""``toolscore export validate FILE``: check a whole records file and its manifest.

Unreadable input (no such file, not a file) is an :class:`InputError` (exit 2). Anything
that shows the file or its manifest changed since export is a :class:`Problem`, and every
one is reported, each naming the line (or the manifest key) so a person can look at it:
a line that is not JSON, a record that fails :func:`validate_record`, a run id seen twice,
a manifest that is missing, edited, or does not match the file's bytes or record count.
The file is read one line at a time.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs

from toolscore_export.manifest import (
    MANIFEST_HASH_KEY,
    MANIFEST_SCHEMA,
    manifest_hash,
    manifest_path,
)

MAX_PROBLEMS = 50


@attrs.frozen
class Problem:
    """One sign of tampering: where (``line 3, $.run_id`` or ``manifest, $.output.sha256``) and what."""

    where: str
    message: str

    def describe(self) -> str:
        return f"{self.where}: {self.message}"


@attrs.frozen
class FileCheck:
    """The result of checking one records file: lines read, records valid, and every problem."""

    file: Path
    records: int
    problems: tuple[Problem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def _lines(path: Path, digest: Any) -> Iterator[tuple[int, bytes]]:
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            digest.update(raw)
            yield number, raw


def check_file(path: str | Path, *, require_manifest: bool = True,
               on_progress: Callable[[int], None] | None = None) -> FileCheck:
    """Check every line of the records file at ``path`` and its manifest (see the module docstring).

    ``on_progress`` is called with the lines checked so far, after each line."""
    from toolscore_core import InputError
    from toolscore_core.kernel.files import not_a_file
    from toolscore_export.validate import _validate

    file = Path(path)
    if not file.is_file():
        raise not_a_file(file)
    tell = on_progress if on_progress is not None else _ignore
    problems: list[Problem] = []
    digest = hashlib.sha256()
    records = number = 0
    seen: set[str] = set()
    try:
        for number, raw in _lines(file, digest):
            tell(number - 1)
            if not raw.strip():
                problems.append(Problem(f"line {number}", "is blank (a records file has one record per line)"))
                continue
            try:
                text = raw.decode("utf-8")
                record = json.loads(text)
            except (UnicodeDecodeError, ValueError) as exc:
                problems.append(Problem(f"line {number}", f"is not valid JSON ({type(exc).__name__})"))
                continue
            except RecursionError:
                problems.append(Problem(f"line {number}", "is nested too deeply to read, which no export writes"))
                continue
            if not raw.endswith(b"\n"):
                problems.append(Problem(f"line {number}", "has no trailing newline (the file was cut)"))
            try:
                _validate(record, text)
            except InputError as exc:
                problems.append(Problem(f"line {number}, {exc.location}", exc.message))
                continue
            records += 1
            if record["run_id"] in seen:
                problems.append(Problem(f"line {number}, $.run_id", f"run {record['run_id']!r} appears twice"))
            seen.add(record["run_id"])
            if len(problems) >= MAX_PROBLEMS:
                break
    except OSError as exc:
        raise InputError(f"cannot be read ({exc.strerror})", file=file) from None
    else:
        tell(number)
        problems.extend(_manifest_problems(file, digest.hexdigest(), records, require_manifest))
    return FileCheck(file=file, records=records, problems=tuple(problems))


def _ignore(lines: int) -> None:
    """The progress callback of a check no one watches."""


def _manifest_problems(file: Path, sha256: str, records: int, required: bool) -> list[Problem]:
    where = manifest_path(file)
    if not where.exists():
        return [Problem("manifest", f"{where.name} is missing (an interrupted export, or it was removed)")] \
            if required else []
    from toolscore_core.kernel.readlimits import MAX_NESTING, deeper_than

    try:
        text = where.read_text(encoding="utf-8")
        manifest = json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return [Problem("manifest", f"{where.name} cannot be read as JSON ({type(exc).__name__})")]
    except RecursionError:
        return [Problem("manifest", f"{where.name} is nested too deeply to read, which no export writes")]
    if not isinstance(manifest, dict) or manifest.get("schema") != MANIFEST_SCHEMA:
        return [Problem("manifest, $.schema", f"{where.name} is not a {MANIFEST_SCHEMA}")]
    if deeper_than(manifest, MAX_NESTING, text):  # a manifest is a few levels deep; its hash walks it
        return [Problem("manifest", f"{where.name} is nested more than {MAX_NESTING} levels deep, "
                                    "which no export writes")]
    problems = []
    if manifest.get(MANIFEST_HASH_KEY) != manifest_hash(manifest):
        problems.append(Problem(f"manifest, $.{MANIFEST_HASH_KEY}", "does not match the manifest (it was edited)"))
    output: dict[str, Any] = manifest["output"] if isinstance(manifest.get("output"), dict) else {}
    if output.get("sha256") != sha256:
        problems.append(Problem("manifest, $.output.sha256", "does not match the file's bytes (lines were changed, "
                                "added, removed or reordered)"))
    if output.get("records") != records:
        problems.append(Problem("manifest, $.output.records",
                                f"says {output.get('records')!r} records, the file holds {records} valid ones"))
    return problems


__all__ = ["FileCheck", "Problem", "check_file"]
