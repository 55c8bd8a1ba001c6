"""What every built-in lint rule needs: walking a schema, the texts a model reads, findings.

Rules look only at a :class:`~toolscore_core.kernel.model.ServerDefinition`, never at a live
server, so they run the same on a saved ``tools/list`` result, in the scorecard and in a
third-party test. Each finding carries ``details["key"]``: the stable subject of the
finding (a parameter path, a referenced name) that the baseline uses to recognise it
again when the wording of a message changes.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import attrs

from toolscore_core.kernel.interfaces import LintRule
from toolscore_core.kernel.model import ServerDefinition, Severity, ToolDefinition

#: Keywords whose presence gives a property a shape even without ``type``.
SHAPE_KEYWORDS = ("type", "enum", "const", "$ref", "anyOf", "oneOf", "allOf", "not")


@attrs.frozen
class Prop:
    """One property somewhere in a tool's input schema.

    ``path`` is how people read it: ``note_id``, ``edits[].oldText``.
    """

    path: str
    name: str
    schema: dict[str, Any]


@attrs.frozen
class TextSite:
    """A piece of text a model reads, and where it sits (for messages and the baseline)."""

    where: str  # "description", "parameter 'path' description", "instructions", "title"
    text: str
    tool: str | None  # None: the server's instructions


class BaseRule(LintRule):
    """A built-in rule. Its findings come from the kernel's :meth:`LintRule.finding` (code,
    severity, redacted and bounded evidence), and every built-in rule passes ``key=``: the
    subject the lint baseline recognises a finding by."""

    name: ClassVar[str]
    description: ClassVar[str] = ""
    severity: ClassVar[Severity] = "warning"


def iter_props(schema: Any, prefix: str = "") -> Iterator[Prop]:
    """Every property of an object schema, nested objects and array items included.

    Branches of ``anyOf``/``oneOf``/``allOf`` are walked too, so a property defined inside
    one is still checked; ``$defs`` are not (they are checked where a ``$ref`` uses them
    only by the client, and a tool list rarely carries them).
    """
    if not isinstance(schema, dict):
        return
    props = schema.get("properties")
    if isinstance(props, dict):
        for name, sub in props.items():
            path = f"{prefix}.{name}" if prefix else str(name)
            sub_schema = sub if isinstance(sub, dict) else {}
            yield Prop(path=path, name=str(name), schema=sub_schema)
            yield from iter_props(sub_schema, path)
    items = schema.get("items")
    if isinstance(items, dict):
        yield from iter_props(items, f"{prefix}[]" if prefix else "[]")
    for keyword in ("anyOf", "oneOf", "allOf"):
        branches = schema.get(keyword)
        if isinstance(branches, list):
            for branch in branches:
                yield from iter_props(branch, prefix)


def iter_subschemas(schema: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema node (the root included) with a readable path, for keyword checks."""
    if not isinstance(schema, dict):
        return
    yield path or "(root)", schema
    props = schema.get("properties")
    if isinstance(props, dict):
        for name, sub in props.items():
            yield from iter_subschemas(sub, f"{path}.{name}" if path else str(name))
    items = schema.get("items")
    if isinstance(items, dict):
        yield from iter_subschemas(items, f"{path}[]" if path else "[]")
    elif isinstance(items, list):
        for i, sub in enumerate(items):
            yield from iter_subschemas(sub, f"{path}[{i}]")
    for keyword in ("anyOf", "oneOf", "allOf"):
        branches = schema.get(keyword)
        if isinstance(branches, list):
            for i, branch in enumerate(branches):
                yield from iter_subschemas(branch, f"{path}<{keyword}[{i}]>")
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        yield from iter_subschemas(extra, f"{path}{{*}}" if path else "{*}")


def param_names(tool: ToolDefinition) -> set[str]:
    """Names of every property in the tool's input schema, at any depth."""
    return {prop.name for prop in iter_props(tool.input_schema)}


def tool_text_sites(tool: ToolDefinition) -> Iterator[TextSite]:
    """The texts of one tool a model reads: title, description, parameter descriptions."""
    if tool.title:
        yield TextSite("title", tool.title, tool.name)
    if tool.description:
        yield TextSite("description", tool.description, tool.name)
    for prop in iter_props(tool.input_schema):
        text = prop.schema.get("description")
        if isinstance(text, str) and text:
            yield TextSite(f"parameter '{prop.path}' description", text, tool.name)


