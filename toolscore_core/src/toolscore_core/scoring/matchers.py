"""Matchers: loosen exactly the expected arguments you choose; everything else is exact.

Exact comparison here is stricter than Python's ``==`` on purpose: ``True`` is not ``1``
and ``1`` is not ``"1"`` (an agent that sends ``{"limit": true}`` did not send a limit of
one). Integers and floats of equal value are equal (JSON does not tell them apart).

Every matcher has a JSON/YAML form, so gold and forbidden files can use them too. A form
is an object whose one ``$`` key names the matcher:

========================  =============================================================
``{"$any": true}``         ``ANY``: any value (the argument must be present)
``{"$regex": "FL-\\d+"}``  ``Regex``: the whole string matches (``re.fullmatch``);
                           ``Regex(p, re.I)`` takes flags (inline ``(?i)`` in JSON)
``{"$approx": 40.7, "rel": 0.01, "abs": 0.1}``  ``Approx``: a number within tolerance
                           (``rel`` and ``abs`` optional, defaults 1e-6 and 1e-12)
``{"$contains": x}``       ``Contains``: substring / list or set element / dict key or
                           sub-dict
``{"$one_of": [a, b]}``    ``OneOf``: matches any of the candidates
``{"$type": "int"}``       ``IsType``: type name or list of names (``int``, ``float``,
                           ``number``, ``str``, ``bool``, ``list``, ``dict``, ``null``)
``{"$literal": {...}}``    the object inside, taken literally (for data whose keys
                           start with ``$``)
========================  =============================================================

Forms nest: ``{"$one_of": [{"$regex": "a.*"}, 3]}``, and matchers may sit anywhere inside
dicts and lists of expected values. A matcher is ``==`` to every value it matches (as
``unittest.mock.ANY``), so ``assert call.args == {"q": ANY}`` works in plain tests.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.files import json_path


class Matcher:
    """Base class: a predicate over one actual value, with a readable repr and a JSON form."""

    json_key: ClassVar[str]

    def matches(self, actual: Any) -> bool:
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError

    def _identity(self) -> tuple[Any, ...]:
        return (repr(self),)

    def __eq__(self, other: object) -> bool:
        """Equal to every value it matches, so ``{"q": ANY} == {"q": "x"}`` holds in a plain
        assert (as with ``unittest.mock.ANY``); two matchers are equal when they are the
        same matcher (same kind and options), so gold files can still be compared."""
        if isinstance(other, Matcher):
            return type(other) is type(self) and self._identity() == other._identity()
        return self.matches(other)

    def __hash__(self) -> int:
        # by the matcher's own options: consistent with matcher-to-matcher equality (a
        # matcher equal to many values cannot hash like each of them, as mock.ANY does not)
        return hash((type(self).__name__, self._identity()))


class _Any(Matcher):
    json_key = "$any"

    def matches(self, actual: Any) -> bool:
        return True

    def to_json(self) -> dict[str, Any]:
        return {"$any": True}

    def __repr__(self) -> str:
        return "ANY"


ANY = _Any()


REGEX_SECONDS = 1.0  # time one match of a user's regex may take before it is called too slow


class Regex(Matcher):
    """The actual value is a string the pattern matches in full (``re.fullmatch``).

    Patterns come from gold and policy files, and a pattern such as ``(\\w+\\s?)*;`` takes
    exponential time on a long argument (catastrophic backtracking): Python's ``re`` would
    hang ``eval`` for hours. So patterns run on the ``regex`` engine (same syntax) with a
    time budget of :data:`REGEX_SECONDS` per match; a match past it is an
    :class:`InputError` naming the pattern and, when it came from a file, the file and the
    place in it (``origin``, set by :func:`parse_matchers`).
    """

    json_key = "$regex"

    def __init__(self, pattern: str, flags: int = 0) -> None:
        import regex

        if not isinstance(pattern, str):
            raise InputError(f"a regex must be a string, not {type(pattern).__name__}")
        if isinstance(flags, bool) or not isinstance(flags, int) or flags & ~_INLINE_MASK:
            raise InputError(f"Regex flags must be re flags such as re.IGNORECASE, not {flags!r}",
                             expected="a combination of re.I, re.M, re.S, re.X, re.A, re.U")
        engine_flags = 0
        for flag, letter in _INLINE_FLAGS:  # re's bits, as the regex engine spells them
            if flags & flag:
                engine_flags |= getattr(regex, _FLAG_NAMES[letter])
        try:
            self._compiled = regex.compile(pattern, engine_flags)
        except (regex.error, re.error) as exc:
            raise InputError(f"invalid regex {pattern!r} ({exc})", hint="Fix the pattern's syntax") from None
        self.pattern = pattern
        self.flags = int(flags)
        self.origin: tuple[str | None, str | None] = (None, None)  # (file, place in it)

    def matches(self, actual: Any) -> bool:
        return isinstance(actual, str) and self._run(self._compiled.fullmatch, actual)

    def search(self, actual: Any) -> bool:
        """The pattern occurs anywhere in ``actual`` (how forbidden rules use it)."""
        return isinstance(actual, str) and self._run(self._compiled.search, actual)

    def _run(self, method: Callable[..., Any], actual: str) -> bool:
        try:
            return method(actual, timeout=REGEX_SECONDS) is not None
        except TimeoutError:
            file, location = self.origin
            shown = self.pattern if len(self.pattern) <= 80 else self.pattern[:80] + "…"
            raise InputError(
                f"regex {shown!r} took more than {REGEX_SECONDS:g} s on a value of {len(actual):,} characters "
                "(catastrophic backtracking)",
                file=file, location=location,
                hint="Rewrite it without a repetition inside a repetition, such as (\\w+\\s?)* or (a+)+",
            ) from None

    def to_json(self) -> dict[str, Any]:
        # flags travel as an inline group, so the JSON form stays one key and round-trips
        letters = "".join(letter for flag, letter in _INLINE_FLAGS if self.flags & flag)
        return {"$regex": f"(?{letters}){self.pattern}" if letters else self.pattern}

    def _identity(self) -> tuple[Any, ...]:
        return (self.pattern, self.flags)

    def __repr__(self) -> str:
        return f"Regex({self.pattern!r}, flags={self.flags})" if self.flags else f"Regex({self.pattern!r})"


# re flags with an inline letter (the regex engine uses other bits for some, e.g. ASCII)
_FLAG_NAMES = {"a": "ASCII", "i": "IGNORECASE", "m": "MULTILINE", "s": "DOTALL", "u": "UNICODE", "x": "VERBOSE"}
_INLINE_FLAGS: tuple[tuple[int, str], ...] = (
    (re.ASCII, "a"), (re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"),
    (re.UNICODE, "u"), (re.VERBOSE, "x"),
)
_INLINE_MASK = sum(flag for flag, _ in _INLINE_FLAGS)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class Approx(Matcher):
    """A number (not a bool) within ``rel`` (relative) or ``abs`` (absolute) of ``value``.

    As ``pytest.approx``: the tolerance is ``max(rel * |value|, abs)``, relative to the
    expected value only, so ``Approx(100, rel=0.1)`` accepts 90 to 110 whatever the actual
    value is (``math.isclose`` would measure against the larger of the two and accept 111).
    """

    json_key = "$approx"

    def __init__(self, value: float, rel: float | None = None, abs: float | None = None) -> None:
        for name, item in (("value", value), ("rel", rel), ("abs", abs)):
            if item is not None and (not _is_number(item) or (name != "value" and item < 0)):
                raise InputError(f"Approx {name} must be a {'non-negative ' if name != 'value' else ''}number, not {item!r}")
        self.value = value
        self.rel = rel
        self.abs = abs

    def matches(self, actual: Any) -> bool:
        if not _is_number(actual):
            return False
        rel = 1e-6 if self.rel is None else self.rel
        tol = 1e-12 if self.abs is None else self.abs
        want, got = float(self.value), float(actual)
        if want == got:
            return True  # also equal infinities, where the difference below is NaN
        return math.fabs(got - want) <= max(rel * math.fabs(want), tol)

    def to_json(self) -> dict[str, Any]:
        form: dict[str, Any] = {"$approx": self.value}
        if self.rel is not None:
            form["rel"] = self.rel
        if self.abs is not None:
            form["abs"] = self.abs
        return form

    def __repr__(self) -> str:
        opts = "".join(f", {k}={v!r}" for k, v in (("rel", self.rel), ("abs", self.abs)) if v is not None)
        return f"Approx({self.value!r}{opts})"


class Contains(Matcher):
    """Membership: a substring of a string, an element of a list, tuple or set (matchers
    allowed), a key of a dict, or, when ``item`` is a dict, a sub-dict of a dict (every key present and
    matching)."""

    json_key = "$contains"

    def __init__(self, item: Any) -> None:
        self.item = item

    def matches(self, actual: Any) -> bool:
        item = self.item
        if isinstance(actual, str):
            return isinstance(item, str) and item in actual
        if isinstance(actual, (list, tuple, set, frozenset)):
            return any(matches(item, element) for element in actual)
        if isinstance(actual, dict):
            if isinstance(item, dict):
                return all(key in actual and matches(value, actual[key]) for key, value in item.items())
            return isinstance(item, str) and item in actual
        return False

    def to_json(self) -> dict[str, Any]:
        return {"$contains": to_json_form(self.item)}

    def __repr__(self) -> str:
        return f"Contains({self.item!r})"


class OneOf(Matcher):
    """Any of the candidates (each may itself be a matcher)."""

    json_key = "$one_of"

    def __init__(self, *values: Any) -> None:
        if not values:
            raise InputError("OneOf needs at least one candidate")
        self.values = tuple(values)

    def matches(self, actual: Any) -> bool:
        return any(matches(value, actual) for value in self.values)

    def to_json(self) -> dict[str, Any]:
        return {"$one_of": [to_json_form(v) for v in self.values]}

    def __repr__(self) -> str:
        return f"OneOf({', '.join(repr(v) for v in self.values)})"


_TYPE_NAMES: dict[str, tuple[type, ...]] = {
    "int": (int,),
    "integer": (int,),
    "float": (float,),
    "number": (int, float),
    "str": (str,),
    "string": (str,),
    "bool": (bool,),
    "boolean": (bool,),
    "list": (list, tuple),
    "array": (list, tuple),
    "dict": (dict,),
    "object": (dict,),
    "null": (type(None),),
    "none": (type(None),),
}
_CANONICAL_NAMES: dict[type, str] = {int: "int", float: "float", str: "str", bool: "bool", list: "list",
                                     tuple: "list", dict: "dict", type(None): "null"}


class IsType(Matcher):
    """An isinstance check that keeps bools apart: ``IsType(int)`` rejects ``True``."""

    json_key = "$type"

    def __init__(self, *types: type | str) -> None:
        if not types:
            raise InputError("IsType needs at least one type")
        resolved: list[type] = []
        for item in types:
            if isinstance(item, str):
                if item.lower() not in _TYPE_NAMES:
                    raise InputError(f"unknown type name {item!r}", expected=f"one of {', '.join(sorted(_TYPE_NAMES))}")
                resolved.extend(_TYPE_NAMES[item.lower()])
            elif isinstance(item, type):
                resolved.append(item)
            else:
                raise InputError(f"IsType takes types or type names, not {item!r}")
        self.types = tuple(dict.fromkeys(resolved))

    def matches(self, actual: Any) -> bool:
        if isinstance(actual, bool) and bool not in self.types:
            return False
        return isinstance(actual, self.types)

    def to_json(self) -> dict[str, Any]:
        names = list(dict.fromkeys(_CANONICAL_NAMES.get(t, t.__name__) for t in self.types))
        return {"$type": names[0] if len(names) == 1 else names}

    def _identity(self) -> tuple[Any, ...]:
        return self.types

    def __repr__(self) -> str:
        return f"IsType({', '.join(t.__name__ for t in self.types)})"


_SCALARS = frozenset({str, int, float, bool})
_PLAIN_TYPES = _SCALARS | {type(None)}  # the values in which no matcher can sit


def matches(expected: Any, actual: Any) -> bool:
    """Whether ``actual`` satisfies ``expected`` (a plain value or a matcher, nested).

    Plain values compare exactly, with bool, number, string and null kept apart; dicts
    need the same keys; lists the same length and order.
    """
    kind = type(expected)
    if kind is type(actual) and kind in _SCALARS:
        return bool(expected == actual)  # fast path: same plain scalar type
    if isinstance(expected, Matcher):
        return expected.matches(actual)
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected is actual
    if _is_number(expected):
        return _is_number(actual) and expected == actual
    if isinstance(expected, str):
        return isinstance(actual, str) and expected == actual
    if expected is None:
        return actual is None
    if isinstance(expected, Mapping):
        return (
            isinstance(actual, Mapping)
            and len(expected) == len(actual)
            and all(key in actual and matches(value, actual[key]) for key, value in expected.items())
        )
    if isinstance(expected, (list, tuple)):
        return (
            isinstance(actual, (list, tuple))
            and len(expected) == len(actual)
            and all(matches(e, a) for e, a in zip(expected, actual, strict=False))
        )
    return bool(expected == actual)


def has_matcher(value: Any) -> bool:
    """True when a matcher sits anywhere inside ``value``."""
    kind = type(value)
    if kind in _SCALARS or value is None:
        return False
    if kind is dict:  # fast path for the usual flat argument dict
        if _PLAIN_TYPES.issuperset(map(type, value.values())):  # every value a plain scalar: one C-level pass
            return False
        return any(type(v) not in _SCALARS and v is not None and has_matcher(v) for v in value.values())
    if isinstance(value, Matcher):
        return True
    if isinstance(value, Mapping):
        return any(has_matcher(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(has_matcher(v) for v in value)
    return False


# The tag canonical gives a value of exactly each of these types (a bool is not "n").
_SCALAR_TAGS: dict[type, str] = {str: "s", int: "n", float: "n", bool: "b"}


def canonical(value: Any) -> Any:
    """A hashable form of a plain value that keeps bool, number, string and null apart.

    Two plain values are equal under :func:`matches` exactly when their canonical forms
    are equal, so calls can be paired by hashing.
    """
    kind = type(value)
    if kind is str:
        return ("s", value)
    if kind is int or kind is float:
        return ("n", value)
    if kind is dict:
        # Fast path: a value of exactly str, int, float or bool gets its tagged pair here,
        # without a call of canonical; _SCALAR_TAGS holds exactly the tags the branches
        # above and below give those four types, so the frozenset is the same.
        tags = _SCALAR_TAGS
        return ("d", frozenset([(k, (tag, v)) if (tag := tags.get(type(v))) is not None else (k, canonical(v))
                                for k, v in value.items()]))
    if isinstance(value, bool):
        return ("b", value)
    if _is_number(value):
        return ("n", value)
    if isinstance(value, str):
        return ("s", value)
    if value is None:
        return ("z",)
    if isinstance(value, Mapping):
        return ("d", frozenset((k, canonical(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return ("l", tuple(canonical(v) for v in value))
    try:
        hash(value)
    except TypeError:
        return ("r", repr(value))
    return ("o", value)


def to_json_form(value: Any) -> Any:
    """Matchers (nested anywhere) replaced by their JSON forms; plain data unchanged."""
    if isinstance(value, Matcher):
        return value.to_json()
    if isinstance(value, Mapping):
        form = {k: to_json_form(v) for k, v in value.items()}
        if any(isinstance(k, str) and k.startswith("$") for k in value):
            return {"$literal": form}
        return form
    if isinstance(value, (list, tuple)):
        return [to_json_form(v) for v in value]
    return value


# $key -> (builder from the form, the option keys it allows)
def _build_approx(form: dict[str, Any]) -> Matcher:
    return Approx(form["$approx"], rel=form.get("rel"), abs=form.get("abs"))


def _build_type(form: dict[str, Any]) -> Matcher:
    names = form["$type"]
    if isinstance(names, str):
        return IsType(names)
    if isinstance(names, list) and names and all(isinstance(n, str) for n in names):
        return IsType(*names)
    raise InputError(f"$type must be a type name or a list of names, not {names!r}")


def _build_any(form: dict[str, Any]) -> Matcher:
    if form["$any"] is not True:
        raise InputError(f"$any must be true, not {form['$any']!r}")
    return ANY


def _build_one_of(form: dict[str, Any]) -> Matcher:
    values = form["$one_of"]
    if not isinstance(values, list) or not values:
        raise InputError("$one_of must be a non-empty list of candidates")
    return OneOf(*values)


_FORMS: dict[str, tuple[Callable[[dict[str, Any]], Matcher], frozenset[str]]] = {
    "$any": (_build_any, frozenset()),
    "$regex": (lambda f: Regex(f["$regex"]), frozenset()),
    "$approx": (_build_approx, frozenset({"rel", "abs"})),
    "$contains": (lambda f: Contains(f["$contains"]), frozenset()),
    "$one_of": (_build_one_of, frozenset()),
    "$type": (_build_type, frozenset()),
}
FORM_KEYS: tuple[str, ...] = (*_FORMS, "$literal")


def has_dollar_key(data: Any) -> bool:
    """True when a ``$`` key (a matcher form or ``$literal``) sits anywhere in ``data``'s dicts and lists."""
    kind = type(data)
    if kind is dict:
        for key, value in data.items():
            if (type(key) is str and key[:1] == "$") or (type(value) in (dict, list) and has_dollar_key(value)):
                return True
        return False
    if kind is list:
        return any(type(v) in (dict, list) and has_dollar_key(v) for v in data)
    return False


