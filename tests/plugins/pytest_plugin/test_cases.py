"""toolscore.cases(): parametrize from case dicts or a YAML/JSON file, 1.10.0's call form kept."""

from __future__ import annotations

import json

import pytest
from toolscore_pytest import cases

import toolscore
from toolscore_core import InputError

pytest_plugins = ["pytester"]


def _mark(decorator, test=None):
    """The parametrize mark ``decorator`` puts on a test taking every key (or on ``test``)."""
    def takes_all(id, name, input, expected, prompt):
        pass

    marked = decorator(test or takes_all)
    (mark,) = marked.pytestmark
    return mark


def test_exported_from_the_facade_and_the_package():
    assert toolscore.cases is cases
    assert "cases" in toolscore.__all__


def test_ids_from_id_then_name_then_input_else_index():
    def test(input):
        pass

    mark = _mark(cases([{"id": "one", "input": "a"}, {"id": "two", "input": "b"}]), test)
    assert mark.args[0] == ["input"] and mark.kwargs["ids"] == ["one", "two"]  # a label the test does not take
    assert _mark(cases([{"id": "one", "input": "a"}])).args[0] == ["id", "input"]  # one it takes
    assert _mark(cases([{"name": "n", "input": "a"}])).kwargs["ids"] == ["n"]
    assert _mark(cases([{"input": "weather NYC", "expected": []}])).kwargs["ids"] == ["weather NYC"]
    assert _mark(cases([{"prompt": "x"}, {"prompt": "y"}])).kwargs["ids"] == ["0", "1"]


def test_1_10_0_call_form_with_id_key():
    mark = _mark(cases([{"input": "a", "expected": 1}, {"input": "b", "expected": 2}], id_key="expected"))
    assert mark.args[0] == ["input", "expected"]
    assert mark.args[1] == [("a", 1), ("b", 2)] and mark.kwargs["ids"] == ["1", "2"]


@pytest.mark.parametrize(("items", "message"), [
    ([], "non-empty list"),
    ({"input": "a"}, "non-empty list"),
    ([{"input": "a"}, "b"], "non-empty mapping"),
    ([{"input": "a"}, {"prompt": "b"}], "same keys"),
    ([{"not an identifier": 1}], "cannot be a test argument"),
])
def test_bad_case_lists_are_input_errors(items, message):
    with pytest.raises(InputError, match=message):
        cases(items)


def test_a_bad_file_names_the_file(tmp_path):
    bad = tmp_path / "cases.json"
    bad.write_text('{"input": "a"}', encoding="utf-8")
    with pytest.raises(InputError) as info:
        cases(bad)
    assert str(bad) in str(info.value) and "list of case dicts" in str(info.value)
    with pytest.raises(InputError, match="no such cases file"):
        cases(tmp_path / "missing.yaml")


def test_a_yaml_file_next_to_the_test_module_parametrizes_a_real_run(pytester, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    pytester.makeini("[pytest]\n")
    sub = pytester.mkpydir("suite")
    (sub / "cases.yaml").write_text("- id: nyc\n  city: NYC\n- id: paris\n  city: Paris\n", encoding="utf-8")
    (sub / "cases.json").write_text(json.dumps({"cases": [{"name": "rome", "city": "Rome"}]}), encoding="utf-8")
    (sub / "test_cities.py").write_text('''
import toolscore

@toolscore.cases("cases.yaml")
def test_city(city):
    assert city in ("NYC", "Paris")

@toolscore.cases("cases.json")
def test_json(city):
    assert city == "Rome"
''', encoding="utf-8")
    result = pytester.runpytest("-v", "--rootdir", str(pytester.path))
    result.assert_outcomes(passed=3)
    text = "\n".join(result.outlines)
    assert "test_city[nyc]" in text and "test_city[paris]" in text and "test_json[rome]" in text
