"""The judge extension point: one batched decide() call, only open questions, yes only adds.

The judge here is a real plugin: a deterministic synonym table registered through the
real plugin manager under a name, as a third-party judge distribution would be.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

import pytest

from toolscore_core import (
    InputError,
    Judge,
    JudgeAnswer,
    JudgeQuestion,
    PluginError,
    UnknownNameError,
    hookimpl,
)
from toolscore_core.kernel.registry import collect
from toolscore_core.scoring.contracts import validator
from toolscore_core.scoring.evaluation import evaluate
from toolscore_core.scoring.matchers import Regex

SYNONYMS: tuple[frozenset[Any], ...] = (
    frozenset({"web_search", "search_web"}),
    frozenset({"New York", "NYC", "New York City"}),
)


class SynonymJudge(Judge):
    """Two values are equivalent when one synonym set holds both; keeps every batch it got."""

    name = "synonyms"
    description = "equivalence from a fixed synonym table"

    def __init__(self) -> None:
        self.batches: list[list[JudgeQuestion]] = []

    def decide(self, questions: Sequence[JudgeQuestion]) -> Sequence[JudgeAnswer]:
        self.batches.append(list(questions))
        answers = []
        for q in questions:
            same = any(q.expected in group and q.actual in group for group in SYNONYMS)
            answers.append(JudgeAnswer(equivalent=same, reason="synonym table" if same else "not synonyms",
                                       confidence=1.0 if same else 0.9))
        return answers


class JudgePlugin:
    def __init__(self, judge: Any) -> None:
        self.judge = judge

    @hookimpl
    def toolscore_register_judges(self) -> list[Any]:
        return [self.judge]


@pytest.fixture
def synonyms(register_plugin: Any) -> SynonymJudge:
    judge = SynonymJudge()
    register_plugin(JudgePlugin(judge), name="synonym-judge")
    return judge


def test_hook_toolscore_register_judges_makes_a_named_judge(plugin_manager: Any, synonyms: SynonymJudge) -> None:
    registry = collect(plugin_manager, "judges")
    assert registry.names() == ["synonyms"]
    assert registry.entry("synonyms").plugin == "synonym-judge"
    result = evaluate([{"tool": "web_search", "args": {"query": "x"}}], [{"tool": "search_web", "args": {"query": "x"}}],
                      judge="synonyms", plugin_manager=plugin_manager)
    assert len(synonyms.batches) == 1
    assert result.metrics["judge"]["name"] == "synonyms"


def test_a_judge_pairs_synonym_tools_that_exact_matching_leaves_apart(plugin_manager: Any,
                                                                       synonyms: SynonymJudge) -> None:
    gold = [{"tool": "web_search", "args": {"query": "toolscore"}}]
    trace = [{"tool": "search_web", "args": {"query": "toolscore"}}]
    plain = evaluate(gold, trace, plugin_manager=plugin_manager)
    assert plain.selection_accuracy == 0.0
    assert not plain.pairs[0].tool_match

    judged = evaluate(gold, trace, judge="synonyms", plugin_manager=plugin_manager)
    assert (judged.selection_accuracy, judged.argument_f1, judged.sequence_accuracy, judged.redundancy) == (1, 1, 1, 1)
    assert judged.score == 1.0
    (pair,) = judged.pairs
    assert (pair.expected_index, pair.actual_index, pair.tool_match) == (0, 0, True)
    assert pair.reason == ("`search_web` judged the same tool as `web_search` by judge `synonyms`: synonym table; "
                           "1 of 1 checked argument(s) match")
    assert judged.actual.calls[0].tool == "search_web"  # the evaluation keeps the trace as recorded
    record = judged.metrics["judge"]
    assert (record["questions"], record["matched_tools"], record["matched_arguments"]) == (1, 1, 0)
    assert record["answers"][0] | {"reason": None} == {
        "kind": "tool", "tool": "web_search", "argument": None, "expected_index": 0, "actual_index": 0,
        "expected": "'web_search'", "actual": "'search_web'", "equivalent": True, "reason": None,
        "confidence": 1.0, "applied": True}
    codes = {f.code for f in judged.findings}
    assert "judged-match" in codes and "missing-call" not in codes and "unexpected-call" not in codes
    (note,) = [f for f in judged.findings if f.code == "judged-match"]
    assert note.message.startswith("call 1 search_web: judge `synonyms` counted it as the expected `web_search`")


def test_a_judge_matches_nyc_to_new_york_in_the_seed_example(plugin_manager: Any, synonyms: SynonymJudge) -> None:
    gold = [{"tool": "get_weather", "args": {"city": "NYC"}}, {"tool": "send_email", "args": {"to": "user@example.com"}}]
    trace = [{"tool": "get_weather", "args": {"city": "New York"}},
             {"tool": "send_email", "args": {"to": "user@example.com"}}]
    judged = evaluate(gold, trace, judge="synonyms", plugin_manager=plugin_manager)
    assert judged.argument_f1 == 1.0 and judged.score == 1.0
    weather = judged.pairs[0]
    assert weather.mismatches == () and weather.argument_scores == {"city": 1.0}
    assert "judge `synonyms` counts `city` 'New York' as 'NYC'" in weather.reason
    assert "argument-mismatch" not in {f.code for f in judged.findings}
    assert judged.actual.calls[0].args == {"city": "New York"}
    # The exact send_email pair was never put to the judge: one question, about the city.
    (batch,) = synonyms.batches
    assert batch == [JudgeQuestion(kind="argument", expected="NYC", actual="New York", tool="get_weather",
                                   argument="city", expected_index=0, actual_index=0)]


def test_every_open_question_goes_in_one_batch_and_only_open_ones(plugin_manager: Any,
                                                                  synonyms: SynonymJudge) -> None:
    gold = [
        {"tool": "get_weather", "args": {"city": "NYC", "days": 3, "units": "metric"}, "description": "forecast"},
        {"tool": "book", "args": {"id": Regex(r"FL-\d+"), "seat": "12A"}},
        {"tool": "web_search", "args": {"query": "x"}},
        {"tool": "notify", "args": {"user": "ann", "urgent": True}},
    ]
    trace = [
        {"tool": "get_weather", "args": {"city": "New York City", "days": 3, "units": "imperial"}},
        {"tool": "book", "args": {"id": "BK-1", "seat": "12B"}},
        {"tool": "search_web", "args": {"query": "x"}},
        {"tool": "search_web", "args": {"query": "x", "limit": 5}},  # another arity: not asked
        {"tool": "get_weather", "args": {"city": "Paris"}},  # an expected tool's name: never a tool question
        {"tool": "notify", "args": {"user": "ann", "urgent": False}},  # booleans: not asked
    ]
    result = evaluate(gold, trace, judge="synonyms", plugin_manager=plugin_manager)
    (batch,) = synonyms.batches
    asked = [(q.kind, q.expected_index, q.actual_index, q.argument, q.expected, q.actual) for q in batch]
    assert asked == [
        ("tool", 2, 2, None, "web_search", "search_web"),
        ("argument", 0, 0, "city", "NYC", "New York City"),
        ("argument", 0, 0, "units", "metric", "imperial"),
        ("argument", 1, 1, "seat", "12A", "12B"),  # the $regex argument decided already: not asked
    ]
    assert batch[1].context == "forecast"
    record = result.metrics["judge"]
    assert (record["questions"], record["matched_tools"], record["matched_arguments"]) == (4, 1, 1)
    weather = result.pairs[0]
    assert weather.argument_scores == {"city": 1.0, "days": 1.0, "units": 0.0}
    (units,) = weather.mismatches  # a no keeps the mismatch, and says the judge was asked
    assert units["argument"] == "units" and units["judged_by"] == "synonyms" and units["judge_reason"] == "not synonyms"
    validator("evaluation")(result.to_dict())  # the record stays valid with the judge's entries


def test_competing_yes_answers_pair_as_many_calls_as_possible(plugin_manager: Any, synonyms: SynonymJudge) -> None:
    gold = [{"tool": "web_search"}, {"tool": "web_search"}]
    trace = [{"tool": "search_web", "args": {"q": "a"}}, {"tool": "search_web", "args": {"q": "b"}}]
    result = evaluate(gold, trace, judge="synonyms", plugin_manager=plugin_manager)
    assert len(synonyms.batches[0]) == 4  # every unpaired expected call against every unpaired actual one
    assert sorted((p.expected_index, p.actual_index) for p in result.pairs if p.tool_match) == [(0, 0), (1, 1)]
    applied = [a["applied"] for a in result.metrics["judge"]["answers"]]
    assert applied.count(True) == 2 and result.redundancy == 1.0
    # Expected call 1 fits only actual call 0 (arity), so expected call 0 moves over to call 1.
    gold2 = [{"tool": "web_search"}, {"tool": "web_search", "args": {"q": "a"}}]
    trace2 = [{"tool": "search_web", "args": {"q": "a"}}, {"tool": "search_web", "args": {"q": "b", "n": 2}}]
    result = evaluate(gold2, trace2, judge="synonyms", plugin_manager=plugin_manager)
    assert [(q.expected_index, q.actual_index) for q in synonyms.batches[1]] == [(0, 0), (0, 1), (1, 0)]
    assert sorted((p.expected_index, p.actual_index) for p in result.pairs if p.tool_match) == [(0, 1), (1, 0)]


def test_a_judge_that_says_no_changes_no_score(plugin_manager: Any, register_plugin: Any) -> None:
    class Sceptic(Judge):
        name = "sceptic"

        def decide(self, questions: Sequence[JudgeQuestion]) -> Sequence[JudgeAnswer]:
            return [JudgeAnswer(equivalent=False) for _ in questions]

    register_plugin(JudgePlugin(Sceptic))  # a class: the registry makes the instance
    gold = [{"tool": "web_search", "args": {"q": "x"}}, {"tool": "get_weather", "args": {"city": "NYC"}}]
    trace = [{"tool": "search_web", "args": {"q": "x"}}, {"tool": "get_weather", "args": {"city": "New York"}}]
    plain = evaluate(gold, trace, plugin_manager=plugin_manager)
    judged = evaluate(gold, trace, judge="sceptic", plugin_manager=plugin_manager)
    assert judged.score == plain.score
    assert [(p.expected_index, p.actual_index, p.tool_match, p.score) for p in judged.pairs] == [
        (p.expected_index, p.actual_index, p.tool_match, p.score) for p in plain.pairs]
    assert judged.metrics["judge"]["questions"] == 2 and judged.metrics["judge"]["matched_arguments"] == 0


def test_a_judge_that_raises_is_a_plugin_error_naming_it(plugin_manager: Any, register_plugin: Any) -> None:
    class Broken(Judge):
        name = "broken"

        def decide(self, questions: Sequence[JudgeQuestion]) -> Sequence[JudgeAnswer]:
            raise ConnectionError("model endpoint unreachable")

    register_plugin(JudgePlugin(Broken()))
    with pytest.raises(PluginError, match=r"judge 'broken' failed on 1 question\(s\): ConnectionError: model endpoint"):
        evaluate([{"tool": "a", "args": {"x": "1"}}], [{"tool": "a", "args": {"x": "2"}}], judge="broken",
                 plugin_manager=plugin_manager)


@pytest.mark.parametrize(("answers", "message"), [
    ([], r"judge 'short' returned 0 answer\(s\) for 1 question\(s\)"),
    ([{"equivalent": True}], r"judge 'short' answer 1 is \{'equivalent': True\}"),
    ([JudgeAnswer(equivalent=True, confidence=2.0)], r"judge 'short' answer 1 is JudgeAnswer"),
])
def test_a_judge_with_a_wrong_answer_is_a_plugin_error(plugin_manager: Any, answers: list[Any], message: str) -> None:
    class Short(Judge):
        name = "short"

        def decide(self, questions: Sequence[JudgeQuestion]) -> list[Any]:
            return answers

    with pytest.raises(PluginError, match=message):
        evaluate([{"tool": "a", "args": {"x": "1"}}], [{"tool": "a", "args": {"x": "2"}}], judge=Short(),
                 plugin_manager=plugin_manager)


def test_nothing_open_means_no_call_and_an_empty_record(plugin_manager: Any, synonyms: SynonymJudge) -> None:
    result = evaluate([{"tool": "a", "args": {"x": 1}}], [{"tool": "a", "args": {"x": 1}}], judge=synonyms,
                      plugin_manager=plugin_manager)
    assert synonyms.batches == []
    assert result.metrics["judge"] == {"name": "synonyms", "questions": 0, "not_asked": 0, "matched_tools": 0,
                                       "matched_arguments": 0, "answers": [], "score": 1.0,
                                       "score_without_judge": 1.0}


def test_credentials_are_never_put_to_a_judge(plugin_manager: Any, synonyms: SynonymJudge) -> None:
    key = "AKIA" + "IOSFODNN7EXAMPLE"
    evaluate([{"tool": "put", "args": {"token": "placeholder", "note": "NYC"}}],
             [{"tool": "put", "args": {"token": key, "note": "New York"}}], judge="synonyms",
             plugin_manager=plugin_manager)
    (batch,) = synonyms.batches
    assert [q.argument for q in batch] == ["note"]


def test_an_unknown_judge_name_suggests_the_registered_one(plugin_manager: Any, synonyms: SynonymJudge) -> None:
    with pytest.raises(UnknownNameError, match=r"unknown judge 'synonym'.*did you mean 'synonyms'"):
        evaluate([{"tool": "a"}], [{"tool": "a"}], judge="synonym", plugin_manager=plugin_manager)
    with pytest.raises(InputError, match="has no decide"):
        evaluate([{"tool": "a"}], [{"tool": "a"}], judge=object(), plugin_manager=plugin_manager)  # type: ignore[arg-type]


def test_a_judged_tool_also_counts_for_a_named_order_mode(plugin_manager: Any, synonyms: SynonymJudge) -> None:
    gold = [{"tool": "web_search", "args": {"q": "x"}}, {"tool": "open_page", "args": {"url": "u"}}]
    trace = [{"tool": "search_web", "args": {"q": "x"}}, {"tool": "open_page", "args": {"url": "u"}}]
    assert evaluate(gold, trace, mode="strict", plugin_manager=plugin_manager).sequence_accuracy == 0.0
    assert evaluate(gold, trace, mode="strict", judge="synonyms", plugin_manager=plugin_manager).sequence_accuracy == 1.0


SEED_EXAMPLES = """
import json
from pathlib import Path
from toolscore_core.scoring.evaluation import evaluate, evaluate_trace
ex = Path("examples/guardrails")
runs = [
    evaluate([{"tool": "get_weather", "args": {"city": "NYC"}}, {"tool": "send_email", "args": {"to": "u@x.org"}}],
             [{"tool": "get_weather", "args": {"city": "New York"}}, {"tool": "send_email", "args": {"to": "u@x.org"}}],
             judge=None),
    evaluate_trace(ex / "gold.json", ex / "trace.json", forbidden=ex / "forbidden.json", judge=None),
]
import sys
print(json.dumps({"scores": [round(r.score, 6) for r in runs],
                  "judging_imported": "toolscore_core.scoring.judging" in sys.modules,
                  "judge_metric": ["judge" in r.metrics for r in runs]}))
