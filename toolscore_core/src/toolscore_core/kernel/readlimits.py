"""What Toolscore agrees to read: limits that keep valid but extreme input from crashing it.

A trace, a gold file or a tools listing can be valid JSON or YAML and still break a reader
that trusts it: arrays nested 900 deep overflow every recursive walk (comparison,
redaction, rendering); an integer of 5,000 digits cannot even be turned back into text
(Python's ``int_max_str_digits``); a lone surrogate (``"\\ud800"``) is a valid JSON escape
but no UTF-8 writer can encode it, so every report would fail; a 409-byte YAML alias bomb
expands to gigabytes; a self-referencing alias makes data that has no end. Each is
answered here, once, for every reader in every distribution:

- **nesting** deeper than :data:`MAX_NESTING` levels is an :class:`InputError` (no real
  tool argument comes close, and every walk after this point may then recurse safely);
- **an integer of more than** :data:`MAX_INT_DIGITS` **digits** is an InputError naming
  its line and column;
- **a lone surrogate** is read as U+FFFD (the replacement character), so the value can
  be shown and written everywhere; a surrogate pair is already one character by then;
- **YAML aliases** may add at most :data:`MAX_ALIAS_VALUES` values to a document; an alias
  inside its own anchor, and a mapping or sequence used as a key, are InputErrors naming
  the line;
- **a file read whole** may be at most :func:`max_file_bytes` long (files that can be
  streamed, such as JSON Lines exports, are read line by line instead, and each line, read
  whole, is held to the same cap: :func:`line_too_long`, ``files.numbered_lines``).

The checks that walk the data run only when the text could need them (enough brackets to
be deep, a ``\\ud`` escape), so ordinary input pays one ``str.count``. With orjson installed
(it is optional), JSON it provably reads as the standard reader does is read by it, at
half the cost: :func:`loads`, :func:`loads_bytes`.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from toolscore_core.kernel.errors import InputError

MAX_NESTING = 100  # levels of arrays/objects inside each other
MAX_INT_DIGITS = 4300  # Python's own limit for turning an int into text (sys.int_info)
MAX_ALIAS_VALUES = 100_000  # values YAML aliases may add to a document by repetition
DEFAULT_MAX_FILE_MB = 256
MAX_FILE_ENV = "TOOLSCORE_MAX_INPUT_MB"

_SURROGATE = re.compile("[\ud800-\udfff]")
_LONG_INT = re.compile(r"-?\d{" + str(MAX_INT_DIGITS + 1) + ",}")


def max_file_bytes() -> int:
    """The largest file read whole, in bytes (``TOOLSCORE_MAX_INPUT_MB`` overrides the default)."""
    raw = os.environ.get(MAX_FILE_ENV, "").strip()
    if raw:
        try:
            megabytes = float(raw)
        except ValueError:
            megabytes = -1.0
        if not megabytes > 0 or megabytes == float("inf"):
            raise InputError(f"{MAX_FILE_ENV}={raw!r} is not a positive number of megabytes",
                             hint=f"Unset it, or give e.g. {MAX_FILE_ENV}=1024")
        return int(megabytes * 1024 * 1024)
    return DEFAULT_MAX_FILE_MB * 1024 * 1024


def check_file_size(path: str | Path, size: int) -> None:
    """InputError when a file of ``size`` bytes is over the cap for files read whole."""
    cap = max_file_bytes()
    if size > cap:
        raise InputError(
            f"is {size / 1048576:,.1f} MB, over the {cap / 1048576:,.0f} MB Toolscore reads into memory at once",
            file=path,
            hint=f"Split the file, save it as JSON Lines (read a line at a time), or raise the cap with "
                 f"{MAX_FILE_ENV}=N (megabytes)",
        )


def line_too_long(path: str | Path, number: int) -> InputError:
    """The error for line ``number`` of a streamed file, longer than :func:`max_file_bytes`.

    Why the whole-file cap for one line: a line is read, decoded and parsed whole, so one line
    holds as much memory as a file read whole, and more than the file's own size: a 300 MB
    line took 1.2 GB to export and 1.5 GB to check. A streamed reader stops at the cap, having
    read no more than it."""
    cap = max_file_bytes()
    size = f"{cap / 1048576:,.2f}".rstrip("0").rstrip(".") + " MB" if cap >= 1048576 else f"{cap:,} bytes"
    return InputError(
        f"is over {size}, more than Toolscore reads into memory at once",
        file=path, location=f"line {number}",
        hint=f"A line is read whole: split the value, or raise the cap with {MAX_FILE_ENV}=N (megabytes)",
    )


def loads(text: str, *, file: str | Path | None = None, location: str | None = None, what: str = "is") -> Any:
    """``json.loads`` with the limits above; every refusal is an InputError.

    ``what`` starts the message (``"is"`` for a whole file, ``"tool-call arguments are"``
    for a string inside one), ``location`` says where the text sits when it is not the whole
    file. Syntax errors are left to the caller (``json.JSONDecodeError`` propagates), which
    knows how to word them. With orjson installed, a text it reads as the standard reader
    does is read by it (see :func:`loads_bytes`; a text holding a lone surrogate character
    cannot be UTF-8, so the standard reader reads it), up to :data:`_FAST_TEXT_CHARS`.
    """
    fast = _orjson if _orjson is not None else fast_json()
    # json.loads also takes bytes, in any UTF encoding: those go its way
    if fast and type(text) is str and len(text) <= _FAST_TEXT_CHARS:
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            pass
        else:
            if _orjson_agrees(data):
                try:
                    return fast.loads(data)
                except (fast.JSONDecodeError, RecursionError):
                    pass  # refused: the standard reader decides, and words any error
    return _standard_loads(text, file=file, location=location, what=what)


#: The longest text :func:`loads` gives orjson. Why a bound: orjson's peak memory is about
#: twice the text's size above the standard reader's (a 29 MB file: 230 MB against 168 MB),
#: and whole files are read here (a 1M-call trace); a line, an argument text or an ordinary
#: trace file is far shorter, and is where the time goes.
_FAST_TEXT_CHARS = 1024 * 1024


def _standard_loads(text: str, *, file: str | Path | None, location: str | None, what: str) -> Any:
    """:func:`loads` by the standard reader alone: the general path, which decides every error."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise InputError(f"{what} nested too deeply to read", file=file, location=location,
                         expected=f"at most {MAX_NESTING} levels of arrays and objects") from None
    except ValueError as exc:  # the only other ValueError json raises: an integer too long to read
        raise _long_int_error(text, what, file, location, exc) from None
    return settle(value, text, file=file, location=location, what=what)


