"""Tool poisoning: text in a definition that works against the person using the model.

Descriptions and server instructions go straight into the model's context, and the user
rarely sees them. Hidden characters, text that overrides the model's instructions and
text that tells the model to keep something from the user are errors: no honest tool
needs them. ``<IMPORTANT>``-style blocks are warnings, because some servers use them
only for emphasis, but they are also how published poisoning attacks hide instructions.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import ClassVar

from toolscore_core.kernel.model import Finding, ServerDefinition, Severity
from toolscore_mcp.lint.rules_common import (
    BaseRule,
    TextSite,
    all_strings,
    excerpt,
    server_text_sites,
)

_TAGS = range(0xE0000, 0xE0080)
_BIDI = {0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F, 0x061C}
_ZERO_WIDTH = {0x200B, 0x200C, 0x200D, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xFEFF, 0x180E, 0x00AD}


_ANY_HIDDEN = re.compile(
    "[\U000E0000-\U000E007F" + "".join(chr(c) for c in sorted(_BIDI | _ZERO_WIDTH)) + "]"
)


def hidden_characters(text: str) -> list[tuple[int, str]]:
    """(index, kind) of each invisible character that can hide or reorder text.

    A zero-width joiner between two pictographs is how emoji such as 👨‍👩‍👧 are built,
    so it is not counted there.
    """
    found: list[tuple[int, str]] = []
    if not _ANY_HIDDEN.search(text):
        return found  # the common case, without a Python-level loop over every character
    for i, char in enumerate(text):
        code = ord(char)
        if code in _TAGS:
            found.append((i, "tag character"))
        elif code in _BIDI:
            found.append((i, "bidi control"))
        elif code in _ZERO_WIDTH:
            if code == 0x200D and _pictograph(text, i - 1) and _pictograph(text, i + 1):
                continue
            found.append((i, "zero-width character"))
    return found


def _pictograph(text: str, i: int) -> bool:
    if not 0 <= i < len(text):
        return False
    char = text[i]
    return unicodedata.category(char) in ("So", "Sk") or 0x1F000 <= ord(char) <= 0x1FAFF or ord(char) in (0xFE0F, 0x2640, 0x2642)


def decode_tags(text: str) -> str:
    """Tag characters mirror ASCII (U+E0041 is an invisible 'A'): the text they smuggle."""
    return "".join(chr(ord(c) - 0xE0000) for c in text if 0xE0020 <= ord(c) <= 0xE007E)


class HiddenUnicode(BaseRule):
    name: ClassVar[str] = "poison-hidden-unicode"
    description: ClassVar[str] = "invisible Unicode (tag characters, bidi controls, zero-width) in a definition"
    severity: ClassVar[Severity] = "error"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        sites: list[tuple[str | None, str, str]] = []
        if server.instructions:
            sites.append((None, "instructions", server.instructions))
        for tool in server.tools:
            sites.extend((tool.name, where, text) for where, text in all_strings(tool))
        found = []
        for tool_name, where, text in sites:
            hits = hidden_characters(text)
            if not hits:
                continue
            kinds = sorted({kind for _, kind in hits})
            codes = " ".join(f"U+{ord(text[i]):04X}" for i, _ in hits[:8]) + (" …" if len(hits) > 8 else "")
            smuggled = decode_tags(text)
            message = f"{where} contains {len(hits)} hidden character(s) ({', '.join(kinds)})"
            if smuggled:
                message += f" that spell out invisible text: {smuggled[:80]!r}"
            found.append(self.finding(
                message, tool=tool_name, key=where, evidence=codes,
                fix="Remove the invisible characters: the model reads them, the user never sees them.",
            ))
        return found


class _PatternRule(BaseRule):
    """A rule that flags text matching any of ``patterns`` in descriptions and instructions."""

    patterns: ClassVar[tuple[re.Pattern[str], ...]] = ()
    #: Cheap pre-check: a text containing none of these (lower-case) cannot match.
    keywords: ClassVar[tuple[str, ...]] = ()
    what: ClassVar[str] = ""
    fix_text: ClassVar[str] = ""

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        return list(self._matches(server))

    def _matches(self, server: ServerDefinition) -> Iterator[Finding]:
        for site in server_text_sites(server):
            match = self._first(site)
            if match is None:
                continue
            where = site.where if site.tool else "server instructions"
            quoted = " ".join(match.group(0).split())
            quoted = quoted if len(quoted) <= 70 else quoted[:69] + "…"
            yield self.finding(
                f"{self.what} (in its {where}): \"{quoted}\"" if site.tool
                else f"{self.what} (in the {where}): \"{quoted}\"",
                tool=site.tool, key=site.where,
                evidence=excerpt(site.text, match.start(), match.end()),
                fix=self.fix_text,
            )

    def _first(self, site: TextSite) -> re.Match[str] | None:
        text = _visible(site.text)
        if self.keywords:
            lowered = text.lower()
            if not any(k in lowered for k in self.keywords):
                return None
        best: re.Match[str] | None = None
        for pattern in self.patterns:
            match = pattern.search(text)
            if match and (best is None or match.start() < best.start()):
                best = match
        return best


def _visible(text: str) -> str:
    """Text with hidden characters removed, so "ig\u200bnore" cannot dodge a pattern."""
    hidden = {i for i, _ in hidden_characters(text)}
    return "".join(c for i, c in enumerate(text) if i not in hidden) if hidden else text


_I = re.IGNORECASE
_W = r"\s{1,20}"  # bounded whitespace: no pathological backtracking on huge descriptions
_NEG = r"(?:do\s{1,20}not|don't|never|must\s{1,20}not|should\s{1,20}not)"


class InstructionOverride(_PatternRule):
    name: ClassVar[str] = "poison-instruction-override"
    description: ClassVar[str] = "text that tries to override the model's instructions"
    severity: ClassVar[Severity] = "error"
    what: ClassVar[str] = "tries to override the model's instructions"
    fix_text: ClassVar[str] = "Describe what the tool does; never tell the model to set aside its instructions."
    keywords: ClassVar[tuple[str, ...]] = ("ignore", "disregard", "forget", "override", "bypass", "you were", "you have been", "originally", "previously", "system prompt", "system instruction", "do not follow")
    patterns: ClassVar[tuple[re.Pattern[str], ...]] = (
        re.compile(r"\b(?:ignore|disregard|forget|override|bypass)\s{1,20}(?:all\s{1,20}|any\s{1,20})?(?:of\s{1,20})?(?:the\s{1,20}|your\s{1,20})?"
                   r"(?:previous|prior|above|earlier|preceding|other|system|original|existing)\s{1,20}"
                   r"(?:instructions?|prompts?|rules|directions|guidelines|messages?|context)", _I),
        re.compile(r"\b(?:ignore|disregard|forget)\s{1,20}(?:all\s{1,20}|any\s{1,20})?(?:your|the)\s{1,20}(?:instructions?|rules|guidelines|system\s{1,20}prompt)", _I),
        re.compile(r"\byou\s{1,20}(?:were|have\s{1,20}been)\s{1,20}(?:previously\s{1,20}|originally\s{1,20})?(?:advised|told|instructed)\s{1,20}to\s[^.]{1,80}?\b(?:but|however|now)\b", _I),
        re.compile(r"\b(?:although|though)\s{1,20}(?:originally|previously)\s{1,20}you\s{1,20}(?:did\s{1,20}not|didn't|could\s{1,20}not|couldn't|were\s{1,20}not)", _I),
        re.compile(r"\b(?:new|updated|real)\s{1,20}system\s{1,20}(?:prompt|instructions?)\s*:", _I),
        re.compile(r"\bdo\s{1,20}not\s{1,20}follow\s{1,20}(?:your|the|any)\s{1,20}(?:previous|prior|system|original)\s{1,20}(?:instructions?|rules|prompt)", _I),
    )


class HideFromUser(_PatternRule):
    name: ClassVar[str] = "poison-hide-from-user"
    description: ClassVar[str] = "text telling the model to hide something from the user"
    severity: ClassVar[Severity] = "error"
    what: ClassVar[str] = "tells the model to hide something from the user"
    fix_text: ClassVar[str] = "Remove it: a tool must never ask the model to keep what it does from the user."
    keywords: ClassVar[tuple[str, ...]] = ("user", "silently", "secretly", "covertly")
    patterns: ClassVar[tuple[re.Pattern[str], ...]] = (
        re.compile(rf"\b{_NEG}{_W}(?:tell|inform|notify|alert|warn){_W}(?:the{_W})?user", _I),
        re.compile(rf"\b{_NEG}{_W}let{_W}the{_W}user{_W}(?:know|see|find{_W}out|notice|learn)", _I),
        re.compile(rf"\b{_NEG}{_W}(?:mention|reveal|disclose|show|display|share){_W}"
                   rf"(?:this|it|that|these|any{_W}of{_W}this|the{_W}(?:above|following|instructions?|steps?|"
                   rf"tool|call|request|note|sidenote|contents?)){_W}(?:\S+{_W}){{0,6}}?(?:to|with){_W}the{_W}user", _I),
        re.compile(rf"\bwithout{_W}(?:telling|informing|notifying|alerting){_W}the{_W}user", _I),
        re.compile(rf"\b(?:hide|conceal|keep){_W}(?:this|it|that|these|the{_W}\w+)?{_W}?(?:secret{_W}|hidden{_W})?from{_W}the{_W}user", _I),
        re.compile(rf"\bthe{_W}user{_W}(?:must|should|need){_W}(?:not|never){_W}(?:know|see|be{_W}told|find{_W}out|notice)", _I),
        re.compile(rf"\b(?:silently|secretly|covertly){_W}(?:send|upload|forward|exfiltrate|copy|include|pass)", _I),
    )


class SensitiveFileAccess(_PatternRule):
    """The published "tool poisoning" attacks ask the model to read an SSH key or the
    client's MCP config and pass it along as an innocent-looking argument."""

    name: ClassVar[str] = "poison-sensitive-file"
    description: ClassVar[str] = "text pointing the model at credentials or key files"
    severity: ClassVar[Severity] = "error"
    what: ClassVar[str] = "points the model at credential or key files"
    fix_text: ClassVar[str] = "Remove it: tool text has no reason to send the model to secrets on the user's machine."
    keywords: ClassVar[tuple[str, ...]] = (".ssh", "id_", "credentials", ".netrc", ".pypirc", ".npmrc", ".docker", "cursor", "claude", "/etc/")
    patterns: ClassVar[tuple[re.Pattern[str], ...]] = (
        re.compile(r"~?/?\.ssh/(?:id_\w+|authorized_keys|config)?|\bid_(?:rsa|ed25519|ecdsa|dsa)\b", _I),
        re.compile(r"\.aws/credentials|\.git-credentials|\.netrc\b|\.pypirc\b|\.npmrc\b|\.docker/config\.json", _I),
        re.compile(r"(?:\.cursor/|claude_desktop_config|\.claude/)\S*?(?:mcp|config)\S*\.json|~/\.cursor/mcp\.json", _I),
        re.compile(r"/etc/(?:passwd|shadow)\b", _I),
    )


