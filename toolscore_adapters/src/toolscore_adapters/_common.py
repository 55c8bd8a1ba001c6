"""Small helpers every adapter needs: recognising SDK objects without importing the SDK,
turning them into plain data, parsing argument strings, and pairing results with calls.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from typing import Any

from toolscore_core import InputError, ToolCall


def class_path(obj: Any) -> str:
    """``module.QualName`` of an object's class (how live SDK objects are recognised)."""
    cls = type(obj)
    return f"{cls.__module__}.{cls.__qualname__}"


def from_package(obj: Any, *packages: str) -> bool:
    """True when ``obj``'s class comes from one of ``packages`` (top-level names)."""
    module = type(obj).__module__ or ""
    return module.split(".", 1)[0] in packages


def to_plain(obj: Any) -> Any:
    """Convert pydantic models, dataclasses, attrs objects and SDK objects into plain data.

    Plain dicts, lists and scalars pass through (recursively converted).
    """
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if isinstance(obj, dict):
        return {str(k): to_plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_plain(v) for v in obj]
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        try:
            return to_plain(dump(mode="json", exclude_none=False))
        except TypeError:
            return to_plain(dump())
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    to_dict = getattr(obj, "to_dict", None) or getattr(obj, "dict", None)
    if callable(to_dict):
        try:
            return to_plain(to_dict())
        except TypeError:
            pass
    if hasattr(obj, "__dict__"):
        return {k: to_plain(v) for k, v in vars(obj).items() if not k.startswith("_")}
    return obj


def parse_arguments(raw: Any, *, where: str) -> dict[str, Any] | None:
    """Arguments as a dict: a JSON object string is parsed, a dict is kept, ``None`` stays
    unknown. Text that is not a JSON object is an :class:`InputError` naming ``where``."""
    if raw is None:
        return None
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        if not raw.strip():
            return {}
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"tool-call arguments are not valid JSON ({exc.msg})",
                location=where,
                expected="a JSON object string such as '{\"city\": \"NYC\"}'",
            ) from None
        if isinstance(value, dict):
            return value
        raise InputError(f"tool-call arguments must be a JSON object, not {type(value).__name__}", location=where)
    raise InputError(f"tool-call arguments must be an object, not {type(raw).__name__}", location=where)


def result_text(content: Any) -> Any:
    """Flatten provider result content (a string, or a list of text blocks) into text;
    anything else is returned as it is."""
    if isinstance(content, list):
        texts = [b.get("text") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
        if texts and len(texts) == len(content):
            return "\n".join(texts)
    return content


def attach_results(calls: list[ToolCall], results: dict[str, dict[str, Any]]) -> list[ToolCall]:
    """Give each call the result recorded under its id (``result``, ``is_error``, ``error``,
    ``duration`` keys). A call with no recorded result keeps ``is_error=None`` (unknown)."""
    import attrs

    out = []
    for call in calls:
        found = results.get(call.id) if call.id is not None else None
        if found is None:
            out.append(call)
            continue
        out.append(attrs.evolve(call, **{k: v for k, v in found.items() if k in {"result", "structured_result", "is_error", "error", "duration"}}))
    return out


def first_present(mapping: dict[str, Any], keys: Iterable[str]) -> Any:
    for key in keys:
        if key in mapping and mapping[key] is not None:
            return mapping[key]
    return None
