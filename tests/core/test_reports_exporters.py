"""The evaluation exporters: registered as plugins, same facts in every format, safe output."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest

from toolscore_core.kernel.interfaces import exporter_name
from toolscore_core.kernel.model import Evaluation
from toolscore_core.kernel.registry import collect, instantiate
from toolscore_core.scoring.evaluation import evaluate
from toolscore_core.scoring.matchers import Contains, Regex

GUARDRAILS = Path(__file__).parents[2] / "examples" / "guardrails"
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
FORMATS = ("console", "md", "html", "json", "junit")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _export(plugin_manager: Any, fmt: str, evaluation: Evaluation, stream: io.StringIO | None = None,
            **options: Any) -> str:
    registry = collect(plugin_manager, "exporters")
    exporter = instantiate(registry.get(exporter_name("evaluation", fmt)))
    out = stream or io.StringIO()
    exporter.export(evaluation, out, **options)
    return out.getvalue()


@pytest.fixture
def guardrails_eval() -> Evaluation:
    trace = json.loads((GUARDRAILS / "trace.json").read_text(encoding="utf-8"))
    return evaluate(
        [{"tool": "run_shell", "args": {"command": "make test"}}, {"tool": "deploy", "args": {"env": "production"}}],
        trace,
        forbidden=[{"tool": "run_shell", "args": {"command": Regex("rm -rf.*")}, "reason": "destructive shell command"},
                   {"tool": "read_file", "args": {"path": Contains(".ssh")}, "reason": "private keys"}],
    )


@pytest.fixture
def hostile_eval() -> Evaluation:
    """Arguments full of markup, table syntax, control characters and a credential."""
    return evaluate(
        [{"tool": "search", "args": {"q": "a|b"}}],
        [{"tool": "search", "args": {"q": "<script>alert('x')</script> | ** `tick` \x07 ∑ 日本"}},
         {"tool": "http_post", "args": {"body": {"text": f"token {AWS_KEY}"}}}],
    )


def test_every_format_is_a_registered_exporter(plugin_manager: Any) -> None:
    names = collect(plugin_manager, "exporters").names()
    for fmt in FORMATS:
        assert exporter_name("evaluation", fmt) in names


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_format_ever_prints_a_credential(plugin_manager: Any, hostile_eval: Evaluation, fmt: str) -> None:
    text = _export(plugin_manager, fmt, hostile_eval)
    assert AWS_KEY not in text
    if fmt != "json":
        assert "AKIA…LE" in text


def test_console_is_plain_off_a_terminal_and_coloured_on_one(plugin_manager: Any,
                                                            guardrails_eval: Evaluation) -> None:
    plain = _export(plugin_manager, "console", guardrails_eval)
    assert "\x1b[" not in plain
    assert all(line == line.rstrip() for line in plain.splitlines())
    assert max(len(line) for line in plain.splitlines()) <= 100
    coloured = _export(plugin_manager, "console", guardrails_eval, _Terminal())
    assert "\x1b[" in coloured
    assert "Grade" in coloured


def test_console_example_3_behaviour_section(plugin_manager: Any, guardrails_eval: Evaluation) -> None:
    text = _export(plugin_manager, "console", guardrails_eval)
    section = text[text.index("Behavior and safety"):].splitlines()
    assert section[1:5] == [
        "  ERROR    call 2 run_shell matches forbidden rule 1: destructive shell command",
        "  ERROR    call 3 http_post passes a credential (aws_access_key_id) in 'body.text': AKIA…LE",
        "  WARNING  2 of 5 tool calls failed (deploy x2)",
        "  WARNING  1 call repeats a failed call with the same arguments",
    ]
    assert "Required calls completed: 1 of 2 (missing or failed; not part of the default score)" in text
    assert "unexpected call (call 2)" in text


def test_markdown_escapes_table_syntax(plugin_manager: Any, hostile_eval: Evaluation) -> None:
    text = _export(plugin_manager, "md", hostile_eval)
    table = [line for line in text.splitlines() if line.startswith("| 1 |")]
    assert len(table) == 1
    # Exactly the 5 column separators of a 4-column row: no pipe from the data breaks it.
    assert table[0].replace("\\|", "").count("|") == 5
    # Outside code spans (where Markdown shows text literally) markup is escaped: a real
    # Markdown parser finds no raw HTML anywhere in the report.
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    kinds = {t.type for t in tokens} | {c.type for t in tokens for c in (t.children or [])}
    assert "html_inline" not in kinds and "html_block" not in kinds
    assert "&lt;script&gt;" in text


def test_html_is_self_contained_and_escaped(plugin_manager: Any, hostile_eval: Evaluation) -> None:
    text = _export(plugin_manager, "html", hostile_eval)
    assert text.startswith("<!DOCTYPE html>")
    assert "<script" not in text
    assert "&lt;script&gt;" in text
    assert "http://" not in text and "https://" not in text
    assert "<link" not in text and "<img" not in text
    assert "日本" in text


def test_json_is_the_evaluation_to_dict(plugin_manager: Any, guardrails_eval: Evaluation) -> None:
    data = json.loads(_export(plugin_manager, "json", guardrails_eval))
    assert data == json.loads(json.dumps(guardrails_eval.to_dict()))
    assert data["grade"] == guardrails_eval.grade


def test_junit_has_a_case_per_expected_call_rule_and_finding(plugin_manager: Any,
                                                             guardrails_eval: Evaluation) -> None:
    from toolscore_core.kernel.model import ForbiddenRule

    rules = [ForbiddenRule("run_shell", {"command": Regex("rm -rf.*")}, "destructive shell command"),
             ForbiddenRule("read_file", {"path": Contains(".ssh")}, "private keys")]
    root = ET.fromstring(_export(plugin_manager, "junit", guardrails_eval, forbidden=rules))
    suite = root.find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    by_class: dict[str, list[ET.Element]] = {}
    for case in cases:
        by_class.setdefault(case.get("classname", ""), []).append(case)
    assert len(by_class["toolscore.eval.expected"]) == 2
    forbidden = by_class["toolscore.eval.forbidden"]
    assert len(forbidden) == 2
    broken = forbidden[0].find("failure")
    assert broken is not None and broken.get("message") == "broken by call 2 run_shell"
    assert forbidden[1].find("failure") is None
    safety = by_class["toolscore.eval.safety"]
    failing = [c for c in safety if c.find("failure") is not None]
    assert any("credential" in (c.find("failure").get("message") or "") for c in failing)  # type: ignore[union-attr]
    assert suite.get("tests") == str(len(cases))
    assert suite.get("failures") == str(sum(1 for c in cases if c.find("failure") is not None))


def test_junit_marks_a_score_below_the_bar(plugin_manager: Any) -> None:
    evaluation = evaluate([{"tool": "a"}, {"tool": "b"}, {"tool": "c"}], [{"tool": "a"}], min_score=0.9)
    root = ET.fromstring(_export(plugin_manager, "junit", evaluation))
    score = [c for c in root.iter("testcase") if c.get("classname") == "toolscore.eval.score"]
    assert len(score) == 1
    failure = score[0].find("failure")
    assert failure is not None and "below the required 90.0%" in (failure.get("message") or "")


def test_reports_stay_bounded_on_long_traces(plugin_manager: Any) -> None:
    expected = [{"tool": f"t{i % 7}", "args": {"n": i}} for i in range(600)]
    actual = [{"tool": f"t{i % 7}", "args": {"n": i if i % 3 else -1}, "result": "x" * 5000} for i in range(600)]
    evaluation = evaluate(expected, actual)
    console = _export(plugin_manager, "console", evaluation)
    assert "more row(s) not shown" in console
    assert len(console) < 20_000
    assert "x" * 200 not in console
    for fmt in ("md", "html"):
        text = _export(plugin_manager, fmt, evaluation)
        assert "more row(s) not shown" in text
        assert len(text) < 80_000


def test_a_perfect_run_shows_no_table(plugin_manager: Any) -> None:
    evaluation = evaluate([{"tool": "a", "args": {"x": 1}}], [{"tool": "a", "args": {"x": 1}, "result": 1}])
    text = _export(plugin_manager, "console", evaluation)
    assert "Grade A   PASS (100.0%)" in text
    assert "Expected vs Actual" not in text
    assert "Required calls completed: 1 of 1" in text