def loads_bytes(raw: bytes, *, file: str | Path | None = None, location: str | None = None,
                what: str = "is") -> Any:
    """``loads(raw.decode("utf-8"), ...)``: the same value, or the same error, from UTF-8 bytes.

    Why: the standard reader costs twice what orjson does on a JSON Lines line (an OTLP
    trace: ~22 us against ~10), and lines are read by the million. orjson's value is taken
    only where it is provably the standard reader's: orjson is strict (it refuses NaN and
    infinities, a lone surrogate, bad UTF-8, a BOM, a control character in a string, so the
    general path decides those and words the error), reads floats correctly rounded, and
    keeps a repeated key where the first stood with the last value, as a dict does. What
    it reads differently, :func:`_orjson_agrees` keeps from it: an integer past 64 bits (a
    float to orjson), and data deep enough for the nesting limit (orjson reads 1,000
    levels, where the standard reader has to refuse). A value orjson accepts is then what
    :func:`settle` would return: shallow, and without a lone surrogate to replace. Without
    orjson (it is optional) this is :func:`loads`. ``UnicodeDecodeError`` propagates, as
    ``raw.decode`` raises it.
    """
    fast = _orjson if _orjson is not None else fast_json()
    if fast and _orjson_agrees(raw):
        try:
            return fast.loads(raw)
        except (fast.JSONDecodeError, RecursionError):
            pass  # refused: the general path decides, and words any error
    return _standard_loads(raw.decode("utf-8"), file=file, location=location, what=what)


#: orjson once looked for: ``None`` before the first look, ``False`` when it is not installed.
#: Optional (toolscore-export[fast] installs it), and imported on first use, not with this
#: module, which every command imports.
_orjson: Any = None