class ImportantBlock(_PatternRule):
    name: ClassVar[str] = "poison-important-block"
    description: ClassVar[str] = "<IMPORTANT>-style instruction blocks aimed at the model"
    severity: ClassVar[Severity] = "warning"
    what: ClassVar[str] = "contains an instruction block aimed at the model"
    fix_text: ClassVar[str] = "Write plain descriptive text; tag blocks like <IMPORTANT> are how poisoned tools hide orders."
    keywords: ClassVar[tuple[str, ...]] = ("<", "[")
    patterns: ClassVar[tuple[re.Pattern[str], ...]] = (
        re.compile(r"<\s*/?\s*(?:important|system|instructions?|critical|secret|hidden|admin|override)\b[^>]{0,40}>", _I),
        re.compile(r"\[\s*(?:system|instructions?)\s*\]", _I),
    )


class ScriptedReply(_PatternRule):
    """A server that dictates the model's words ("respond with '...'") is writing the
    answer instead of describing a tool; the reference server-everything does it in an
    "Easter Egg" of its instructions. A warning: it can be a harmless demo."""

    name: ClassVar[str] = "poison-scripted-reply"
    description: ClassVar[str] = "text dictating the exact reply the model must give"
    severity: ClassVar[Severity] = "warning"
    what: ClassVar[str] = "dictates the model's reply"
    fix_text: ClassVar[str] = "Let the model answer from tool results; do not script its replies in tool text."
    keywords: ClassVar[tuple[str, ...]] = ("respond", "reply", "answer", "say")
    patterns: ClassVar[tuple[re.Pattern[str], ...]] = (
        re.compile(r"\b(?:respond|reply|answer|say)\s{1,20}(?:only\s{1,20}|exactly\s{1,20}|with\s{1,20}exactly\s{1,20})?(?:with\s{1,20})?[\"\u201c'][^\"\u201d']{20,}", _I),
    )


POISONING_RULES: list[type[BaseRule]] = [
    HiddenUnicode,
    InstructionOverride,
    HideFromUser,
    SensitiveFileAccess,
    ImportantBlock,
    ScriptedReply,
]
