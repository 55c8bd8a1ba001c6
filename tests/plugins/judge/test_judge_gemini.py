"""Gemini: the provider added to toolscore-providers, through google-genai over HTTP on 127.0.0.1."""

from __future__ import annotations

import pytest

from toolscore import JudgeConfig, evaluate
from toolscore_core import InputError, PluginError


@pytest.fixture
def gemini(model_server, monkeypatch, d):
    def start(script):
        server = model_server(script)
        monkeypatch.setenv("GEMINI_API_KEY", d.KEY)
        return server, JudgeConfig(model="gemini-2.0-flash", provider="gemini", base_url=server.base_url,
                                   max_retries=0)
    return start


def test_gemini_judge_uses_a_response_schema_and_changes_the_score(gemini, d):
    server, config = gemini([d.text_answer(True, True)])
    judged = evaluate(d.GOLD, d.TRACE, judge=config)
    assert judged.score == pytest.approx(1.0)
    (request,) = server.requests
    assert request.path.endswith("/models/gemini-2.0-flash:generateContent")
    generation = request.body["generationConfig"]
    assert generation["temperature"] == 0 and generation["responseMimeType"] == "application/json"
    assert generation["responseJsonSchema"]["required"] == ["answers"]
    assert request.headers["x-goog-api-key"] == "[redacted]"  # sent, and hidden in the record
    assert "$0.000018" in (config.summary() or "")  # priced from the kernel table


def test_gemini_disagreeing_judge_keeps_the_plain_score(gemini, d):
    _server, config = gemini([d.text_answer(False, False)])
    assert evaluate(d.GOLD, d.TRACE, judge=config).score == pytest.approx(evaluate(d.GOLD, d.TRACE).score)


def test_gemini_api_error_is_a_provider_error_without_the_key(gemini, d):
    _server, config = gemini([{"error": 400, "message": f"API key not valid: {d.KEY}"}])
    with pytest.raises(PluginError, match="HTTP 400") as caught:
        evaluate(d.GOLD, d.TRACE, judge=config)
    assert d.KEY not in str(caught.value)


def test_gemini_missing_key_names_the_variable(model_server, monkeypatch, d):
    server = model_server([d.text_answer(True, True)])
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    with pytest.raises(InputError, match="GEMINI_API_KEY"):
        evaluate(d.GOLD, d.TRACE, judge=JudgeConfig(model="gemini-2.0-flash", provider="gemini",
                                                    base_url=server.base_url))


def test_gemini_provider_reads_tool_calls_and_usage(model_server, d):
    import google.genai

    from toolscore_core import ModelRequest, ToolDefinition, UserMessage
    from toolscore_providers import GeminiProvider

    server = model_server([{"calls": [{"tool": "get_weather", "args": {"city": "Paris"}}],
                            "usage": {"input_tokens": 30, "output_tokens": 7, "cached_tokens": 5}}])
    client = google.genai.Client(api_key=d.KEY, http_options={"base_url": server.base_url})
    provider = GeminiProvider("gemini-2.5-flash", client=client)
    turn = provider.complete(ModelRequest(messages=(UserMessage("weather?"),), tools=(
        ToolDefinition(name="get_weather", input_schema={"type": "object", "properties": {"city": {"type": "string"}}}),)))
    assert [(c.name, c.arguments) for c in turn.tool_calls] == [("get_weather", {"city": "Paris"})]
    assert turn.stop_reason == "tool_use"
    assert (turn.usage.input_tokens, turn.usage.output_tokens, turn.usage.cached_tokens) == (30, 7, 5)
    declared = server.requests[0].body["tools"][0]["functionDeclarations"][0]
    assert declared["name"] == "get_weather"