def fast_json() -> Any:
    """The ``orjson`` module, or ``False`` when it is not installed (looked for once)."""
    global _orjson
    if _orjson is None:
        try:
            import orjson
        except ImportError:  # the standard reader does it all
            _orjson = False
        else:
            _orjson = orjson
    return _orjson


#: Bytes that can stand just before a number's digits outside a string: where a value starts
#: (whitespace, ``:``, ``,``, ``[``), its sign, a float's point and exponent.
_BEFORE_NUMBER = b" \t\n\r:,[-+.eE"
#: What :func:`_number_classes` maps each byte to: a digit to ``0``, a byte of
#: :data:`_BEFORE_NUMBER` to ``u``, a closing bracket to ``b``, a quote to ``q``; every other
#: byte is dropped.
_CLASSES = bytes(0x30 if 0x30 <= b <= 0x39 else 0x75 if b in _BEFORE_NUMBER else 0x62 if b in b"]}"
                 else 0x71 if b == 0x22 else 0x20 for b in range(256))
_DROPPED = bytes(b for b in range(256) if _CLASSES[b] == 0x20)
_LONG_RUN = b"0" * 19  # the fewest digits of an integer past 64 bits (2**63 has 19)
_LONG_AFTER_START = b"u" + _LONG_RUN


def _number_classes(raw: bytes) -> bytes:
    """``raw`` with digits, :data:`_BEFORE_NUMBER` bytes, closing brackets and quotes as
    classes and every other byte dropped: what the tests below read, in one C pass.

    Why drop bytes: the search and the count after it then read half the line. Nothing is
    missed for it: a digit run of ``raw`` right after a ``u`` byte, or at the start, is still
    there in the classes, as long or longer (digits and ``u`` bytes are all kept). Dropping
    may only join runs, or bring a ``u`` before one: false alarms, which cost the slower
    reader. Why closing brackets: valid JSON has as many as opening ones, and ``[`` is
    already a ``u``.
    """
    return raw.translate(_CLASSES, _DROPPED)


def _long_int_in(classes: bytes) -> bool:
    """Whether :func:`_number_classes` show a run of 19 digits or more at the start, or
    after a byte that can start a number or be part of one (see :func:`may_hold_long_int`)."""
    return _LONG_AFTER_START in classes or classes.startswith(_LONG_RUN)


def _orjson_agrees(raw: bytes) -> bool:
    """True when orjson's value of JSON ``raw``, if it accepts it, is provably the standard
    reader's (:func:`_standard_loads`): no integer of 19 digits or more
    (:func:`may_hold_long_int`), and shallow by the tests of :func:`_may_be_deep` (which
    counts opening brackets; valid JSON has as many closing ones, counted here in the same
    classes). Text orjson refuses may get any answer: its value is never taken."""
    classes = _number_classes(raw)
    if _long_int_in(classes):
        return False
    return classes.count(b"b") <= MAX_NESTING or _shallow_bytes(raw)


def orjson_agrees(raw: bytes) -> bool:
    """:func:`_orjson_agrees`, for a reader that gives orjson the parts of a text whole in turn.

    Why public: orjson's value of any part of ``raw`` (a whole value of it, such as one span of
    a long OTLP line) is then the standard reader's too, and the whole text is as shallow as
    the kernel's limit asks; the export reads a collector's long lines that way."""
    return _orjson_agrees(raw)


def may_hold_long_int(raw: bytes) -> bool:
    """False when JSON ``raw``, if valid, provably has no integer of 19 digits or more.

    Why: orjson reads an integer past 64 bits as a float, so such a text must go to the
    standard reader; but trace files are full of 19-digit runs inside strings (an OTLP
    timestamp, ``"startTimeUnixNano":"1795000000030000000"``, a trace id of digits), and
    counting those sent every trace line there. In valid JSON a digit run outside a string
    starts the text or follows whitespace, ``:``, ``,``, ``[`` (a value starts), ``-`` (its
    sign) or ``.``, ``e``, ``E``, ``+`` (a float's parts); inside a string it may follow
    anything, and a quote before it always means inside (no number follows a closing
    quote). So only runs of 19 digits or more after one of those bytes, or at the start,
    count: one translation and one search. A false alarm (such a run after a space inside
    a string) costs only the slower reader; a float with such a run goes there too.
    """
    return _long_int_in(_number_classes(raw))


