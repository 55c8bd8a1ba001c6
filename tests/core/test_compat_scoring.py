"""Issue 12, scoring items a tool-scorer 1.10.0 user hits: forbidden regexes inside argv lists
(1), infinite and NaN weights (4), matcher semantics and equality (7), scores without float
noise (8) and Claude Agent SDK ``mcp__<server>__<tool>`` names (9)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from toolscore import ANY, Approx, Contains, InputError, IsType, OneOf, Regex, evaluate
from toolscore_core.kernel.traces import load_trace
from toolscore_core.scoring.matchers import matches, parse_matchers

FRAMEWORKS = Path(__file__).parents[1] / "adapters" / "fixtures" / "frameworks"
RM_RULE = [{"tool": "run_shell", "args": {"command": {"$regex": "rm -rf"}}, "reason": "destructive"}]


def _violations(command: Any, rules: Any = RM_RULE) -> int:
    trace = [{"tool": "run_shell", "args": {"command": command}}]
    return len(evaluate([{"tool": "run_shell"}], trace, forbidden=rules).policy_violations)


# 1. forbidden $regex / $contains search every string, nested and argv-joined

@pytest.mark.parametrize("command", [
    ["bash", "-c", "rm -rf /"],
    ["rm", "-rf", "/"],
    ["sudo", "rm", "-rf", "/srv"],
    {"argv": ["rm", "-rf", "/"]},
    [["bash", "-c", ["echo ok; rm -rf ~"]]],
    "sudo rm -rf /srv",
])
def test_forbidden_regex_finds_the_command_inside_lists_and_objects(command: Any) -> None:
    assert _violations(command) == 1


@pytest.mark.parametrize("command", [["ls", "-la", "/"], ["rm", "-r", "f"], {"rm": "-r"}, "rm -r -f", 5, True, None])
def test_forbidden_regex_leaves_harmless_commands_alone(command: Any) -> None:
    assert _violations(command) == 0


def test_forbidden_contains_searches_argv_too() -> None:
    rules = [{"tool": "run_shell", "args": {"command": {"$contains": "rm -rf"}}}]
    assert _violations(["rm", "-rf", "/"], rules) == 1
    assert _violations(["bash", "-c", "rm -rf /"], rules) == 1
    assert _violations(["ls", "/"], rules) == 0
    one_of = [{"tool": "run_shell", "args": {"command": {"$one_of": [{"$regex": "mkfs"}, {"$regex": "rm -rf"}]}}}]
    assert _violations(["rm", "-rf", "/"], one_of) == 1


def test_forbidden_regex_reads_numbers_as_text() -> None:
    rules = [{"tool": "open_port", "args": {"port": {"$regex": "^22$"}}}]
    trace = [{"tool": "open_port", "args": {"port": 22}}, {"tool": "open_port", "args": {"port": 2222}}]
    assert [v["index"] for v in evaluate([{"tool": "open_port"}], trace, forbidden=rules).policy_violations] == [0]


def test_deeply_nested_argument_is_searched() -> None:
    value: Any = "rm -rf /"
    for _ in range(200):
        value = [value]
    assert _violations(value) == 1


def test_expected_regex_still_means_a_full_match() -> None:
    assert not matches(Regex("rm -rf"), "sudo rm -rf /")
    assert not matches(Regex("rm -rf"), ["rm", "-rf"])
    e = evaluate([{"tool": "run_shell", "args": {"command": {"$regex": "rm -rf"}}}],
                 [{"tool": "run_shell", "args": {"command": ["rm", "-rf"]}}])
    assert e.argument_f1 == 0.0


# 4. weights must be finite

@pytest.mark.parametrize("bad", [math.inf, math.nan, -math.inf])
def test_api_rejects_infinite_or_nan_weights(bad: float) -> None:
    with pytest.raises(InputError, match=r"argument_f1.*finite non-negative number"):
        evaluate([{"tool": "a"}], [{"tool": "a"}], weights={"argument_f1": bad})


def test_gold_file_with_inf_weight_exits_2(invoke: Any, tmp_path: Path) -> None:
    gold = tmp_path / "gold.yaml"
    gold.write_text("expected:\n  - tool: a\n    args: {}\nweights:\n  argument_f1: .inf\n", encoding="utf-8")
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps([{"tool": "a", "args": {}}]), encoding="utf-8")
    result = invoke("eval", str(gold), str(trace))
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert "gold.yaml" in result.output and "$.weights.argument_f1" in result.output
    assert "finite" in result.output


@pytest.mark.parametrize("value", ["inf", "nan", "-1"])
def test_cli_weight_must_be_finite(invoke: Any, tmp_path: Path, value: str) -> None:
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([{"tool": "a", "args": {}}]), encoding="utf-8")
    result = invoke("eval", str(gold), str(gold), "--weight", f"argument_f1={value}")
    assert result.exit_code == 2 and "finite number" in result.output, result.output


def test_weight_not_a_number_suggests_a_real_metric(invoke: Any, tmp_path: Path) -> None:
    from toolscore_core.scoring.evaluation import metric_registry

    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([{"tool": "a", "args": {}}]), encoding="utf-8")
    result = invoke("eval", str(gold), str(gold), "--weight", "x=abc")
    assert result.exit_code == 2
    suggested = re.search(r"e\.g\. --weight (\w+)=", result.output)
    assert suggested is not None, result.output
    assert suggested.group(1) in metric_registry().names()


# 7. matchers

def test_approx_is_relative_to_the_expected_value() -> None:
    assert Approx(100, rel=0.1) == 110
    assert Approx(100, rel=0.1) == 90
    assert Approx(100, rel=0.1) != 111  # math.isclose (relative to the larger) accepted it
    assert Approx(100, rel=0.1) != 89.9
    assert Approx(0.0, abs=0.01) == 0.005
    assert Approx(math.inf) == math.inf and Approx(1.0) != True  # noqa: E712


def test_regex_takes_flags() -> None:
    assert Regex("flight-\\d+", re.IGNORECASE) == "FLIGHT-12"
    assert Regex("flight-\\d+") != "FLIGHT-12"
    multi = Regex("^b$", flags=re.MULTILINE)
    assert multi.search("a\nb\nc") and not Regex("^b$").search("a\nb\nc")
    assert Regex(r"\w+", re.ASCII) != "café" and Regex(r"\w+") == "café"  # re.ASCII is another bit in regex
    assert repr(Regex("a", re.I)) == "Regex('a', flags=2)"
    back = parse_matchers(Regex("abc", re.I).to_json())  # the JSON form keeps the flags
    assert back == "ABC" and back != "abd"
    with pytest.raises(InputError, match="flags"):
        Regex("a", flags=1 << 20)


def test_contains_works_on_sets() -> None:
    assert Contains("admin") == {"admin", "user"}
    assert Contains(1) == frozenset({1, 2})
    assert Contains("root") != {"admin"}


def test_matchers_compare_equal_to_what_they_match() -> None:
    assert {"q": ANY} == {"q": "x"}
    assert {"q": "x"} == {"q": ANY}  # noqa: SIM300 - the value on the left on purpose
    assert [1, "FL-7"] == [IsType(int), Regex(r"FL-\d+")]  # noqa: SIM300
    assert OneOf("a", "b") == "b" and OneOf("a", "b") != "c"
    assert {"n": Approx(1.0)} != {"n": 2.0}
    # matcher against matcher: the same matcher, not a predicate call
    assert Regex("a") == Regex("a") and Regex("a") != Regex("b") and Regex("a") != Regex("a", re.I)
    assert ANY == ANY and Approx(1) != ANY
    assert len({Regex("a"), Regex("a"), Approx(1.0)}) == 2  # hashable, consistent among matchers


def test_scoring_still_uses_matcher_semantics_not_plain_equality() -> None:
    gold = [{"tool": "a", "args": {"n": {"$approx": 10, "rel": 0.1}, "s": {"$contains": "x"}}}]
    assert evaluate(gold, [{"tool": "a", "args": {"n": 10.5, "s": "axb"}}]).argument_f1 == 1.0
    assert evaluate(gold, [{"tool": "a", "args": {"n": 12, "s": "ab"}}]).argument_f1 == 0.0


# 8. scores without float noise

def _noisy_case() -> Any:
    gold = [{"tool": "a", "args": {"x": 1, "y": 2, "z": 3}}, {"tool": "b", "args": {}}, {"tool": "c", "args": {}}]
    trace = [{"tool": "a", "args": {"x": 1, "y": 2, "z": 4}}, {"tool": "b", "args": {}},
             {"tool": "c", "args": {}}, {"tool": "c", "args": {}}]
    return evaluate(gold, trace)


def test_score_prints_as_the_seed_prints_it() -> None:
    e = _noisy_case()
    assert repr(e.score) == "0.865"  # was 0.8650000000000001
    assert repr(e.argument_f1) == "0.8"  # was 0.8000000000000002
    data = e.to_dict()
    assert repr(data["score"]) == "0.865" and repr(data["metrics"]["argument_f1"]["value"]) == "0.8"
    assert "0000000" not in json.dumps({"score": data["score"], "metrics": data["metrics"]})


def test_seed_readme_example_scores_085() -> None:
    # the seed README: a right tool, half the arguments right -> 0.85
    e = evaluate([{"tool": "search", "args": {"q": "x", "limit": 5}}], [{"tool": "search", "args": {"q": "x", "limit": 3}}])
    assert repr(e.score) == "0.85"


# 9. Claude Agent SDK qualified names

def test_qualified_gold_name_matches_the_bare_call_read_by_the_adapter() -> None:
    trace = load_trace(FRAMEWORKS / "claude_agent_sdk_messages.json")
    assert trace.calls[2].tool == "refund_order"
    qualified = [{"tool": f"mcp__shop__{c.tool}", "args": c.args} for c in trace.calls]
    bare = [{"tool": c.tool, "args": c.args} for c in trace.calls]
    assert evaluate(qualified, trace).selection_accuracy == 1.0
    assert evaluate(bare, trace).selection_accuracy == 1.0
    other_server = [{"tool": f"mcp__bank__{c.tool}", "args": c.args} for c in trace.calls]
    assert evaluate(other_server, trace).selection_accuracy == 0.0  # a different server is another tool


def test_bare_gold_name_matches_a_full_name_trace() -> None:
    e = evaluate([{"tool": "refund_order", "args": {"id": 1}}], [{"tool": "mcp__shop__refund_order", "args": {"id": 1}}])
    assert e.score == 1.0
    e = evaluate([{"tool": "mcp__shop__refund_order"}], [{"tool": "mcp__bank__refund_order"}])
    assert e.selection_accuracy == 0.0


def test_forbidden_rules_catch_every_spelling() -> None:
    trace = load_trace(FRAMEWORKS / "claude_agent_sdk_messages.json")
    for name in ("mcp__shop__refund_order", "refund_order"):
        e = evaluate([{"tool": "lookup_customer"}], trace, forbidden=[{"tool": name, "reason": "no refunds"}])
        assert [v["tool"] for v in e.policy_violations] == ["refund_order"], name
    e = evaluate([{"tool": "x"}], [{"tool": "mcp__shop__refund_order"}], forbidden=[{"tool": "refund_order"}])
    assert len(e.policy_violations) == 1
    e = evaluate([{"tool": "x"}], trace, forbidden=[{"tool": "mcp__bank__refund_order"}])
    assert e.policy_violations == []
