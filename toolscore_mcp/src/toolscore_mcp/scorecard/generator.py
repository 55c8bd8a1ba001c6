"""Scenarios generated from a tool's input schema: valid calls and adversarial ones.

Why from the schema: it is the contract the model sees. A valid call built from it must
succeed; a call that breaks it must be refused cleanly, because a model *will* send one.

Happy-path kinds (must succeed): required properties only, all properties, each further
enum (or boolean) value, boundary numbers and string lengths, a second value of each
string format. Edge kinds: a required property missing, a wrong type, out of range, null,
an unknown property, empty / huge / non-ASCII strings. Edge calls whose input the schema
forbids must be rejected; the rest (a unicode string, an unknown property when
``additionalProperties`` is not false) only need a clean answer, success or refusal.

Happy-path values come from the server where it offers them: ``const``, ``enum``,
``examples`` and ``default`` in the schema, then what ``discovery`` found on the live server
(real directories, files, resource URIs). Every other value is made up, and each scenario
names the arguments that are (``Scenario.invented``), so a refusal of one of ours is not
blamed on the tool (``fairness``).

A schema construct we cannot build a value for (an empty enum, an impossible range, a
``$ref`` we cannot resolve, ``not`` ...) never stops the run: the tool gets a
``scenario-unsupported-schema`` finding and keeps whatever scenarios could be built.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from toolscore_core.kernel.model import Finding, ToolDefinition
from toolscore_mcp.lint.rules_common import schema_types
from toolscore_mcp.scorecard.model import Category, Expectation, Scenario

if TYPE_CHECKING:
    from toolscore_mcp.scorecard.discovery import ServerValues

UNKNOWN_PROPERTY = "toolscore_unexpected_property"
HUGE_STRING_LENGTH = 100_000
UNICODE_SAMPLE = "Grüße, 你好, مرحبا, 🙂"
DEFAULT_SCENARIOS_PER_TOOL = 6

# Order = priority when a per-tool budget keeps only some scenarios (round robin by kind).
HAPPY_KINDS = ("required_only", "all_properties", "boundary_min", "enum_value", "boundary_max", "format")
EDGE_KINDS = ("missing_required", "wrong_type", "out_of_range", "null_value", "unknown_property",
              "empty_string", "huge_string", "unicode")

_FORMAT_EXAMPLES: dict[str, tuple[str, str]] = {
    "date-time": ("2026-01-15T09:30:00Z", "2026-03-01T12:00:00+02:00"),
    "date": ("2026-01-15", "2024-02-29"),
    "time": ("09:30:00", "23:59:59"),
    "email": ("user@example.com", "first.last+tag@example.org"),
    "uri": ("https://example.com/", "https://example.org/a/b?c=1"),
    "url": ("https://example.com/", "https://example.org/a/b?c=1"),
    "uuid": ("123e4567-e89b-12d3-a456-426614174000", "00000000-0000-4000-8000-000000000000"),
    "ipv4": ("192.0.2.1", "198.51.100.7"),
    "ipv6": ("2001:db8::1", "::1"),
    "hostname": ("example.com", "api.example.org"),
}
_WRONG_VALUES: dict[str, Any] = {
    "string": 12345,
    "integer": "not a number",
    "number": "not a number",
    "boolean": "not a boolean",
    "array": "not an array",
    "object": "not an object",
    "null": "not null",
}
_PATTERN_CANDIDATES = ("example", "abc", "a", "1", "123", "abc123", "A1", "example-1", "2026-01-15",
                       "user@example.com", "https://example.com/", "ABC", "a_b", "x" * 8)


class Unsupported(Exception):
    """A schema construct the generator cannot build a value for."""


@attrs.frozen
class GeneratedScenarios:
    """Every scenario built for one tool, and what could not be built."""

    tool: str
    happy: tuple[Scenario, ...]
    edge: tuple[Scenario, ...]
    findings: tuple[Finding, ...]

    def select(self, budget: int | None) -> list[Scenario]:
        """At most ``budget`` scenarios (``None``: all): half happy, half edge, taking one of
        each kind in priority order before a second of any (so the kinds stay varied)."""
        if budget is None:
            return [*self.happy, *self.edge]
        happy = _round_robin(self.happy, HAPPY_KINDS, budget // 2)
        edge = _round_robin(self.edge, EDGE_KINDS, budget - len(happy))
        if len(happy) + len(edge) < budget:  # too few edge cases: give the rest to the happy path
            happy = _round_robin(self.happy, HAPPY_KINDS, budget - len(edge))
        return [*happy, *edge]


def _round_robin(scenarios: Iterable[Scenario], kinds: tuple[str, ...], limit: int) -> list[Scenario]:
    by_kind: dict[str, list[Scenario]] = {kind: [] for kind in kinds}
    for scenario in scenarios:
        by_kind.setdefault(scenario.kind, []).append(scenario)
    chosen: list[Scenario] = []
    depth = 0
    while len(chosen) < limit and any(len(group) > depth for group in by_kind.values()):
        for group in by_kind.values():
            if len(group) > depth and len(chosen) < limit:
                chosen.append(group[depth])
        depth += 1
    return chosen


class _Context:
    """Resolves local ``$ref`` against the root schema and records what is unsupported."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.problems: list[str] = []

    def resolve(self, schema: Any, depth: int = 0) -> dict[str, Any]:
        if not isinstance(schema, Mapping):
            raise Unsupported(f"a schema that is not an object ({json.dumps(schema)[:40]})")
        if "$ref" in schema:
            if depth > 8:
                raise Unsupported("a $ref cycle")
            ref = schema["$ref"]
            if not isinstance(ref, str) or not ref.startswith("#/"):
                raise Unsupported(f"$ref {ref!r} (only local references are followed)")
            target: Any = self.root
            for part in ref[2:].split("/"):
                part = part.replace("~1", "/").replace("~0", "~")
                if not isinstance(target, Mapping) or part not in target:
                    raise Unsupported(f"$ref {ref!r}, which points nowhere")
                target = target[part]
            with_target = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
            return self.resolve(with_target, depth + 1)
        for key in ("anyOf", "oneOf"):
            if key in schema:
                branches = schema[key]
                if not isinstance(branches, list) or not branches:
                    raise Unsupported(f"an empty {key}")
                usable = [b for b in branches if not (isinstance(b, Mapping) and b.get("type") == "null")]
                first = self.resolve((usable or branches)[0], depth + 1)
                rest = {k: v for k, v in schema.items() if k != key}
                return {**first, **rest}
        if "allOf" in schema:
            merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
            for part in schema["allOf"] or []:
                resolved = self.resolve(part, depth + 1)
                props = {**merged.get("properties", {}), **resolved.get("properties", {})}
                required = [*merged.get("required", []), *resolved.get("required", [])]
                merged = {**resolved, **merged, "properties": props, "required": required}
            return merged
        if "not" in schema or "if" in schema:
            raise Unsupported("'not' / 'if' constraints")
        return dict(schema)


