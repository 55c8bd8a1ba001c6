"""Reading user files (JSON, JSON Lines, YAML) into plain data, with errors people can act on.

Every failure is an :class:`InputError` naming the file, the line and column, and what
was expected: an empty file, invalid UTF-8, malformed JSON or YAML, or valid data past the
limits of :mod:`toolscore_core.kernel.readlimits` (a file too big to read whole, nesting
too deep, an integer too long, a YAML alias bomb). Nothing here knows what the data
means; callers validate its shape.

Output files go through :func:`write_atomic`, so a reader (or a second run writing the
same file) never sees half of one.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from toolscore_core.kernel import readlimits
from toolscore_core.kernel.errors import InputError

YAML_SUFFIXES = (".yaml", ".yml")


def not_a_file(path: Path) -> InputError:
    """The error for a path that names no file to read: missing, a directory, a symbolic link
    whose target is missing or that leads back to itself, or something else (a socket).

    Why spelled out: "file not found" for a link that exists but loops sends a user looking
    for a file that is right there."""
    if path.is_symlink():
        try:
            path.resolve(strict=True)
        except FileNotFoundError:
            return InputError("is a symbolic link to a file that does not exist", file=path,
                              hint="Point the link at a file, or name the file itself")
        except (OSError, RuntimeError):  # a loop: RuntimeError before Python 3.13, OSError from it
            return symlink_loop(path)
    if not path.exists():
        return InputError("file not found", file=path, hint="Check the path")
    if path.is_dir():
        return InputError("is a directory, not a file", file=path)
    return InputError("is not a file", file=path)


def symlink_loop(path: Path) -> InputError:
    """The error for a symbolic link that leads back to itself (open and resolve both fail)."""
    return InputError("is a symbolic link that leads back to itself", file=path,
                      hint="Point the link at a file, or name the file itself")


def read_text(path: str | Path) -> str:
    """The file's text; a missing file, a directory, invalid UTF-8 or a file over the size
    cap (:func:`~toolscore_core.kernel.readlimits.max_file_bytes`) is an InputError."""
    p = Path(path)
    try:
        with p.open("rb") as handle:
            readlimits.check_file_size(p, os.fstat(handle.fileno()).st_size)  # refused before reading
            raw = _read_capped(handle, p)
    except FileNotFoundError:  # or a link to a missing file: said so
        raise not_a_file(p) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", file=p) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise symlink_loop(p) from None
        raise InputError(f"cannot be read ({exc.strerror})", file=p) from None
    return decode_text(raw, p)


def decode_text(raw: bytes, path: str | Path) -> str:
    """The text of a file's bytes ``raw`` (a byte-order mark dropped); invalid UTF-8 or more
    bytes than the size cap is an InputError naming ``path``, worded as :func:`read_text` words it.

    Why apart from :func:`read_text`: a caller that already holds a file's bytes (the export
    reads each small trace file once) decodes them here instead of reading the file again.
    """
    p = Path(path)
    readlimits.check_file_size(p, len(raw))
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(
            f"is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})",
            file=p,
            location=f"line {line}",
            hint="Save the file as UTF-8",
        ) from None


def _read_capped(handle: Any, path: Path) -> bytes:
    """All of ``handle``, in chunks, refused as soon as it passes the cap (a pipe or a file
    still growing says nothing of its size up front). Chunks, not ``read(cap + 1)``: that
    would allocate the whole cap at once, even for a 1 kB file."""
    cap = readlimits.max_file_bytes()
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = handle.read(1024 * 1024)
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if total > cap:
            readlimits.check_file_size(path, total)
        chunks.append(chunk)


def numbered_lines(handle: Any, path: str | Path, first: int = 1) -> Iterator[tuple[int, bytes]]:
    """``(number, line)`` for each line of the binary ``handle`` (its newline kept), numbered from
    ``first``; a line longer than :func:`~toolscore_core.kernel.readlimits.max_file_bytes`, its
    newline included, is an InputError naming ``path`` and the line, raised once that much is read.

    Why not ``for line in handle``: it reads a line whole however long it is, and a line of a
    streamed file is then decoded and parsed whole (see ``readlimits.line_too_long``). Memory
    stays within the cap a file read whole has, and the error comes before any of it is parsed.
    """
    limit = readlimits.max_file_bytes()
    readline = handle.readline
    number = first - 1
    while raw := readline(limit + 1):
        number += 1
        if len(raw) > limit:
            raise readlimits.line_too_long(path, number)
        yield number, raw


def parse_json_text(text: str, *, file: str | Path | None = None) -> Any:
    """Parse JSON (within :mod:`~toolscore_core.kernel.readlimits`); errors name the line and column."""
    try:
        return readlimits.loads(text, file=file)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"is not valid JSON ({exc.msg})",
            file=file,
            location=f"line {exc.lineno}, column {exc.colno}",
        ) from None


def iter_json_lines(text: str, *, file: str | Path | None = None) -> Iterator[Any]:
    """Yield one value per non-blank line of JSON Lines text."""
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield readlimits.loads(line, file=file, location=f"line {number}", what="line is")
        except json.JSONDecodeError as exc:
            raise InputError(
                f"line is not valid JSON ({exc.msg})",
                file=file,
                location=f"line {number}, column {exc.colno}",
                expected="one JSON value per line (JSON Lines)",
            ) from None


def looks_like_json_lines(text: str) -> bool:
    """True when the text has several lines that each start a JSON object or array."""
    lines = _non_blank_lines(text)  # the first two are enough: a large file is not split whole
    first_line = next(lines, None)
    if first_line is None or next(lines, None) is None:
        return False
    first = first_line.strip()
    if not first.startswith(("{", "[")):
        return False
    if not first.endswith(("}", "]")):
        # Safe: a stripped object or array that parses ends with its closing bracket, so
        # json.loads would refuse this line (a pretty-printed file's "{"); raising that
        # error cost more than the rest of the test.
        return False
    try:
        json.loads(first)
    except (ValueError, RecursionError):  # not JSON, or JSON past the limits: not JSON Lines
        return False
    return True


#: Every character that starts a line boundary of str.splitlines ("\r\n" starts with "\r").
_BREAK_CHARS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
# Every line boundary str.splitlines knows, "\r\n" first so that it is one boundary, as there.
_LINE_BREAK = re.compile("\r\n|[" + _BREAK_CHARS + "]")


def _next_break(text: str, start: int) -> tuple[int, int]:
    """(start, end) of the first line boundary at or after ``start``; (len, len) when none.

    What ``_LINE_BREAK.search`` finds, by ``str.find`` (a C scan) of each boundary
    character, each only up to the nearest one found so far. Why: the regex tries its
    alternation at every position, ~15 ms to cross a 1 MB one-line file (every trace written
    by ``json.dump``) to learn that it holds one line. The leftmost match of the regex is
    the leftmost boundary character, and it is two characters long exactly when that is
    ``"\r\n"``: the same answer.
    """
    first = end = len(text)
    for char in _BREAK_CHARS:
        found = text.find(char, start, first)
        if found != -1:
            first = found
    if first == end:
        return end, end
    return first, first + 2 if text.startswith("\r\n", first) else first + 1


def _non_blank_lines(text: str) -> Iterator[str]:
    """The lines of ``text`` that are not blank, in order, split as ``str.splitlines`` splits
    them, one at a time.

    Why not ``text.splitlines()``: that splits the whole text (a copy of every line) when
    only the first two lines are wanted, a tenth of reading a small trace file. Safe: the
    boundaries are splitlines' own (a test compares the two on random text), and like it
    no line is made after a final boundary.
    """
    start, end = 0, len(text)
    while start < end:
        stop, after = _next_break(text, start)
        line = text[start:stop]
        if line.strip():
            yield line
        start = after


def parse_yaml_text(text: str, *, file: str | Path | None = None) -> Any:
    """Parse YAML (safe loader); errors name the line and column.

    The document is composed first and checked (:func:`~toolscore_core.kernel.readlimits.check_yaml`:
    alias expansion budget, self-referencing aliases, complex keys, nesting) before any
    Python value is built from it, so an alias bomb is refused in a few steps.
    """
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    yaml = YAML(typ="safe", pure=True)
    try:
        node = yaml.compose(text)
        readlimits.check_yaml(node, file=file)
        if node is None:
            return None
        return readlimits.walk(yaml.constructor.construct_document(node), file=file)
    except RecursionError:
        raise InputError("is nested too deeply to read", file=file,
                         expected=f"at most {readlimits.MAX_NESTING} levels") from None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark
        location = f"line {mark.line + 1}, column {mark.column + 1}" if mark else None
        raise InputError(f"is not valid YAML ({exc.problem})", file=file, location=location) from None
    except YAMLError as exc:
        raise InputError(f"is not valid YAML ({exc})", file=file) from None


def load_data_file(path: str | Path, *, allow_json_lines: bool = False) -> Any:
    """Read a JSON or YAML file (by suffix; JSON Lines when allowed and detected).

    JSON Lines come back as a list of the values on each line.
    """
    p = Path(path)
    return parse_data_text(read_text(p), p, allow_json_lines=allow_json_lines)


def parse_data_text(text: str, path: Path, *, allow_json_lines: bool = False) -> Any:
    """What :func:`load_data_file` reads from the text of the file at ``path`` (already read:
    the caller holds its bytes), by the same rules and with the same errors."""
    p = path
    if not text or text.isspace():  # as ``not text.strip()`` decides it (the same whitespace), without a copy
        raise InputError("is empty", file=p, expected="JSON or YAML content")
    if p.suffix.lower() in YAML_SUFFIXES:
        return parse_yaml_text(text, file=p)
    if allow_json_lines and (p.suffix.lower() in (".jsonl", ".ndjson") or looks_like_json_lines(text)):
        return list(iter_json_lines(text, file=p))
    if p.suffix.lower() not in (".json", ".jsonl", ".ndjson") and not text.lstrip().startswith(("{", "[")):
        return parse_yaml_text(text, file=p)  # no telling suffix, not JSON-looking: try YAML
    return parse_json_text(text, file=p)


def json_path(parts: Sequence[str | int]) -> str:
    """``['a', 0, 'b']`` -> ``$.a[0].b`` (the place inside a file, for error messages)."""
    out = "$"
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part.isidentifier():
            out += f".{part}"
        else:
            out += f"[{json.dumps(part)}]"
    return out


def write_atomic(path: str | Path, text: str | Callable[[Any], None], *, what: str = "the file") -> None:
    """Write ``text`` to ``path`` so that no reader ever sees a partial file.

    ``text`` is the whole content, or a function that writes it to the stream it is given
    (for renderers that write as they go). The content goes to a temporary file in the same
    directory, is fsynced, and replaces ``path`` in one ``os.replace``: a crash, a full disk
    or eight runs writing the same baseline at once leave either the old file or one whole
    new one, never a mix. A file that cannot be written is an InputError naming it and
    ``what`` it was (``"the baseline"``, ``"the report"``).
    """
    # imported here, not at the top: it pulls in shutil, random, bz2 and lzma, which reading never needs
    import tempfile

    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise InputError(f"cannot write {what} ({exc.strerror})", file=target) from None
    try:
        try:
            with open(fd, "w", encoding="utf-8", newline="\n") as stream:
                if callable(text):
                    text(stream)
                else:
                    stream.write(text)
                stream.flush()
                os.fsync(stream.fileno())
            if target.exists():
                with contextlib.suppress(OSError):  # keep the mode the old file had
                    os.chmod(temp, target.stat().st_mode & 0o777)
            else:
                os.chmod(temp, 0o666 & ~_umask())
            os.replace(temp, target)
        except OSError as exc:
            raise InputError(f"cannot write {what} ({exc.strerror})", file=target) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


_UMASK: list[int] = []


def _umask() -> int:
    """The process umask (read once: reading it means setting it, briefly, for every thread)."""
    if not _UMASK:
        current = os.umask(0o022)
        os.umask(current)
        _UMASK.append(current)
    return _UMASK[0]
