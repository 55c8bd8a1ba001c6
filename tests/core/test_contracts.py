"""Gold and forbidden files: JSON and YAML, Python objects, and clear located errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.model import Contract, ExpectedCall, ForbiddenRule, ToolCall, Trace
from toolscore_core.scoring.contracts import (
    as_contract,
    contract_from_data,
    expected_calls,
    forbidden_rules,
    load_contract,
    load_forbidden,
    validator,
)
from toolscore_core.scoring.evaluation import evaluate, evaluate_trace
from toolscore_core.scoring.matchers import ANY, Contains, Regex


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_list_form_gold_file_with_matchers(tmp_path: Path) -> None:
    path = write(tmp_path, "gold.json", json.dumps([
        {"tool": "search", "args": {"q": {"$regex": "NYC.*"}, "n": {"$type": "int"}}},
        {"tool": "book"},
        {"tool": "logout", "args": {}},
    ]))
    contract = load_contract(path)
    assert [e.tool for e in contract.expected] == ["search", "book", "logout"]
    assert contract.expected[0].args == {"q": Regex("NYC.*"), "n": contract.expected[0].args["n"]}
    assert contract.expected[1].args is None
    assert contract.expected[2].args == {}
    assert contract.source == str(path)


def test_object_form_gold_file_in_yaml(tmp_path: Path) -> None:
    path = write(tmp_path, "gold.yaml", """
expected:
  - tool: run_shell
    args: {command: make test}
  - tool: deploy
forbidden:
  - tool: run_shell
    args:
      command: {$contains: rm -rf}
    reason: destructive
