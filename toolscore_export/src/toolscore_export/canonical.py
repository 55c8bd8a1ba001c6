"""The canonical JSON form every hash of a run record is taken over (``toolscore-cjson-1``).

Why our own rule, written down: an evaluation platform importing records must be able to
recompute every hash in its own language from the parsed line alone. A hash over Python's
``json.dumps`` would depend on things a parser throws away (``1`` versus ``1.0``, key
order, ``ensure_ascii``). The rule is therefore a function of the JSON *value* only, and it
is documented with test vectors in docs/guide/export.md:

- objects: keys sorted by Unicode code point, no whitespace anywhere (``,`` and ``:``);
- strings: UTF-8, not ASCII-escaped; only ``"``, ``\\`` and control characters below
  U+0020 are escaped (``\\b \\f \\n \\r \\t`` short forms, the rest as ``\\u00xx`` with
  lowercase hex); a lone surrogate is written as its ``\\udxxx`` escape;
- integers in decimal digits; a float with an integral value below 1e16 in magnitude is
  written as that integer (``1.0`` -> ``1``, ``-0.0`` -> ``0``); any other float as its
  shortest round-trip decimal, in fixed notation when its decimal exponent is from -4 to 15
  and otherwise as ``d.ddde+XX`` / ``de-XX`` (at least two exponent digits);
- ``true``, ``false``, ``null``; NaN and infinities are not JSON and are refused.

:func:`prepare` turns a value into one whose plain ``json.dumps`` is canonical (floats
normalised, non-finite numbers become ``null``, credentials redacted), so the exporter walks
each value once and both the written line and the hash use the same prepared value.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from typing import Any

CANONICAL_FORM = "toolscore-cjson-1"
_INTEGRAL_LIMIT = 1e16

_encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False, sort_keys=True, separators=(",", ":")).encode
_encode_unsorted = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode

try:  # the fast path (the ``toolscore-export[fast]`` extra); the bytes are the same without it
    import orjson as _orjson
except ImportError:  # pragma: no cover - exercised by a test in a process that blocks it
    _orjson = None  # type: ignore[assignment]


class StdlibFloat(float):
    """A float whose canonical form orjson writes differently: decimal exponents -5 to -9
    (orjson writes ``0.00001`` and ``1e-7`` where the rule writes ``1e-05`` and ``1e-07``).

    :func:`normal_number` returns these as this subclass, which orjson refuses to write, so a
    value holding one is written by the stdlib encoder (a float to it, and exact). Every
    other float, and every other JSON value, orjson writes byte for byte as the rule does;
    a test compares the two encoders over every float exponent and the awkward cases.
    """

    __slots__ = ()


_ORJSON_SHY_LOW, _ORJSON_SHY_HIGH = 1e-11, 1e-4
# What an orjson release could write differently (floats at the edges of each notation,
# escapes, key order beyond ASCII): checked once, at import, against the stdlib encoder;
# any difference turns the fast path off for the process, so the bytes never depend on it.
_PROBE: Any = {"f": [0.0001, 0.5, 0.1, 1 / 3, 123.456, 0.30000000000000004, 5e-324, 1e-10, 1.5e-11,
                     9999999999999998.0, 1e16, 1.5e300, 1.7976931348623157e308, -2.5, 2**63, -(2**63)],
               "s": "".join(chr(c) for c in range(0x80)) + "\u2028\u00e9\U0001f600\ufeff",
               "\u00e9": 1, "e": 2, "Z": 3, "\U0001f600": 4, "\uff5e": 5, "": [{}, [], None, True, False]}


def normal_number(value: float) -> int | float | None:
    """``value`` as canonical JSON writes it: an int when integral and below 1e16, None when not finite."""
    if not math.isfinite(value):
        return None
    if value.is_integer() and abs(value) < _INTEGRAL_LIMIT:
        return int(value)
    if _ORJSON_SHY_LOW < abs(value) < _ORJSON_SHY_HIGH:
        return StdlibFloat(value)
    return value


def prepare(value: Any, text: Callable[[str], str] | None = None) -> Any:
    """A copy of ``value`` holding only JSON types in canonical shape.

    Tuples become lists, keys are made strings, floats are normalised (:func:`normal_number`),
    and ``text`` (a redactor, say) is applied to every string, keys included. Anything that is
    not a JSON type is written as its ``str()``, so a stray object never breaks an export.
    """
    if text is None:
        return _prepare_plain(value)
    return _prepare_general(value, text)


_LEAVES = frozenset({str, int, bool, type(None)})


def _prepare_plain(value: Any) -> Any:
    """``prepare(value)`` without a redactor, by exact type: what most values are.

    Why: a record's calls are prepared once or twice each, and the general walk's chain of
    ``isinstance`` tests and one call per leaf was most of building an OTLP record. Safe:
    an exact ``str``, ``int``, ``bool`` or ``None`` is returned as is by the general walk
    too (no redactor), a key that is a ``str`` instance is kept and any other is ``str()``-ed
    as it does, an exact float or tuple is treated as it treats one, and every other type
    (subclasses, stray objects) goes to the general walk itself; a test compares the two on
    random values.
    """
    kind = type(value)
    if kind in _LEAVES:
        return value
    if kind is dict:
        leaves = _LEAVES
        return {(k if isinstance(k, str) else str(k)): (v if type(v) in leaves else _prepare_plain(v))
                for k, v in value.items()}
    if kind is list or kind is tuple:  # the general walk makes a list of either
        leaves = _LEAVES
        return [item if type(item) in leaves else _prepare_plain(item) for item in value]
    if kind is float:  # what the general walk does with one (a duration, a score)
        return normal_number(value)
    return _prepare_general(value, None)


def is_prepared(value: Any) -> bool:
    """True when ``prepare(value)`` would equal ``value`` with the same type at every place, so
    ``value`` can stand for its prepared copy.

    Why: a trace's calls come from a JSON parser, nearly always in prepared shape already,
    and copying them (:func:`prepare`) was the largest cost of a trace's record; a walk that
    only looks costs half as much. Conservative: only exact ``str``, ``int``, ``bool``,
    ``None``, a ``float`` :func:`normal_number` keeps, and ``dict`` (``str`` keys) and
    ``list`` of those pass; anything else (a tuple, a subclass, a NaN, ``1.0``, nesting past
    the recursion limit) says False and the caller copies as before. A test compares the
    answer with ``prepare`` on random values.
    """
    try:
        return _is_prepared(value)
    except RecursionError:  # the copy then meets the same depth and fails as it always did
        return False


_STR_ONLY = frozenset({str})


def _is_prepared(value: Any) -> bool:
    """:func:`is_prepared` by plain loops: on Python 3.11 a generator or a comprehension is a
    frame of its own, which costs more than the loop over a call's few values."""
    kind = type(value)
    if kind in _LEAVES:
        return True
    if kind is dict:
        if not _STR_ONLY.issuperset(map(type, value)):  # every key an exact str, tested in C
            return False
        items = value.values()
    elif kind is list:
        items = value
    else:
        return kind is float and normal_number(value) is value
    leaves = _LEAVES
    if leaves.issuperset(map(type, items)):  # only leaves (most arguments): tested in C, no loop
        return True
    for item in items:
        item_kind = type(item)
        if item_kind in leaves:
            continue
        if item_kind is float:  # a duration, a score: tested here, not by a call
            if normal_number(item) is not item:
                return False
        elif not _is_prepared(item):
            return False
    return True