"""


def test_judge_none_keeps_the_seed_scores_and_never_imports_the_judge_module() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", SEED_EXAMPLES], cwd=root, capture_output=True, text=True, check=True)
    report = json.loads(out.stdout)
    assert report == {"scores": [0.85, 0.74], "judging_imported": False, "judge_metric": [False, False]}


def test_questions_beyond_the_limit_are_counted_not_asked() -> None:
    from toolscore_core.kernel.traces import load_trace
    from toolscore_core.scoring.contracts import as_contract
    from toolscore_core.scoring.judging import open_questions
    from toolscore_core.scoring.pairing import pair_calls

    expected = as_contract([{"tool": "t", "args": {"k": f"want {n}"}} for n in range(5)]).expected
    calls = load_trace([{"tool": "t", "args": {"k": f"got {n}"}} for n in range(5)]).calls
    questions, left_out = open_questions(expected, calls, pair_calls(expected, calls), limit=3)
    assert [q.expected for q in questions] == ["want 0", "want 1", "want 2"] and left_out == 2


def test_a_long_reason_is_cut_in_explanations_and_kept_in_the_record(plugin_manager: Any) -> None:
    class Talkative(Judge):
        name = "talkative"

        def decide(self, questions: Sequence[JudgeQuestion]) -> Sequence[JudgeAnswer]:
            return [JudgeAnswer(equivalent=True, reason="because " * 100) for _ in questions]

    result = evaluate([{"tool": "a", "args": {"x": "1"}}], [{"tool": "a", "args": {"x": "one"}}],
                      judge=Talkative(), plugin_manager=plugin_manager)
    assert len(result.pairs[0].reason) < 300 and result.pairs[0].reason.endswith("…")
    assert result.metrics["judge"]["answers"][0]["reason"] == "because " * 100
