"""The objects every command passes around: calls, traces, expectations, findings, results.

attrs classes (frozen, slotted) converted to and from JSON by one cattrs converter
(:data:`converter`). Unknown is ``None``, never a made-up value: a call that never got an
answer has ``is_error=None``, not ``False``; an argument an exporter did not record has
``args=None``, not ``{}``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

import attrs

if TYPE_CHECKING:
    import cattrs

    converter: cattrs.Converter  # made on first use: see __getattr__

SCHEMA_VERSION = "1"

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[str, ...] = ("error", "warning", "info")


def _as_tuple(value: Iterable[Any]) -> tuple[Any, ...]:
    """attrs converter: accept any iterable (lists from JSON, generators) and store a tuple.

    Typed loosely on purpose: with ``converter=tuple`` mypy infers the constructor argument
    as ``Iterable[_T_co]`` and rejects every call site."""
    return tuple(value)


class LazyTuple(Sequence[Any]):
    """A tuple built on first use: it reads, compares, prints, hashes and pickles as that tuple.

    Why: an evaluation's explained rows (``Evaluation.pairs``) cost a tenth of scoring a
    10k-call trace, and a caller that reads the score and the findings never looks at them;
    they are built when something first reads them. ``len()`` is known without building.
    A subclass of ``tuple`` is avoided on purpose: C code reads a tuple subclass's own
    (empty) storage directly (``str.join``, ``json.dumps``), and would see nothing.
    """

    __slots__ = ("_build", "_items", "_length")

    def __init__(self, build: Callable[[], tuple[Any, ...]], length: int) -> None:
        self._build: Callable[[], tuple[Any, ...]] | None = build
        self._items: tuple[Any, ...] | None = None
        self._length = length

    def items(self) -> tuple[Any, ...]:
        """The tuple itself, built now if it was not yet."""
        items = self._items
        if items is None:
            assert self._build is not None
            items = self._items = self._build()
            self._build = None  # let go of what the build needed
            if len(items) != self._length:
                raise AssertionError(f"lazy tuple built {len(items)} items, announced {self._length}")
        return items

    @property
    def built(self) -> bool:
        return self._items is not None

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, key: Any) -> Any:
        return self.items()[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.items())

    def __reversed__(self) -> Iterator[Any]:
        return reversed(self.items())

    def __contains__(self, value: object) -> bool:
        return value in self.items()

    def index(self, value: Any, start: int = 0, stop: int = sys.maxsize) -> int:
        return self.items().index(value, start, stop)

    def count(self, value: Any) -> int:
        return self.items().count(value)

    def __bool__(self) -> bool:
        return self._length > 0

    def __eq__(self, other: object) -> bool:
        plain = _plain_tuple(other)
        return NotImplemented if plain is None else self.items() == plain

    def __ne__(self, other: object) -> bool:
        plain = _plain_tuple(other)
        return NotImplemented if plain is None else self.items() != plain

    def __lt__(self, other: object) -> bool:
        plain = _plain_tuple(other)
        return NotImplemented if plain is None else self.items() < plain

    def __le__(self, other: object) -> bool:
        plain = _plain_tuple(other)
        return NotImplemented if plain is None else self.items() <= plain

    def __gt__(self, other: object) -> bool:
        plain = _plain_tuple(other)
        return NotImplemented if plain is None else self.items() > plain

    def __ge__(self, other: object) -> bool:
        plain = _plain_tuple(other)
        return NotImplemented if plain is None else self.items() >= plain

    def __hash__(self) -> int:
        return hash(self.items())

    def __add__(self, other: Any) -> tuple[Any, ...]:
        plain = _plain_tuple(other)
        return NotImplemented if plain is None else self.items() + plain

    def __radd__(self, other: Any) -> tuple[Any, ...]:
        plain = _plain_tuple(other)
        return NotImplemented if plain is None else plain + self.items()

    def __mul__(self, times: Any) -> tuple[Any, ...]:
        return self.items() * times

    __rmul__ = __mul__

    def __repr__(self) -> str:
        return repr(self.items())

    def __reduce__(self) -> tuple[Any, ...]:
        return (tuple, (self.items(),))  # a copy or a pickle is the plain tuple


def materialised(field: str) -> Callable[[Any, str], Any]:
    """A ``__getattribute__`` for an attrs class whose ``field`` may hold a :class:`LazyTuple`:
    the first read of the field from outside builds the tuple and stores it in its place.

    Why: whoever reads ``evaluation.pairs`` gets a plain tuple (``isinstance(..., tuple)``,
    ``attrs.asdict``, ``json``, C code all see what they always saw), while the scoring, which
    never reads it, does not pay for building it. Code that must not build it reads the
    stored value with :func:`unread`."""

    def __getattribute__(self: Any, name: str) -> Any:
        value = object.__getattribute__(self, name)
        if name == field and type(value) is not tuple and isinstance(value, LazyTuple):
            value = value.items()
            object.__setattr__(self, name, value)  # frozen classes: the one place that replaces it
        return value

    return __getattribute__


def unread(obj: Any, field: str) -> Any:
    """``obj.field`` as stored, a :class:`LazyTuple` left unbuilt (see :func:`materialised`)."""
    return object.__getattribute__(obj, field)


def _plain_tuple(value: object) -> tuple[Any, ...] | None:
    if isinstance(value, tuple):
        return value
    if isinstance(value, LazyTuple):
        return value.items()
    return None


def _as_rows(value: Iterable[Any]) -> tuple[Any, ...]:
    """attrs converter of ``Evaluation.pairs``: as :func:`_as_tuple`, but a :class:`LazyTuple`
    stays one (so storing the rows does not build them)."""
    return value if isinstance(value, LazyTuple) else tuple(value)  # type: ignore[return-value]


def seconds(value: Any) -> float | None:
    """A duration fit to keep: a finite, non-negative number of seconds, else ``None`` (unknown).

    Why not an error: a trace's duration is a side note, and a NaN, an infinity or a
    400-digit number in it (which ``float()`` cannot even hold) must neither crash a report
    nor reach a JSON file as a bare ``NaN``; it is simply not known. A bool is not a duration.
    """
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if number >= 0 and number != float("inf") else None  # NaN fails >= 0


@attrs.frozen(slots=True)
class ToolCall:
    """One tool call an agent made, with whatever the source recorded about its outcome.

    ``args=None`` means the arguments were not recorded (e.g. an OpenTelemetry span with
    opt-in content off); ``{}`` means the call had no arguments. ``is_error=None`` means
    the outcome is unknown (no result was recorded); a missing answer is never a success.
    Mapping access (``call["tool"]``) is supported for the seed's dict-style examples.
    """

    tool: str
    args: dict[str, Any] | None = attrs.field(factory=dict)
    id: str | None = None
    result: Any = None
    structured_result: Any = None
    is_error: bool | None = None
    error: str | None = None
    duration: float | None = attrs.field(default=None, converter=seconds)  # seconds; None: unknown
    denied: bool = False
    denied_reason: str | None = None
    provider: str | None = None
    index: int | None = None  # position in the source, when it differs from the call order
    metadata: dict[str, Any] = attrs.field(factory=dict)

    def __getitem__(self, key: str) -> Any:
        if key in _CALL_KEYS:
            return getattr(self, key)
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key) if key in _CALL_KEYS else default

    def keys(self) -> tuple[str, ...]:
        return _CALL_KEYS

    def __contains__(self, key: object) -> bool:
        return key in _CALL_KEYS

    @property
    def succeeded(self) -> bool:
        """True only when the call is known to have succeeded."""
        return self.is_error is False and not self.denied


_CALL_KEYS: tuple[str, ...] = tuple(a.name for a in attrs.fields(ToolCall))


def draft_of(cls: type[Any]) -> type[Any]:
    """A subclass of the frozen slotted attrs class ``cls`` whose instances the kernel's own
    readers fill with plain attribute stores, then turn into ``cls`` by assigning ``__class__``.

    Why: a frozen attrs class has its own ``__setattr__``, so CPython neither specialises
    attribute stores on it nor lets ``__init__`` be cheap: a 13-field ToolCall by keyword
    cost about 1.6 us, filled through its slot descriptors 0.7 us, and was a sixth of
    scoring a 10k-call trace. Giving the subclass ``object``'s own ``__setattr__`` *and*
    ``__delattr__`` (CPython keeps one slot for both; with only one of them replaced it
    falls back to the slow generic slot) makes each store a direct slot write, and the
    ``__class__`` assignment to ``cls`` is cheap because the subclass adds no slot (same
    layout, same base). The object handed out is then a ``cls`` in every way (type, slots,
    equality, hash, repr, pickling, frozen-ness); only the caller must store every field,
    with the value ``cls(...)`` would have stored (converters included): see
    :func:`drafts_work` and the tests comparing both constructions field by field.
    For readers that make such objects by the thousand (the kernel's, the otel adapter's, the
    export's runs of traces), each guarded by :func:`fills_soundly`, checked once at import.
    """
    return type(f"{cls.__name__}Draft", (cls,), {
        "__slots__": (),
        "__setattr__": object.__setattr__,
        "__delattr__": object.__delattr__,
        "__init__": object.__init__,  # ``Draft()`` is an empty object, made cheaper than by object.__new__(Draft)
        "__module__": __name__,
        "__doc__": f"A {cls.__name__} being filled by a kernel reader (see draft_of).",
    })


def drafts_work(draft: type[Any], cls: type[Any]) -> bool:
    """True when a ``draft`` instance can become a ``cls`` by ``__class__`` assignment here.

    Why: readers check it once at import and keep their general path otherwise (an
    interpreter that refused the assignment would otherwise fail on every read)."""
    try:
        probe = object.__new__(draft)
        probe.__class__ = cls
    except TypeError:
        return False
    return type(probe) is cls


def fills_soundly(draft: type[Any], cls: type[Any], fields: tuple[str, ...], converted: frozenset[str] = frozenset()) -> bool:
    """True when a reader that stores ``fields`` in a ``draft`` (applying the converters of the
    fields in ``converted`` itself) builds what ``cls`` would: they are ``cls``'s fields in its
    order, none has a validator or an ``on_setattr``, only those of ``converted`` a converter,
    and :func:`drafts_work`.

    Why: a reader checks it once at import and keeps its general path otherwise, so a field
    added to ``cls`` (or a converter) cannot be silently skipped by its draft."""
    found = attrs.fields(cls)
    return (tuple(f.name for f in found) == fields
            and all(f.validator is None and f.on_setattr is None and (f.converter is None or f.name in converted)
                    for f in found)
            and drafts_work(draft, cls))


ToolCallDraft = draft_of(ToolCall)



@attrs.frozen(slots=True)
class Trace:
    """What an agent did in one run: its tool calls in order, and its final answer."""

    calls: tuple[ToolCall, ...] = attrs.field(factory=tuple, converter=_as_tuple)
    final_answer: str | None = None
    source_format: str | None = None
    metadata: dict[str, Any] = attrs.field(factory=dict)

    def __len__(self) -> int:
        return len(self.calls)

    def __iter__(self) -> Iterator[ToolCall]:
        return iter(self.calls)

    def __getitem__(self, index: int) -> ToolCall:
        return self.calls[index]


@attrs.frozen(slots=True)
class ExpectedCall:
    """A call the task needs. ``args=None``: any arguments; ``{}``: exactly no arguments.

    Argument values may be plain values or matchers (see :mod:`toolscore_core.scoring.matchers`).
    """

    tool: str
    args: dict[str, Any] | None = None
    description: str | None = None


ExpectedCallDraft = draft_of(ExpectedCall)


@attrs.frozen(slots=True)
class ForbiddenRule:
    """A call the agent must never make: a tool name (``None`` = any tool) and arguments
    that may use matchers. Every listed argument must match for the rule to fire."""

    tool: str | None
    args: dict[str, Any] | None = None
    reason: str | None = None


@attrs.frozen(slots=True)
class Contract:
    """Everything a gold file can say about a task."""

    expected: tuple[ExpectedCall, ...] = attrs.field(factory=tuple, converter=_as_tuple)
    forbidden: tuple[ForbiddenRule, ...] = attrs.field(factory=tuple, converter=_as_tuple)
    weights: dict[str, float] = attrs.field(factory=dict)
    min_score: float | None = None
    mode: str | None = None
    source: str | None = None  # the file it was read from, for error messages


@attrs.frozen(slots=True)
class Finding:
    """One thing worth telling a person, with its evidence (credentials already redacted)."""

    severity: Severity
    code: str
    message: str
    call_index: int | None = None
    tool: str | None = None
    evidence: str | None = None
    fix: str | None = None
    details: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen(slots=True)
class ToolDefinition:
    """A tool as a server (or an agent's tool list) defines it."""

    name: str
    description: str | None = None
    input_schema: dict[str, Any] = attrs.field(factory=dict)
    output_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] = attrs.field(factory=dict)
    title: str | None = None
    meta: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen(slots=True)
class ServerDefinition:
    """What lint rules look at: a server's identity, instructions and tool definitions."""

    name: str | None = None
    version: str | None = None
    instructions: str | None = None
    protocol_version: str | None = None
    tools: tuple[ToolDefinition, ...] = attrs.field(factory=tuple, converter=_as_tuple)

    def tool_names(self) -> list[str]:
        return [tool.name for tool in self.tools]


@attrs.frozen(slots=True)
class CallPair:
    """One expected call and the actual call paired with it (either side may be missing)."""

    expected_index: int | None
    actual_index: int | None
    score: float
    tool_match: bool
    argument_scores: dict[str, float] = attrs.field(factory=dict)
    reason: str = ""
    # Per-argument problems of a same-tool pair, already redacted and shortened:
    # {"argument", "problem" (mismatch|missing|unexpected|not recorded|invalid JSON), "expected", "actual"}.
    mismatches: tuple[dict[str, str], ...] = attrs.field(factory=tuple, converter=_as_tuple)


@attrs.frozen(slots=True)
class Evaluation:
    """The result of scoring one trace against what the task needed.

    The ``score`` is the weighted composite of the metrics named in ``weights``; ``grade``
    and ``verdict`` are computed from the score as displayed (one decimal of a percent), so
    a score shown as 90.0% is always an A and a PASS.
    """

    score: float
    grade: str
    verdict: str
    selection_accuracy: float
    argument_f1: float
    sequence_accuracy: float
    redundancy: float
    identical_rate: float
    required_call_recall: float
    weights: dict[str, float] = attrs.field(factory=dict)
    metrics: dict[str, Any] = attrs.field(factory=dict)
    findings: tuple[Finding, ...] = attrs.field(factory=tuple, converter=_as_tuple)
    policy_violations: list[dict[str, Any]] = attrs.field(factory=list)
    pairs: tuple[CallPair, ...] = attrs.field(factory=tuple, converter=_as_rows)  # rows may be a LazyTuple
    expected: tuple[ExpectedCall, ...] = attrs.field(factory=tuple, converter=_as_tuple)
    actual: Trace = attrs.field(factory=Trace)
    mode: str = "default"
    min_score: float | None = None
    # the forbidden rules the calls were checked against (the gold file's, then the extra
    # ones), so reports that list every rule never read the gold file a second time
    forbidden: tuple[ForbiddenRule, ...] = attrs.field(factory=tuple, converter=_as_tuple)

    __getattribute__ = materialised("pairs")  # rows built on the first read of .pairs

    def to_dict(self, **options: Any) -> dict[str, Any]:
        """The versioned, JSON-safe, redacted, bounded record (see toolscore_core.scoring.evaluation_dict)."""
        from toolscore_core.scoring.evaluation_dict import evaluation_to_dict

        return evaluation_to_dict(self, **options)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Evaluation:
        """Rebuild an Evaluation from a :meth:`to_dict` record (cut or redacted values stay so)."""
        from toolscore_core.scoring.evaluation_dict import evaluation_from_dict

        return evaluation_from_dict(data)


def make_converter() -> cattrs.Converter:
    """The one converter for every model class (JSON-safe primitives both ways)."""
    import cattrs

    conv = cattrs.Converter(omit_if_default=False)
    return conv


def __getattr__(name: str) -> Any:
    """``converter``, made on first use.

    Why: importing cattrs cost about 17 ms of every command's start-up (a third of
    ``toolscore eval``'s imports of this module), and scoring never converts."""
    if name == "converter":
        return _converter()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _converter() -> cattrs.Converter:
    made = globals().get("converter")
    if made is None:
        made = globals()["converter"] = make_converter()
    return made


def to_json_data(obj: Any) -> Any:
    """Unstructure a model object into JSON-safe primitives."""
    return _converter().unstructure(obj)


def from_json_data(data: Any, cls: type[Any]) -> Any:
    """Structure JSON primitives into ``cls``; raise :class:`InputError` on a bad shape."""
    from toolscore_core.kernel.errors import InputError

    conv = _converter()
    import cattrs

    try:
        return conv.structure(data, cls)
    except (cattrs.BaseValidationError, TypeError, ValueError, KeyError) as exc:
        detail = "; ".join(cattrs.transform_error(exc)) if isinstance(exc, cattrs.BaseValidationError) else str(exc)
        raise InputError(f"not a valid {cls.__name__}: {detail}") from exc


__all__ = [
    "SCHEMA_VERSION",
    "SEVERITIES",
    "CallPair",
    "Contract",
    "Evaluation",
    "ExpectedCall",
    "Finding",
    "ForbiddenRule",
    "ServerDefinition",
    "Severity",
    "ToolCall",
    "ToolDefinition",
    "Trace",
    "converter",
    "from_json_data",
    "to_json_data",
]
