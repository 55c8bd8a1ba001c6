"""Hidden Unicode: characters a model reads and a person looking at the text never sees.

Tag characters spell invisible ASCII, bidi controls reorder what the user sees against
what the model reads, and runs of zero-width characters encode bits. Ordinary writing
needs some of the same characters (ZWNJ in Persian, RLM in Hebrew, the tags inside a
flag emoji), so :func:`hidden_characters` allows each one only where that writing puts
it. The phrase rules use it too, to read a text without what only hides.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import ClassVar

from toolscore_core.kernel.model import Finding, ServerDefinition, Severity
from toolscore_mcp.lint.rules_common import BaseRule, definition_strings, shown

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



class HiddenUnicode(BaseRule):
    """Invisible characters a model reads and a user never sees; which ones ordinary
    writing needs (and so are allowed) is spelled out in :func:`hidden_characters`."""

    name: ClassVar[str] = "poison-hidden-unicode"
    description: ClassVar[str] = "invisible Unicode (tag characters, bidi controls, zero-width) in a definition"
    severity: ClassVar[Severity] = "error"

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        found = []
        for tool_name, where, text in definition_strings(server):
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