def settle(value: Any, text: str, *, file: str | Path | None = None, location: str | None = None,
           what: str = "is") -> Any:
    """``value`` (parsed from ``text``) checked for nesting and with lone surrogates replaced.

    For readers that parse by other means (``raw_decode`` in a hot loop): the cheap tests on
    ``text`` decide whether the value needs walking at all.
    """
    if not _may_be_deep(text) and not _may_have_surrogates(text):
        return value
    return walk(value, file=file, location=location, what=what)


#: Characters from which the bracket count is skipped until the text proves not shallow.
_LARGE_TEXT = 64 * 1024


def _may_be_deep(text: str) -> bool:
    """False when JSON ``text`` provably nests at most :data:`MAX_NESTING` levels: it has no
    more brackets than that, or :func:`_shallow_text` shows it.

    Why two orders: a small text (one tool call's arguments, read in a hot loop) is settled
    by the count alone; a large one (a whole file) nearly always has more brackets than the
    limit, so counting them first was two wasted scans of it. Either order gives the same
    answer: both tests are pure functions of ``text``.
    """
    if len(text) >= _LARGE_TEXT:
        return not _shallow_text(text) and text.count("[") + text.count("{") > MAX_NESTING
    return text.count("[") + text.count("{") > MAX_NESTING and not _shallow_text(text)


def _may_have_surrogates(text: str) -> bool:
    """Whether JSON ``text`` can hold a lone surrogate: only a ``\\ud...`` escape makes one.

    Why the backslash first: every such escape starts with one, looking for a single
    character is one fast C scan, and many files have no backslash at all, where looking
    for both spellings of the escape scanned the whole text twice.
    """
    return "\\" in text and ("\\ud" in text or "\\uD" in text)


_NOT_STRUCTURE = bytes(range(256)).translate(None, b'"[]{}')  # every byte but quotes and brackets
#: The pairs one pass of :func:`_shallow_text` removes, as a regex: the definition that
#: :func:`_without_innermost` computes faster (tests compare the two).
_INNERMOST = re.compile(rb"\[\]|\{\}")


def _shallow_text(text: str) -> bool:
    """True when valid JSON ``text`` is provably at most :data:`MAX_NESTING` levels deep.

    Why: a file of more than a hundred objects has more than a hundred brackets, so the
    bracket count alone sent every real trace through :func:`walk` (a Python loop over every
    value, the largest cost of reading a 10k-call file). Here C-level byte operations do
    it: escapes go (``\\\\`` first, then ``\\"``, so every quote left delimits a string), only
    quotes and brackets are kept, what sits between quotes (string contents) is dropped,
    and each pass removes the innermost ``[]`` / ``{}`` pairs: the data is shallow when
    nothing is left within MAX_NESTING passes. False (walk it) whenever in doubt: text that
    is not plain UTF-8 (a lone surrogate character) or brackets that do not reduce.
    """
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return _shallow_bytes(data)


#: Every byte but quotes, brackets, the backslash and what can follow a backslash in JSON (``"\\/bfnrtu``).
_NOT_ESCAPE = bytes(range(256)).translate(None, b'"[]{}\\/bfnrtu')
_QUOTED = re.compile(rb'"[^"]*"')


def _shallow_bytes(data: bytes) -> bool:
    """:func:`_shallow_text` of valid JSON already in UTF-8 (what it reads of the text).

    Escapes are removed from the bytes that can make them up (:data:`_NOT_ESCAPE` drops the
    rest first): every backslash of valid JSON starts an escape, or ends a ``\\\\`` one, and
    is followed at once by a byte kept there, so the escapes are the same pairs in the kept
    bytes, found by the same scans; a trace line holds thousands of them, and the two
    replacements over the whole line were half of this test. What is left then, quotes and
    brackets alike, is what the whole line gives."""
    if b"\\" in data:
        data = data.translate(None, _NOT_ESCAPE).replace(b"\\\\", b"").replace(b'\\"', b"")
    structure = data.translate(None, _NOT_STRUCTURE)
    # Strings with no bracket inside are adjacent quote pairs: removing them is one C pass,
    # where splitting at every quote made a list of every string. An adjacent pair is a
    # whole string or the end of one and the start of the next with no bracket between: the
    # quotes left still alternate, opening and closing, around the same brackets. Those
    # strings are then removed by a regex (a few hundred in a collector's line), where the
    # split made a bytes object of every string.
    brackets = structure.replace(b'""', b"")
    if b'"' in brackets:
        brackets = _QUOTED.sub(b"", brackets)
    for _ in range(MAX_NESTING):
        if not brackets:
            return True
        reduced = _without_innermost(brackets)
        if len(reduced) == len(brackets):
            return False
        brackets = reduced
    return not brackets


