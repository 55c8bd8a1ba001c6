"""Matchers: semantics (bool is not int), nesting, JSON forms both ways, located errors."""

from __future__ import annotations

import pytest

from toolscore_core.kernel.errors import InputError
from toolscore_core.scoring.matchers import (
    ANY,
    Approx,
    Contains,
    IsType,
    OneOf,
    Regex,
    canonical,
    has_matcher,
    matches,
    parse_matchers,
    to_json_form,
)


def test_exact_values_keep_bool_int_and_str_apart() -> None:
    assert matches(1, 1) and matches(1, 1.0) and matches("a", "a")
    assert not matches(1, True)
    assert not matches(True, 1)
    assert not matches(0, False)
    assert not matches(1, "1")
    assert not matches(None, 0)
    assert matches(True, True) and not matches(True, False)
    assert matches({"a": [1, {"b": None}]}, {"a": [1, {"b": None}]})
    assert not matches({"a": [1, True]}, {"a": [1, 1]})
    assert not matches({"a": 1}, {"a": 1, "b": 2})  # dicts need the same keys
    assert not matches([1, 2], [2, 1])


def test_canonical_forms_agree_with_matches() -> None:
    assert canonical(1) == canonical(1.0)
    assert canonical(1) != canonical(True)
    assert canonical({"a": [1, "x"]}) == canonical({"a": [1.0, "x"]})
    assert canonical({"a": 0}) != canonical({"a": False})
    hash(canonical({"a": [{"b": [1, 2]}]}))


def test_any_matches_every_value_but_a_missing_argument_still_fails() -> None:
    assert matches(ANY, None) and matches(ANY, {"x": 1}) and matches({"q": ANY}, {"q": 3})
    assert not matches({"q": ANY}, {})


def test_regex_is_a_full_match_on_strings_only() -> None:
    flight = Regex(r"FL-\d+")
    assert flight.matches("FL-123")
    assert not flight.matches("FL-123x")
    assert not flight.matches("xFL-123")
    assert not flight.matches(123)
    assert repr(flight) == "Regex('FL-\\\\d+')"


def test_approx_relative_absolute_and_no_bools() -> None:
    assert Approx(40.71, rel=1e-2).matches(40.7128)
    assert not Approx(40.71, rel=1e-5).matches(40.7128)
    assert Approx(10, abs=0.5).matches(10.4)
    assert not Approx(10, abs=0.5).matches(10.6)
    assert not Approx(1).matches(True)
    assert not Approx(1).matches("1")
    assert repr(Approx(40.71, rel=0.01)) == "Approx(40.71, rel=0.01)"
    with pytest.raises(InputError):
        Approx(1, rel=-1)


def test_contains_on_strings_lists_and_dicts() -> None:
    assert Contains("metric").matches(["metric", "extended"])
    assert Contains("met").matches("metric")
    assert not Contains("met").matches(["metric"])  # list membership is by element
    assert Contains("a").matches({"a": 1})
    assert Contains({"a": 1}).matches({"a": 1, "b": 2})
    assert not Contains({"a": 1}).matches({"a": True})
    assert Contains(Regex("x.*")).matches(["y", "xyz"])
    assert not Contains(1).matches(5)


def test_one_of_and_is_type() -> None:
    city = OneOf("NYC", "New York")
    assert city.matches("NYC") and city.matches("New York") and not city.matches("nyc")
    assert OneOf(1, Regex("a+")).matches("aaa")
    assert not OneOf(1).matches(True)
    assert IsType(int).matches(5)
    assert not IsType(int).matches(True)
    assert IsType(bool).matches(True)
    assert IsType(int, bool).matches(True)
    assert IsType("number").matches(2.5) and not IsType("number").matches(False)
    assert IsType("null").matches(None)
    assert repr(IsType(int, float)) == "IsType(int, float)"


def test_seed_matcher_example_matches_nested_in_args() -> None:
    expected = {"city": OneOf("NYC", "New York"), "units": Contains("metric"), "lat": Approx(40.71, rel=1e-2),
                "days": IsType(int)}
    actual = {"city": "NYC", "units": ["metric", "extended"], "lat": 40.7128, "days": 5}
    assert matches(expected, actual)
    assert not matches(expected, {**actual, "days": True})
    assert has_matcher({"a": [1, {"b": ANY}]}) and not has_matcher({"a": [1, {"b": 2}]})


@pytest.mark.parametrize(
    ("form", "matcher"),
    [
        ({"$any": True}, ANY),
        ({"$regex": "FL-\\d+"}, Regex("FL-\\d+")),
        ({"$approx": 40.7, "rel": 0.01, "abs": 0.1}, Approx(40.7, rel=0.01, abs=0.1)),
        ({"$approx": 3}, Approx(3)),
        ({"$contains": ".ssh"}, Contains(".ssh")),
        ({"$one_of": ["NYC", {"$regex": "New .*"}]}, OneOf("NYC", Regex("New .*"))),
        ({"$type": "int"}, IsType(int)),
        ({"$type": ["int", "float"]}, IsType(int, float)),
    ],
)
def test_json_forms_round_trip(form: dict, matcher: object) -> None:
    parsed = parse_matchers({"x": [form]})
    assert parsed == {"x": [matcher]}
    assert to_json_form(parsed) == {"x": [form]}


def test_literal_form_keeps_dollar_keys_as_data() -> None:
    parsed = parse_matchers({"q": {"$literal": {"$regex": "not a matcher"}}})
    assert parsed == {"q": {"$regex": "not a matcher"}}
    assert matches(parsed, {"q": {"$regex": "not a matcher"}})
    assert to_json_form(parsed) == {"q": {"$literal": {"$regex": "not a matcher"}}}


def test_bad_regex_names_file_and_path() -> None:
    with pytest.raises(InputError) as info:
        parse_matchers({"command": {"$regex": "rm (-rf"}}, file="forbidden.json", path=[0, "args"])
    text = str(info.value)
    assert "forbidden.json" in text
    assert "at $[0].args.command:" in text
    assert "invalid regex" in text


def test_unknown_dollar_key_suggests_the_right_one() -> None:
    with pytest.raises(InputError) as info:
        parse_matchers({"city": {"$one_off": ["a"]}}, file="gold.yaml", path=["expected", 0, "args"])
    text = str(info.value)
    assert "gold.yaml" in text and "$.expected[0].args.city" in text
    assert "'$one_off'" in text and "Did you mean '$one_of'" in text


@pytest.mark.parametrize(
    ("form", "needle"),
    [
        ({"$any": False}, "$any must be true"),
        ({"$one_of": []}, "non-empty list"),
        ({"$type": "integr"}, "unknown type name"),
        ({"$approx": "x"}, "Approx value must be a number"),
        ({"$approx": 1, "tol": 2}, "does not take 'tol'"),
        ({"$regex": "a", "$contains": "b"}, "one matcher per object"),
        ({"$regex": 5}, "regex must be a string"),
    ],
)
def test_malformed_forms_are_input_errors(form: dict, needle: str) -> None:
    with pytest.raises(InputError) as info:
        parse_matchers({"v": form}, file="g.json")
    assert needle in str(info.value)
    assert "g.json" in str(info.value)


def test_unicode_values_match_exactly() -> None:
    assert matches({"city": "Zürich 🏔"}, {"city": "Zürich 🏔"})
    assert Regex("Zür.*").matches("Zürich")
    assert not matches("Zürich", "Zurich")