def parse_matchers(
    data: Any,
    *,
    file: str | Path | None = None,
    path: Sequence[str | int] = (),
) -> Any:
    """Turn JSON/YAML matcher forms inside ``data`` into matcher objects.

    A form that cannot be built (a bad regex, an unknown ``$key``, a wrong option) is an
    :class:`InputError` naming ``file`` and the JSON path of the form inside it.
    """
    if not has_dollar_key(data):
        return data  # nothing to parse (the common case): skip building paths
    where = list(path)
    if isinstance(data, Matcher):
        return data
    if isinstance(data, list):
        return [parse_matchers(item, file=file, path=[*where, i]) for i, item in enumerate(data)]
    if not isinstance(data, dict):
        return data
    dollar = [k for k in data if isinstance(k, str) and k.startswith("$")]
    if not dollar:
        return {k: parse_matchers(v, file=file, path=[*where, k]) for k, v in data.items()}
    if dollar == ["$literal"] and len(data) == 1:
        inner = data["$literal"]
        if not isinstance(inner, dict):
            raise InputError("$literal must wrap an object", file=file, location=json_path(where))
        return {k: parse_matchers(v, file=file, path=[*where, "$literal", k]) for k, v in inner.items()}
    known = [k for k in dollar if k in _FORMS]
    if len(known) != 1 or len(dollar) != 1:
        unknown = next((k for k in dollar if k not in _FORMS), None)
        if unknown is not None:
            close = difflib.get_close_matches(unknown, FORM_KEYS, n=1, cutoff=0.5)
            raise InputError(
                f"unknown matcher {unknown!r}",
                file=file,
                location=json_path(where),
                expected=f"one of {', '.join(FORM_KEYS)}",
                hint=f"Did you mean {close[0]!r}?" if close else "Wrap literal data in {\"$literal\": ...}",
            )
        raise InputError(f"one matcher per object, found {', '.join(dollar)}", file=file, location=json_path(where))
    key = known[0]
    builder, options = _FORMS[key]
    extra = sorted(set(data) - {key} - options)
    if extra:
        allowed = f"options {', '.join(sorted(options))}" if options else "no other keys"
        raise InputError(
            f"{key} does not take {', '.join(map(repr, extra))}",
            file=file,
            location=json_path([*where, extra[0]]),
            expected=allowed,
        )
    form = dict(data)
    if key in ("$contains",):
        form[key] = parse_matchers(data[key], file=file, path=[*where, key])
    elif key == "$one_of" and isinstance(data[key], list):
        form[key] = [parse_matchers(v, file=file, path=[*where, key, i]) for i, v in enumerate(data[key])]
    try:
        built = builder(form)
    except InputError as exc:
        raise InputError(exc.message, file=file, location=json_path(where),
                         expected=exc.expected, hint=exc.hint) from None
    if isinstance(built, Regex):
        built.origin = (None if file is None else str(file), json_path(where))
    return built


__all__ = [
    "ANY",
    "FORM_KEYS",
    "Approx",
    "Contains",
    "IsType",
    "Matcher",
    "OneOf",
    "Regex",
    "canonical",
    "has_matcher",
    "matches",
    "parse_matchers",
    "to_json_form",
]
