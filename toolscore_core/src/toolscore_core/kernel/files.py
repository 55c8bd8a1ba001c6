"""Reading user files (JSON, JSON Lines, YAML) into plain data, with errors people can act on.

Every failure is an :class:`InputError` naming the file, the line and column, and what
was expected: an empty file, invalid UTF-8, malformed JSON or YAML. Nothing here knows
what the data means; callers validate its shape.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from toolscore_core.kernel.errors import InputError

YAML_SUFFIXES = (".yaml", ".yml")


def read_text(path: str | Path) -> str:
    """The file's text; a missing file, a directory or invalid UTF-8 is an InputError."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise InputError("file not found", file=p, hint="Check the path") from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", file=p) from None
    except OSError as exc:
        raise InputError(f"cannot be read ({exc.strerror})", file=p) from None
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


def parse_json_text(text: str, *, file: str | Path | None = None) -> Any:
    """Parse JSON; errors name the line and column."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"is not valid JSON ({exc.msg})",
            file=file,
            location=f"line {exc.lineno}, column {exc.colno}",
        ) from None
    except RecursionError:
        raise InputError("is nested too deeply to read", file=file) from None


def iter_json_lines(text: str, *, file: str | Path | None = None) -> Iterator[Any]:
    """Yield one value per non-blank line of JSON Lines text."""
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"line is not valid JSON ({exc.msg})",
                file=file,
                location=f"line {number}, column {exc.colno}",
                expected="one JSON value per line (JSON Lines)",
            ) from None


def looks_like_json_lines(text: str) -> bool:
    """True when the text has several lines that each start a JSON object or array."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 2:
        return False
    first = lines[0].strip()
    if not first.startswith(("{", "[")):
        return False
    try:
        json.loads(first)
    except json.JSONDecodeError:
        return False
    return True


def parse_yaml_text(text: str, *, file: str | Path | None = None) -> Any:
    """Parse YAML (safe loader); errors name the line and column."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    yaml = YAML(typ="safe", pure=True)
    try:
        return yaml.load(text)
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
    text = read_text(p)
    if not text.strip():
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
