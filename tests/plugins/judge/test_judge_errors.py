"""What goes wrong: a malformed answer, a missing key, an unreachable endpoint, the budget."""

from __future__ import annotations

import json

import pytest

from toolscore import JudgeConfig, evaluate
from toolscore_core import BudgetStopped, InputError, PluginError


@pytest.mark.parametrize("entry", [
    {"text": "yes, both are the same"},  # free text, not JSON
    {"text": json.dumps({"answers": [{"id": 0, "equivalent": True, "reason": "x", "confidence": 1}]})},  # 1 of 2
    {"text": json.dumps({"answers": [{"id": 0, "equivalent": "yes", "reason": "x", "confidence": 1},
                                     {"id": 1, "equivalent": True, "reason": "x", "confidence": 1}]})},  # a string
    {"text": json.dumps({"answers": [{"id": 0, "equivalent": True, "reason": "x", "confidence": 1},
                                     {"id": 0, "equivalent": True, "reason": "x", "confidence": 1}]})},  # id twice
    {"text": json.dumps({"verdicts": []})},  # another shape
], ids=["free-text", "wrong-count", "wrong-type", "duplicate-id", "wrong-shape"])
def test_a_malformed_answer_is_an_error_naming_the_model_never_a_match(model_server, cache_file, d, entry):
    model_server([entry])
    config = JudgeConfig(model="gpt-4o-mini")
    with pytest.raises(PluginError, match=r"gpt-4o-mini") as caught:
        evaluate(d.GOLD, d.TRACE, judge=config)
    assert "malformed" in str(caught.value)
    assert not cache_file.exists() or not __import__("sqlite3").connect(cache_file).execute(
        "SELECT * FROM judgments").fetchall()  # nothing malformed was cached


def test_anthropic_answer_without_the_tool_call_is_malformed(model_server, cache_file, d):
    model_server([{"text": json.dumps(d.judgments(True, True))}])
    with pytest.raises(PluginError, match=r"claude-haiku-4-5.*record_judgments"):
        evaluate(d.GOLD, d.TRACE, judge=JudgeConfig(model="claude-haiku-4-5"))


def test_missing_key_names_the_variable_only(model_server, cache_file, d, monkeypatch):
    model_server([d.text_answer(True, True)])
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(InputError, match="OPENAI_API_KEY"):
        evaluate(d.GOLD, d.TRACE, judge=JudgeConfig(model="gpt-4o-mini"))


def test_unreachable_endpoint_is_an_input_error(cache_file, d):
    with pytest.raises(InputError, match=r"cannot reach the judge model 'llama3\.1' at http://127\.0\.0\.1:9/v1"):
        evaluate(d.GOLD, d.TRACE, judge=JudgeConfig(model="llama3.1", base_url="http://127.0.0.1:9/v1",
                                                    max_retries=0))


def test_budget_stops_before_a_call_that_could_exceed_it(model_server, cache_file, d):
    server = model_server([d.text_answer(True, True)])
    with pytest.raises(BudgetStopped, match=r"--llm-max-usd \$1e-06"):
        evaluate(d.GOLD, d.TRACE, judge=JudgeConfig(model="gpt-4o-mini", max_usd=0.000001))
    assert server.requests == []  # stopped before, not after


def test_budget_with_an_unpriced_model_is_refused_up_front(model_server, cache_file, d):
    server = model_server([d.text_answer(True, True)])
    with pytest.raises(InputError):
        evaluate(d.GOLD, d.TRACE, judge=JudgeConfig(model="llama3.1", base_url=server.base_url, max_usd=1.0))
    assert server.requests == []


def test_unpriced_model_cost_is_unknown_never_zero(model_server, cache_file, d):
    server = model_server([d.text_answer(True, True)])
    config = JudgeConfig(model="llama3.1", base_url=server.base_url)
    evaluate(d.GOLD, d.TRACE, judge=config)
    line = config.summary() or ""
    assert "cost unknown" in line and "$0" not in line
    assert config.usage()["cost_usd"] is None


def test_unknown_model_name_without_base_url_says_what_to_do(d):
    with pytest.raises(InputError, match="--llm-base-url"):
        evaluate(d.GOLD, d.TRACE, judge=JudgeConfig(model="llama3.1"))


def test_missing_sdk_names_the_extra_to_install(model_server, cache_file, d, monkeypatch):
    import sys

    model_server([d.text_answer(True, True)])
    monkeypatch.setenv("GEMINI_API_KEY", d.KEY)
    monkeypatch.setitem(sys.modules, "google.genai", None)  # what an uninstalled SDK looks like to import
    with pytest.raises(InputError, match=r"google-genai SDK") as caught:
        evaluate(d.GOLD, d.TRACE, judge=JudgeConfig(model="gemini-2.0-flash"))
    assert "pip install 'toolscore[gemini]'" in str(caught.value)
