"""Detection across every installed adapter: the framework adapters claim their own files and
live objects, never tie with another adapter, and leave provider, OpenTelemetry and MCP files
to the adapters made for them. Also the bad-input paths through the CLI."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
import toolscore_test_providers_support as S

from toolscore_core.kernel.files import load_data_file
from toolscore_core.kernel.registry import collect
from toolscore_core.kernel.traces import load_trace

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FRAMEWORKS = {"pydantic-ai", "openai-agents", "claude-agent-sdk", "crewai"}
OWN_FILES = {
    "claude_agent_sdk_messages.json": "claude-agent-sdk",
    "claude_agent_sdk_stream.jsonl": "claude-agent-sdk",
    "crewai_crew_output.json": "crewai",
    "crewai_react_crew_output.json": "crewai",
    "crewai_tool_events.json": "crewai",
    "openai_agents_default_error_input_list.json": "openai-agents",
    "openai_agents_new_items.json": "openai-agents",
    "openai_agents_run_state.json": "openai-agents",
    "pydantic_ai_messages.json": "pydantic-ai",
    "pydantic_ai_new_messages_typeadapter.json": "pydantic-ai",
    "pydantic_ai_retry_messages.json": "pydantic-ai",
    "pydantic_ai_v1_retry_messages.json": "pydantic-ai",
}
OTHER_DIRS = ("providers", "otel", "mcp")


@pytest.fixture(scope="module")
def adapters() -> list[Any]:
    from toolscore_core.kernel.plugins import PluginManager

    return collect(PluginManager(autoload=True, strict=True), "adapters").instances()


def _ranking(adapters: list[Any], data: Any) -> list[tuple[float, str]]:
    scores = []
    for adapter in adapters:
        score = float(adapter.detect(data))
        if score > 0:
            scores.append((score, adapter.name))
    return sorted(scores, reverse=True)


def test_every_framework_file_is_listed() -> None:
    assert {p.name for p in (FIXTURES / "frameworks").iterdir()} == set(OWN_FILES) | {"openai_agents_input_list.json"}


@pytest.mark.parametrize("name", sorted(OWN_FILES))
def test_framework_files_are_won_by_their_adapter_without_a_tie(adapters: list[Any], name: str) -> None:
    ranking = _ranking(adapters, load_data_file(FIXTURES / "frameworks" / name, allow_json_lines=True))
    assert ranking[0][1] == OWN_FILES[name]
    assert len(ranking) == 1 or ranking[1][0] < ranking[0][0]
    assert load_trace(FIXTURES / "frameworks" / name).source_format == OWN_FILES[name]


def test_a_plain_agents_input_list_goes_to_openai_responses(adapters: list[Any]) -> None:
    """to_input_list() without the SDK's default error text is a plain Responses item list."""
    ranking = _ranking(adapters, load_data_file(FIXTURES / "frameworks" / "openai_agents_input_list.json"))
    names = [name for _, name in ranking]
    if "openai-responses" not in names:
        pytest.skip("the openai-responses adapter is not installed")
    assert names[0] == "openai-responses" and ranking[1][0] < ranking[0][0]


@pytest.mark.parametrize("path", sorted(p for d in OTHER_DIRS if (FIXTURES / d).is_dir()
                                         for p in (FIXTURES / d).iterdir() if p.suffix in (".json", ".jsonl")),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_framework_adapters_never_win_other_formats(adapters: list[Any], path: Path) -> None:
    ranking = _ranking(adapters, load_data_file(path, allow_json_lines=True))
    if not ranking:
        pytest.skip(f"no adapter claims {path.name} from parsed data (read from the file head)")
    best = ranking[0][0]
    assert all(score < best for score, name in ranking if name in FRAMEWORKS), ranking


@pytest.mark.slow  # imports three SDKs (openai-agents alone takes seconds on a busy machine)
def test_live_objects_are_claimed_by_their_adapter_only(adapters: list[Any]) -> None:
    pytest.importorskip("pydantic_ai")
    pytest.importorskip("agents")
    pytest.importorskip("claude_agent_sdk")
    builders = S.framework_builders()
    pyd = builders.run_pydantic_ai()
    agents_result = builders.run_openai_agents()
    live = {
        "pydantic-ai": [pyd, pyd.all_messages(), pyd.all_messages_json()],
        "openai-agents": [agents_result, agents_result.new_items],
        "claude-agent-sdk": [builders.run_claude_agent_sdk()],
    }
    for expected, objects in live.items():
        for obj in objects:
            ranking = _ranking(adapters, obj)
            assert ranking[0][1] == expected, (type(obj), ranking)
            assert len(ranking) == 1 or ranking[1][0] < ranking[0][0], ranking


def test_cli_validate_reads_a_framework_file(invoke: Any, plugin_manager: Any) -> None:
    from toolscore_adapters import plugin

    plugin_manager.add_plugin(plugin, name="toolscore-adapters", kinds=["adapters"])
    result = invoke("validate", str(FIXTURES / "frameworks" / "pydantic_ai_messages.json"))
    assert result.exit_code == 0, result.output
    assert "pydantic-ai" in result.output and "FAILED" in result.output and "refund_order" in result.output


@pytest.mark.parametrize(("content", "fmt", "message"), [
    (b"", None, "empty"),
    (b'[{"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "t", "args": "{x"', None,
     "not valid JSON"),
    (b"[]", "pydantic-ai", "no tool call found"),  # an empty history reads as no calls; the CLI says so
    (b'[{"type": "system", "subtype": "init", "session_id": "s"}]', "claude-agent-sdk", "no tool use"),
    (b'{"raw": "x", "tasks_output": [], "token_usage": {}}', "crewai", None),
    (b"\xff\xfe[]", "pydantic-ai", "UTF-8"),
])
def test_bad_files_exit_2_with_a_message(invoke: Any, plugin_manager: Any, tmp_path: Path,
                                         content: bytes, fmt: str | None, message: str | None) -> None:
    from toolscore_adapters import plugin

    plugin_manager.add_plugin(plugin, name="toolscore-adapters", kinds=["adapters"])
    path = tmp_path / "run.json"
    path.write_bytes(content)
    args = ["validate", str(path), *(["--format", fmt] if fmt else [])]
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert "run.json" in result.output
    if message:
        assert message in result.output


HOSTILE = [
    [{"type": ["tool_call_item"], "raw_item": {}}],
    [{"_type": {"AssistantMessage": 1}, "content": []}],
    [{"kind": "response", "parts": [{"part_kind": ["tool-call"]}]}],
    [{"kind": "request", "parts": [{"part_kind": "tool-return", "tool_call_id": "a", "outcome": {"x": 1}}]}],
    [{"type": {"tool_usage_started": 1}, "tool_name": "t"}],
    [{"type": "assistant", "message": {"content": []}, "tool_use_meta": True, "session_id": "s"}],
    {"raw": "x", "tasks_output": [{"messages": [], "tool_failures": 3}]},
    [{"type": [1], "name": "t", "call_id": "c"}],
    b"\xff\xfe[{\"part_kind\"",
    "[" * 5000,
    None, 0, 1.5, "", b"", [], {}, [None], [[]],
]


@pytest.mark.parametrize("data", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_values_give_zero_or_an_input_error_never_a_crash(data: Any) -> None:
    from toolscore_adapters.frameworks import ADAPTERS
    from toolscore_core import InputError, Trace

    for cls in ADAPTERS:
        adapter = cls()
        assert 0.0 <= float(adapter.detect(data)) <= 1.0
        with contextlib.suppress(InputError):
            assert isinstance(adapter.load(data), Trace)
