"""Schema hygiene: what a model needs from a tool's definition to call it right.

A model picks a tool by its description and fills arguments from the input schema. A
property without a type, an array without ``items`` or a value set described only in
prose makes it guess; a ``required`` list naming a property that does not exist makes
every call invalid.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any, ClassVar

from toolscore_core.kernel.model import Finding, ServerDefinition, Severity
from toolscore_mcp.lint.rules_common import (
    SHAPE_KEYWORDS,
    BaseRule,
    iter_props,
    schema_types,
    shorten,
)

SHORT_DESCRIPTION = 10  # characters; below this a description cannot say what the tool does


class ToolDescriptionMissing(BaseRule):
    name: ClassVar[str] = "description-missing"
    description: ClassVar[str] = "a tool has no description"
    severity: ClassVar[Severity] = "warning"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        return [
            self.finding(
                "has no description",
                tool=tool.name,
                key="description",
                fix="Describe what the tool does and when to use it: models choose tools by their description.",
            )
            for tool in server.tools
            if not (tool.description or "").strip()
        ]


class ToolDescriptionShort(BaseRule):
    name: ClassVar[str] = "description-too-short"
    description: ClassVar[str] = f"a tool's description is shorter than {SHORT_DESCRIPTION} characters"
    severity: ClassVar[Severity] = "warning"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        found = []
        for tool in server.tools:
            text = (tool.description or "").strip()
            if text and len(text) < SHORT_DESCRIPTION:
                found.append(self.finding(
                    f"description is very short (< {SHORT_DESCRIPTION} chars)",
                    tool=tool.name,
                    key="description",
                    evidence=text,
                    fix="Describe what the tool does and when to use it: models choose tools by their description.",
                ))
        return found


class ParameterDescriptionMissing(BaseRule):
    """One finding per tool, listing every undocumented parameter, so a tool with many
    bare ``path`` properties costs one warning, not one per property."""

    name: ClassVar[str] = "parameter-description-missing"
    description: ClassVar[str] = "parameters without a description"
    severity: ClassVar[Severity] = "warning"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        found = []
        for tool in server.tools:
            props = list(iter_props(tool.input_schema))
            bare = [p.path for p in props if not str(p.schema.get("description") or "").strip()]
            if not bare:
                continue
            verb = "has" if len(bare) == 1 else "have"
            found.append(self.finding(
                f"{len(bare)} of {len(props)} parameters {verb} no description: {', '.join(bare)}",
                tool=tool.name,
                key="parameters",
                fix="Describe each parameter: what it means, its format and an example value.",
                parameters=bare,
            ))
        return found


class PropertyMissingType(BaseRule):
    name: ClassVar[str] = "schema-missing-type"
    description: ClassVar[str] = "a property has no JSON Schema type"
    severity: ClassVar[Severity] = "error"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        found = []
        for tool in server.tools:
            for prop in iter_props(tool.input_schema):
                if not any(k in prop.schema for k in SHAPE_KEYWORDS):
                    found.append(self.finding(
                        f"property '{prop.path}' is missing a 'type'",
                        tool=tool.name,
                        key=prop.path,
                        fix="Give the property a JSON Schema 'type' (and an 'enum' when only some values are valid) so the model does not guess.",
                    ))
        return found


class UntypedArray(BaseRule):
    name: ClassVar[str] = "schema-untyped-array"
    description: ClassVar[str] = "an array property does not say what its items are"
    severity: ClassVar[Severity] = "warning"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        found = []
        for tool in server.tools:
            for prop in iter_props(tool.input_schema):
                if "array" not in schema_types(prop.schema):
                    continue
                items = prop.schema.get("items")
                if items is None or items == {} or items is True:
                    found.append(self.finding(
                        f"array property '{prop.path}' does not say what its items are (no 'items' schema)",
                        tool=tool.name,
                        key=prop.path,
                        fix="Add an 'items' schema with a type, e.g. {\"type\": \"string\"}.",
                    ))
        return found


class RequiredListProblems(BaseRule):
    """A ``required`` entry that names no property makes every call fail validation; a
    malformed ``required`` is ignored or rejected depending on the client."""

    name: ClassVar[str] = "schema-required-invalid"
    description: ClassVar[str] = "'required' is malformed or names properties that do not exist"
    severity: ClassVar[Severity] = "error"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        found = []
        for tool in server.tools:
            for path, schema in _object_schemas(tool.input_schema):
                required = schema.get("required")
                if required is None:
                    continue
                where = f" of '{path}'" if path else ""
                if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
                    found.append(self.finding(
                        f"'required'{where} is not a list of property names",
                        tool=tool.name, key=f"{path}:required",
                        fix="Make 'required' a list of the names of required properties.",
                    ))
                    continue
                props = schema.get("properties")
                names = set(props) if isinstance(props, dict) else set()
                open_extra = schema.get("additionalProperties", True) is not False
                if not names and open_extra:
                    continue  # free-form object: required keys may be any key
                for name in required:
                    if name not in names:
                        found.append(self.finding(
                            f"'required'{where} names '{name}', which is not a property",
                            tool=tool.name, key=f"{path}:{name}",
                            fix="Remove it from 'required' or add the property (check its spelling).",
                        ))
        return found


class RequiredListMissing(BaseRule):
    """Only when no property has a default: optional parameters with defaults are a clear
    design; parameters with neither a default nor a required list usually mean the
    author forgot which ones are needed."""

    name: ClassVar[str] = "schema-required-missing"
    description: ClassVar[str] = "parameters but no 'required' list and no defaults"
    severity: ClassVar[Severity] = "info"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        found = []
        for tool in server.tools:
            schema = tool.input_schema
            props = schema.get("properties") if isinstance(schema, dict) else None
            if not isinstance(props, dict) or not props or "required" in schema:
                continue
            if any(isinstance(p, dict) and "default" in p for p in props.values()):
                continue
            found.append(self.finding(
                f"has {len(props)} parameter(s) but no 'required' list: every parameter is optional",
                tool=tool.name, key="required",
                fix="List the parameters the tool cannot work without in 'required' (or give optional ones a default).",
            ))
        return found


_LIST_PHRASES = re.compile(
    r"\b(one of|either|must be|should be|can be|valid values|allowed values|possible values|"
    r"accepted values|supported values|options are|values are|choose from|set to)\b",
    re.IGNORECASE,
)
_EXAMPLE_PHRASES = re.compile(r"\b(e\.g\.|eg\.|for example|for instance|such as|like)\b", re.IGNORECASE)
_QUOTED = re.compile(r"""(?:'([A-Za-z0-9_.:/+-]{1,40})'|"([A-Za-z0-9_.:/+-]{1,40})"|`([A-Za-z0-9_.:/+-]{1,40})`)""")
_JOINED = re.compile(r"""['"`]\s*(?:,|/|\|)?\s*(?:or|and)?\s*\(?['"`]""")
_PIPES = re.compile(r"\(\s*([A-Za-z0-9_-]+(?:\s*\|\s*[A-Za-z0-9_-]+)+)\s*\)")


