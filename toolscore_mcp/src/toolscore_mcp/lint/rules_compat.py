"""Client compatibility: schemas that a specific, widely used client refuses.

A schema can be valid JSON Schema and still break in a client: the tool silently
disappears, or fails only when it is called. These are warnings that name the client,
because the server works elsewhere. Sources, so the rules can be kept current:

- Claude Code validates ``outputSchema`` with a 2020-12-only validator and rejects a tool
  whose output schema declares draft-04/06/07 at call time (anthropics/claude-code#88882),
  and rejects ``oneOf``/``allOf``/``anyOf`` at the top of ``inputSchema``
  (anthropics/claude-code#10606).
- OpenAI function calling needs a plain object at the root; strict mode (which the
  Agents SDK applies to MCP tools when asked) also needs every object closed, so a
  free-form map cannot be expressed, and rejects composition keywords it does not support.
- Gemini accepts an OpenAPI-style subset: one ``type`` per schema (a type list only as
  ``[T, "null"]``), string ``enum`` values, and none of ``const``/``oneOf``/``allOf``/``not``
  and a few validation keywords.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import ClassVar

from toolscore_core.kernel.model import Finding, ServerDefinition, Severity
from toolscore_mcp.lint.rules_common import BaseRule, iter_subschemas, schema_types

_OLD_DRAFTS = ("draft-04", "draft-06", "draft-07", "draft-03")
_COMBINATORS = ("oneOf", "anyOf", "allOf")


class ClaudeCodeOutputSchemaDialect(BaseRule):
    name: ClassVar[str] = "compat-claude-code-output-schema"
    description: ClassVar[str] = "outputSchema declares an older JSON Schema draft, which Claude Code rejects"
    severity: ClassVar[Severity] = "warning"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        found = []
        for tool in server.tools:
            dialect = (tool.output_schema or {}).get("$schema")
            if isinstance(dialect, str) and any(d in dialect for d in _OLD_DRAFTS):
                found.append(self.finding(
                    "Claude Code refuses this tool when it is called: its outputSchema declares an older "
                    "JSON Schema draft (Claude Code accepts 2020-12 only)",
                    tool=tool.name, key="outputSchema.$schema", evidence=dialect,
                    fix="Drop the '$schema' key from outputSchema (MCP assumes 2020-12) or emit 2020-12 "
                        "(zod: target 'draft-2020-12').",
                    client="Claude Code",
                ))
        return found


class TopLevelCombinator(BaseRule):
    name: ClassVar[str] = "compat-top-level-combinator"
    description: ClassVar[str] = "oneOf/anyOf/allOf at the top of inputSchema (Claude Code, OpenAI reject it)"
    severity: ClassVar[Severity] = "warning"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        found = []
        for tool in server.tools:
            used = [k for k in _COMBINATORS if k in tool.input_schema]
            if used:
                found.append(self.finding(
                    f"Claude Code, OpenAI: inputSchema uses {'/'.join(used)} at the top level, which both reject",
                    tool=tool.name, key="inputSchema:" + "/".join(used),
                    fix="Flatten the alternatives into one object schema (optional properties plus a description "
                        "of which combinations are valid), or split the tool in two.",
                    client="Claude Code, OpenAI",
                ))
        return found


_STRICT_UNSUPPORTED = (
    "allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas", "patternProperties",
    "unevaluatedProperties", "propertyNames", "minProperties", "maxProperties", "uniqueItems", "contains",
    "minContains", "maxContains", "unevaluatedItems",
)


class OpenAIStrictMode(BaseRule):
    """Only what strict conversion cannot fix: closing objects and marking every property
    required are done by the client; an open map or an unsupported keyword is not."""

    name: ClassVar[str] = "compat-openai-strict"
    description: ClassVar[str] = "inputSchema cannot be used in OpenAI strict mode"
    severity: ClassVar[Severity] = "warning"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        found = []
        for tool in server.tools:
            problems: list[str] = []
            for path, node in iter_subschemas(tool.input_schema):
                extra = node.get("additionalProperties")
                is_object = "object" in schema_types(node) or "properties" in node
                if is_object and (extra is True or isinstance(extra, dict)):
                    problems.append(f"'{path}' allows additional properties")
                elif is_object and path != "(root)" and not node.get("properties") and extra is not False:
                    problems.append(f"'{path}' is a free-form object")
                bad = [k for k in _STRICT_UNSUPPORTED if k in node]
                if bad:
                    problems.append(f"'{path}' uses {', '.join(bad)}")
            if problems:
                found.append(self.finding(
                    "OpenAI strict mode: " + "; ".join(problems[:4]) + (" …" if len(problems) > 4 else ""),
                    tool=tool.name, key="strict",
                    fix="Give every object explicit properties and avoid keywords strict mode does not support "
                        "(clients such as the OpenAI Agents SDK fall back to non-strict calls, or fail).",
                    client="OpenAI strict mode", problems=problems,
                ))
        return found


_GEMINI_UNSUPPORTED = (
    "const", "oneOf", "allOf", "not", "patternProperties", "exclusiveMinimum", "exclusiveMaximum",
    "multipleOf", "uniqueItems", "if", "then", "else", "prefixItems", "contains", "dependentRequired",
    "dependentSchemas", "unevaluatedProperties", "propertyNames",
)


class GeminiSchemaSubset(BaseRule):
    name: ClassVar[str] = "compat-gemini"
    description: ClassVar[str] = "inputSchema uses JSON Schema that Gemini's function declarations do not accept"
    severity: ClassVar[Severity] = "warning"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        found = []
        for tool in server.tools:
            problems: list[str] = []
            for path, node in iter_subschemas(tool.input_schema):
                kind = node.get("type")
                if isinstance(kind, list):
                    non_null = [t for t in kind if t != "null"]
                    if len(non_null) > 1:
                        problems.append(f"'{path}' has several types {kind}")
                enum = node.get("enum")
                if isinstance(enum, list) and any(not isinstance(v, str) for v in enum):
                    problems.append(f"'{path}' has a non-string enum")
                bad = [k for k in _GEMINI_UNSUPPORTED if k in node]
                if bad:
                    problems.append(f"'{path}' uses {', '.join(bad)}")
            if problems:
                found.append(self.finding(
                    "Gemini: " + "; ".join(problems[:4]) + (" …" if len(problems) > 4 else ""),
                    tool=tool.name, key="gemini",
                    fix="Use one type per property (or [type, \"null\"]), string enums, and plain properties "
                        "instead of const/oneOf/allOf.",
                    client="Gemini", problems=problems,
                ))
        return found


_PORTABLE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class ToolNamePortable(BaseRule):
    """OpenAI and Anthropic accept function names of 1-64 characters from [A-Za-z0-9_-];
    Gemini also wants the name to start with a letter or underscore. A tool named
    otherwise (a dot, a space, 80 characters) is dropped or rejected by those clients."""

    name: ClassVar[str] = "compat-tool-name"
    description: ClassVar[str] = "a tool name that OpenAI, Claude or Gemini function calling rejects"
    severity: ClassVar[Severity] = "warning"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        found = []
        for tool in server.tools:
            problems = []
            if not _PORTABLE_NAME.match(tool.name):
                if len(tool.name) > 64:
                    problems.append(f"is {len(tool.name)} characters long (the limit is 64)")
                bad = sorted({c for c in tool.name if not (c.isascii() and (c.isalnum() or c in "_-"))})
                if bad:
                    problems.append("contains " + ", ".join(repr(c) for c in bad))
                if not tool.name:
                    problems.append("is empty")
            elif not (tool.name[0].isalpha() or tool.name[0] == "_"):
                problems.append("does not start with a letter or underscore (Gemini)")
            if problems:
                found.append(self.finding(
                    f"OpenAI, Claude, Gemini: tool name {tool.name!r} " + " and ".join(problems),
                    tool=tool.name, key="name",
                    fix="Name tools with 1-64 letters, digits, '_' or '-', starting with a letter.",
                    client="OpenAI, Claude, Gemini",
                ))
        return found


COMPAT_RULES: list[type[BaseRule]] = [
    ToolNamePortable,
    ClaudeCodeOutputSchemaDialect,
    TopLevelCombinator,
    OpenAIStrictMode,
    GeminiSchemaSubset,
]
