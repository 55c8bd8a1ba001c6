"""Calls built by the kernel's readers as drafts (issue 12) must be the objects the public
constructors make, in every way a caller can look at them.

The plain-list adapter and the gold reader fill a draft subclass with plain stores and then
assign ``__class__`` (see ``model.draft_of``); these tests build the same random inputs both
ways (the draft path and the general path, which calls ``ToolCall(...)`` /
``ExpectedCall(...)``) and compare type, every slot, repr, equality, hashing, attrs.asdict,
evolve, copies, pickling, weak references and frozen-ness. Nothing is timed.
"""

from __future__ import annotations

import copy
import pickle
import random
import weakref
from collections.abc import Callable
from typing import Any

import attrs
import pytest

from toolscore_core.builtin import adapters
from toolscore_core.builtin.adapters import CustomCallListAdapter, _plain_calls
from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.model import (
    ExpectedCall,
    ExpectedCallDraft,
    ToolCall,
    ToolCallDraft,
    drafts_work,
)
from toolscore_core.scoring import contracts
from toolscore_core.scoring.contracts import _plain_expected

_TEXTS = ["search", "wétter", "检索", "emoji 🙂", "a" * 300, "tab\tand\nnewline", "$not_a_form", " "]
_SCALARS: list[Any] = [None, 0, 1, -7, 2**70, 0.0, -0.0, 1.5, float("nan"), float("inf"), True, False, "", "ü"]
_DURATIONS: list[Any] = [None, 0, 3, -1, 0.0, -0.0, 0.01, 5e-324, 1e308, float("inf"), float("-inf"),
                         float("nan"), -1.5, 10**400]


_NAMES = [text for text in _TEXTS if not text.startswith("$")]  # in a gold file a "$" key is a matcher form


def _value(rng: random.Random, names: list[str], depth: int = 0) -> Any:
    roll = rng.random()
    if roll < 0.15 and depth < 2:
        return {rng.choice(names): _value(rng, names, depth + 1) for _ in range(rng.randrange(3))}
    if roll < 0.25 and depth < 2:
        return [_value(rng, names, depth + 1) for _ in range(rng.randrange(3))]
    return rng.choice(_SCALARS + _TEXTS)


def _args(rng: random.Random, names: list[str] = _TEXTS) -> Any:
    roll = rng.random()
    if roll < 0.15:
        return None
    if roll < 0.3:
        return {}
    return {rng.choice(names) + str(i): _value(rng, names) for i in range(rng.randrange(1, 5))}


def _plain_call(rng: random.Random) -> dict[str, Any]:
    """A call dict the plain-list fast path takes (its keys and types only)."""
    call: dict[str, Any] = {"tool": rng.choice(_TEXTS)}
    if rng.random() < 0.8:
        call["args"] = _args(rng)
    if rng.random() < 0.5:
        call["id"] = rng.choice([None, "c1", "ид-2"])
    if rng.random() < 0.6:
        call["result"] = _value(rng, _TEXTS)
    if rng.random() < 0.5:
        call["is_error"] = rng.choice([None, True, False])
    if rng.random() < 0.4:
        call["error"] = rng.choice([None, "", "boom", "ошибка"])
    if rng.random() < 0.7:
        call["duration"] = rng.choice(_DURATIONS)
    return call


def _gold_item(rng: random.Random) -> dict[str, Any]:
    """A gold item the plain gold path takes, matcher forms included."""
    item: dict[str, Any] = {"tool": rng.choice(_TEXTS)}
    if rng.random() < 0.8:
        args = _args(rng, _NAMES)
        if args and rng.random() < 0.2:
            args["q"] = {"$regex": "a+"}
        if args and rng.random() < 0.1:
            args["r"] = [1, {"$regex": "b"}]  # a form inside a list under a plain name
        item["args"] = args
    if rng.random() < 0.4:
        item["description"] = rng.choice(_TEXTS)
    return item


def _same_value(fast: Any, public: Any) -> None:
    assert type(fast) is type(public)
    assert repr(fast) == repr(public)  # NaN != NaN, and 1 == 1.0 == True: repr tells them apart