def _primary_type(schema: Mapping[str, Any]) -> str | None:
    types = [t for t in schema_types(schema) if t != "null"]
    return types[0] if types else None


def _number_bounds(schema: Mapping[str, Any], integer: bool) -> tuple[float | None, float | None]:
    low = schema.get("minimum")
    high = schema.get("maximum")
    step = 1 if integer else 0.5
    if isinstance(schema.get("exclusiveMinimum"), (int, float)) and not isinstance(schema["exclusiveMinimum"], bool):
        low = schema["exclusiveMinimum"] + step
    if isinstance(schema.get("exclusiveMaximum"), (int, float)) and not isinstance(schema["exclusiveMaximum"], bool):
        high = schema["exclusiveMaximum"] - step
    for bound in (low, high):
        if bound is not None and (isinstance(bound, bool) or not isinstance(bound, (int, float))):
            raise Unsupported(f"a non-numeric bound ({bound!r})")
    if integer:
        low = math.ceil(low) if low is not None else None
        high = math.floor(high) if high is not None else None
    if low is not None and high is not None and low > high:
        raise Unsupported(f"an empty range (minimum {schema.get('minimum', schema.get('exclusiveMinimum'))}, "
                          f"maximum {schema.get('maximum', schema.get('exclusiveMaximum'))})")
    return low, high


def _typical_number(schema: Mapping[str, Any], integer: bool) -> float | int:
    low, high = _number_bounds(schema, integer)
    if low is not None and high is not None:
        value: float = low + (high - low) / 2
    elif low is not None:
        value = low
    elif high is not None:
        value = min(high, 1)
    else:
        value = 1
    if integer:
        return math.floor(value) if low is None or math.floor(value) >= low else int(low)
    multiple = schema.get("multipleOf")
    if isinstance(multiple, (int, float)) and multiple > 0:
        value = math.ceil(value / multiple) * multiple
    return value


