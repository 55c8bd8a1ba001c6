"""Auto-detection across every installed adapter, and bad input read from files.

Each provider fixture must be claimed by the right adapter with a clear margin over the
runner-up (a tie is an error for the user), mixed-provider histories must be refused with
both places named, and broken files must give one InputError, never a traceback.
"""

from __future__ import annotations

import json

import pytest
import toolscore_test_providers_support as S

from toolscore_core import InputError
from toolscore_core.kernel.files import load_data_file
from toolscore_core.kernel.traces import adapter_registry, load_trace, load_trace_file

FIX = S.FIXTURES

EXPECTED_FORMAT = {
    "openai_chat_completion.json": "openai",
    "openai_messages.json": "openai",
    "openai_messages.jsonl": "openai",
    "openai_legacy_function_call.json": "openai",
    "openai_stream_chunks.json": "openai",
    "openai_responses_response.json": "openai-responses",
    "openai_responses_input.json": "openai-responses",
    "anthropic_message.json": "anthropic",
    "anthropic_messages.json": "anthropic",
    "gemini_response_camel.json": "gemini",
    "gemini_response_snake.json": "gemini",
    "gemini_contents_camel.json": "gemini",
    "gemini_contents_snake.json": "gemini",
    "langchain_messages_to_dict.json": "langchain",
    "langchain_dumpd.json": "langchain",
    "langchain_model_dump.json": "langchain",
    "langgraph_state_dumpd.json": "langgraph",
    "langgraph_state_messages_to_dict.json": "langgraph",
    "langgraph_stream_updates.json": "langgraph",
}


def test_every_fixture_file_is_listed():
    assert {p.name for p in FIX.iterdir()} == set(EXPECTED_FORMAT)


@pytest.mark.parametrize("name", sorted(EXPECTED_FORMAT))
def test_fixture_is_claimed_by_its_adapter_with_a_margin(name, installed_plugin_manager):
    data = load_data_file(FIX / name, allow_json_lines=True)
    scores = sorted(((float(a.detect(data)), a.name) for a in adapter_registry(installed_plugin_manager).instances()),
                    reverse=True)
    (best, winner), (second, runner_up) = scores[0], scores[1]
    assert winner == EXPECTED_FORMAT[name]
    assert best - second >= 0.1, f"{runner_up} is too close ({second:.2f} vs {best:.2f})"
    assert load_trace_file(FIX / name, pm=installed_plugin_manager).source_format == winner


def test_provider_adapters_claim_no_other_distribution_fixture(installed_plugin_manager):
    """Frameworks and protocol fixtures (H4/H5) must never be won by a provider adapter."""
    providers = {"openai", "openai-responses", "anthropic", "gemini", "langchain", "langgraph"}
    adapters = adapter_registry(installed_plugin_manager).instances()
    checked = 0
    for folder in ("frameworks", "otel", "mcp"):
        for path in sorted((FIX.parent / folder).glob("*.json*")) if (FIX.parent / folder).is_dir() else []:
            try:
                data = load_data_file(path, allow_json_lines=True)
            except InputError:
                continue
            scores = sorted(((float(a.detect(data)), a.name) for a in adapters), reverse=True)
            if scores[0][0] > 0:
                checked += 1
                assert scores[0][1] not in providers or path.name.startswith("openai_agents_input"), path.name
    assert checked > 0, "no framework/protocol fixtures found"


def test_plain_chat_without_tool_calls_does_not_tie(installed_plugin_manager):
    trace = load_trace([{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"},
                        {"role": "assistant", "content": "hello"}], pm=installed_plugin_manager)
    assert trace.source_format == "openai" and trace.calls == () and trace.final_answer == "hello"


# ------------------------------------------------------------------------- mixed providers

MIXED = [
    {"role": "user", "content": "refund A-1"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "refund", "input": {}}]},
]


def test_mixed_history_is_refused_naming_both_places(installed_plugin_manager):
    with pytest.raises(InputError) as err:
        load_trace(MIXED, pm=installed_plugin_manager)
    text = str(err.value)
    assert "mixes providers" in text and "$[1]" in text and "$[3]" in text
    assert "OpenAI Chat Completions" in text and "Anthropic" in text


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_mixed_history_is_refused_whatever_format_is_named(fmt, installed_plugin_manager):
    with pytest.raises(InputError, match="mixes providers"):
        load_trace(MIXED, format=fmt, pm=installed_plugin_manager)


def test_mixed_gemini_and_langchain_in_one_list(installed_plugin_manager):
    data = [{"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
            {"type": "ai", "data": {"content": "", "tool_calls": [{"name": "g", "args": {}, "id": "1"}]}}]
    with pytest.raises(InputError, match="mixes providers"):
        load_trace(data, pm=installed_plugin_manager)


def test_another_providers_list_under_the_wrong_format_says_which_it_is(installed_plugin_manager):
    data = load_data_file(FIX / "anthropic_messages.json")
    with pytest.raises(InputError) as err:
        load_trace(data, format="openai", pm=installed_plugin_manager)
    assert "Anthropic" in str(err.value) and "--format anthropic" in str(err.value)


# ------------------------------------------------------------------------------ bad files


def test_truncated_json_file(tmp_path, installed_plugin_manager):
    text = (FIX / "openai_messages.json").read_text(encoding="utf-8")
    path = tmp_path / "cut.json"
    path.write_text(text[: len(text) // 2], encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_trace_file(path, pm=installed_plugin_manager)
    assert str(path) in str(err.value) and "not valid JSON" in str(err.value) and "line" in str(err.value)


def test_zero_byte_file(tmp_path, installed_plugin_manager):
    path = tmp_path / "empty.json"
    path.write_bytes(b"")
    with pytest.raises(InputError, match="empty"):
        load_trace_file(path, format="openai", pm=installed_plugin_manager)


def test_invalid_utf8_file(tmp_path, installed_plugin_manager):
    path = tmp_path / "latin1.json"
    path.write_bytes('[{"role": "user", "content": "caf\u00e9"}]'.encode("latin-1"))
    with pytest.raises(InputError, match="not valid UTF-8"):
        load_trace_file(path, pm=installed_plugin_manager)


def test_arguments_not_json_in_a_file_keep_the_call_and_its_place(tmp_path, installed_plugin_manager):
    data = load_data_file(FIX / "openai_messages.json")
    data[2]["tool_calls"][0]["function"]["arguments"] = '{"email": "jane@example.com"'
    path = tmp_path / "bad_args.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    call = load_trace_file(path, pm=installed_plugin_manager).calls[0]
    assert call.args is None and call.metadata["raw_arguments"] == '{"email": "jane@example.com"'
    assert call.metadata["location"] == "$[2].tool_calls[0]"


def test_unicode_tool_names_and_arguments_survive(tmp_path, installed_plugin_manager):
    data = [{"role": "assistant", "content": [
        {"type": "tool_use", "id": "t", "name": "recherche_météo", "input": {"ville": "Zürich 🌧"}}]}]
    path = tmp_path / "unicode.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    call = load_trace_file(path, pm=installed_plugin_manager).calls[0]
    assert (call.tool, call.args) == ("recherche_météo", {"ville": "Zürich 🌧"})