def _prepare_general(value: Any, text: Callable[[str], str] | None) -> Any:
    """:func:`prepare` by ``isinstance``: any value, with or without a redactor."""
    if isinstance(value, str):
        return text(value) if text is not None else value
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return normal_number(value)
    if isinstance(value, dict):
        return {prepare(k if isinstance(k, str) else str(k), text): prepare(v, text) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [prepare(item, text) for item in value]
    return prepare(str(value), text)


def _parse_float(text: str) -> int | float | None:
    return normal_number(float(text))


def _parse_constant(text: str) -> None:
    return None  # NaN, Infinity, -Infinity: not JSON, so unknown


_decode_prepared = json.JSONDecoder(parse_float=_parse_float, parse_constant=_parse_constant).decode


def loads_prepared(text: str | bytes) -> Any:
    """Parse JSON straight into its prepared shape (floats normalised, NaN and infinities null).

    The same result as ``prepare(json.loads(text))`` without a second walk over the value:
    the parser's own hooks do the work, which is what keeps a large export fast. Text goes
    to one decoder built once (``json.loads`` with hooks builds a new one per call).
    """
    if isinstance(text, str):
        return _decode_prepared(text)
    return json.loads(text, parse_float=_parse_float, parse_constant=_parse_constant)


_INTEGRAL_ENDS = (b"0,", b"0}", b"0]")


def _may_need_normalising(body: bytes) -> bool:
    """Could a float in this line, which orjson wrote, be one :func:`normal_number` changes?

    In orjson's writing such a float appears in only three shapes: an integral one below
    1e16 ends in ``.0`` (orjson writes no other form for one: a test checks it), a small one
    is ``0.0000...`` or has a negative exponent (``e-`` after a digit: orjson writes ``1e-7``,
    never ``.e-``). Each shape is found from a one-character search (``.`` or ``-``, a memchr:
    a search for the shapes themselves costs several times more on a long line). A match
    inside a string only sends the line to the slow parse. Why the digit: every run record
    holds ``"toolscore-cjson-1"``, and text such as ``"re-run"`` is common in answers; an
    ``e-`` alone sent every record, and many rows, to the slow parse.
    """
    find = body.find
    dot = find(b".")
    while dot >= 0:
        if body[dot + 1:dot + 3] in _INTEGRAL_ENDS or body[dot - 1:dot + 5] == b"0.0000":
            return True
        dot = find(b".", dot + 1)
    dash = find(b"-")
    while dash >= 0:
        if body[dash - 1:dash] == b"e" and body[dash - 2:dash - 1].isdigit():
            return True
        dash = find(b"-", dash + 1)
    return False


def loads_line(raw: bytes, text: str) -> Any:
    """:func:`loads_prepared` of ``text``, one JSON Lines line decoded from ``raw``, by orjson when
    that gives the same value (:func:`read_line`)."""
    return read_line(raw, text)[0]


def read_line(raw: bytes, text: str) -> tuple[Any, bool]:
    """:func:`loads_prepared` of ``text``, one JSON Lines line decoded from ``raw``, by orjson when
    that gives the same value (:func:`orjson_line`), and whether orjson wrote it (so it nests at
    most :data:`ORJSON_WRITES_LEVELS` levels: orjson writes no deeper).

    Why: the stdlib parser with float hooks costs about three times orjson's parse, and a
    run row's parse is one of the largest costs of an export. Every line :func:`orjson_line`
    turns down is parsed by :func:`loads_prepared`, which also raises its errors.
    """
    value = orjson_line(raw)
    if value is NOT_ORJSON_LINE:
        return loads_prepared(text), False
    return value, True


#: What :func:`orjson_line` returns for a line it does not vouch for (``None`` is a line's value).
NOT_ORJSON_LINE: Any = object()


def orjson_line(raw: bytes) -> Any:
    """orjson's value of the JSON Lines line ``raw`` when the line is byte for byte what orjson
    writes for that value and holds no float :func:`normal_number` would change
    (:func:`_may_need_normalising`); else :data:`NOT_ORJSON_LINE`.

    What such a value is: the standard parser's value of the line (it holds no duplicate key, no
    escape orjson would not write, no integer orjson turned into a float), already in prepared
    shape (so its canonical bytes are orjson's, sorted), and at most :data:`ORJSON_WRITES_LEVELS`
    deep. A records file read back by ``export validate`` is such lines, as run rows are.
    """
    if _FAST:
        try:
            value = _orjson.loads(raw)  # a newline ending the line is whitespace to a parser: no copy without it
        except ValueError:  # orjson.JSONDecodeError
            return NOT_ORJSON_LINE
        try:
            written = _orjson.dumps(value)
        except TypeError:  # orjson writes 254 levels where it reads 1,024: the general path decides
            return NOT_ORJSON_LINE
        if (len(written) == len(raw) - (raw[-1:] == b"\n") and raw.startswith(written)
                and not _may_need_normalising(raw)):  # the newline makes no shape it looks for
            return value
    return NOT_ORJSON_LINE


#: The deepest nesting orjson writes (it refuses 255 levels of arrays and objects; a test checks it).
ORJSON_WRITES_LEVELS = 254


def canonical_bytes(value: Any) -> bytes:
    """The canonical JSON of a prepared value, as UTF-8 bytes.

    ``value`` should come from :func:`prepare` (or be plain JSON from a parser): floats that
    are integral are written here as Python writes them (``1.0``), which the rule forbids.
    A lone surrogate becomes its ``\\udxxx`` escape (``backslashreplace`` writes exactly that).
    """
    return _encode(value).encode("utf-8", "backslashreplace")


def line_bytes(value: Any) -> bytes:
    """One JSON Lines line of a prepared value: the canonical rules, keys in their given order.

    Lines keep a readable key order (what a record is comes before its calls); numbers and
    strings are written exactly as the canonical form writes them, so a verifier parsing the
    line rebuilds the same canonical bytes.
    """
    return _encode_unsorted(value).encode("utf-8", "backslashreplace")


def line_text(value: Any) -> str:
    """:func:`line_bytes` as text, for a stream opened with ``errors="backslashreplace"``
    (which writes a lone surrogate as its ``\\udxxx`` escape, as the canonical form does)."""
    return _encode_unsorted(value)


def _orjson_agrees() -> bool:
    if _orjson is None:
        return False
    try:
        return all(_orjson.dumps(_PROBE, option=option) == encode(_PROBE).encode("utf-8")
                   for option, encode in ((_orjson.OPT_SORT_KEYS, _encode), (0, _encode_unsorted)))
    except (TypeError, ValueError):
        return False


_FAST = _orjson_agrees()
_SORTED = _orjson.OPT_SORT_KEYS if _orjson is not None else 0
_NEWLINE = _orjson.OPT_APPEND_NEWLINE if _orjson is not None else 0


def prepared_bytes(value: Any, *, sort_keys: bool = True, newline: bool = False) -> bytes:
    """:func:`canonical_bytes` (or, unsorted, :func:`line_bytes`) of a *prepared* value, fast;
    with ``newline``, a newline after it (orjson writes it in place: no copy of a long line).

    Only for values from :func:`prepare` or :func:`loads_prepared` (no NaN, no integral
    floats, the floats orjson would write differently marked :class:`StdlibFloat`), which
    is every value an export builds: orjson writes NaN as ``null`` where the strict encoder
    refuses it. What orjson refuses (a :class:`StdlibFloat`, a lone surrogate, an integer
    beyond 64 bits, nesting past 254) the stdlib encoder writes.
    """
    if _FAST:
        try:
            out: bytes = _orjson.dumps(value, option=(_SORTED if sort_keys else 0) | (_NEWLINE if newline else 0))
        except TypeError:  # orjson.JSONEncodeError is a TypeError
            pass
        else:
            return out
    encode = _encode if sort_keys else _encode_unsorted
    written = encode(value).encode("utf-8", "backslashreplace")
    return written + b"\n" if newline else written


_sha256 = hashlib.sha256


def sha256_fast(value: Any) -> str:
    """SHA-256 of the canonical JSON of a prepared value, by :func:`prepared_bytes` (inlined: an
    export takes eight of these per record)."""
    if _FAST:
        try:
            return _sha256(_orjson.dumps(value, option=_SORTED)).hexdigest()
        except TypeError:  # orjson.JSONEncodeError is a TypeError
            pass
    return _sha256(_encode(value).encode("utf-8", "backslashreplace")).hexdigest()


def sha256_hex(value: Any) -> str:
    """SHA-256 (lowercase hex) of the canonical JSON of ``value`` (prepared first).

    A value already in prepared shape (:func:`is_prepared`: nearly every value read back from a
    record) is hashed by :func:`sha256_fast` with no copy: the same bytes, since ``prepare``
    would return an equal value of the same types, at a fifth of the cost of the copy and the
    standard library's encoder (``export validate`` takes several of these a record)."""
    if is_prepared(value):
        return sha256_fast(value)
    return hashlib.sha256(canonical_bytes(prepare(value))).hexdigest()


def sha256_prepared(value: Any) -> str:
    """SHA-256 of the canonical JSON of a value already passed through :func:`prepare`."""
    return hashlib.sha256(canonical_bytes(value)).hexdigest()


def file_sha256(path: Any, chunk: int = 1 << 20) -> str:
    """SHA-256 of a file's bytes as they are on disk, read in chunks (constant memory)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while True:
            block = handle.read(chunk)
            if not block:
                break
            digest.update(block)
    return digest.hexdigest()


__all__ = [
    "CANONICAL_FORM",
    "NOT_ORJSON_LINE",
    "StdlibFloat",
    "canonical_bytes",
    "file_sha256",
    "line_bytes",
    "line_text",
    "loads_line",
    "loads_prepared",
    "normal_number",
    "orjson_line",
    "prepare",
    "prepared_bytes",
    "read_line",
    "sha256_fast",
    "sha256_hex",
    "sha256_prepared",
]
