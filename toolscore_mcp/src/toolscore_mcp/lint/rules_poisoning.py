"""Tool poisoning: text in a definition that works against the person using the model.

Descriptions and server instructions go straight into the model's context, and the user
rarely sees them. Hidden characters, terminal escape sequences (text concealed or erased
on a terminal), text that overrides the model's instructions and text that tells the
model to keep something from the user are errors: no honest tool needs them.
``<IMPORTANT>``-style blocks are warnings, because some servers use them only for
emphasis, but they are also how published poisoning attacks hide instructions. A
credential written into a definition (``secret-in-definition``) is not poisoning but a
leak to every client; it lives here because it is found the same way, in the same texts.

Every quote from a definition in a message goes through
:func:`~toolscore_mcp.lint.rules_common.shown` (redacted, controls escaped): the
definition may be hostile, and the finding must show its tricks, not replay them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import ClassVar

import attrs

from toolscore_core.kernel.model import Finding, ServerDefinition, Severity
from toolscore_mcp.lint.rules_common import (
    BaseRule,
    all_strings,
    excerpt,
    server_text_sites,
    shown,
)

_TAGS = range(0xE0000, 0xE0080)
# Embeddings, overrides and isolates reorder the text a user sees: always flagged.
_OVERRIDES = {0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069}
# Direction marks only nudge neutral characters; right-to-left text needs them.
_MARKS = {0x200E, 0x200F, 0x061C}
_ZERO_WIDTH = {0x200B, 0x200C, 0x200D, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xFEFF, 0x180E, 0x00AD}
_NOT_ALONE = set(_TAGS) | _OVERRIDES | _MARKS | _ZERO_WIDTH


_ANY_HIDDEN = re.compile(
    "[\U000E0000-\U000E007F\uFE00-\uFE0F\U000E0100-\U000E01EF"
    + "".join(chr(c) for c in sorted(_OVERRIDES | _MARKS | _ZERO_WIDTH)) + "]"
)
# An emoji tag sequence (the flags of England, Scotland, Wales): a black flag, a short
# lower-case subdivision code in tag characters, a cancel tag.
_FLAG_TAGS = re.compile("\U0001F3F4[\U000E0030-\U000E0039\U000E0061-\U000E007A]{2,7}\U000E007F")

# Scripts whose letters take ZWNJ / ZWJ to choose a letter form (Arabic, Persian, Syriac,
# Thaana, N'Ko, the Indic scripts, Tibetan, Myanmar, Khmer, Mongolian).
_JOINING = ((0x0600, 0x06FF), (0x0700, 0x08FF), (0x0900, 0x0DFF), (0x0F00, 0x0FFF), (0x1000, 0x109F),
            (0x1780, 0x18AF), (0xA8E0, 0xA8FF), (0xA9E0, 0xA9FF), (0xAA60, 0xAA7F), (0xFB50, 0xFDFF),
            (0xFE70, 0xFEFC))
# Scripts written without spaces, where U+200B marks where a line may break.
_NO_SPACES = ((0x0E00, 0x0EFF), (0x0F00, 0x0FFF), (0x1000, 0x109F), (0x1780, 0x17FF), (0x3040, 0x30FF),
              (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF))
_MONGOLIAN = ((0x1800, 0x18AF),)
_CJK = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x3FFFF))
_RTL_LETTER = re.compile("[\u0590-\u05FF\u0600-\u06FF\u0700-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFC]")
_RTL_WINDOW = 40  # characters either side of a direction mark


def hidden_characters(text: str) -> list[tuple[int, str]]:
    """(index, kind) of each invisible character that can hide or reorder text.

    The rule, one kind at a time. Ordinary writing needs some of these characters, and
    a linter that flags Persian or a flag emoji teaches people to ignore it, so a
    character is allowed only where that writing puts it, and never next to another
    invisible character (runs of them are how zero-width steganography encodes bits):

    - tag characters: only inside an emoji tag sequence (U+1F3F4, 2-7 tag letters or
      digits, U+E007F: the flag of England). Anywhere else they spell invisible ASCII;
    - bidi embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069): always,
      since they reorder what the user sees against what the model reads;
    - direction marks (LRM, RLM, ALM): only with a right-to-left letter (Hebrew, Arabic,
      Syriac, Thaana, N'Ko) within 40 characters;
    - ZWNJ / ZWJ: only between two letters of a script that shapes letters with them
      (Arabic and Persian, the Indic scripts, ...), or after an Indic virama (which may
      end a word: the Malayalam chillu form); ZWJ also between two pictographs
      (the joiners inside family and profession emoji). Between Latin letters, or at a word's edge, they hide;
    - U+200B: only between two letters of a script written without spaces (Thai, Lao,
      Khmer, Myanmar, Chinese, Japanese); U+180E only inside Mongolian; word joiners,
      invisible operators, U+FEFF and soft hyphens: always;
    - variation selectors: one, directly after a base that takes it (U+FE0E/U+FE0F after
      a symbol, digit or punctuation mark; U+FE00-U+FE0D after a symbol or a CJK or
      Myanmar letter; U+E0100 and up after a CJK ideograph). Runs of them, or one after a
      Latin letter, carry data.
    """
    found: list[tuple[int, str]] = []
    if not _ANY_HIDDEN.search(text):
        return found  # the common case, without a Python-level loop
    flags = {i for m in _FLAG_TAGS.finditer(text) for i in range(m.start() + 1, m.end())}
    for match in _ANY_HIDDEN.finditer(text):
        i = match.start()
        code = ord(text[i])
        if code in _TAGS:
            if i not in flags:
                found.append((i, "tag character"))
        elif code in _OVERRIDES:
            found.append((i, "bidi control"))
        elif code in _MARKS:
            if not (_alone(text, i) and _RTL_LETTER.search(text, max(0, i - _RTL_WINDOW), i + _RTL_WINDOW + 1)):
                found.append((i, "bidi control"))
        elif code in _ZERO_WIDTH:
            if not (_alone(text, i) and _expected_zero_width(text, i, code)):
                found.append((i, "zero-width character"))
        elif not _selector_allowed(text, i, code):
            found.append((i, "variation selector"))
    return found


def _alone(text: str, i: int) -> bool:
    """No other invisible character right before or after position ``i``."""
    before = ord(text[i - 1]) if i > 0 else None
    after = ord(text[i + 1]) if i + 1 < len(text) else None
    return before not in _NOT_ALONE and after not in _NOT_ALONE


def _expected_zero_width(text: str, i: int, code: int) -> bool:
    if code == 0x200D and _pictograph(text, i - 1) and _pictograph(text, i + 1):
        return True
    if code in (0x200C, 0x200D):
        if not _letter_in(text, i - 1, _JOINING):
            return False
        return _letter_in(text, i + 1, _JOINING) or _indic_virama(text, i - 1)
    if code == 0x200B:
        return _letter_in(text, i - 1, _NO_SPACES) and _letter_in(text, i + 1, _NO_SPACES)
    if code == 0x180E:
        return _letter_in(text, i - 1, _MONGOLIAN) and _letter_in(text, i + 1, _MONGOLIAN)
    return False


def _indic_virama(text: str, i: int) -> bool:
    """A combining mark of an Indic script: a joiner after it may end a word (the
    Malayalam chillu form ന്\u200d, an explicit halant before punctuation)."""
    return 0x0900 <= ord(text[i]) <= 0x0DFF and unicodedata.category(text[i]) in ("Mn", "Mc")


def _letter_in(text: str, i: int, ranges: tuple[tuple[int, int], ...]) -> bool:
    """A letter or combining mark (an Indic virama, an Arabic vowel sign) of ``ranges``."""
    if not 0 <= i < len(text):
        return False
    code = ord(text[i])
    return any(low <= code <= high for low, high in ranges) and unicodedata.category(text[i])[0] in "LM"


def _selector_allowed(text: str, i: int, code: int) -> bool:
    if i == 0:
        return False
    base = text[i - 1]
    base_code = ord(base)
    if base_code in _NOT_ALONE or 0xFE00 <= base_code <= 0xFE0F or 0xE0100 <= base_code <= 0xE01EF:
        return False  # a run of selectors, or one after another invisible character
    category = unicodedata.category(base)
    if code in (0xFE0E, 0xFE0F):
        return category[0] in "SNP"
    if code < 0xFE0E:
        cjk_or_myanmar = any(low <= base_code <= high for low, high in (*_CJK, (0x1000, 0x109F)))
        return category[0] == "S" or cjk_or_myanmar
    return any(low <= base_code <= high for low, high in _CJK)


def _pictograph(text: str, i: int) -> bool:
    if not 0 <= i < len(text):
        return False
    char = text[i]
    return unicodedata.category(char) in ("So", "Sk") or 0x1F000 <= ord(char) <= 0x1FAFF or ord(char) in (0xFE0F, 0x2640, 0x2642)


def decode_tags(text: str) -> str:
    """Tag characters mirror ASCII (U+E0041 is an invisible 'A'): the text they smuggle.

    Emoji tag sequences (a flag's subdivision code) are left out: they smuggle nothing.
    """
    cleaned = _FLAG_TAGS.sub("", text) if "\U0001F3F4" in text else text
    return "".join(chr(ord(c) - 0xE0000) for c in cleaned if 0xE0020 <= ord(c) <= 0xE007E)


def _definition_strings(server: ServerDefinition) -> list[tuple[str | None, str, str]]:
    """(tool, where, text) of every string of the server a model reads or a client shows."""
    sites: list[tuple[str | None, str, str]] = []
    if server.instructions:
        sites.append((None, "instructions", server.instructions))
    for tool in server.tools:
        sites.extend((tool.name, where, text) for where, text in all_strings(tool))
    return sites


class HiddenUnicode(BaseRule):
    """Invisible characters a model reads and a user never sees; which ones ordinary
    writing needs (and so are allowed) is spelled out in :func:`hidden_characters`."""

    name: ClassVar[str] = "poison-hidden-unicode"
    description: ClassVar[str] = "invisible Unicode (tag characters, bidi controls, zero-width) in a definition"
    severity: ClassVar[Severity] = "error"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        found = []
        for tool_name, where, text in _definition_strings(server):
            hits = hidden_characters(text)
            if not hits:
                continue
            kinds = sorted({kind for _, kind in hits})
            codes = " ".join(f"U+{ord(text[i]):04X}" for i, _ in hits[:8]) + (" …" if len(hits) > 8 else "")
            smuggled = decode_tags(text)
            message = f"{where} contains {len(hits)} hidden character(s) ({', '.join(kinds)})"
            if smuggled:
                message += f" that spell out invisible text: '{shown(smuggled)}'"
            found.append(self.finding(
                message, tool=tool_name, key=where, evidence=codes,
                fix="Remove the invisible characters: the model reads them, the user never sees them.",
            ))
        return found


# ECMA-48 control sequences, and the bare control characters that rewrite a line.
_ESCAPE = re.compile(
    r"(?:\x1b\[|\x9b)(?P<params>[\x30-\x3f]{0,64})[\x20-\x2f]{0,8}(?P<final>[\x40-\x7e])?"
    r"|(?:\x1b\]|\x9d)(?P<osc>[^\x07\x1b\x9c]{0,4096})(?:\x07|\x1b\\|\x9c)?"
    r"|(?P<string>\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x07\x1b\x9c]{0,4096}(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b(?P<esc>[\x20-\x2f]{0,8}[\x30-\x7e])?"
    r"|(?P<ctl>[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f])"
    r"|(?P<cr>\r)(?!\n)"
)
_ANY_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CSI_KINDS = {
    "A": "cursor up", "B": "cursor down", "C": "cursor forward", "D": "cursor back",
    "E": "cursor to next line", "F": "cursor to previous line", "G": "cursor to column",
    "H": "cursor position", "f": "cursor position", "J": "erase screen", "K": "erase line",
    "S": "scroll up", "T": "scroll down", "s": "save cursor", "u": "restore cursor",
    "h": "terminal mode change", "l": "terminal mode change", "P": "delete characters",
    "X": "erase characters", "M": "delete lines", "L": "insert lines", "@": "insert characters",
}
_OSC_KINDS = {
    "0": "window title change (OSC 0)", "1": "icon title change (OSC 1)", "2": "window title change (OSC 2)",
    "4": "palette change (OSC 4)", "7": "working directory report (OSC 7)", "8": "hyperlink (OSC 8)",
    "10": "colour change (OSC 10)", "11": "colour change (OSC 11)", "52": "clipboard write (OSC 52)",
}
_ESC_KINDS = {"c": "terminal reset (ESC c)", "7": "save cursor (ESC 7)", "8": "restore cursor (ESC 8)",
              "M": "reverse line feed (ESC M)"}
_CTL_KINDS = {0x07: "bell", 0x08: "backspace", 0x7F: "delete character (DEL)"}
_SGR_COLOUR = re.compile(r"^(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])$")
_SGR_END_CONCEAL = {"", "0", "28"}


@attrs.frozen
class ControlSequence:
    """One terminal control sequence (or rewriting control character) found in a text."""

    start: int
    end: int
    kind: str
    moves_up: int = 0  # lines the cursor goes up (and overwrites), for cursor up / previous line


_SEQUENCE_LIMIT = 200  # sequences classified per text; a message names a handful


def control_sequences(text: str, limit: int = _SEQUENCE_LIMIT) -> tuple[list[ControlSequence], int]:
    """The first ``limit`` terminal escape sequences and rewriting control characters in
    ``text``, and how many there are in all.

    Tab and newline (and CR before a newline) are ordinary text; everything else a
    terminal would act on instead of print: CSI sequences (style, conceal, cursor
    movement, erasing), OSC commands (title, clipboard, hyperlinks), device control
    strings, other ESC sequences, a bare carriage return or backspace, other controls.
    """
    if not _ANY_CONTROL.search(text):
        return [], 0
    found: list[ControlSequence] = []
    total = 0
    for match in _ESCAPE.finditer(text):
        total += 1
        if total <= limit:
            found.append(_classify(match))
    return found, total


def _classify(match: re.Match[str]) -> ControlSequence:
    start, end = match.span()
    final = match.group("final")
    if match.group("params") is not None:
        params = match.group("params")
        if final is None:
            return ControlSequence(start, end, "unfinished CSI sequence")
        if final == "m":
            codes = params.split(";")
            if "8" in codes:
                return ControlSequence(start, end, "conceal (SGR 8)")
            kind = "colour (SGR)" if any(_SGR_COLOUR.match(c) for c in codes) else "text style (SGR)"
            return ControlSequence(start, end, kind)
        count = int(params) if params.isdigit() and len(params) <= 4 else 1
        if final == "J" and params in ("2", "3"):
            return ControlSequence(start, end, "clear screen")
        kind = _CSI_KINDS.get(final, "CSI sequence")
        return ControlSequence(start, end, kind, moves_up=max(count, 1) if final in "AF" else 0)
    if match.group("osc") is not None:
        code = re.match(r"\d{1,5}", match.group("osc"))
        number = code.group(0) if code else ""
        return ControlSequence(start, end, _OSC_KINDS.get(number, f"operating system command (OSC {number or '?'})"))
    if match.group("string") is not None:
        return ControlSequence(start, end, "device control string")
    if match.group("ctl") is not None:
        code_point = ord(match.group("ctl"))
        return ControlSequence(start, end, _CTL_KINDS.get(code_point, f"control character U+{code_point:04X}"))
    if match.group("cr") is not None:
        return ControlSequence(start, end, "carriage return (overwrites the line)")
    esc = match.group("esc")
    if esc is None:
        return ControlSequence(start, end, "lone ESC")
    return ControlSequence(start, end, _ESC_KINDS.get(esc, "escape sequence"), moves_up=1 if esc == "M" else 0)


def strip_controls(text: str) -> str:
    """``text`` as the model reads it without the terminal sequences in the way."""
    return _ESCAPE.sub("", text) if _ANY_CONTROL.search(text) else text


_HIDDEN_SHOWN = 400  # characters of hidden text collected for a message (it shows ~80)


def concealed_text(text: str, sequences: list[ControlSequence]) -> str:
    """The text a terminal would not show: concealed (SGR 8) spans, lines the cursor goes
    back up over (and erases or overwrites), and what a bare carriage return overwrites.

    One pass over ``sequences``, each look-back bounded, and it stops once it has more
    than a message can show: a text of a million sequences costs no more than a short one.
    """
    parts: list[str] = []
    size = 0
    conceal_from: int | None = None
    for seq in sequences:
        if size > _HIDDEN_SHOWN:
            break
        piece = ""
        if conceal_from is not None and _ends_conceal(text, seq):
            piece = text[conceal_from:seq.start]
            conceal_from = None
        elif seq.kind == "conceal (SGR 8)":
            conceal_from = seq.end if conceal_from is None else conceal_from
        elif seq.moves_up:
            piece = _lines_before(text, seq.start, min(seq.moves_up, 20))
        elif seq.kind.startswith("carriage return"):
            window = max(0, seq.start - _HIDDEN_SHOWN)
            piece = text[text.rfind("\n", window, seq.start) + 1 or window:seq.start]
        cleaned = strip_controls(piece[:_HIDDEN_SHOWN * 2]).strip()
        if cleaned:
            parts.append(cleaned)
            size += len(cleaned)
    if conceal_from is not None and size <= _HIDDEN_SHOWN:
        tail = strip_controls(text[conceal_from:conceal_from + _HIDDEN_SHOWN * 2]).strip()
        if tail:
            parts.append(tail)
    return " | ".join(parts)


def _lines_before(text: str, position: int, count: int) -> str:
    """The ``count`` complete lines before the line ``position`` is on (each look-back
    bounded): what a cursor moved up ``count`` lines writes over."""
    window = max(0, position - _HIDDEN_SHOWN * 2)
    end = text.rfind("\n", window, position)
    if end < 0:
        return ""
    start = end
    for _ in range(count):
        found = text.rfind("\n", window, start)
        start = found if found >= 0 else window - 1
        if found < 0:
            break
    return text[start + 1:end].replace("\n", " ")


def _ends_conceal(text: str, seq: ControlSequence) -> bool:
    body = text[seq.start:seq.end]
    if not body.endswith("m") or seq.kind not in ("text style (SGR)", "colour (SGR)"):
        return False
    params = body[1:-1].lstrip("[")
    return any(code in _SGR_END_CONCEAL for code in params.split(";"))


class TerminalEscape(BaseRule):
    """Terminal escape sequences in a definition. A model reads the raw text; a person
    who looks at it in a terminal (``mcp list``, a CI log, ``cat``) sees what the
    sequences make of it: concealed text, lines erased after they were printed, a changed
    title or clipboard. No honest description needs them, so any CSI, OSC or other ESC
    sequence is an error, as are a bare carriage return and other control characters
    that rewrite a line. The message names each kind and quotes the sequences escaped."""

    name: ClassVar[str] = "poison-terminal-escape"
    description: ClassVar[str] = "terminal escape sequences or control characters (hidden or rewritten text) in a definition"
    severity: ClassVar[Severity] = "error"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        found = []
        for tool_name, where, text in _definition_strings(server):
            sequences, total = control_sequences(text)
            if not sequences:
                continue
            kinds = list(dict.fromkeys(seq.kind for seq in sequences))
            quoted = " ".join(f'"{shown(text[s.start:s.end], 28)}"' for s in sequences[:4])
            quoted += " …" if total > 4 else ""
            message = (f"{where} contains {total} terminal control sequence(s) "
                       f"({', '.join(kinds[:6])}{', …' if len(kinds) > 6 else ''}): {quoted}")
            hidden = concealed_text(text, sequences)
            if hidden:
                message += f"; text a terminal hides: '{shown(hidden)}'"
            found.append(self.finding(
                message, tool=tool_name, key=where,
                evidence=shown(text, 300),
                fix="Remove the escape sequences: the model reads the raw text while a terminal shows something else.",
                kinds=kinds,
            ))
        return found


class CredentialInDefinition(BaseRule):
    """A credential written into a definition (a description's example call, a schema's
    ``default``, ``const``, ``enum`` or ``examples``, the server instructions) is sent to
    every client that lists the tools, and from there into model contexts and logs. The
    finding shows only the credential's redacted preview (``ghp_…Xy``)."""

    name: ClassVar[str] = "secret-in-definition"
    description: ClassVar[str] = "a credential (API key, token, private key) in a description, schema or the instructions"
    severity: ClassVar[Severity] = "error"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        from toolscore_core.scoring.secrets import find_secrets

        found = []
        subjects: list[tuple[str | None, object]] = [(None, {"instructions": server.instructions or ""})]
        for tool in server.tools:
            subjects.append((tool.name, {
                "name": tool.name, "title": tool.title or "", "description": tool.description or "",
                "inputSchema": tool.input_schema, "outputSchema": tool.output_schema or {},
                "annotations": tool.annotations, "_meta": tool.meta,
            }))
        for tool_name, subject in subjects:
            by_path: dict[str, list[str]] = {}
            for hit in find_secrets(subject):
                by_path.setdefault(hit.path, []).append(f"{hit.kind} {hit.preview}")
            for path, hits in by_path.items():
                where = "the server instructions" if tool_name is None else path
                found.append(self.finding(
                    f"{where} contain{'' if tool_name is None else 's'} a credential ({', '.join(hits[:3])})",
                    tool=tool_name, key=path, evidence=", ".join(hits),
                    fix="Remove the credential and revoke it: every client that lists this server's tools has read it.",
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
