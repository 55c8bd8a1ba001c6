"""``validate_record(record)``: is this a well-formed run record, unchanged since it was written?

Two checks, in this order, each naming the exact field that broke: the JSON Schema
(``schemas/run-record-v1.schema.json``, draft-07, compiled once with fastjsonschema; a record
:mod:`~toolscore_export.record_check` proves valid by plain type tests skips it), then
the record's own ``hashes.record_sha256`` and the per-value hashes (arguments, results,
prompt, final answer). A schema-valid record with a changed value fails on the hash, so
tampering with any field is caught; which field is named when it carries a hash of its
own, and otherwise the record hash is.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from importlib import resources
from typing import Any

from toolscore_export.canonical import sha256_fast, sha256_hex
from toolscore_export.record import RECORD_HASH_KEY, record_hash
from toolscore_export.record_check import surely_valid_record

SCHEMA_FILE = "run-record-v1.schema.json"


def record_schema() -> dict[str, Any]:
    """The shipped JSON Schema of a run record, version 1: a new copy on every call, since
    validators (fastjsonschema among them) rewrite the ``$ref`` values of what they compile."""
    schema: dict[str, Any] = json.loads(_schema_text())
    return schema


@functools.cache
def _schema_text() -> str:
    return resources.files("toolscore_export").joinpath("schemas").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


@functools.cache
def _compiled() -> Callable[[Any], Any]:
    import fastjsonschema

    return fastjsonschema.compile(record_schema())


def _path(parts: list[str], data: Any) -> str:
    from toolscore_core import json_path

    out: list[str | int] = []
    node = data
    for part in parts[1:]:  # fastjsonschema names the root "data"
        if isinstance(node, list) and part.isdigit():
            out.append(int(part))
            node = node[int(part)] if int(part) < len(node) else None
        else:
            out.append(part)
            node = node.get(part) if isinstance(node, dict) else None
    return json_path(out)


def schema_problem(record: Any) -> tuple[str, str] | None:
    """``(JSON path, what is wrong)`` for the first schema violation, or None."""
    import fastjsonschema

    try:
        _compiled()(record)
    except fastjsonschema.JsonSchemaValueException as exc:
        path = _path(list(exc.path or []), record)
        message = str(exc.message).split(" ", 1)[-1]
        if exc.rule == "additionalProperties" and isinstance(exc.value, dict):
            known = (exc.definition or {}).get("properties", {})
            extra = next((k for k in exc.value if k not in known), None)
            if extra is not None:
                path, message = f"{path}.{extra}" if path != "$" else f"$.{extra}", "is not a field of the schema"
        return path, message
    return None


def hash_problem(record: Mapping[str, Any], *, prepared: bool = False) -> tuple[str, str] | None:
    """``(JSON path, what is wrong)`` for the first hash that does not match, or None.

    Value hashes are checked first, so a changed argument or result names its call; the
    record hash last, so any other change is still caught. ``prepared``: the caller knows
    ``record`` is in prepared shape (``canonical.orjson_line`` read it), so no hash walks a
    value to find out; the hashes are the same either way.
    """
    hash_of = sha256_fast if prepared else sha256_hex
    for i, call in enumerate(record["requested_calls"]):
        problem = _value_hash(hash_of, call["args"], call["args_sha256"], f"$.requested_calls[{i}]", "args")
        if problem:
            return problem
    for i, call in enumerate(record["completed_calls"]):
        expected = call["result_sha256"]
        if expected is not None:
            problem = _value_hash(hash_of, call["result"], expected, f"$.completed_calls[{i}]", "result")
            if problem:
                return problem
    hashes = record["hashes"]
    for field in ("prompt", "final_answer"):
        problem = _value_hash(hash_of, record[field], hashes[field], "$", field, hash_path=f"$.hashes.{field}")
        if problem:
            return problem
    try:
        whole = record_hash(record, prepared=prepared)
    except (ValueError, TypeError) as exc:  # the strict encoder met what JSON cannot hold: no export wrote it
        return not_json_place(record, exc)
    if whole != hashes[RECORD_HASH_KEY]:
        return f"$.hashes.{RECORD_HASH_KEY}", "does not match the record (a field was changed after export)"
    return None


def not_json_place(value: Any, exc: Exception) -> tuple[str, str]:
    """``(JSON path, why)`` of what in ``value`` has no canonical JSON, given the encoder's ``exc``: a
    NaN or an infinity, which a lenient parser reads (``"score": NaN``) and a schema's ``number``
    admits, or, from a caller in Python, a value or a key JSON has no form for. For the record
    here and the manifest ``export validate`` reads."""
    from toolscore_core import json_path

    found = _not_json_at(value, [])
    if found is None:
        return "$", f"cannot be written as JSON ({exc})"
    return json_path(found[0]), found[1]


def _not_json_at(value: Any, parts: list[str | int]) -> tuple[list[str | int], str] | None:
    """The path of the first value in ``value`` that JSON cannot hold, depth first, and why; None when
    there is none of those kinds (an integer too long to write is left to the caller's message)."""
    if isinstance(value, float):
        return None if value - value == 0 else (parts, "is NaN or an infinity, which is not JSON (no export writes it)")
    if value is None or isinstance(value, (str, int)):
        return None
    if isinstance(value, Mapping):
        odd = next((key for key in value if not isinstance(key, str)), None)
        if odd is not None:
            return parts, f"has a key that is not a string ({type(odd).__name__}), which JSON cannot hold"
        items: Any = value.items()
    elif isinstance(value, (list, tuple)):
        items = enumerate(value)
    else:
        return parts, f"is of type {type(value).__name__}, which JSON cannot hold"
    for key, item in items:
        found = _not_json_at(item, [*parts, key])
        if found is not None:
            return found
    return None


def _value_hash(hash_of: Callable[[Any], str], value: Any, expected: str | None, base: str, field: str,
                hash_path: str | None = None) -> tuple[str, str] | None:
    where = f"{base}.{field}" if base != "$" else f"$.{field}"
    if expected is None:
        if value is not None:
            return where, f"has a value but its hash ({hash_path or where + '_sha256'}) is null"
        return None
    try:
        actual = hash_of(value)
    except (ValueError, TypeError) as exc:  # from a caller in Python: a set, a key that is no string
        inside, why = not_json_place(value, exc)
        return where + inside[1:], why
    if actual != expected:
        return where, "does not match its SHA-256 (changed after export)"
    return None


#: Levels of arrays and objects a record may have: a run row's limit (``ROW_MAX_NESTING``,
#: 254) and room for the few levels a record wraps a value in (a trace's values are held to
#: 100). Past it no export wrote the record, and the checks' recursive walks (the canonical
#: form, the schema) could run out of stack.
RECORD_MAX_NESTING = 264


def validate_record(record: Any) -> None:
    """Check ``record`` against the run-record schema and its own hashes.

    Raises :class:`toolscore_core.InputError` whose ``location`` is the JSON path of the
    field that broke it (``$.completed_calls[0].status``, ``$.hashes.record_sha256``).
    Returns None for a valid, unchanged record.
    """
    _validate(record)


def _validate(record: Any, text: str | None = None, *, prepared: bool = False) -> None:
    """:func:`validate_record`; ``text``: the JSON ``record`` was read from, which proves most
    records shallow without walking them (``export validate`` has it); ``prepared``: ``record``
    is ``canonical.orjson_line``'s value of its line, so in prepared shape and at most
    ``ORJSON_WRITES_LEVELS`` (254) deep, within the limit with no look."""
    from toolscore_core import InputError
    from toolscore_core.kernel.readlimits import deeper_than

    if not prepared and deeper_than(record, RECORD_MAX_NESTING, text):
        raise InputError(f"is nested more than {RECORD_MAX_NESTING} levels deep, which no export writes",
                         location="$", expected=f"at most {RECORD_MAX_NESTING} levels of arrays and objects")
    try:
        _checked(record, prepared)
    except RecursionError:  # a caller already deep in its own stack: said, not a traceback
        raise InputError("is nested too deeply to check from here", location="$",
                         hint="Validate it from a shallower call (the command line does)") from None


def _checked(record: Any, prepared: bool) -> None:
    from toolscore_core import InputError

    problem = None if surely_valid_record(record) else schema_problem(record)
    if problem is not None:
        raise InputError(problem[1], location=problem[0],
                         expected="a toolscore.run-record version 1 (run-record-v1.schema.json)")
    problem = hash_problem(record, prepared=prepared)
    if problem is not None:
        raise InputError(problem[1], location=problem[0],
                         hint="Export the run again from its source; a record is never edited by hand")


__all__ = ["RECORD_MAX_NESTING", "SCHEMA_FILE", "hash_problem", "not_json_place", "record_schema", "schema_problem",
           "validate_record"]
