"""Order modes: LCS default and the named pass/fail modes (agentevals / ADK / promptfoo)."""

from __future__ import annotations

import random

import pytest

from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.model import ExpectedCall, ToolCall
from toolscore_core.scoring.evaluation import evaluate
from toolscore_core.scoring.matchers import ANY, Regex
from toolscore_core.scoring.modes import check_mode, lcs_length, max_matching, sequence_score


def E(tool: str, args: dict | None = None) -> ExpectedCall:
    return ExpectedCall(tool=tool, args=args)


def A(tool: str, args: dict | None = None) -> ToolCall:
    return ToolCall(tool=tool, args=args or {})


def _lcs_table(a: list[str], b: list[str]) -> int:
    rows = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            rows[i + 1][j + 1] = rows[i][j] + 1 if x == y else max(rows[i][j + 1], rows[i + 1][j])
    return rows[-1][-1]


def test_bit_parallel_lcs_agrees_with_the_textbook_table() -> None:
    rng = random.Random(7)
    for _ in range(200):
        a = [rng.choice("abcd") for _ in range(rng.randint(0, 30))]
        b = [rng.choice("abcde") for _ in range(rng.randint(0, 30))]
        assert lcs_length(a, b) == _lcs_table(a, b), (a, b)


def test_default_mode_is_the_lcs_ratio_of_tool_names() -> None:
    value, details = sequence_score("default", [E("a"), E("b"), E("c")], [A("a"), A("c"), A("b"), A("x")])
    assert value == pytest.approx(2 / 4)
    assert details["lcs"] == 2


EXPECTED = [E("search", {"q": Regex("NYC.*")}), E("book", {"id": ANY})]


@pytest.mark.parametrize(
    ("mode", "actual", "passes"),
    [
        ("strict", [A("search", {"q": "NYC 5"}), A("book", {"id": 1})], True),
        ("strict", [A("book", {"id": 1}), A("search", {"q": "NYC 5"})], False),
        ("strict", [A("search", {"q": "NYC 5"}), A("book", {"id": 1}), A("log")], False),
        ("strict", [A("search", {"q": "NYC 5", "extra": 1}), A("book", {"id": 1})], False),
        ("in_order", [A("log"), A("search", {"q": "NYC"}), A("log"), A("book", {"id": 2})], True),
        ("in_order", [A("book", {"id": 2}), A("search", {"q": "NYC"})], False),
        ("in_order", [A("search", {"q": "LA"}), A("book", {"id": 2})], False),
        ("unordered", [A("book", {"id": 2}), A("search", {"q": "NYC"})], True),
        ("unordered", [A("book", {"id": 2}), A("search", {"q": "NYC"}), A("log")], False),
        ("unordered", [A("book", {"id": 2})], False),
        ("superset", [A("log"), A("book", {"id": 2}), A("search", {"q": "NYC"})], True),
        ("superset", [A("book", {"id": 2})], False),
        ("subset", [A("book", {"id": 2})], True),
        ("subset", [A("book", {"id": 2}), A("log")], False),
        ("subset", [], True),
    ],
)
def test_named_modes_pass_or_fail(mode: str, actual: list[ToolCall], passes: bool) -> None:
    value, details = sequence_score(mode, EXPECTED, actual)
    assert value == (1.0 if passes else 0.0)
    assert details["passed"] is passes


def test_superset_uses_an_optimal_matching_not_first_fit() -> None:
    # agentevals' greedy loop fails this; either output order must pass.
    expected = [E("A", {"x": ANY}), E("A", {"x": 1, "y": Regex("2")})]
    for actual in ([A("A", {"x": 1, "y": "2"}), A("A", {"x": 1})], [A("A", {"x": 1}), A("A", {"x": 1, "y": "2"})]):
        assert sequence_score("superset", expected, actual)[0] == 1.0
    assert max_matching(expected, [A("A", {"x": 1, "y": "2"}), A("A", {"x": 1})]) == 2


def test_max_matching_with_identical_and_unchecked_calls_at_scale() -> None:
    expected = [E("t", {"k": i % 3}) for i in range(3000)] + [E("t") for _ in range(10)]
    actual = [A("t", {"k": i % 3}) for i in range(3000)] + [A("t", {"other": 1}) for _ in range(10)]
    assert max_matching(expected, actual) == 3010
    assert sequence_score("unordered", expected, list(reversed(actual)))[0] == 1.0


def test_mode_changes_only_sequence_accuracy_in_the_score() -> None:
    expected = [{"tool": "a"}, {"tool": "b"}]
    actual = [{"tool": "b"}, {"tool": "a"}]
    default = evaluate(expected, actual)
    strict = evaluate(expected, actual, mode="strict")
    unordered = evaluate(expected, actual, mode="unordered")
    assert default.sequence_accuracy == 0.5
    assert strict.sequence_accuracy == 0.0 and unordered.sequence_accuracy == 1.0
    for result in (strict, unordered):
        assert result.selection_accuracy == default.selection_accuracy == 1.0
        assert result.argument_f1 == default.argument_f1
    assert strict.mode == "strict"
    assert any(f.code == "order" and "strict" in f.message for f in strict.findings)
    assert not any(f.code == "order" for f in unordered.findings)


def test_unknown_mode_is_an_input_error_with_a_suggestion() -> None:
    with pytest.raises(InputError, match="Did you mean 'in_order'"):
        check_mode("inorder")
    with pytest.raises(InputError, match="unknown order mode"):
        evaluate([{"tool": "a"}], [{"tool": "a"}], mode="sorted")


def test_empty_lists_pass_every_mode() -> None:
    for mode in ("default", "strict", "in_order", "unordered", "subset", "superset"):
        assert sequence_score(mode, [], [])[0] == 1.0
