"""Reading what a task needs: gold files, forbidden-call files and their Python forms.

A gold file is either a list of expected calls or an object
``{"expected": [...], "forbidden": [...], "weights": {...}, "min_score": x, "mode": "..."}``;
a forbidden file is a list of ``{"tool", "args", "reason"}`` rules (or ``{"forbidden": [...]}``).
Both may be JSON or YAML. Their shape is checked against the JSON Schemas shipped in
``toolscore_core/schemas/`` (compiled once per process with fastjsonschema), and every
problem is an :class:`InputError` naming the file, the JSON path inside it and what was
expected. Matcher forms (``{"$regex": ...}``) become matcher objects.

The Python API takes the same shapes as Python objects: lists of dicts (matchers inline),
:class:`ExpectedCall` / :class:`ForbiddenRule` objects, tool calls from a recorded trace
(used as the expectation, e.g. a baseline), or a :class:`Contract`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.files import json_path, load_data_file
from toolscore_core.kernel.model import (
    Contract,
    ExpectedCall,
    ExpectedCallDraft,
    ForbiddenRule,
    ToolCall,
    Trace,
    fills_soundly,
)
from toolscore_core.scoring.matchers import Matcher, has_dollar_key, parse_matchers
from toolscore_core.scoring.modes import check_mode

_SHAPES = {
    "gold": 'a list of {"tool": NAME, "args": {...}} objects, or an object with an "expected" list',
    "forbidden": 'a list of {"tool": NAME, "args": {...}, "reason": TEXT} rules',
}


@functools.cache
def load_schema(name: str) -> dict[str, Any]:
    """A shipped JSON Schema by name (``gold``, ``forbidden``, ``evaluation``)."""
    # imported here: it pulls in tempfile and shutil, and a plain gold list needs no schema
    from importlib import resources

    text = resources.files("toolscore_core.schemas").joinpath(f"{name}.schema.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@functools.cache
def validator(name: str, definition: str | None = None) -> Callable[[Any], Any]:
    """The compiled validator of a shipped schema (or of one of its definitions), built once."""
    import fastjsonschema

    schema = dict(load_schema(name))
    if definition is not None:
        schema.pop("oneOf", None)
        schema["$ref"] = f"#/definitions/{definition}"
    return fastjsonschema.compile(schema)


def _real_path(data: Any, raw: Sequence[Any]) -> list[str | int]:
    """fastjsonschema reports list indexes as strings; walk the data to tell them apart."""
    path: list[str | int] = []
    node = data
    for part in raw:
        if isinstance(node, list) and isinstance(part, str) and part.isdigit():
            index = int(part)
            path.append(index)
            node = node[index] if index < len(node) else None
        else:
            path.append(part)
            node = node.get(part) if isinstance(node, dict) else None
    return path


def _describe_schema_error(exc: Any, data: Any) -> tuple[str, str, str | None]:
    """(message, JSON path, expected) from a fastjsonschema error."""
    path = _real_path(data, (exc.path or [])[1:])
    message = str(exc.message)
    if message.startswith("data"):
        message = message.split(" ", 1)[1] if " " in message else message
    expected = None
    rule = getattr(exc, "rule", None)
    definition = getattr(exc, "definition", None) or {}
    if rule == "additionalProperties" and isinstance(definition, dict):
        allowed = ", ".join(sorted(definition.get("properties", {})))
        expected = f"only the keys {allowed}"
        message = "has an unknown key"
        extra = _unknown_key(exc.value, definition)
        if extra is not None:
            message = f"has an unknown key {extra!r}"
            if extra == "side_effects":  # a tool-scorer 1.10.0 gold file: say why, not only what
                message += (" (tool-scorer 1.10.0's side-effect checks are not part of Toolscore: remove it and "
                            "check the effect in your own test)")
            path = [*path, extra]
    elif rule == "required" and isinstance(definition, dict):
        expected = f"the key(s) {', '.join(definition.get('required', []))}"
    elif rule == "type" and isinstance(definition, dict):
        expected = f"a value of type {definition.get('type')}"
    elif rule == "enum" and isinstance(definition, dict):
        expected = f"one of {', '.join(str(v) for v in definition.get('enum', []) if v is not None)}"
    return message, json_path(path), expected


def _unknown_key(value: Any, definition: dict[str, Any]) -> str | None:
    if isinstance(value, dict):
        for key in value:
            if key not in definition.get("properties", {}):
                return str(key)
    return None


def _validate(name: str, definition: str, data: Any, file: str | Path | None, prefix: Sequence[str | int] = ()) -> None:
    import fastjsonschema

    try:
        validator(name, definition)(data)
    except fastjsonschema.JsonSchemaValueException as exc:
        message, location, expected = _describe_schema_error(exc, data)
        if prefix:
            location = json_path([*prefix]) + location[1:]
        raise InputError(message, file=file, location=location,
                         expected=expected or _SHAPES.get(name)) from None


def _plain(item: Any) -> Any:
    """Python objects (ExpectedCall, ForbiddenRule, ToolCall) as the dicts files would hold."""
    if isinstance(item, ExpectedCall):
        out: dict[str, Any] = {"tool": item.tool, "args": item.args}
        if item.description is not None:
            out["description"] = item.description
        return out
    if isinstance(item, ForbiddenRule):
        rule: dict[str, Any] = {"tool": item.tool, "args": item.args}
        if item.reason is not None:
            rule["reason"] = item.reason
        return rule
    if isinstance(item, ToolCall):
        return {"tool": item.tool, "args": item.args}
    return item


def _check_python_args(items: Any, file: str | Path | None, prefix: Sequence[str | int]) -> None:
    """Reject what a schema cannot see in Python objects: non-str dict keys in args."""
    if not isinstance(items, list):
        return
    for i, item in enumerate(items):
        if isinstance(item, dict) and isinstance(item.get("args"), dict):
            try:
                "".join(item["args"])  # C-level: fails exactly when a key is not a str
                continue
            except TypeError:
                pass
            for key in item["args"]:
                if not isinstance(key, str):
                    raise InputError(f"argument names must be strings, not {key!r}", file=file,
                                     location=json_path([*prefix, i, "args"]))


def expected_calls(data: Any, *, file: str | Path | None = None, prefix: Sequence[str | int] = ()) -> tuple[ExpectedCall, ...]:
    """Expected calls from a list (dicts with matcher forms or objects, ToolCalls, a Trace)."""
    if isinstance(data, Trace):
        data = list(data.calls)
    if isinstance(data, tuple):
        data = list(data)
    if isinstance(data, list):
        plain = _plain_expected(data, file, prefix)  # a list of dicts as given, not copied first
        if plain is not None:
            return plain
        data = [item if type(item) is dict else _plain(item) for item in data]  # a dict is already plain
        plain = _plain_expected(data, file, prefix)  # objects (ExpectedCall, ToolCall) as dicts now
        if plain is not None:
            return plain
    _validate("gold", "expected_list", data, file, prefix)
    _check_python_args(data, file, prefix)
    calls = []
    for i, item in enumerate(data):
        args = item.get("args")
        if args is not None:
            args = parse_matchers(args, file=file, path=[*prefix, i, "args"])
        calls.append(ExpectedCall(tool=item["tool"], args=args, description=item.get("description")))
    return tuple(calls)


_ABSENT = object()  # a key the item does not have
_CONTAINERS = frozenset({dict, list})  # the value types has_dollar_key looks into
_EXPECTED_SLOTS = ("tool", "args", "description")
# Filling a draft is only sound while ExpectedCall has exactly these fields and no validator
# or converter, and the interpreter lets a draft become an ExpectedCall (model.fills_soundly);
# otherwise every list takes the general path.
_EXPECTED_SOUND = fills_soundly(ExpectedCallDraft, ExpectedCall, _EXPECTED_SLOTS)


def _plain_expected(data: list[Any], file: str | Path | None,
                    prefix: Sequence[str | int]) -> tuple[ExpectedCall, ...] | None:
    """The expected calls of a list every item of which the gold schema plainly accepts; else None.

    Why: the compiled schema validator, the key check and the build walked a 10k-call gold
    file three times (a third of reading it). An item that is a dict with only the keys
    tool/args/description, a non-empty str tool, dict-or-null args with str keys and a str
    description (when present) passes the schema, so it is built in the same pass, as a
    draft (see ``model.draft_of``: plain stores, then ``__class__``). Anything else returns
    None before a single call is kept, and the caller validates the whole list as before,
    with its error messages and paths. The checks are plain lookups and one walk of each
    item's argument names: comparing key views, joining the names and mapping the values'
    types cost four times as much, the most of reading a gold list.
    """
    if not _EXPECTED_SOUND:
        return None
    draft, expected_call = ExpectedCallDraft, ExpectedCall
    absent, containers = _ABSENT, _CONTAINERS
    calls: list[ExpectedCall] = []
    append = calls.append
    forms: list[int] = []  # the items whose args hold a matcher form ($regex, ...)
    for i, item in enumerate(data):
        if type(item) is not dict:
            return None
        tool = item.get("tool")
        args = item.get("args", absent)
        description = item.get("description", absent)
        # no key but these three: counted from the lookups (cheaper than comparing the keys)
        if (type(tool) is not str or not tool or len(item) != 1 + (args is not absent) + (description is not absent)
                or (description is not absent and type(description) is not str)):
            return None
        if args is absent:
            args = None
        elif args is not None:
            if type(args) is not dict:
                return None
            walk = False  # whether has_dollar_key must look: only a "$" key or a dict or list value can hold a form
            for key, value in args.items():
                if type(key) is not str:
                    if not isinstance(key, str):
                        return None  # the schema path names the key
                    walk = True
                elif "$" in key or type(value) in containers:
                    walk = True
            if walk and has_dollar_key(args):
                forms.append(i)
        if description is absent:
            description = None
        call = draft()
        call.tool = tool
        call.args = args
        call.description = description
        call.__class__ = expected_call  # every field is set: from here on it is a frozen ExpectedCall
        append(call)
    for i in forms:  # after every shape check, as the general path: a shape error is reported first
        object.__setattr__(calls[i], "args", parse_matchers(data[i]["args"], file=file, path=[*prefix, i, "args"]))
    return tuple(calls)


def forbidden_rules(data: Any, *, file: str | Path | None = None, prefix: Sequence[str | int] = ()) -> tuple[ForbiddenRule, ...]:
    """Forbidden rules from a list (dicts with matcher forms, or ForbiddenRule objects)."""
    if data is None:
        return ()
    if isinstance(data, tuple):
        data = list(data)
    if isinstance(data, list):
        data = [_plain(item) for item in data]
    elif isinstance(data, dict) and "forbidden" in data and not prefix:
        _validate("forbidden", "forbidden_list", data.get("forbidden"), file, ["forbidden"])
        return forbidden_rules(data["forbidden"], file=file, prefix=["forbidden"])
    _validate("forbidden", "forbidden_list", data, file, prefix)
    _check_python_args(data, file, prefix)
    rules = []
    for i, item in enumerate(data):
        args = item.get("args")
        if args is not None:
            args = parse_matchers(args, file=file, path=[*prefix, i, "args"])
        rules.append(ForbiddenRule(tool=item.get("tool"), args=args, reason=item.get("reason")))
    return tuple(rules)


def contract_from_data(data: Any, *, file: str | Path | None = None) -> Contract:
    """A Contract from parsed gold data (a list of calls, or the object form)."""
    source = str(file) if file is not None else None
    if isinstance(data, Contract):
        return data
    if isinstance(data, dict):
        # The lists are checked below with their own paths; here only the object's own keys.
        allowed = load_schema("gold")["definitions"]["contract"]["properties"]
        unknown = [k for k in data if k not in allowed]
        if unknown:
            import difflib

            close = difflib.get_close_matches(str(unknown[0]), list(allowed), n=1, cutoff=0.6)
            raise InputError(f"has an unknown key {unknown[0]!r}", file=file, location=json_path([str(unknown[0])]),
                             expected=f"only the keys {', '.join(allowed)}",
                             hint=f"Did you mean {close[0]!r}?" if close else
                             'A gold file is a list of calls or an object with an "expected" list')
        own = {k: v for k, v in data.items() if k not in ("expected", "forbidden")}
        own.update({k: [] for k in ("expected", "forbidden") if k in data})
        _validate("gold", "contract", own, file)
        expected = expected_calls(data["expected"], file=file, prefix=["expected"])
        forbidden = forbidden_rules(data.get("forbidden"), file=file, prefix=["forbidden"])
        mode = data.get("mode")
        check_mode(mode, file=source, location="$.mode")
        return Contract(expected=expected, forbidden=forbidden, weights=dict(data.get("weights") or {}),
                        min_score=data.get("min_score"), mode=mode, source=source)
    if isinstance(data, (list, tuple, Trace)):
        return Contract(expected=expected_calls(data, file=file), source=source)
    raise InputError(f"is {_kind(data)}, not a gold file", file=file, location="$", expected=_SHAPES["gold"])


def _kind(data: Any) -> str:
    if data is None:
        return "empty (null)"
    if isinstance(data, Matcher):
        return "a matcher"
    return f"a {type(data).__name__}"


def load_contract(path: str | Path) -> Contract:
    """Read a gold file (JSON or YAML)."""
    data = load_data_file(path)
    return contract_from_data(data, file=path)


def load_forbidden(path: str | Path) -> tuple[ForbiddenRule, ...]:
    """Read a forbidden-calls file (JSON or YAML)."""
    data = load_data_file(path)
    if not isinstance(data, (list, dict)):
        raise InputError(f"is {_kind(data)}, not a list of rules", file=path, location="$", expected=_SHAPES["forbidden"])
    return forbidden_rules(data, file=path)


def is_path(value: Any) -> bool:
    return isinstance(value, Path) or (isinstance(value, str) and "\n" not in value and
                                        Path(value).suffix.lower() in (".json", ".yaml", ".yml"))


def as_contract(expected: Any) -> Contract:
    """Whatever ``evaluate(expected=...)`` was given, as a Contract."""
    if isinstance(expected, Contract):
        return expected
    if is_path(expected):
        return load_contract(expected)
    if expected is None:
        raise InputError("no expected calls given", expected="a list of expected calls or a gold file path")
    return contract_from_data(expected)


def as_forbidden(forbidden: Any) -> tuple[ForbiddenRule, ...]:
    """Whatever ``evaluate(forbidden=...)`` was given, as rules."""
    if forbidden is None:
        return ()
    if is_path(forbidden):
        return load_forbidden(forbidden)
    return forbidden_rules(forbidden)


__all__ = [
    "as_contract",
    "as_forbidden",
    "contract_from_data",
    "expected_calls",
    "forbidden_rules",
    "load_contract",
    "load_forbidden",
    "load_schema",
    "validator",
]