def values_in_prose(text: str) -> list[str]:
    """Values a description lists as the only valid ones, or [] when it lists none.

    Two or more quoted words that the text presents as a closed set ("one of 'asc',
    'desc'", "'local', 'remote' or 'all'", "(asc|desc)"); quoted words given as examples
    ("e.g. 'foo'") do not count.
    """
    pipes = _PIPES.search(text)
    if pipes:
        return [v.strip() for v in pipes.group(1).split("|")]
    values = list(dict.fromkeys(next(g for g in m.groups() if g) for m in _QUOTED.finditer(text)))
    if len(values) < 2:
        return []
    if _EXAMPLE_PHRASES.search(text) and not _LIST_PHRASES.search(text):
        return []
    if _LIST_PHRASES.search(text) or _JOINED.search(text) or len(values) >= 3:
        return values
    return []


class EnumInProse(BaseRule):
    name: ClassVar[str] = "schema-enum-in-prose"
    description: ClassVar[str] = "allowed values listed in a description but not as an enum"
    severity: ClassVar[Severity] = "warning"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        found = []
        for tool in server.tools:
            for prop in iter_props(tool.input_schema):
                schema = prop.schema
                if any(k in schema for k in ("enum", "const", "anyOf", "oneOf")):
                    continue
                types = schema_types(schema)
                if types and "string" not in types:
                    continue
                text = schema.get("description")
                if not isinstance(text, str):
                    continue
                values = values_in_prose(text)
                if values:
                    listed = ", ".join(repr(v) for v in values)
                    found.append(self.finding(
                        f"property '{prop.path}' lists its values in prose ({listed}) but has no 'enum'",
                        tool=tool.name, key=prop.path, evidence=shorten(text),
                        fix="List the values in an 'enum' so clients can validate them and models cannot invent others.",
                        values=values,
                    ))
        return found


class RootNotObject(BaseRule):
    """MCP requires a tool's ``inputSchema`` to be a JSON Schema of type object."""

    name: ClassVar[str] = "schema-root-not-object"
    description: ClassVar[str] = "a tool's inputSchema is not an object schema"
    severity: ClassVar[Severity] = "error"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        found = []
        for tool in server.tools:
            types = schema_types(tool.input_schema)
            if types != ["object"]:
                shown = "no type" if not types else f"type {types if len(types) > 1 else types[0]!r}"
                found.append(self.finding(
                    f"inputSchema has {shown}; MCP requires an object schema",
                    tool=tool.name, key="inputSchema.type",
                    fix="Make the input schema {\"type\": \"object\", \"properties\": {...}} (use an empty 'properties' for no arguments).",
                ))
        return found


class DuplicateToolName(BaseRule):
    """Clients key tools by name: a second tool with the same name is dropped, replaces the
    first, or makes the client refuse the whole list."""

    name: ClassVar[str] = "tool-name-duplicate"
    description: ClassVar[str] = "two tools share one name"
    severity: ClassVar[Severity] = "error"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        names = server.tool_names()
        repeated = sorted({n for n in names if names.count(n) > 1})
        return [
            self.finding(f"{names.count(n)} tools are named '{n}'", tool=n, key="name",
                         fix="Give every tool a unique name.")
            for n in repeated
        ]


def _object_schemas(schema: object, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every object schema node with its property path ('' for the root)."""
    if not isinstance(schema, dict):
        return
    if "properties" in schema or "required" in schema:
        yield path, schema
    props = schema.get("properties")
    if isinstance(props, dict):
        for name, sub in props.items():
            yield from _object_schemas(sub, f"{path}.{name}" if path else str(name))
    items = schema.get("items")
    if isinstance(items, dict):
        yield from _object_schemas(items, f"{path}[]" if path else "[]")


SCHEMA_RULES: list[type[BaseRule]] = [
    ToolDescriptionMissing,
    ToolDescriptionShort,
    ParameterDescriptionMissing,
    PropertyMissingType,
    UntypedArray,
    RequiredListProblems,
    RequiredListMissing,
    EnumInProse,
    RootNotObject,
    DuplicateToolName,
]