def assert_same_object(fast: Any, public: Any) -> None:
    """``fast`` (a draft turned into its class) is observably the object ``public`` is."""
    cls = type(public)
    assert type(fast) is cls and fast.__class__ is cls and cls.__mro__[1] is object
    assert isinstance(fast, cls) and not isinstance(fast, (ToolCallDraft, ExpectedCallDraft))
    for field in attrs.fields(cls):
        _same_value(getattr(fast, field.name), getattr(public, field.name))
    assert repr(fast) == repr(public)
    assert (fast == public) == (public == public) and (fast != public) == (public != public)
    _same_value(attrs.asdict(fast), attrs.asdict(public))
    _same_value(attrs.astuple(fast), attrs.astuple(public))
    assert _hash_or_error(fast) == _hash_or_error(public)
    for clone in (pickle.loads(pickle.dumps(fast)), copy.copy(fast), copy.deepcopy(fast)):
        assert type(clone) is cls and repr(clone) == repr(public)
    assert pickle.dumps(fast) == pickle.dumps(public)
    assert weakref.ref(fast)() is fast
    evolved = attrs.evolve(fast, tool="renamed")
    assert type(evolved) is cls and evolved.tool == "renamed"
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        fast.tool = "changed"
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        del fast.tool
    assert fast.tool == public.tool


def _hash_or_error(obj: Any) -> Any:
    try:
        return hash(obj)
    except TypeError as exc:  # a dict field: unhashable both ways
        return str(exc)


def test_the_drafts_can_become_their_classes() -> None:
    assert drafts_work(ToolCallDraft, ToolCall) and drafts_work(ExpectedCallDraft, ExpectedCall)
    assert adapters._SLOTS_SOUND and contracts._EXPECTED_SOUND  # else the tests below test the slow path twice


def test_plain_calls_are_the_objects_the_public_constructor_makes() -> None:
    rng = random.Random(1201)
    reader = CustomCallListAdapter()
    shapes = set()
    for _ in range(300):
        items = [_plain_call(rng) for _ in range(rng.randrange(1, 6))]
        fast, plain = _plain_calls(items)
        assert plain, items
        public = [reader._call(item, [i]) for i, item in enumerate(items)]  # ToolCall(...) by keyword
        assert len(fast) == len(public)
        for made, expected in zip(fast, public, strict=True):
            assert_same_object(made, expected)
            shapes.add((made.args is None, made.duration is None, made.is_error))
        assert len({id(c.metadata) for c in fast}) == len(fast)  # a fresh dict each, as the factory gives
        assert all(c.args is item.get("args", c.args) for c, item in zip(fast, items, strict=True))
    assert len(shapes) == 12  # args null or not, duration kept or not, each outcome


def test_calls_read_through_load_are_the_public_ones() -> None:
    rng = random.Random(1202)
    items = [_plain_call(rng) for _ in range(200)]
    trace = CustomCallListAdapter().load(items)
    public = [ToolCall(**attrs.asdict(CustomCallListAdapter()._call(item, [i]), recurse=False))
              for i, item in enumerate(items)]
    for made, expected in zip(trace.calls, public, strict=True):
        assert_same_object(made, expected)


