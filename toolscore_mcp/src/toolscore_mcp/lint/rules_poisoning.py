"""Tool poisoning: text in a definition that works against the person using the model.

Descriptions and server instructions go straight into the model's context, and the user
rarely sees them. Text that overrides the model's instructions, tells the model to keep
something from the user or points it at key files is an error: no honest tool needs it.
``<IMPORTANT>``-style blocks are warnings, because some servers use them only for
emphasis, but they are also how published poisoning attacks hide instructions.

The rules of this theme that look at characters rather than phrases live in their own
modules: :mod:`~toolscore_mcp.lint.rules_hidden` (hidden Unicode),
:mod:`~toolscore_mcp.lint.rules_escapes` (terminal escape sequences) and
:mod:`~toolscore_mcp.lint.rules_secrets` (``secret-in-definition``, found in the same
texts). :data:`POISONING_RULES` lists all of them, in their registration order.

Every quote from a definition in a message goes through
:func:`~toolscore_mcp.lint.rules_common.shown` (redacted, controls escaped): the
definition may be hostile, and the finding must show its tricks, not replay them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import ClassVar

from toolscore_core.kernel.model import Finding, ServerDefinition, Severity
from toolscore_mcp.lint.rules_common import BaseRule, excerpt, server_text_sites, shown
from toolscore_mcp.lint.rules_escapes import TerminalEscape, strip_controls
from toolscore_mcp.lint.rules_hidden import HiddenUnicode, hidden_characters
from toolscore_mcp.lint.rules_secrets import CredentialInDefinition

__all__ = [
    "POISONING_RULES",
    "BaseRule",
    "CredentialInDefinition",
    "HiddenUnicode",
    "HideFromUser",
    "ImportantBlock",
    "InstructionOverride",
    "ScriptedReply",
    "SensitiveFileAccess",
    "TerminalEscape",
]


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
            text = _visible(site.text)
            match = self._first(text)
            if match is None:
                continue
            where = site.where if site.tool else "server instructions"
            quoted = shown(match.group(0), 70)
            yield self.finding(
                f"{self.what} (in its {where}): \"{quoted}\"" if site.tool
                else f"{self.what} (in the {where}): \"{quoted}\"",
                tool=site.tool, key=site.where,
                evidence=excerpt(text, match.start(), match.end()),
                fix=self.fix_text,
            )

    def _first(self, text: str) -> re.Match[str] | None:
        if self.keywords:
            lowered = text.lower()
            if not any(k in lowered for k in self.keywords):
                return None
        best: re.Match[str] | None = None
        for pattern in self.patterns:
            for match in pattern.finditer(text):
                if best is not None and match.start() >= best.start():
                    break
                if not self.exempt(text, match):
                    best = match
                    break
        return best

    def exempt(self, text: str, match: re.Match[str]) -> bool:
        """True when ``match`` is a harmless use of the wording (none by default)."""
        return False


def _visible(text: str) -> str:
    """Text as the model reads it, minus what only hides: hidden characters and terminal
    sequences removed, so "ig\u200bnore" or "ig\x1b[0mnore" cannot dodge a pattern."""
    text = strip_controls(text)
    hidden = {i for i, _ in hidden_characters(text)}
    return "".join(c for i, c in enumerate(text) if i not in hidden) if hidden else text


_I = re.IGNORECASE
_W = r"\s{1,20}"  # bounded whitespace: no pathological backtracking on huge descriptions
_NEG = r"(?:do\s{1,20}not|don['\u2019]t|never|must\s{1,20}not|mustn['\u2019]t|should\s{1,20}not|shouldn['\u2019]t)"


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


_WHO = rf"(?:the{_W}user|users|the{_W}human|the{_W}person|anyone|anybody)"
_QUIET = r"(?:reveal|mention|disclose|admit|acknowledge|divulge|let{_W}on|tell(?:{_W}anyone|{_W}them)?)".replace("{_W}", _W)
# "Don't reveal secrets to the user", "never tell the user the API key", "hide tokens from
# the user": safety advice about credentials, the opposite of hiding what a tool does.
_SAFETY = re.compile(
    rf"(?:{_NEG}{_W})?(?:tell|inform|reveal|mention|disclose|show|display|share|divulge|hide|conceal|keep|withhold)"
    rf"{_W}(?:{_WHO}{_W})?(?:to{_W}{_WHO}{_W})?(?:(?:any|the|your|their|its|raw|such|those|these|all|full){_W})?"
    rf"(?:[\w-]+{_W}){{0,2}}?(?:secrets|passwords?|passphrases?|tokens?|credentials?|api{_W}keys?|private{_W}keys?|keys?)\b"
    rf"(?!{_W}(?:was|were|is|are|has|have|had|got|gets|will|would|went)\b)",
    re.IGNORECASE,
)


class HideFromUser(_PatternRule):
    """Text telling the model to keep something from its user: not to tell, mention or
    reveal what it does ("Don't reveal that you read the config file"), to act without
    the user knowing, to keep something from the user. Safety advice about credentials
    ("don't reveal secrets to the user", "hide the API key from the user") uses the same
    verbs and is left alone: the verb's object is a secret, a password, a token or a key."""

    name: ClassVar[str] = "poison-hide-from-user"
    description: ClassVar[str] = "text telling the model to hide something from the user"
    severity: ClassVar[Severity] = "error"
    what: ClassVar[str] = "tells the model to hide something from the user"
    fix_text: ClassVar[str] = "Remove it: a tool must never ask the model to keep what it does from the user."
    keywords: ClassVar[tuple[str, ...]] = ("user", "silently", "secretly", "covertly", "reveal", "mention", "disclose",
                                           "admit", "acknowledge", "divulge", "let on", "anyone", "anybody", "human")
    patterns: ClassVar[tuple[re.Pattern[str], ...]] = (
        re.compile(rf"\b{_NEG}{_W}(?:tell|inform|notify|alert|warn){_W}{_WHO}", _I),
        re.compile(rf"\b{_NEG}{_W}let{_W}(?:{_WHO}|them){_W}(?:know|see|find{_W}out|notice|learn|reali[sz]e)", _I),
        re.compile(rf"\b{_NEG}{_W}(?:mention|reveal|disclose|show|display|share){_W}"
                   rf"(?:this|it|that|these|any{_W}of{_W}this|the{_W}(?:above|following|instructions?|steps?|"
                   rf"tool|call|request|note|sidenote|contents?)){_W}(?:\S+{_W}){{0,6}}?(?:to|with){_W}{_WHO}", _I),
        # "don't reveal that you read ...", "never mention to anyone what this tool sends"
        re.compile(rf"\b{_NEG}{_W}{_QUIET}{_W}(?:(?:to|with){_W}(?:{_WHO}|them){_W})?"
                   rf"(?:that|how|what|whether|why|where|when){_W}"
                   rf"(?:you|this|the{_W}(?:tool|assistant|model|server)|we|it|i|they)\b[^.;\n]{{0,80}}", _I),
        # "do not mention this step", "never reveal these instructions"
        re.compile(rf"\b{_NEG}{_W}{_QUIET}{_W}(?:this|these|the){_W}(?:(?:hidden|extra|following|above){_W})?"
                   rf"(?:step|instructions?|notes?|sidenote|part|requirement|tool{_W}call|behaviou?r)s?\b", _I),
        re.compile(rf"\b(?:avoid|refrain{_W}from){_W}(?:mentioning|revealing|disclosing|telling|informing|notifying|"
                   rf"alerting|letting){_W}(?:[^.\n]{{0,60}}?\b)?(?:{_WHO}|that{_W}you)\b", _I),
        re.compile(rf"\bwithout{_W}(?:telling|informing|notifying|alerting|letting){_W}(?:{_WHO}|them)", _I),
        re.compile(rf"\bwithout{_W}(?:{_WHO}|them)(?:'s)?{_W}(?:knowing|knowledge|noticing|realizing|realising|seeing)", _I),
        re.compile(rf"\bwithout{_W}(?:mentioning|revealing|disclosing){_W}(?:it|this|that|anything){_W}to{_W}{_WHO}", _I),
        re.compile(rf"\b(?:hide|conceal|keep|withhold){_W}(?:[\w'\u2019-]{{1,30}}{_W}){{0,6}}?(?:secret{_W}|hidden{_W})?from{_W}"
                   rf"(?:the{_W}user|users|the{_W}human)", _I),
        re.compile(rf"\b(?:the{_W}user|users|the{_W}human){_W}(?:must|should|need|needs|does|do|will|may|can)"
                   rf"(?:{_W}not|n['\u2019]t|{_W}never)(?:{_W}(?:need|have){_W}to)?{_W}"
                   rf"(?:know|see|be{_W}told|find{_W}out|notice|learn|be{_W}aware)", _I),
        re.compile(rf"\b(?:silently|secretly|covertly){_W}(?:send|upload|forward|exfiltrate|copy|include|pass)", _I),
    )

    def exempt(self, text: str, match: re.Match[str]) -> bool:
        return _SAFETY.match(text, match.start()) is not None


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
    TerminalEscape,
    CredentialInDefinition,
    InstructionOverride,
    HideFromUser,
    SensitiveFileAccess,
    ImportantBlock,
    ScriptedReply,
]
