"""The facade's explicit helpers (``toolscore.from_openai`` ...) and evaluate() on live SDK output."""

from __future__ import annotations

import pytest
import toolscore_test_providers_support as S

from toolscore_core import InputError, ToolCall

B = S.builders()
FIX = S.FIXTURES
FRAMEWORKS = FIX.parent / "frameworks"
OTEL = FIX.parent / "otel"


def test_facade_names_resolve_to_the_helpers():
    import toolscore
    from toolscore_adapters import helpers

    for name in ("from_openai", "from_anthropic", "from_gemini", "from_langgraph", "from_pydantic_ai",
                 "from_openai_agents", "from_claude_agent_sdk", "from_crewai", "from_otel"):
        assert getattr(toolscore, name) is getattr(helpers, name)


def test_from_openai_reads_both_openai_apis(installed_plugin_manager):
    from toolscore import from_openai

    chat = from_openai(B.build_openai_chat_completion(), pm=installed_plugin_manager)
    responses = from_openai(B.build_openai_response(), pm=installed_plugin_manager)
    for calls in (chat, responses):
        assert all(isinstance(c, ToolCall) for c in calls)
        assert [c["tool"] for c in calls] == ["list_orders", "get_refund_policy"]
        assert calls[0]["args"] == {"customer_id": "C-17"}
    assert {c.provider for c in chat} == {"openai"} and {c.provider for c in responses} == {"openai-responses"}


def test_from_openai_on_a_path_and_a_path_string(installed_plugin_manager):
    from toolscore import from_openai

    path = FIX / "openai_responses_input.json"
    assert len(from_openai(path, pm=installed_plugin_manager)) == 5
    assert len(from_openai(str(FIX / "openai_messages.jsonl"), pm=installed_plugin_manager)) == 5


def test_from_openai_error_names_the_file(tmp_path, installed_plugin_manager):
    from toolscore import from_openai

    path = tmp_path / "bad.json"
    path.write_text('[{"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "", "arguments": "{}"}}]}]')
    with pytest.raises(InputError) as err:
        from_openai(path, pm=installed_plugin_manager)
    assert err.value.file == str(path) and err.value.location == "$[0].tool_calls[0].function.name"


def test_provider_helpers_on_live_objects(installed_plugin_manager):
    from toolscore import from_anthropic, from_gemini, from_langgraph

    pm = installed_plugin_manager
    assert [c["id"] for c in from_anthropic(B.build_anthropic_messages(), pm=pm)] == \
        [cid for cid, _, _ in S.expected_calls("toolu_")]
    assert [c["tool"] for c in from_gemini(B.build_gemini_contents(), pm=pm)] == \
        [tool for _, tool, _ in S.expected_calls()]
    state = B.build_langgraph_state()
    assert [c["is_error"] for c in from_langgraph(state, pm=pm)] == [False, False, False, True, False]
    assert len(from_langgraph(list(state["messages"]), pm=pm)) == 5


def test_a_helper_refuses_another_format_instead_of_guessing(installed_plugin_manager):
    from toolscore import from_anthropic

    with pytest.raises(InputError, match="OpenAI Chat Completions"):
        from_anthropic(B.build_openai_messages(), pm=installed_plugin_manager)


@pytest.mark.parametrize(("helper", "path"), [
    ("from_pydantic_ai", FRAMEWORKS / "pydantic_ai_messages.json"),
    ("from_openai_agents", FRAMEWORKS / "openai_agents_new_items.json"),
    ("from_claude_agent_sdk", FRAMEWORKS / "claude_agent_sdk_messages.json"),
    ("from_crewai", FRAMEWORKS / "crewai_tool_events.json"),
    ("from_otel", OTEL / "seed_structured.json"),
])
def test_framework_and_protocol_helpers_use_their_adapter(helper, path, installed_plugin_manager):
    import toolscore

    assert path.is_file(), f"{path.name} is missing: regenerate it with its tests/adapters/make_fixtures_*.py script"
    calls = getattr(toolscore, helper)(path, pm=installed_plugin_manager)
    assert calls and all(isinstance(c, ToolCall) for c in calls)


def test_evaluate_accepts_a_live_sdk_response(installed_plugin_manager):
    from toolscore import evaluate

    result = evaluate(
        expected=[{"tool": "list_orders", "args": {"customer_id": "C-17"}}, {"tool": "get_refund_policy", "args": {}}],
        actual=B.build_openai_chat_completion(),
        plugin_manager=installed_plugin_manager,
    )
    assert result.actual.source_format == "openai"
    assert result.selection_accuracy == 1.0
    assert result.argument_f1 == 1.0


def test_evaluate_trace_reads_provider_files_json_lines_included(tmp_path, installed_plugin_manager):
    import json

    from toolscore import evaluate_trace

    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([{"tool": tool, "args": args} for _, tool, args in S.expected_calls()]),
                    encoding="utf-8")
    for name in ("openai_messages.jsonl", "anthropic_messages.json", "gemini_contents_camel.json",
                 "langgraph_stream_updates.json"):
        result = evaluate_trace(gold, FIX / name, plugin_manager=installed_plugin_manager)
        assert result.selection_accuracy == 1.0, name
        assert result.argument_f1 == 1.0, name
        assert len(result.actual.calls) == 5
