"""What the framework adapters share: reading serialized runs handed over as bytes or text,
and a few shape tests that keep ``detect()`` cheap and exception-free.

Frameworks save runs with their own serializers (``all_messages_json()`` returns bytes,
stream-json is text with one frame a line), so an adapter may receive the raw bytes rather
than parsed data. Provider adapters never see those, so this lives with the frameworks.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from toolscore_core import InputError
from toolscore_core.kernel.files import json_path

__all__ = ["dicts", "iso_time", "json_path", "parse_json_text", "peek_text", "tag", "text_or_json"]


def peek_text(data: Any, limit: int = 4096) -> str | None:
    """The first ``limit`` characters of ``data`` when it is JSON text or bytes, else None.

    Used by ``detect()`` to look for a format's marker keys without parsing the whole input.
    """
    if isinstance(data, (bytes, bytearray, memoryview)):
        head = bytes(data[:limit]).decode("utf-8", errors="replace")
    elif isinstance(data, str):
        head = data[:limit]
    else:
        return None
    stripped = head.lstrip("\ufeff \t\r\n")
    return stripped if stripped.startswith(("[", "{")) else None


def parse_json_text(data: Any, *, what: str) -> Any:
    """Parse JSON (or JSON Lines) text or bytes; a broken document is an InputError naming
    the line and column, ``what`` says which serializer was expected."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        try:
            text = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InputError(f"{what} is not valid UTF-8 (byte offset {exc.start})") from None
    else:
        text = str(data)
    if not text.strip():
        raise InputError(f"{what} is empty", expected="at least one message")
    try:
        return json.loads(text)
    except json.JSONDecodeError as first:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) > 1:
            try:
                return [json.loads(line) for line in lines]
            except json.JSONDecodeError:
                pass
        raise InputError(
            f"{what} is not valid JSON ({first.msg})",
            location=f"line {first.lineno}, column {first.colno}",
            hint="The file may be truncated; save the run again",
        ) from None
    except RecursionError:
        raise InputError(f"{what} is nested too deeply to read") from None


def dicts(items: Iterable[Any]) -> list[dict[str, Any]]:
    """The dict items of ``items`` (others skipped): shape tests in detect()."""
    return [item for item in items if isinstance(item, dict)]


def tag(mapping: dict[str, Any], key: str) -> str | None:
    """A discriminator value (``type``, ``kind`` ...) when it is a string, else None, so that
    set lookups on hostile input never meet an unhashable value."""
    value = mapping.get(key)
    return value if isinstance(value, str) else None


def text_or_json(value: Any) -> str | None:
    """A final answer as text: strings stay, structured output becomes compact JSON."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def iso_time(value: Any) -> datetime | None:
    """An ISO 8601 timestamp as a datetime; None for anything else.

    Frameworks record when a call started and ended, and a duration is only worth reporting
    when both stamps read cleanly, so a missing or malformed stamp is unknown, never an
    error. A trailing ``Z`` is accepted on every Python version (3.10 refuses it).
    """
    if not isinstance(value, str):
        return None
    text = value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def where(*parts: str | int) -> str:
    """A JSON path for error messages: ``where(3, "parts", 0)`` -> ``$[3].parts[0]``."""
    return json_path(list(parts))