def test_gold_items_are_the_objects_the_public_constructor_makes(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(1203)
    forms = 0
    for _ in range(300):
        items = [_gold_item(rng) for _ in range(rng.randrange(1, 6))]
        fast = _plain_expected(items, None, ())
        assert fast is not None, items
        with monkeypatch.context() as patched:  # the schema path, which calls ExpectedCall(...)
            patched.setattr(contracts, "_plain_expected", lambda data, file, prefix: None)
            public = contracts.expected_calls(items)
        for made, expected in zip(fast, public, strict=True):
            assert_same_object(made, expected)
            forms += made.args is not None and "q" in made.args and not isinstance(made.args["q"], dict)
    assert forms > 20  # matcher forms were parsed into the drafts' args too


def test_a_draft_is_never_handed_out() -> None:
    """Every reader's object is of the public class, and the drafts stay out of the way."""
    calls, _ = _plain_calls([{"tool": "a"}, {"tool": "b", "args": None, "duration": 2}])
    gold = _plain_expected([{"tool": "a"}, {"tool": "b", "args": {"x": 1}, "description": "d"}], None, ())
    assert gold is not None
    assert {type(c) for c in calls} == {ToolCall} and {type(c) for c in gold} == {ExpectedCall}
    assert ToolCallDraft.__slots__ == () and ExpectedCallDraft.__slots__ == ()
    assert ToolCallDraft.__setattr__ is object.__setattr__ and ToolCallDraft.__delattr__ is object.__delattr__
    assert ToolCallDraft.__init__ is object.__init__ and ExpectedCallDraft.__init__ is object.__init__


class _Name(str):
    """A str subclass as an argument name: accepted as a name, never taken for a matcher form."""


_OTHER_KEYS = ["name", "arguments", "metadata", "cost", "extra", "denied", "provider"]


def _any_call(rng: random.Random) -> Any:
    """A call dict that may or may not be plain: extra keys, wrong types, missing tool."""
    if rng.random() < 0.03:
        return rng.choice([None, "search", ["tool"], ToolCall(tool="t")])
    call = _plain_call(rng)
    roll = rng.random()
    if roll < 0.1:
        call[rng.choice(_OTHER_KEYS)] = _value(rng, _TEXTS)
    elif roll < 0.15:
        del call["tool"]
    elif roll < 0.25:
        key = rng.choice(["tool", "args", "id", "is_error", "error", "duration"])
        call[key] = rng.choice([7, "", "x", [], {"a": 1}, 1.5, True, "{\"q\": 1}"])
    return call


def _outcome(read: Callable[[], Any]) -> Any:
    """``repr`` of what ``read()`` returns, or its error: the same error both ways is what is compared."""
    try:
        return repr(read())
    except Exception as exc:
        return ("error", type(exc).__name__, str(exc))


def _by_detection(data: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The general route: ask the adapters, then load with the chosen one, every call read by
    the general reader (no plain fast path anywhere)."""
    from toolscore_core.kernel import traces

    def read() -> Any:
        adapter = traces.detect_adapter(data)
        return traces._mark(adapter.load(data), adapter.name)

    with monkeypatch.context() as patched:
        patched.setattr(adapters, "_plain_calls", lambda items: ((), False))
        return _outcome(read)


def _by_load_trace(data: Any) -> Any:
    from toolscore_core.kernel.traces import load_trace

    return _outcome(lambda: load_trace(data))


def test_lists_read_without_detection_read_as_detection_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(1204)
    kinds = set()
    for _ in range(400):
        data = [_any_call(rng) for _ in range(rng.randrange(0, 5))]
        fast, general = _by_load_trace(data), _by_detection(data, monkeypatch)
        assert fast == general, data
        kinds.add(fast[0] if isinstance(fast, tuple) else "custom" in fast)
    assert kinds == {"error", True}  # errors and reads both came up


def test_a_plain_list_is_read_without_asking_detect(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolscore_core.kernel.traces import load_trace

    asked: list[int] = []
    real = CustomCallListAdapter.detect

    def counted(self: Any, data: Any) -> float:
        asked.append(len(data) if isinstance(data, list) else -1)
        return real(self, data)

    monkeypatch.setattr(CustomCallListAdapter, "detect", counted)
    plain = [{"tool": "a", "args": {"x": 1}, "result": "ok"}, {"tool": "b", "duration": 0.5}]
    trace = load_trace(plain)
    assert asked == [] and trace.source_format == "custom" and [c.tool for c in trace.calls] == ["a", "b"]
    load_trace([*plain, {"tool": "c", "cost": 0.1}])  # not plain: detection asks, as before
    assert asked and set(asked) == {3}


def test_a_plain_list_file_reads_as_detection_reads_it(tmp_path: Any) -> None:
    import json

    from toolscore_core.kernel import traces

    rng = random.Random(1205)
    read = 0
    for n in range(40):
        data = [_any_call(rng) for _ in range(rng.randrange(1, 5))]
        try:
            text = json.dumps(data, allow_nan=True)
        except TypeError:
            continue  # a ToolCall item: not a file's content
        path = tmp_path / f"t{n}.json"
        path.write_text(text, encoding="utf-8")
        parsed = json.loads(text)
        try:
            got: Any = repr(traces.load_trace_file(path, allow_empty=True))
        except Exception as exc:
            got = ("error", type(exc).__name__, str(exc).replace(str(path), "F"))
        try:
            try:
                adapter = traces._detect(parsed, traces.adapter_registry().instances(), str(path))
                want: Any = repr(traces._mark(adapter.load(parsed), adapter.name))
            except InputError as exc:
                raise exc.with_file(path) from None  # as the file reader names the file
        except Exception as exc:
            want = ("error", type(exc).__name__, str(exc).replace(str(path), "F"))
        assert got == want, data
        read += "source_format='custom'" in got
    assert read > 10


def test_plain_calls_take_exactly_the_plain_keys() -> None:
    """The key check counts the lookups; the rule it stands for is a subset test of the keys."""
    rng = random.Random(1206)
    keys = [*sorted(adapters._PLAIN_KEYS), *_OTHER_KEYS]
    taken = set()
    for _ in range(2000):
        item = {key: None for key in rng.sample(keys, rng.randrange(0, 5))}
        if rng.random() < 0.7:
            item["tool"] = "t"
        _, plain = _plain_calls([item])
        assert plain == (item.get("tool") == "t" and item.keys() <= adapters._PLAIN_KEYS), item
        taken.add(plain)
    assert taken == {True, False}


def _any_gold_item(rng: random.Random) -> Any:
    if rng.random() < 0.03:
        return rng.choice([None, "search", ["tool"], 3])
    if rng.random() < 0.08:  # objects are read as the dicts they stand for
        plain = _gold_item(rng)
        if rng.random() < 0.5:
            return ExpectedCall(tool=plain["tool"], args=plain.get("args"), description=plain.get("description"))
        return ToolCall(tool=plain["tool"], args=plain.get("args"))
    item = _gold_item(rng)
    roll = rng.random()
    if roll < 0.08:
        item[rng.choice(["extra", "name", "forbidden"])] = 1
    elif roll < 0.12:
        del item["tool"]
    elif roll < 0.2:
        item[rng.choice(["tool", "args", "description"])] = rng.choice([None, 7, "", [], "x", {"a": 1}])
    elif roll < 0.35 and isinstance(item.get("args"), dict):
        item["args"][rng.choice([1, _Name("n"), _Name("$regex"), "a$b", "$literal", "$nope", (1, 2)])] = rng.choice(
            ["v", {"$regex": "b"}, [{"$any": True}], {"n": 1}, [1]])
    return item


def _gold_read(items: list[Any], fast: bool, monkeypatch: pytest.MonkeyPatch) -> Any:
    with monkeypatch.context() as patched:
        if not fast:
            patched.setattr(contracts, "_plain_expected", lambda data, file, prefix: None)
        return _outcome(lambda: contracts.expected_calls(items, file="gold.json", prefix=["expected"]))


def test_gold_lists_of_any_shape_read_as_the_schema_path_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(1207)
    outcomes = set()
    for _ in range(600):
        items = [_any_gold_item(rng) for _ in range(rng.randrange(0, 4))]
        fast = _gold_read(items, True, monkeypatch)
        assert fast == _gold_read(items, False, monkeypatch), items
        outcomes.add(fast[0] if isinstance(fast, tuple) else "$" in fast)
    assert outcomes == {"error", True, False}


def test_gold_lists_with_objects_skip_the_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plain dicts are read as given, objects once turned into dicts: neither asks the schema."""
    validated: list[Any] = []
    real = contracts._validate
    monkeypatch.setattr(contracts, "_validate", lambda *a, **k: validated.append(a) or real(*a, **k))
    as_dicts = contracts.expected_calls([{"tool": "a", "args": {"x": 1}}, {"tool": "b"}])
    with_objects = contracts.expected_calls([ExpectedCall(tool="a", args={"x": 1}), {"tool": "b"}])
    assert validated == [] and as_dicts == with_objects
    contracts.expected_calls([{"tool": "a", "description": "d"}])
    with pytest.raises(InputError):
        contracts.expected_calls([{"tool": "a", "extra": 1}])
    assert len(validated) == 1  # a shape the fast path does not take still goes to the schema
