"""Terminal escape sequences: text a terminal conceals, erases or acts on.

A model reads a definition's raw text; a person reads it on a terminal (``mcp list``, a
CI log, ``cat``), where ECMA-48 sequences conceal text, move the cursor up and erase
lines already printed, change the window title or write the clipboard (OSC 52).
:func:`control_sequences` names each sequence, :func:`concealed_text` recovers what a
terminal would hide, and :func:`strip_controls` gives the text without them (the phrase
rules match on that, so an escape in the middle of a word cannot dodge them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import ClassVar

import attrs

from toolscore_core.kernel.model import Finding, ServerDefinition, Severity
from toolscore_mcp.lint.rules_common import BaseRule, definition_strings, shown

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
        for tool_name, where, text in definition_strings(server):
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