def _without_innermost(brackets: bytes) -> bytes:
    """``brackets`` (only ``[]{}`` bytes) with every ``[]`` and every ``{}`` removed: one level less.

    Why not ``_INNERMOST.sub(b"", brackets)``, which says the same: the regex
    costs ~700 instructions a pair (two-fifths of :func:`_shallow_text` on a 10k-call trace,
    23 M instructions), where ``bytes.replace`` is a C loop (3 M). The same answer:
    the regex removes every occurrence of both pairs, and two pairs never overlap; ``[]``
    pairs become a NUL first so that removing them cannot join a ``{`` and a ``}`` that
    were apart (which the regex would leave for the next pass), and a text of brackets
    holds no NUL of its own.
    """
    return brackets.replace(b"[]", b"\0").replace(b"{}", b"").replace(b"\0", b"")


def walk(value: Any, *, file: str | Path | None = None, location: str | None = None, what: str = "is") -> Any:
    """Check nesting and replace lone surrogates in parsed data (lists and dicts changed in place).

    Iterative, so the check itself cannot overflow the stack it protects. A cycle (only
    possible from YAML, where :func:`check_yaml` refuses it first) ends as "nested too deeply".
    """
    value = _clean_text(value)
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            raise InputError(f"{what} nested more than {MAX_NESTING} levels deep (arrays and objects inside "
                             "each other)", file=file, location=location,
                             expected=f"at most {MAX_NESTING} levels")
        if isinstance(node, list):
            for i, item in enumerate(node):
                if isinstance(item, str):
                    node[i] = _clean_text(item)
                elif isinstance(item, (list, dict)):
                    stack.append((item, depth + 1))
        elif isinstance(node, dict):
            if any(isinstance(k, str) and _SURROGATE.search(k) for k in node):
                items = [(_clean_text(k), v) for k, v in node.items()]
                node.clear()
                node.update(items)
            for key, item in node.items():
                if isinstance(item, str):
                    node[key] = _clean_text(item)
                elif isinstance(item, (list, dict)):
                    stack.append((item, depth + 1))
    return value


def deeper_than(value: Any, levels: int, text: str | None = None) -> bool:
    """Whether arrays and objects in ``value`` nest more than ``levels`` deep (``[]`` is one level).

    For a reader with a limit of its own (the export's run rows and records, which wrap values
    the kernel has limited). With ``text``, the JSON ``value`` was parsed from, the cheap tests
    of :func:`settle` run first, and nearly every text is proved shallow without a walk.
    The walk is iterative, so asking cannot overflow the stack the answer protects."""
    if text is not None and levels >= MAX_NESTING and not _may_be_deep(text):
        return False
    stack: list[tuple[Any, int]] = [(value, 1)] if isinstance(value, (list, dict)) else []
    while stack:
        node, depth = stack.pop()
        if depth > levels:
            return True
        items = node.values() if isinstance(node, dict) else node
        stack.extend((item, depth + 1) for item in items if isinstance(item, (list, dict)))
    return False


