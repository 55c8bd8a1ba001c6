"""The judge over each provider, through the real SDK clients and HTTP on 127.0.0.1."""

from __future__ import annotations

import pytest

from toolscore import JudgeConfig, evaluate


def plain(d) -> float:
    return evaluate(d.GOLD, d.TRACE).score



def test_openai_agreeing_judge_makes_the_semantic_trace_perfect(model_server, cache_file, d):
    server = model_server([d.text_answer(True, True)])
    config = JudgeConfig(model="gpt-4o-mini")
    judged = evaluate(d.GOLD, d.TRACE, judge=config)
    assert plain(d) < 0.5
    assert judged.score == pytest.approx(1.0)
    record = judged.metrics["judge"]
    assert record["name"] == "llm:gpt-4o-mini"
    assert record["score_without_judge"] == pytest.approx(plain(d))
    assert (record["matched_tools"], record["matched_arguments"]) == (1, 1)
    # one request for both questions, to the Responses API, with a strict JSON schema and temperature 0
    assert [r.path for r in server.requests] == ["/v1/responses"]
    body = server.requests[0].body
    assert body["model"] == "gpt-4o-mini" and body["temperature"] == 0
    assert body["text"]["format"]["type"] == "json_schema" and body["text"]["format"]["strict"] is True
    assert "search_web" in body["input"][0]["content"] and "NYC" in body["input"][0]["content"]


def test_openai_disagreeing_judge_leaves_the_deterministic_score(model_server, cache_file, d):
    model_server([d.text_answer(False, False)])
    judged = evaluate(d.GOLD, d.TRACE, judge=JudgeConfig(model="gpt-4o-mini"))
    assert judged.score == pytest.approx(plain(d))
    assert judged.metrics["judge"]["matched_tools"] == 0
    assert not [f for f in judged.findings if f.code == "judged-match"]


def test_anthropic_answers_through_a_forced_tool_call(model_server, cache_file, d):
    server = model_server([d.tool_answer(True, False)])
    judged = evaluate(d.GOLD, d.TRACE, judge=JudgeConfig(model="claude-haiku-4-5"))
    # the tool yes pairs the calls; the argument no leaves "NYC" a mismatch
    assert plain(d) < judged.score < 1.0
    assert judged.metrics["judge"]["matched_tools"] == 1 and judged.metrics["judge"]["matched_arguments"] == 0
    assert [r.path.rsplit("/", 1)[-1] for r in server.requests] == ["messages"]
    body = server.requests[0].body
    assert body["tool_choice"] == {"type": "tool", "name": "record_judgments"}
    assert body["tools"][0]["input_schema"]["required"] == ["answers"]
    assert "temperature" not in body  # the current Anthropic API version refuses it


def test_openai_compatible_endpoint_by_base_url(model_server, cache_file, d):
    server = model_server([d.text_answer(True, True)])
    judged = evaluate(d.GOLD, d.TRACE, judge=JudgeConfig(model="llama3.1", base_url=server.base_url))
    assert judged.score == pytest.approx(1.0)
    assert [r.path for r in server.requests] == ["/v1/chat/completions"]
    body = server.requests[0].body
    assert body["response_format"]["type"] == "json_schema" and body["temperature"] == 0


def test_many_questions_are_chunked_into_few_calls(model_server, cache_file, d):
    from toolscore_judge.judge import CHUNK

    n = CHUNK + 5
    gold = [{"tool": "lookup", "args": {"city": f"City {i}"}} for i in range(n)]
    trace = [{"tool": "lookup", "args": {"city": f"city-{i}"}} for i in range(n)]
    server = model_server([d.text_answer(*([True] * CHUNK)), d.text_answer(*([True] * 5))])
    judged = evaluate(gold, trace, judge=JudgeConfig(model="gpt-4o-mini"), mode="in_order")
    assert len(server.requests) == 2
    assert judged.metrics["judge"]["matched_arguments"] == n
    assert judged.score == pytest.approx(1.0)


@pytest.mark.parametrize(("model", "provider"), [
    ("gpt-4o-mini", "openai"), ("o4-mini", "openai"), ("claude-3-5-haiku-latest", "anthropic"),
    ("gemini-2.0-flash", "gemini"), ("openai/gpt-5-mini", "openai")])
def test_provider_is_inferred_from_the_model_name(model, provider):
    from toolscore_judge.routing import route_for

    assert route_for(model).provider == provider
    assert route_for(model, base_url="http://127.0.0.1:1/v1").provider == "openai-chat"


def test_reasoning_models_are_not_sent_a_temperature():
    from toolscore_judge.routing import route_for

    assert route_for("gpt-4o-mini").sends_temperature
    assert not route_for("o4-mini").sends_temperature and not route_for("gpt-5-nano").sends_temperature


def test_tool_scorer_provider_name_and_gemini_key_variable_still_work(monkeypatch):
    from toolscore_judge.judge import LLMJudge
    from toolscore_judge.routing import route_for

    assert route_for("llama3.1", provider="openai_compatible").provider == "openai-chat"
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.setenv("GOOGLE_API_KEY", "x" * 12)
    assert LLMJudge(model="gemini-2.0-flash")._key_env() == "GOOGLE_API_KEY"
    monkeypatch.setenv("GEMINI_API_KEY", "y" * 12)
    assert LLMJudge(model="gemini-2.0-flash")._key_env() == "GEMINI_API_KEY"
