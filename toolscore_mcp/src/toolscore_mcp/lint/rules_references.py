"""References that point nowhere: tools the server does not expose, parameters a tool
does not have.

A model follows what a description tells it. "Use the 'update_issue' tool" sends it to
a tool that is not there; "adjust total_thoughts" makes it send an argument the schema
calls ``totalThoughts``. Both fail at call time, long after ``tools/list`` looked fine.

False positives cost trust, so a word counts as a tool reference only when the text
marks it as one: quoted or backticked next to the word "tool"; quoted right after
"use"/"call"/"invoke" with the clause going on as after a tool name ("use 'fetch_all'
to ...", "call `sync_v1` first"), whatever the name looks like; after "use"/"call"/
"invoke" otherwise, or backticked, only with the shape of the server's own tool names.
Ordinary words, parameter names and file names never count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import ClassVar

from toolscore_core.kernel.model import Finding, ServerDefinition, Severity, ToolDefinition
from toolscore_mcp.lint.rules_common import (
    BaseRule,
    TextSite,
    did_you_mean,
    excerpt,
    normalize_name,
    param_names,
    server_text_sites,
    tool_text_sites,
)

_NAME = r"[A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)*"
_Q = r"""[`'"\u2018\u2019\u201c\u201d]"""
# 'update_issue' tool / `update_issue` tool / the update_issue tool
_NAME_THEN_TOOL = re.compile(rf"(?:{_Q}(?P<q>{_NAME}){_Q}|\bthe\s+(?P<u>{_NAME}))\s+(?:tool|function)\b", re.IGNORECASE)
# use/call/invoke [the] 'x' | use x (unquoted names only when they look like identifiers)
_VERB_THEN_NAME = re.compile(
    rf"\b(?P<verb>use|call|invoke|run|try)\s+(?:the\s+)?(?:{_Q}(?P<q>{_NAME}){_Q}|(?P<u>{_NAME}))",
    re.IGNORECASE,
)
# What may follow "use 'x'" / "call `x`" when x is a tool: the end of a clause or a word
# that goes on about using it. A noun there ("use 'utf-8' encoding") makes x something else.
_CLAUSE_GOES_ON = re.compile(
    r"\s*(?:$|[.,;:!?)\]]|(?:to|for|first|instead|when|whenever|if|before|after|and|or|then|with|on|in|once|"
    r"again|now|directly|rather|until|unless|so|because|which|that|tool|function)\b)",
    re.IGNORECASE,
)
# Encodings and algorithms spelled like kebab-case names: utf-8, sha-256, iso-8859-1.
_NUMBERED_STANDARD = re.compile(r"^[A-Za-z]{1,8}(?:-\d+)+$")
_BACKTICKED = re.compile(rf"`(?P<q>{_NAME})`")
_NOT_A_TOOL_AFTER = re.compile(
    r"\s*(?:parameter|param|argument|arg|field|option|property|flag|key|value|setting|"
    r"variable|env|column|resource|prompt|prefix|suffix|format|type|mode|file)s?\b",
    re.IGNORECASE,
)


def _identifier_like(name: str) -> bool:
    """snake_case, kebab-case or camelCase: the shapes tool names have, unlike prose words."""
    return ("_" in name or "-" in name or bool(re.search(r"[a-z][A-Z]", name))) and not name.isupper()


def _style(name: str) -> str:
    if "-" in name:
        return "kebab"
    if "_" in name:
        return "snake"
    if re.search(r"[a-z][A-Z]", name):
        return "camel"
    return "word"


_TOOL_VERBS = frozenset(
    ["get", "list", "create", "update", "delete", "remove", "add", "set", "read", "write", "search", "find", "fetch", "query", "open", "close", "send", "edit", "move", "copy", "upload", "download", "start", "stop", "run", "execute", "call", "make", "post", "put", "patch", "insert", "save", "load", "describe", "check", "trigger", "toggle", "browse", "navigate", "take"]
)


def _first_word(name: str) -> str:
    return re.split(r"[_\-]|(?<=[a-z])(?=[A-Z])", name, maxsplit=1)[0].lower()


class ToolIndex:
    """What a server's tool names look like, to judge whether an unknown word is one."""

    def __init__(self, tools: Iterable[str]) -> None:
        self.names = set(tools)
        self.styles = {_style(name) for name in self.names} - {"word"}
        self.first_words = {_first_word(name) for name in self.names}

    def plausible(self, name: str, *, strong: bool) -> bool:
        """``strong``: the text itself says it is a tool ('x' tool). Otherwise the name must
        look like this server's tools: the same case style and a tool-like first word
        (a common verb or the first word of an existing tool), or be a near-miss of one."""
        if strong:
            return True
        if did_you_mean(name, self.names):
            return True
        first = _first_word(name)
        return _style(name) in self.styles and (first in _TOOL_VERBS or first in self.first_words)


def referenced_tools(site: TextSite, index: ToolIndex) -> Iterator[tuple[str, int, int]]:
    """(name, start, end) of each word the text presents as a tool name."""
    text = site.text
    seen: set[tuple[int, int]] = set()

    def emit(name: str, start: int, end: int) -> Iterator[tuple[str, int, int]]:
        if (start, end) in seen:
            return
        seen.add((start, end))
        yield name, start, end

    for match in _NAME_THEN_TOOL.finditer(text):
        group = "q" if match.group("q") else "u"
        name = match.group(group)
        if group == "u" and not (_identifier_like(name) and index.plausible(name, strong=False)):
            continue
        yield from emit(name, match.start(group), match.end(group))
    for match in _VERB_THEN_NAME.finditer(text):
        group = "q" if match.group("q") else "u"
        name = match.group(group)
        if not _identifier_like(name) or _NOT_A_TOOL_AFTER.match(text, match.end()):
            continue
        if not index.plausible(name, strong=_quoted_call(match, text)):
            continue
        yield from emit(name, match.start(group), match.end(group))
    for match in _BACKTICKED.finditer(text):
        name = match.group("q")
        if not _identifier_like(name) or not index.plausible(name, strong=False):
            continue
        if _NOT_A_TOOL_AFTER.match(text, match.end()) or text[match.end():match.end() + 1] in "(.":
            continue
        yield from emit(name, match.start("q"), match.end("q"))


def _quoted_call(match: re.Match[str], text: str) -> bool:
    """``use 'fetch_all' to ...`` / ``call `sync_v1` first``: a quoted identifier right
    after "use", "call" or "invoke", with the clause going on as it does after a tool
    name. Such a name is a tool reference whether or not it resembles this server's
    tools (a stale name from an older version often does not)."""
    if match.group("q") is None or match.group("verb").lower() not in ("use", "call", "invoke"):
        return False
    if _NUMBERED_STANDARD.match(match.group("q")):
        return False
    return _CLAUSE_GOES_ON.match(text, match.end()) is not None


class UnknownToolReference(BaseRule):
    name: ClassVar[str] = "reference-unknown-tool"
    description: ClassVar[str] = "a description or the instructions refer to a tool the server does not expose"
    severity: ClassVar[Severity] = "warning"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        tools = set(server.tool_names())
        index = ToolIndex(tools)
        every_param = {name for tool in server.tools for name in param_names(tool)}
        normalized_params = {normalize_name(p) for p in every_param}
        found = []
        reported: set[tuple[str | None, str, str]] = set()
        for site in server_text_sites(server):
            for name, start, end in referenced_tools(site, index):
                if name in tools or (normalize_name(name) in normalized_params and not _said_tool(site.text, end)):
                    continue
                if (site.tool, site.where, name) in reported:
                    continue
                reported.add((site.tool, site.where, name))
                suggestion = did_you_mean(name, tools)
                message = f"refers to tool '{name}', which this server does not expose"
                if site.where != "description":
                    message += f" (in its {site.where})" if site.tool else " (in the server instructions)"
                if suggestion:
                    message += f"; did you mean '{suggestion}'?"
                found.append(self.finding(
                    message,
                    tool=site.tool,
                    key=f"{site.where}:{name}",
                    evidence=excerpt(site.text, start, end),
                    fix="Name a tool this server exposes, or remove the reference: a model that follows it "
                        "calls a tool that is not there.",
                    referenced=name,
                    suggestion=suggestion,
                ))
        return found


def _said_tool(text: str, end: int) -> bool:
    return bool(re.match(rf"{_Q}?\s+tool\b", text[end:], re.IGNORECASE))


# 'path' parameter / the path argument / `dryRun` field
_NAMED_PARAM = re.compile(
    rf"(?:{_Q}(?P<q>{_NAME}){_Q}|\bthe\s+(?P<u>{_NAME}))\s+(?:parameter|param|argument|arg|field|option)\b",
    re.IGNORECASE,
)
_IDENTIFIER = re.compile(r"(?<![\w./-])([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+)+)(?![\w/-])")


class UnknownParameterMention(BaseRule):
    """Two signals, both specific: an identifier that is a parameter's name spelled in
    another case style (``total_thoughts`` for ``totalThoughts``), and an explicit
    "the 'x' parameter" naming one the tool does not have."""

    name: ClassVar[str] = "description-unknown-parameter"
    description: ClassVar[str] = "a description names a parameter the tool does not have"
    severity: ClassVar[Severity] = "warning"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        tools = set(server.tool_names())
        every_param = {name for tool in server.tools for name in param_names(tool)}
        found: list[Finding] = []
        for tool in server.tools:
            found.extend(self._check_tool(tool, tools, every_param))
        return found

    def _check_tool(self, tool: ToolDefinition, tools: set[str], every_param: set[str]) -> Iterator[Finding]:
        params = param_names(tool)
        by_normal = {normalize_name(p): p for p in params}
        reported: set[str] = set()
        for site in tool_text_sites(tool):
            text = site.text
            for match in _IDENTIFIER.finditer(text):
                word = match.group(1)
                real = by_normal.get(normalize_name(word))
                if word in params or word in tools or real is None or word in reported:
                    continue
                reported.add(word)
                yield self.finding(
                    f"{site.where} mentions '{word}', but the parameter is named '{real}'",
                    tool=tool.name, key=f"{site.where}:{word}",
                    evidence=excerpt(text, match.start(1), match.end(1)),
                    fix="Spell parameters exactly as the input schema names them: a model copies the spelling it reads.",
                    mentioned=word, parameter=real,
                )
            for match in _NAMED_PARAM.finditer(text):
                group = "q" if match.group("q") else "u"
                word = match.group(group)
                if group == "u" and "_" not in word and not re.search(r"[a-z][A-Z]", word):
                    continue  # "the following parameter": an ordinary word
                if word in params or normalize_name(word) in by_normal or word in reported:
                    continue
                if word in every_param or word in tools:
                    continue  # another tool's parameter, or a tool: not this tool's mistake
                reported.add(word)
                suggestion = did_you_mean(word, params)
                message = f"{site.where} mentions parameter '{word}', which this tool does not have"
                if suggestion:
                    message += f"; did you mean '{suggestion}'?"
                yield self.finding(
                    message, tool=tool.name, key=f"{site.where}:{word}",
                    evidence=excerpt(text, match.start(group), match.end(group)),
                    fix="Name a parameter the input schema defines, or add the parameter to the schema.",
                    mentioned=word, suggestion=suggestion,
                )


REFERENCE_RULES: list[type[BaseRule]] = [UnknownToolReference, UnknownParameterMention]