def _typical_string(schema: Mapping[str, Any]) -> str:
    fmt = schema.get("format")
    value = _FORMAT_EXAMPLES[fmt][0] if fmt in _FORMAT_EXAMPLES else "example"
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise Unsupported(f"an invalid pattern {pattern!r} ({exc})") from None
        if not compiled.search(value):
            value = next((c for c in _PATTERN_CANDIDATES if compiled.search(c)), "")
            if not value:
                raise Unsupported(f"pattern {pattern!r} (no sample value matches it)")
    min_length = schema.get("minLength", 0) or 0
    max_length = schema.get("maxLength")
    if isinstance(max_length, int) and max_length < min_length:
        raise Unsupported(f"maxLength {max_length} below minLength {min_length}")
    if len(value) < min_length:
        value = value + "x" * (min_length - len(value))
    if isinstance(max_length, int) and len(value) > max_length:
        if fmt in _FORMAT_EXAMPLES or pattern:
            raise Unsupported(f"maxLength {max_length} too short for format/pattern")
        value = value[:max_length]
    return value


def sample_value(schema: Any, ctx: _Context, depth: int = 0) -> Any:
    """A value the schema accepts (raises :class:`Unsupported` when we cannot build one)."""
    resolved = ctx.resolve(schema)
    if depth > 6:
        raise Unsupported("nesting deeper than 6 levels")
    if "const" in resolved:
        return resolved["const"]
    if "enum" in resolved:
        if not isinstance(resolved["enum"], list) or not resolved["enum"]:
            raise Unsupported("an empty enum")
        return resolved["enum"][0]
    if isinstance(resolved.get("examples"), list) and resolved["examples"]:
        return resolved["examples"][0]
    if "default" in resolved and depth > 0 and resolved["default"] is not None:
        return resolved["default"]
    kind = _primary_type(resolved)
    if kind is None and schema_types(resolved) == ["null"]:
        return None
    if kind in (None, "string"):
        return _typical_string(resolved)
    if kind == "integer":
        return int(_typical_number(resolved, integer=True))
    if kind == "number":
        return _typical_number(resolved, integer=False)
    if kind == "boolean":
        return True
    if kind == "array":
        items = resolved.get("items", {"type": "string"})
        if isinstance(items, list):  # tuple form (draft 4-7)
            return [sample_value(item, ctx, depth + 1) for item in items]
        count = max(1, resolved.get("minItems", 1) or 1)
        if isinstance(resolved.get("maxItems"), int):
            count = min(count, resolved["maxItems"])
        return [sample_value(items, ctx, depth + 1) for _ in range(count)]
    if kind == "object":
        props = resolved.get("properties") or {}
        return {name: sample_value(props[name], ctx, depth + 1)
                for name in resolved.get("required", []) if name in props}
    raise Unsupported(f"type {kind!r}")


def declared_value(schema: Mapping[str, Any], ctx: _Context) -> bool:
    """True when the value :func:`sample_value` picks was given by the schema itself
    (``const``, ``enum``, ``examples``, ``default``), not made up by us."""
    try:
        resolved = ctx.resolve(schema)
    except Unsupported:
        return False
    if "const" in resolved or resolved.get("enum") or resolved.get("examples"):
        return True
    if resolved.get("default") is not None:
        return True
    items = resolved.get("items")
    return _primary_type(resolved) == "array" and isinstance(items, Mapping) and declared_value(items, ctx)


class _Builder:
    """Collects scenarios for one tool, dropping duplicates of the same call, and notes which
    of each call's arguments were made up."""

    def __init__(self, tool: str, real: dict[str, Any] | None = None,
                 props: dict[str, dict[str, Any]] | None = None) -> None:
        self.tool = tool
        self.real = real or {}  # property -> the value the schema or the server gave
        self.props = props or {}
        self.happy: list[Scenario] = []
        self.edge: list[Scenario] = []
        self._seen: set[tuple[str, str]] = set()

    def invented(self, args: Mapping[str, Any]) -> tuple[str, ...]:
        made_up = []
        for prop, value in args.items():
            schema = self.props.get(prop, {})
            enum = schema.get("enum")
            allowed: list[Any] = enum if isinstance(enum, list) else []
            if prop in self.real and self.real[prop] == value:
                continue
            if value in allowed or ("const" in schema and schema["const"] == value):
                continue
            made_up.append(prop)
        return tuple(made_up)

    def add(self, kind: str, category: Category, expect: Expectation, args: dict[str, Any], text: str) -> None:
        key = (category, json.dumps(args, sort_keys=True, default=str))
        if key in self._seen:
            return
        self._seen.add(key)
        scenario = Scenario(self.tool, kind, category, expect, args, text, self.invented(args))
        (self.happy if category == "happy" else self.edge).append(scenario)