def server_text_sites(server: ServerDefinition) -> Iterator[TextSite]:
    """Every text of the server a model reads: its instructions, then each tool's texts."""
    if server.instructions:
        yield TextSite("instructions", server.instructions, None)
    for tool in server.tools:
        yield from tool_text_sites(tool)


def all_strings(tool: ToolDefinition) -> Iterator[tuple[str, str]]:
    """Every string in a tool definition, with where it is: names, texts, enum values,
    defaults, examples. Hidden characters can be smuggled into any of them."""
    yield "name", tool.name
    for site in tool_text_sites(tool):
        yield site.where, site.text
    for prop in iter_props(tool.input_schema):
        yield f"parameter name '{prop.path}'", prop.name
        for keyword in ("enum", "examples", "default", "const"):
            value = prop.schema.get(keyword)
            values = value if isinstance(value, list) else [value]
            for item in values:
                if isinstance(item, str):
                    yield f"parameter '{prop.path}' {keyword}", item


def definition_strings(server: ServerDefinition) -> list[tuple[str | None, str, str]]:
    """(tool, where, text) of every string of the server a model reads or a client shows:
    the instructions, then :func:`all_strings` of each tool. The rules that look for
    hidden characters and terminal sequences read these, since either can sit anywhere."""
    sites: list[tuple[str | None, str, str]] = []
    if server.instructions:
        sites.append((None, "instructions", server.instructions))
    for tool in server.tools:
        sites.extend((tool.name, where, text) for where, text in all_strings(tool))
    return sites


_NOT_ALNUM = re.compile(r"[^a-z0-9]")


@functools.lru_cache(maxsize=65536)
def normalize_name(name: str) -> str:
    """``totalThoughts``, ``total_thoughts`` and ``total-thoughts`` compare equal."""
    return _NOT_ALNUM.sub("", name.lower())


def did_you_mean(name: str, candidates: list[str] | set[str]) -> str | None:
    """The closest candidate, by normalised spelling first, then by similarity."""
    pool = sorted(candidates)
    wanted = normalize_name(name)
    for candidate in pool:
        if normalize_name(candidate) == wanted:
            return candidate
    close = difflib.get_close_matches(name, pool, n=1, cutoff=0.72)
    return close[0] if close else None


def shorten(text: str, limit: int = 120) -> str:
    """One line, at most ``limit`` characters (evidence for people, not for machines),
    with control and invisible characters escaped (see :func:`escape_invisible`)."""
    from toolscore_core.reports.text import visible

    return visible(" ".join(text.split()), limit, redacted=False)  # the kernel redacts evidence


def excerpt(text: str, start: int, end: int, margin: int = 40) -> str:
    """The matched span with a little context either side, on one line, with control and
    invisible characters escaped (see :func:`escape_invisible`)."""
    left = max(0, start - margin)
    right = min(len(text), end + margin)
    core = escape_invisible(" ".join(text[left:right].split()))
    return ("…" if left else "") + core + ("…" if right < len(text) else "")


def escape_invisible(text: str) -> str:
    """``text`` with control and invisible format characters written as escapes.

    ``\\x1b[8m`` instead of a live escape sequence, ``\\u202e`` instead of a live bidi
    override: a finding quotes text from a server that may be hostile, and the quote must
    show the trick to the reader instead of playing it on their terminal. The kernel's
    :func:`~toolscore_core.reports.text.escape_controls` does it, the same as every report.
    """
    from toolscore_core.reports.text import escape_controls

    return escape_controls(text)


_LINE_SPACE = re.compile(r"[ \t\n]+")  # only these: a bare \r or \x1c is a trick to show, not space


def shown(text: str, limit: int = 80) -> str:
    """Outside text fit to quote in a finding's message: credentials replaced by their
    previews, controls and invisible characters escaped, on one line, at most ``limit``
    characters. Messages, unlike evidence, are not redacted by the kernel, so every quote
    from a definition goes through here (and then :func:`toolscore_core.reports.text.visible`)."""
    from toolscore_core.reports.text import visible

    return visible(_LINE_SPACE.sub(" ", text).strip(), limit)


def schema_types(schema: Mapping[str, Any]) -> list[str]:
    """The ``type`` keyword as a list (``"string"`` -> ``["string"]``; absent -> ``[]``).

    JSON Schema lets ``type`` be one name or a list of names; lint rules and the scorecard's
    scenario generator both read it through here, so a list and a name mean the same to both.
    """
    value = schema.get("type")
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []
