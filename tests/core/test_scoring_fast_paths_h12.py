"""Fast paths of issue 12 (scoring speed): each one gives exactly what the slow path gives.

Each test runs the fast path and the plain, obvious computation on varied inputs and
compares the answers, so a fast path that drifts from the rule it short-cuts fails here.
"""

from __future__ import annotations

import random
from typing import Any

from toolscore_core.kernel.model import ToolCall, unread
from toolscore_core.scoring import secrets
from toolscore_core.scoring.behaviour import security
from toolscore_core.scoring.secrets import find_secrets

SECRETS = [
    "sk-ant-" + "a1B2" * 6, "sk-" + "Ab3" * 8, "ghp_" + "a" * 36, "AKIA" + "A" * 16, "AIza" + "b" * 35,
    "xoxb-" + "1234567890", "sk_live_" + "c" * 16, "eyJhbGciOi.eyJzdWIi.c2ln",
    "-----BEGIN RSA PRIVATE KEY-----\nabc", "https://user:pw@host", "?key=abc", "access_token=xyz",
    "Authorization: Bearer " + "t" * 20, "AUTHORIZATION: BEARER " + "T" * 20,
]
PLAIN = ["item 1", "hello world", "search", "", "a", "no secrets here at all", "bearer", "x" * 5000, "\x00=\x00"]


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if roll < 0.15:
        return rng.choice(SECRETS)
    if roll < 0.5:
        return rng.choice(PLAIN)
    if roll < 0.6:
        return rng.choice([1, 2.5, True, None])
    if roll < 0.7 and depth < 2:
        return {rng.choice(["a", "token", "sk-" + "Q1w" * 8]): _value(rng, depth + 1)}
    if roll < 0.8 and depth < 2:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(3))]
    return rng.choice(PLAIN)


def _args(rng: random.Random) -> Any:
    roll = rng.random()
    if roll < 0.05:
        return None
    if roll < 0.1:
        return {}
    if roll < 0.15:
        return {1: "sk-" + "Ab3" * 8, "q": "x"}  # a non-str key: never scanned, its value is
    keys = ["query", "page", "password=", "api_key", "ghp_" + "a" * 36]
    return {rng.choice(keys) + str(k): _value(rng) for k in range(rng.randrange(1, 4))}


def _slow_security(calls: list[ToolCall]) -> list[tuple[int, str, str, str]]:
    """What ``security`` records, scanning every call (the rule the prefilter short-cuts)."""
    return [(i, hit.path, hit.kind, hit.preview)
            for i, call in enumerate(calls) if call.args
            for hit in find_secrets(call.args)]


def test_security_prefilter_finds_what_a_scan_of_every_call_finds() -> None:
    rng = random.Random(12)
    for density in (0.0, 0.01, 0.2, 1.0):
        calls = []
        for _ in range(700):  # more than two batches
            args = _args(rng) if rng.random() < density else {"query": rng.choice(PLAIN[:3]), "page": 3}
            calls.append(ToolCall(tool="t", args=args))
        found, _ = security(calls)
        assert [(s["index"], s["path"], s["kind"], s["preview"]) for s in found["secrets"]] == _slow_security(calls)


def test_security_prefilter_finds_each_kind_alone_in_a_clean_batch() -> None:
    for text in SECRETS:
        for args in ({"q": text}, {text: 1}, {"q": [text]}):
            calls = [ToolCall(tool="t", args={"query": "item", "page": 2}) for _ in range(300)]
            calls[260] = ToolCall(tool="t", args=args)
            found, _ = security(calls)
            assert found["secrets"] and found["secrets"][0]["index"] == 260, (text, args)
            assert [(s["index"], s["path"], s["kind"], s["preview"]) for s in found["secrets"]] == _slow_security(calls)


def test_security_prefilter_skips_clean_batches_and_keeps_deep_calls() -> None:
    args = [{"q": "item"}] * 256 + [{"q": {"nested": "x"}}, None, {}, {"q": "a=b"}]
    assert list(secrets.calls_to_scan(args)) == [256, 259]  # batch 2 has an "=": every call with arguments
    assert list(secrets.calls_to_scan([{"q": "item"}] * 300 + [{"q": ["x"]}])) == [300]


def _varied_case(rng: random.Random, n: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Expected and actual calls with every kind of row: matches, mismatches, wrong tools,
    failed calls, unchecked arguments, matchers, missing and extra calls."""
    expected: list[dict[str, Any]] = []
    actual: list[dict[str, Any]] = []
    for _ in range(n):
        tool = f"tool_{rng.randrange(4)}"
        args: dict[str, Any] = {"q": f"item {rng.randrange(n)}", "page": rng.randrange(3)}
        roll = rng.random()
        if roll < 0.1:
            expected.append({"tool": tool})  # arguments not checked
        elif roll < 0.2:
            expected.append({"tool": tool, "args": {"q": {"$regex": "item .*"}, "page": args["page"]}})
        else:
            expected.append({"tool": tool, "args": args})
        got = dict(args)
        roll = rng.random()
        if roll < 0.1:
            got["page"] = 99
        elif roll < 0.15:
            got["extra"] = True
        elif roll < 0.2:
            tool = "other"
        elif roll < 0.25:
            continue  # the call never made
        call: dict[str, Any] = {"tool": tool, "args": got, "result": "ok"}
        if rng.random() < 0.05:
            call.update(is_error=True, error="failed", result=None)
        actual.append(call)
        if rng.random() < 0.05:
            actual.append({"tool": "spare", "args": {}})
    return expected, actual


def test_align_match_rows_equal_the_general_rows() -> None:
    import attrs

    from toolscore_core.reports import alignment
    from toolscore_core.scoring.evaluation import evaluate

    rng = random.Random(7)
    for n in (1, 5, 40, 300):
        expected, actual = _varied_case(rng, n)
        evaluation = evaluate(expected, actual)
        rows = alignment.align(evaluation)  # read from the rows' outline: they are not built yet
        assert not unread(evaluation, "pairs").built
        built = attrs.evolve(evaluation, pairs=tuple(evaluation.pairs))
        assert alignment.align(built) == rows
        by_expected = {p.expected_index: p for p in evaluation.pairs
                       if p.expected_index is not None and p.actual_index is not None}
        fast = 0
        for row in rows:
            pair = by_expected.get(row.expected_index)
            if pair is None or row.actual_index != pair.actual_index:
                continue
            general = alignment._paired_row(row.number, row.expected_index, row.expected_call, row.actual_index,
                                            row.actual_call, pair, row.call_limit)
            assert row == general
            fast += row.status == "match"
        assert n < 40 or fast > 0


def _cases() -> list[tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    rng = random.Random(11)
    cases = [_varied_case(rng, n) for n in (0, 1, 2, 5, 40, 300) for _ in range(3)]
    cases.append(([{"tool": "a", "args": {}}], [{"tool": "a", "args": {}}, {"tool": "b", "args": {"x": 1}}]))
    cases.append(([{"tool": "a", "args": {}}, {"tool": "b"}], [{"tool": "a", "args": {"x": 1}}, {"tool": "c"}]))
    cases.append(([{"tool": "a", "args": {"x": 1}}], [{"tool": "a", "args": None}]))
    return cases


def test_lazy_rows_outline_and_single_rows_equal_the_built_rows() -> None:
    from toolscore_core.kernel.traces import load_trace
    from toolscore_core.scoring.contracts import as_contract
    from toolscore_core.scoring.pairing import PairRows, pair_calls

    for expected_data, actual_data in _cases():
        if not actual_data:
            continue
        expected, calls = as_contract(expected_data).expected, load_trace(actual_data).calls
        rows = unread(pair_calls(expected, calls), "pairs")
        assert isinstance(rows, PairRows) and not rows.built
        outline = rows.outline()
        singles = [rows.row(k) for k in range(len(rows))]
        assert not rows.built  # the outline and single rows did not build the tuple
        built = tuple(rows)
        assert len(built) == len(rows) == len(outline)
        assert singles == list(built)
        assert outline == [(p.expected_index, p.actual_index, p.tool_match, bool(p.mismatches)) for p in built]
        assert all(rows.row(k) is built[k] for k in range(len(built)))


def test_findings_from_the_outline_equal_findings_from_built_rows() -> None:
    import attrs

    from toolscore_core.scoring import evaluation as ev
    from toolscore_core.scoring.pairing import PairRows

    for expected_data, actual_data in _cases():
        if not actual_data:
            continue
        result = ev.evaluate(expected_data, actual_data)
        context = ev.EvaluationContext(expected=result.expected, trace=result.actual,
                                       pairing=ev.pair_calls(list(result.expected), result.actual.calls))
        assert isinstance(unread(context.pairing, "pairs"), PairRows)
        lazy = ev._capped(ev._score_findings(context, result.actual.calls))
        built = attrs.evolve(context, pairing=attrs.evolve(context.pairing, pairs=tuple(context.pairing.pairs)))
        assert type(built.pairing.pairs) is tuple
        assert lazy == ev._capped(ev._score_findings(built, result.actual.calls))


def test_lazy_rows_read_as_the_tuple_they_build() -> None:
    import copy
    import pickle

    import attrs

    from toolscore_core.kernel.model import Evaluation, LazyTuple
    from toolscore_core.scoring.evaluation import evaluate

    expected, actual = _varied_case(random.Random(3), 30)
    result = evaluate(expected, actual)
    rows = unread(result, "pairs")
    assert isinstance(rows, LazyTuple) and not rows.built
    alike = evaluate(expected, actual)
    assert type(alike.pairs) is tuple and alike.pairs is unread(alike, "pairs")  # read once: the tuple, kept
    plain_record = attrs.asdict(Evaluation(**{f: getattr(alike, f) for f in attrs_fields(Evaluation)}))
    assert attrs.asdict(evaluate(expected, actual)) == plain_record  # as for an evaluation holding a plain tuple
    assert bool(rows) and len(rows) == len(tuple(rows))
    plain = rows.items()
    assert rows == plain and plain == rows and (rows != plain) is False and rows == LazyTuple(lambda: plain, len(plain))
    assert repr(rows) == repr(plain) and rows[1:3] == plain[1:3] and rows[-1] == plain[-1]
    one = (1,)
    assert rows + one == plain + one and one + rows == one + plain and rows * 2 == plain * 2
    assert list(reversed(rows)) == list(reversed(plain)) and plain[0] in rows and rows.index(plain[0]) == 0
    assert pickle.loads(pickle.dumps(rows)) == plain and type(copy.copy(rows)) is tuple
    again = pickle.loads(pickle.dumps(result))
    assert type(again.pairs) is tuple and again == result and again.to_dict() == result.to_dict()
    assert Evaluation(**{**{f: getattr(result, f) for f in attrs_fields(Evaluation)}, "pairs": plain}) == result


def attrs_fields(cls: type) -> list[str]:
    import attrs

    return [f.name for f in attrs.fields(cls)]


def test_scoring_does_not_import_cattrs_and_the_converters_still_work() -> None:
    """cattrs is imported when something converts, tempfile when a file is written, importlib.resources
    when a schema is read: not by every command's start-up."""
    import json
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent("""
        import json, sys
        from toolscore_core.scoring.evaluation import evaluate
        evaluate([{"tool": "a", "args": {"x": 1}}], [{"tool": "a", "args": {"x": 2}}]).to_dict()
        before = [name for name in ("cattrs", "tempfile", "importlib.resources") if name in sys.modules]
        import toolscore_core
        from toolscore_core.kernel import model, providers
        call = model.ToolCall(tool="a", args={"x": 1})
        same = model.from_json_data(model.to_json_data(call), model.ToolCall) == call
        request = providers.ModelRequest.from_dict({"model": "m", "messages": [{"role": "user", "text": "hi"}]})
        print(json.dumps({"before": before, "same": same, "converter": type(toolscore_core.converter).__name__,
                          "request": request.to_dict()["messages"][0]["role"]}))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"before": [], "same": True, "converter": "Converter", "request": "user"}


def _reference_cost(exp_idx: list[int], act_idx: list[int], expected: Any, actual: Any, matched: Any) -> Any:
    """The window cost as one expression, as the pairing first wrote it."""
    import numpy as np

    n, m = len(exp_idx), len(act_idx)
    act_args = [actual[j].args for j in act_idx]
    checked = np.array([expected[i].args is not None for i in exp_idx], dtype=bool)
    act_units = np.array([0 if a is None else len(a) for a in act_args], dtype=np.int64)
    act_units_for_empty = np.array([0 if a is None else (len(a) or 1) for a in act_args], dtype=np.int64)
    expects_nothing = np.array([expected[i].args == {} for i in exp_idx], dtype=bool)
    precision_cost = np.where(checked[:, None],
                              np.where(expects_nothing[:, None], act_units_for_empty[None, :], act_units[None, :]), 0)
    not_succeeded = np.array([0 if actual[j].succeeded else 1 for j in act_idx], dtype=np.float64)
    distance = np.abs(np.arange(n)[:, None] * (m / max(n, 1)) - np.arange(m)[None, :]) / (m + n + 1)
    pairs_bound = float(min(n, m) + 1)
    low = pairs_bound
    mid = pairs_bound * low
    big = float(int(act_units_for_empty.sum()) + 1) * mid
    return (-matched.astype(np.float64) * big + precision_cost.astype(np.float64) * mid
            + not_succeeded[None, :] * low + distance)


def test_window_cost_is_bit_for_bit_the_one_expression_cost(monkeypatch: Any) -> None:
    import numpy as np

    from toolscore_core.kernel.model import ExpectedCall
    from toolscore_core.scoring import pairing
    from toolscore_core.scoring.matchers import Regex

    rng = random.Random(5)
    seen: list[Any] = []
    real = pairing.strict_minima
    monkeypatch.setattr(pairing, "strict_minima", lambda cost: seen.append(cost.copy()) or real(cost))
    for _ in range(60):
        n, m = rng.randrange(2, 40), rng.randrange(2, 40)
        shapes = [None, {}, {"q": Regex("a.*")}] if rng.random() < 0.5 else []
        expected = [ExpectedCall(tool="t", args=rng.choice([*shapes, {"q": f"a{rng.randrange(9)}", "p": rng.randrange(3)}]))
                    for _ in range(n)]
        actual = [ToolCall(tool="t", args=rng.choice([None, {}, {"q": f"a{rng.randrange(9)}"},
                                                      {"q": f"a{rng.randrange(9)}", "p": rng.randrange(3), "x": 1}]),
                           is_error=rng.random() < 0.2) for _ in range(m)]
        exp_idx, act_idx = list(range(n)), list(range(m))
        seen.clear()
        pairs = pairing._solve_window(exp_idx, act_idx, expected, actual)
        assert len(seen) == 1
        matched = np.array([[pairing._matched_units(e.args, a.args) if e.args is not None else 0 for a in actual]
                            for e in expected], dtype=np.int64)
        reference = _reference_cost(exp_idx, act_idx, expected, actual, matched)
        assert np.array_equal(seen[0], reference) and (np.signbit(seen[0]) == np.signbit(reference)).all()
        assert len(pairs) == min(n, m)


def _split_brackets(text: str) -> bytes:
    """The brackets of JSON ``text`` outside strings, found by splitting at every quote."""
    from toolscore_core.kernel import readlimits

    data = text.encode("utf-8")
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    return b"".join(data.translate(None, readlimits._NOT_STRUCTURE).split(b'"')[0::2])


def _nested(rng: random.Random, depth: int) -> Any:
    if depth <= 0 or rng.random() < 0.2:
        return rng.choice(["", "a", "[", "]{", '"', "\\", '\\"[', "}}", "x\u00e9", 1, None, True])
    if rng.random() < 0.5:
        return [_nested(rng, depth - 1) for _ in range(rng.randrange(3))]
    return {rng.choice(["k", "[", '"q"', "\\"]) + str(i): _nested(rng, depth - 1) for i in range(rng.randrange(3))}


def _reference_shallow(text: str) -> bool:
    """What ``_shallow_text`` answered when it split at every quote."""
    from toolscore_core.kernel import readlimits

    brackets = _split_brackets(text)
    for _ in range(readlimits.MAX_NESTING):
        if not brackets:
            return True
        reduced = readlimits._INNERMOST.sub(b"", brackets)
        if len(reduced) == len(brackets):
            return False
        brackets = reduced
    return not brackets


def test_shallow_text_equals_the_split_at_every_quote() -> None:
    import json

    from toolscore_core.kernel import readlimits

    rng = random.Random(9)
    kinds = set()
    for _ in range(400):
        value = _nested(rng, rng.choice([3, 8])) if rng.random() < 0.7 else rng.choice([1, "a", None])
        if rng.random() < 0.3:  # a chain deeper than the limit, or just within it
            filler, key = rng.choice([("", "k"), ("[", "k["), ("}", "k")])
            for _ in range(rng.choice([99, 101, 105])):
                value = [value, filler] if rng.random() < 0.5 else {key: value}
        text = json.dumps(value, ensure_ascii=rng.random() < 0.5)
        assert readlimits._shallow_text(text) == _reference_shallow(text), text[:200]
        kinds.add((any(c in s for s in _strings(value) for c in "[]{}"), _reference_shallow(text)))
    assert len(kinds) == 4  # strings with and without brackets inside, shallow and deep texts


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    if isinstance(value, dict):
        return [s for key, item in value.items() for s in [key, *_strings(item)]]
    return []


def test_plain_calls_keep_the_durations_the_general_reader_keeps() -> None:
    from toolscore_core.builtin.adapters import CustomCallListAdapter, _plain_calls

    durations = [None, 0.0, -0.0, 0.01, 5e-324, 1e308, float("inf"), float("-inf"), float("nan"), -1.5, -0.5, 3, 10**400]
    items = [{"tool": "t", "args": {}, "duration": d} for d in durations]
    fast, plain = _plain_calls(items)
    assert plain
    general = tuple(CustomCallListAdapter()._call(item, [i]) for i, item in enumerate(items))
    assert repr([c.duration for c in fast]) == repr([c.duration for c in general])
    assert [type(c.duration) for c in fast] == [type(c.duration) for c in general]


def test_custom_adapter_detects_as_the_set_rule_does() -> None:
    from collections import OrderedDict

    from toolscore_core.builtin.adapters import _CALL_FIELDS, CustomCallListAdapter

    rng = random.Random(4)
    keys = [*sorted(_CALL_FIELDS), "name", "arguments", "extra", "tool"]
    adapter = CustomCallListAdapter()
    for _ in range(300):
        calls: list[Any] = []
        for _ in range(rng.randrange(1, 4)):
            call = {key: 1 for key in rng.sample(keys, rng.randrange(1, 4))}
            calls.append(OrderedDict(call) if rng.random() < 0.2 else call)
        by_sets = all(isinstance(c, dict) and "tool" in c and set(c) <= _CALL_FIELDS for c in calls)
        assert (adapter.detect(calls) == 0.9) == by_sets


def _matcher_value(rng: random.Random, depth: int = 0) -> Any:
    from toolscore_core.scoring.matchers import ANY, Regex

    roll = rng.random()
    if roll < 0.1:
        return rng.choice([ANY, Regex("a.*")])
    if roll < 0.2 and depth < 3:
        return {f"k{i}": _matcher_value(rng, depth + 1) for i in range(rng.randrange(3))}
    if roll < 0.3 and depth < 3:
        return [_matcher_value(rng, depth + 1) for _ in range(rng.randrange(3))]
    return rng.choice(["a", 1, 2.5, True, None, (1, 2), b"x"])


def _reference_has_matcher(value: Any) -> bool:
    """Any matcher anywhere, found by walking every value with a stack (the rule itself)."""
    from collections.abc import Mapping

    from toolscore_core.scoring.matchers import Matcher

    stack = [value]
    while stack:
        item = stack.pop()
        found = isinstance(item, Matcher)
        children = item.values() if isinstance(item, Mapping) else item if isinstance(item, (list, tuple)) else ()
        if found:
            return True
        stack.extend(children)
    return False


def test_has_matcher_on_dicts_answers_as_the_walk_does() -> None:
    from toolscore_core.scoring.matchers import has_matcher

    rng = random.Random(21)
    answers = set()
    for _ in range(2000):
        value = {f"a{i}": _matcher_value(rng) for i in range(rng.randrange(4))}
        answers.add(has_matcher(value))
        assert has_matcher(value) == _reference_has_matcher(value), value
    assert answers == {True, False}


def test_gold_forms_are_found_as_the_walk_finds_them() -> None:
    from toolscore_core.scoring.contracts import _plain_expected
    from toolscore_core.scoring.matchers import has_dollar_key

    rng = random.Random(22)
    forms = {"$regex": "a.*"}
    for _ in range(500):
        args = {rng.choice(["q", "a$b", "$literal", "x"]) + str(i): rng.choice(["v", 1, None, forms, [forms], {"n": forms},
                                                                              [1, 2], {"n": 1}, {"$x": 1}])
                for i in range(rng.randrange(4))}
        if "$literal0" in args or "$literal1" in args or "$literal2" in args:
            continue  # a $literal form needs an object value; not what this test is about
        data = [{"tool": "t", "args": args}]
        try:
            built = _plain_expected(data, None, ())
        except Exception:  # an invalid form: both ways must have looked at it
            assert has_dollar_key(args)
            continue
        assert built is not None
        assert (built[0].args is not args) == has_dollar_key(args)  # parsed (a new dict) exactly when forms are there


def test_blocks_indexed_from_the_argument_keys_pair_as_from_the_values() -> None:
    from toolscore_core.kernel.model import ExpectedCall
    from toolscore_core.scoring import pairing
    from toolscore_core.scoring.matchers import canonical

    rng = random.Random(31)
    for _ in range(20):
        n, m = rng.randrange(20, 90), rng.randrange(20, 90)
        expected = [ExpectedCall(tool="t", args={"q": f"v{rng.randrange(40)}", "p": rng.randrange(3),
                                                 "b": rng.choice([True, 1, "1"])}) for _ in range(n)]
        actual = [ToolCall(tool="t", args=rng.choice([None, {}, {"q": f"v{rng.randrange(40)}", "p": rng.randrange(3),
                                                                 "b": rng.choice([True, 1, 1.0, "1"])}]))
                  for _ in range(m)]
        keys = [None if c.args is None else canonical(c.args) for c in actual]
        window = rng.choice([8, 16])  # below the block sizes: the index is built
        plain = pairing._assign_block(list(range(n)), list(range(m)), expected, actual, window)
        assert pairing._assign_block(list(range(n)), list(range(m)), expected, actual, window, keys) == plain