def generate_for_tool(tool: ToolDefinition | Mapping[str, Any],
                      server_values: ServerValues | None = None) -> GeneratedScenarios:
    """Every happy-path and edge scenario for one tool (a ToolDefinition or a raw MCP dict);
    ``server_values`` (``discovery``) supplies real paths and URIs where the schema has none."""
    name, schema = _name_and_schema(tool)
    ctx = _Context(schema)
    findings: list[Finding] = []
    try:
        root = ctx.resolve(schema)
    except Unsupported as exc:
        return GeneratedScenarios(name, (), (), (_unsupported(name, "the input schema", str(exc)),))
    raw_props = root.get("properties") or {}
    required = [r for r in root.get("required", []) if isinstance(r, str)]
    props: dict[str, dict[str, Any]] = {}
    values: dict[str, Any] = {}
    real: dict[str, Any] = {}
    for prop, prop_schema in raw_props.items():
        try:
            props[prop] = ctx.resolve(prop_schema)
            values[prop] = sample_value(props[prop], ctx, depth=1)
        except Unsupported as exc:
            findings.append(_unsupported(name, f"property '{prop}'", str(exc)))
            continue
        if declared_value(props[prop], ctx):
            real[prop] = values[prop]
        elif server_values is not None:
            drawn = server_values.value_for(name, prop, props[prop])
            if drawn is not None:
                values[prop] = drawn[0]
                if drawn[1]:
                    real[prop] = drawn[0]
    builder = _Builder(name, real, props)
    missing_required = [r for r in required if r not in values]
    for prop in required:
        if prop not in raw_props:  # required but never declared: we cannot know what to send
            findings.append(_unsupported(name, f"required property '{prop}'", "it is not declared in 'properties'"))
    base = {r: values[r] for r in required if r in values}
    full = {**base, **{p: v for p, v in values.items() if p not in base}}
    happy_ok = not missing_required
    if happy_ok:
        _happy_scenarios(builder, props, base, full)
    declared = [r for r in required if r in raw_props]
    _edge_scenarios(builder, props, declared, base, full, closed=root.get("additionalProperties") is False)
    return GeneratedScenarios(name, tuple(builder.happy), tuple(builder.edge), tuple(findings))


def _happy_scenarios(b: _Builder, props: dict[str, dict[str, Any]], base: dict[str, Any],
                     full: dict[str, Any]) -> None:
    b.add("required_only", "happy", "success", dict(base), "only the required properties")
    b.add("all_properties", "happy", "success", dict(full), "every property")
    lows: dict[str, Any] = {}
    highs: dict[str, Any] = {}
    for prop, schema in props.items():
        if prop not in full:
            continue
        kind = _primary_type(schema)
        if kind in ("integer", "number") and "enum" not in schema and "const" not in schema:
            try:
                low, high = _number_bounds(schema, kind == "integer")
            except Unsupported:
                continue
            if low is not None:
                lows[prop] = low
            if high is not None and abs(high) < 1e15:
                highs[prop] = high
        elif kind == "string" and "enum" not in schema and not schema.get("format") and not schema.get("pattern"):
            if isinstance(schema.get("minLength"), int) and schema["minLength"] > 0:
                lows[prop] = "x" * schema["minLength"]
            if isinstance(schema.get("maxLength"), int) and 0 < schema["maxLength"] <= 10_000:
                highs[prop] = "x" * schema["maxLength"]
    for prop, schema in props.items():
        if prop not in full:
            continue
        choices = schema.get("enum") if isinstance(schema.get("enum"), list) else None
        if choices is None and _primary_type(schema) == "boolean":
            choices = [True, False]
        for choice in (choices or [])[1:]:
            b.add("enum_value", "happy", "success", {**full, prop: choice}, f"{prop} = {json.dumps(choice)}")
    if lows:
        b.add("boundary_min", "happy", "success", {**full, **lows}, "lower bounds: " + ", ".join(lows))
    if highs:
        b.add("boundary_max", "happy", "success", {**full, **highs}, "upper bounds: " + ", ".join(highs))
    for prop, schema in props.items():
        fmt = schema.get("format")
        if prop in full and fmt in _FORMAT_EXAMPLES and "enum" not in schema:
            b.add("format", "happy", "success", {**full, prop: _FORMAT_EXAMPLES[fmt][1]}, f"{prop}: another {fmt}")


