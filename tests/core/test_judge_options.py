"""The judge-options extension point: a judge plugin adds flags to `toolscore eval`.

A test-local judge declares ``--synonyms`` through ``command_options`` and turns it into
itself through ``from_command_options``; the core command never names the flag. Also the
score without the judge, which the evaluation records beside the judged score.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import click
import pytest

from toolscore_core import Judge, JudgeAnswer, JudgeQuestion, evaluate, hookimpl


class FlagJudge(Judge):
    """Says yes to everything; enabled on `eval` by --synonyms, reports one summary line."""

    name = "flag-judge"
    made: ClassVar[list[FlagJudge]] = []

    def __init__(self, note: str = "") -> None:
        self.note = note
        self.asked = 0

    @classmethod
    def command_options(cls, command: str) -> Sequence[Any]:
        if command != "eval":
            return ()
        return [click.Option(["--synonyms"], is_flag=True, help="Use the flag judge."),
                click.Option(["--synonyms-note"], metavar="TEXT", help="A note for the judge.")]

    @classmethod
    def from_command_options(cls, command: str, values: Mapping[str, Any]) -> Judge | None:
        if not values.get("synonyms"):
            return None
        judge = cls(values.get("synonyms_note") or "")
        cls.made.append(judge)
        return judge

    def decide(self, questions: Sequence[JudgeQuestion]) -> Sequence[JudgeAnswer]:
        self.asked += len(questions)
        return [JudgeAnswer(equivalent=True, reason="flag judge says yes") for _ in questions]

    def summary(self) -> str | None:
        return f"flag judge: {self.asked} question(s), note {self.note!r}"


class Plugin:
    @hookimpl
    def toolscore_register_judges(self) -> list[Any]:
        return [FlagJudge]


@pytest.fixture
def gold_and_trace(tmp_path: Path) -> tuple[str, str]:
    gold, trace = tmp_path / "gold.json", tmp_path / "trace.json"
    gold.write_text(json.dumps([{"tool": "web_search", "args": {"q": "x"}}]))
    trace.write_text(json.dumps([{"tool": "search_web", "args": {"q": "x"}}]))
    return str(gold), str(trace)


def test_a_judge_plugin_adds_options_to_eval(register_plugin: Any, invoke: Any, gold_and_trace: Any) -> None:
    register_plugin(Plugin(), name="flag-judge-plugin")
    FlagJudge.made.clear()
    result = invoke("eval", *gold_and_trace, "--synonyms", "--synonyms-note", "hi", "--report", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["score"] == pytest.approx(1.0)
    assert len(FlagJudge.made) == 1 and FlagJudge.made[0].asked == 1
    assert "flag judge: 1 question(s), note 'hi'" in result.stderr


def test_without_the_flag_the_judge_is_not_made(register_plugin: Any, invoke: Any, gold_and_trace: Any) -> None:
    register_plugin(Plugin(), name="flag-judge-plugin")
    FlagJudge.made.clear()
    result = invoke("eval", *gold_and_trace)
    assert result.exit_code == 0 and FlagJudge.made == [] and "flag judge" not in result.stderr


def test_options_appear_in_eval_help_only_with_the_plugin(register_plugin: Any, invoke: Any) -> None:
    assert "--synonyms" not in invoke("eval", "--help").stdout
    register_plugin(Plugin(), name="flag-judge-plugin")
    shown = invoke("eval", "--help").stdout
    assert "--synonyms" in shown and shown.rstrip().endswith("Show this message and exit.")


def test_an_option_the_command_already_has_is_ignored_with_a_warning(register_plugin: Any, invoke: Any,
                                                                     gold_and_trace: Any) -> None:
    class Clashing(FlagJudge):
        name = "clashing-judge"

        @classmethod
        def command_options(cls, command: str) -> Sequence[Any]:
            return [click.Option(["--mode"], help="clash")]

    class ClashPlugin:
        @hookimpl
        def toolscore_register_judges(self) -> list[Any]:
            return [Clashing]

    register_plugin(ClashPlugin(), name="clash-plugin")
    result = invoke("eval", *gold_and_trace, "--mode", "unordered")
    assert result.exit_code == 0
    assert "adds --mode to `eval`, which it already has; ignored" in result.stderr


def test_the_evaluation_records_the_score_without_the_judge() -> None:
    gold, trace = [{"tool": "web_search", "args": {"q": "x"}}], [{"tool": "search_web", "args": {"q": "x"}}]
    plain = evaluate(gold, trace)
    judged = evaluate(gold, trace, judge=FlagJudge())
    assert judged.score == pytest.approx(1.0) and plain.score < 1.0
    assert judged.metrics["judge"]["score"] == pytest.approx(judged.score)
    assert judged.metrics["judge"]["score_without_judge"] == pytest.approx(plain.score)