weights: {required_call_recall: 0.3}
min_score: 0.8
mode: in_order
""")
    contract = load_contract(path)
    assert contract.expected[0] == ExpectedCall(tool="run_shell", args={"command": "make test"})
    assert contract.forbidden == (ForbiddenRule(tool="run_shell", args={"command": Contains("rm -rf")}, reason="destructive"),)
    assert contract.weights == {"required_call_recall": 0.3}
    assert (contract.min_score, contract.mode) == (0.8, "in_order")


def test_forbidden_file_list_and_object_forms(tmp_path: Path) -> None:
    rules = [{"tool": "read_file", "args": {"path": {"$contains": ".ssh"}}, "reason": "private keys"}, {"reason": "no args"}]
    as_list = load_forbidden(write(tmp_path, "f.json", json.dumps(rules)))
    as_object = load_forbidden(write(tmp_path, "f2.json", json.dumps({"forbidden": rules})))
    assert as_list == as_object
    assert as_list[0].args == {"path": Contains(".ssh")}
    assert as_list[1].tool is None


def test_python_objects_are_accepted() -> None:
    contract = as_contract([ExpectedCall(tool="a", args={"x": ANY}), {"tool": "b", "args": {"y": Regex("z")}},
                            ToolCall(tool="c", args={"k": 1})])
    assert [e.tool for e in contract.expected] == ["a", "b", "c"]
    assert contract.expected[2].args == {"k": 1}
    trace_as_gold = as_contract(Trace(calls=[ToolCall(tool="t", args={"a": 1})]))
    assert trace_as_gold.expected == (ExpectedCall(tool="t", args={"a": 1}),)
    given = Contract(expected=[ExpectedCall(tool="x")])
    assert as_contract(given) is given
    assert forbidden_rules([ForbiddenRule(tool="x", args={"a": Contains("b")}, reason="r")])[0].reason == "r"


@pytest.mark.parametrize(
    ("content", "needles"),
    [
        ("", ["is empty"]),
        ("[{\"tool\": ", ["not valid JSON", "line 1"]),
        ("{\"expected\": [{\"tool\": 5}]}", ["$.expected[0].tool", "string"]),
        ("[{\"tool\": \"a\", \"arg\": {}}]", ["$[0]", "unknown key 'arg'"]),
        ("{\"calls\": []}", ["unknown key 'calls'"]),
        ("{\"expected\": [], \"mode\": \"strictly\"}", ["$.mode", "strict"]),
        ("{\"expected\": [], \"weights\": {\"x\": -1}}", ["$.weights.x"]),
        ("{\"expected\": [], \"min_score\": 90}", ["$.min_score"]),
        ("[{\"tool\": \"a\", \"args\": [1]}]", ["$[0].args", "object"]),
        ("[{\"tool\": \"a\", \"args\": {\"q\": {\"$regx\": \"x\"}}}]", ["$[0].args.q", "$regex"]),
        ("[{\"tool\": \"a\", \"args\": {\"q\": {\"$regex\": \"(\"}}}]", ["$[0].args.q", "invalid regex"]),
        ("\"just a string\"", ["not a gold file"]),
        ("{}", ["expected"]),
    ],
)
def test_malformed_gold_files_name_file_and_place(tmp_path: Path, content: str, needles: list[str]) -> None:
    path = write(tmp_path, "gold.json", content)
    with pytest.raises(InputError) as info:
        load_contract(path)
    text = str(info.value)
    assert str(path) in text
    for needle in needles:
        assert needle in text, text


def test_invalid_utf8_and_bad_yaml(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not valid UTF-8"):
        load_contract(write(tmp_path, "gold.json", b'[{"tool": "\xff"}]'))
    with pytest.raises(InputError, match="not valid YAML"):
        load_contract(write(tmp_path, "gold.yaml", "expected: [\n  - tool: a\n"))


def test_unicode_tool_names_and_values(tmp_path: Path) -> None:
    path = write(tmp_path, "gold.json", json.dumps([{"tool": "météo", "args": {"ville": "Zürich"}}], ensure_ascii=False))
    trace = write(tmp_path, "trace.json", json.dumps([{"tool": "météo", "args": {"ville": "Zürich"}}], ensure_ascii=False))
    assert evaluate_trace(path, trace).score == 1.0


def test_forbidden_rule_errors_name_the_place(tmp_path: Path) -> None:
    path = write(tmp_path, "forbidden.json", json.dumps([{"tool": "x", "why": "typo"}]))
    with pytest.raises(InputError) as info:
        load_forbidden(path)
    assert "$[0]" in str(info.value) and "'why'" in str(info.value)
    with pytest.raises(InputError, match="not a list of rules"):
        load_forbidden(write(tmp_path, "f2.json", "3"))


def test_non_string_tool_name_in_python_is_an_input_error() -> None:
    with pytest.raises(InputError, match=r"\$\[0\]\.tool"):
        expected_calls([{"tool": 3}])
    with pytest.raises(InputError, match="tool"):
        evaluate([{"tool": "a"}], [{"tool": 7, "args": {}}])
    with pytest.raises(InputError, match="argument names must be strings"):
        expected_calls([{"tool": "a", "args": {1: "x"}}])


def test_gold_path_given_to_evaluate(tmp_path: Path) -> None:
    path = write(tmp_path, "gold.json", json.dumps({"expected": [{"tool": "a"}], "mode": "strict",
                                                     "weights": {"sequence_accuracy": 1}}))
    result = evaluate(str(path), [{"tool": "a"}, {"tool": "b"}])
    assert result.mode == "strict"
    assert result.sequence_accuracy == 0.0


def test_schemas_are_compiled_once() -> None:
    assert validator("gold", "expected_list") is validator("gold", "expected_list")
    validator("gold")([{"tool": "a"}])  # the whole schema compiles too
    validator("forbidden")({"forbidden": [{"tool": "a"}]})


def test_contract_from_data_rejects_a_number() -> None:
    with pytest.raises(InputError, match="not a gold file"):
        contract_from_data(42, file="g.json")


def test_unknown_weight_in_a_gold_file_names_the_file_and_place(tmp_path: Path) -> None:
    path = write(tmp_path, "gold.json", json.dumps({"expected": [{"tool": "a"}], "weights": {"selection": 1}}))
    with pytest.raises(InputError) as info:
        evaluate(str(path), [{"tool": "a"}])
    text = str(info.value)
    assert str(path) in text and "$.weights.selection" in text and "did you mean 'selection_accuracy'" in text