def _edge_scenarios(b: _Builder, props: dict[str, dict[str, Any]], required: list[str],
                    base: dict[str, Any], full: dict[str, Any], *, closed: bool) -> None:
    for prop in required:  # declared required properties, even those we cannot build a value for
        b.add("missing_required", "edge", "reject", {k: v for k, v in full.items() if k != prop},
              f"required '{prop}' missing")
    for prop, schema in props.items():
        types = schema_types(schema)
        kind = _primary_type(schema)
        if kind is None or ("enum" in schema and not types):
            continue
        wrong = _WRONG_VALUES.get(kind)
        if (kind in ("integer", "number") and "string" in types) or (kind == "string" and "integer" in types):
            continue
        if wrong is not None:
            b.add("wrong_type", "edge", "reject", {**full, prop: wrong}, f"'{prop}' of the wrong type")
    for prop, schema in props.items():
        for value, text in _out_of_range(schema):
            b.add("out_of_range", "edge", "reject", {**full, prop: value}, f"'{prop}' {text}")
    for prop, schema in props.items():
        types = schema_types(schema)
        if "null" in types or schema.get("nullable") is True:
            continue
        expect: Expectation = "reject" if types or "enum" in schema or "const" in schema else "answer"
        b.add("null_value", "edge", expect, {**full, prop: None}, f"'{prop}' is null")
    b.add("unknown_property", "edge", "reject" if closed else "answer",
          {**full, UNKNOWN_PROPERTY: "surprise"}, "an undeclared property")
    strings = [p for p, s in props.items() if _primary_type(s) == "string" and "enum" not in s
               and "const" not in s and not s.get("format") and not s.get("pattern")]
    for prop in strings:
        min_length = props[prop].get("minLength", 0) or 0
        if min_length == 0:
            b.add("empty_string", "edge", "answer", {**full, prop: ""}, f"'{prop}' is an empty string")
    for prop in strings:
        max_length = props[prop].get("maxLength")
        if max_length is None:
            b.add("huge_string", "edge", "answer", {**full, prop: "x" * HUGE_STRING_LENGTH},
                  f"'{prop}' is a {HUGE_STRING_LENGTH:,}-character string")
    for prop in strings:
        b.add("unicode", "edge", "answer", {**full, prop: UNICODE_SAMPLE}, f"'{prop}' is non-ASCII text")


def _out_of_range(schema: Mapping[str, Any]) -> list[tuple[Any, str]]:
    kind = _primary_type(schema)
    cases: list[tuple[Any, str]] = []
    if isinstance(schema.get("enum"), list) and schema["enum"] and all(isinstance(v, str) for v in schema["enum"]):
        cases.append(("not-one-of-the-allowed-values", "outside its enum"))
    elif kind in ("integer", "number"):
        try:
            low, high = _number_bounds(schema, kind == "integer")
        except Unsupported:
            return cases
        step = 1 if kind == "integer" else 0.5
        if low is not None:
            cases.append((low - step, "below its minimum"))
        if high is not None and abs(high) < 1e15:
            cases.append((high + step, "above its maximum"))
    elif kind == "string":
        max_length = schema.get("maxLength")
        if isinstance(max_length, int) and max_length <= 10_000:
            cases.append(("x" * (max_length + 1), "longer than maxLength"))
        min_length = schema.get("minLength")
        if isinstance(min_length, int) and min_length > 0:
            cases.append(("x" * (min_length - 1), "shorter than minLength"))
    elif kind == "array":
        min_items = schema.get("minItems")
        if isinstance(min_items, int) and min_items > 0:
            cases.append(([], "has fewer items than minItems"))
    return cases


def _name_and_schema(tool: ToolDefinition | Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    if isinstance(tool, ToolDefinition):
        return tool.name, dict(tool.input_schema or {})
    schema = tool.get("inputSchema", tool.get("input_schema")) or {}
    return str(tool.get("name")), dict(schema) if isinstance(schema, Mapping) else {}


def _unsupported(tool: str, where: str, why: str) -> Finding:
    return Finding(
        severity="warning",
        code="scenario-unsupported-schema",
        tool=tool,
        message=f"{where} uses {why}; scenarios that need it were not generated",
        fix="Simplify the schema (plain types, non-empty enums, satisfiable bounds, local $refs) "
            "so clients and models can build valid arguments.",
    )