def clean_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (for strings that do not come
    from JSON, such as a Python caller's or an SDK object's)."""
    return _clean_text(text)


def _clean_text(value: Any) -> Any:
    if isinstance(value, str) and not value.isascii() and _SURROGATE.search(value):
        return _SURROGATE.sub("\ufffd", value)
    return value


def _long_int_error(text: str, what: str, file: str | Path | None, location: str | None,
                    exc: ValueError) -> InputError:
    found = _LONG_INT.search(text)
    if found is None:  # not the case we know: say what json said, still as bad input
        return InputError(f"{what} not readable JSON ({exc})", file=file, location=location)
    line = text.count("\n", 0, found.start()) + 1
    column = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
    digits = len(found.group().lstrip("-"))
    if location is None:
        where = f"line {line}, column {column}"
    elif line == 1:  # a text of one line (a JSON Lines line, its location already): its column says it all
        where = f"{location}, column {column}"
    else:
        where = f"{location}, line {line}, column {column}"
    return InputError(f"{what} not readable: an integer of {digits:,} digits is longer than Toolscore reads",
                      file=file, location=where,
                      expected=f"integers of at most {MAX_INT_DIGITS:,} digits (write a longer number as a string)")


# --- YAML ---------------------------------------------------------------------------------------------------


def check_yaml(node: Any, *, file: str | Path | None = None) -> None:
    """Refuse a composed YAML document (ruamel nodes) that cannot be read safely.

    Counts the values the document would have once every alias is expanded, without
    expanding anything (each node is counted once, then its total reused), so a billion
    laughs costs a few hundred steps to refuse. Also refuses an alias used inside its own
    anchor (data without end), a mapping or sequence as a key (JSON has only string keys,
    and Python cannot hash one), and nesting deeper than :data:`MAX_NESTING`.
    """
    if node is None:
        return
    totals: dict[int, int] = {}  # id(node) -> values it stands for, aliases expanded
    open_nodes: set[int] = set()
    distinct = 0
    stack: list[tuple[Any, int, bool]] = [(node, 1, False)]
    while stack:
        current, depth, done = stack.pop()
        key = id(current)
        if done:
            open_nodes.discard(key)
            totals[key] = 1 + sum(totals[id(child)] for child in _children(current))
            continue
        if key in totals:
            continue
        if key in open_nodes:
            raise InputError("has an alias inside its own anchor (the data would never end)", file=file,
                             location=_mark(current), hint="Replace the alias (*name) by the value it should stand for")
        if depth > MAX_NESTING:
            raise InputError(f"is nested more than {MAX_NESTING} levels deep", file=file, location=_mark(current),
                             expected=f"at most {MAX_NESTING} levels")
        distinct += 1
        open_nodes.add(key)
        stack.append((current, depth, True))
        if _kind(current) == "mapping":
            for key_node, _ in current.value:
                if _kind(key_node) != "scalar":
                    raise InputError(f"uses a {_kind(key_node)} as a mapping key", file=file, location=_mark(key_node),
                                     expected="plain keys (text or numbers), as JSON has")
        for child in _children(current):
            if id(child) in open_nodes:
                raise InputError("has an alias inside its own anchor (the data would never end)", file=file,
                                 location=_mark(child),
                                 hint="Replace the alias (*name) by the value it should stand for")
            if id(child) not in totals:
                stack.append((child, depth + 1, False))
    expanded = totals[id(node)]
    if expanded - distinct > MAX_ALIAS_VALUES:
        raise InputError(
            f"has aliases that expand it to {expanded:,} values from {distinct:,} written (a YAML alias bomb?)",
            file=file, expected=f"aliases adding at most {MAX_ALIAS_VALUES:,} values",
            hint="Write the repeated values out, or use fewer nested aliases")


def _kind(node: Any) -> str:
    from ruamel.yaml.nodes import MappingNode, SequenceNode

    if isinstance(node, MappingNode):
        return "mapping"
    if isinstance(node, SequenceNode):
        return "sequence"
    return "scalar"


def _children(node: Any) -> list[Any]:
    kind = _kind(node)
    if kind == "mapping":
        return [item for pair in node.value for item in pair]
    if kind == "sequence":
        return list(node.value)
    return []


def _mark(node: Any) -> str | None:
    mark = getattr(node, "start_mark", None)
    return None if mark is None else f"line {mark.line + 1}, column {mark.column + 1}"


__all__ = [
    "DEFAULT_MAX_FILE_MB",
    "MAX_ALIAS_VALUES",
    "MAX_FILE_ENV",
    "MAX_INT_DIGITS",
    "MAX_NESTING",
    "check_file_size",
    "check_yaml",
    "clean_text",
    "deeper_than",
    "fast_json",
    "line_too_long",
    "loads",
    "loads_bytes",
    "max_file_bytes",
    "may_hold_long_int",
    "orjson_agrees",
    "settle",
    "walk",
]
