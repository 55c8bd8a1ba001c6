"""The facade helpers for frameworks (``from toolscore import from_pydantic_ai`` ...) on live
runs and saved files, with the seed's dict-style access to the calls."""

from __future__ import annotations

from typing import Any

import pytest
import toolscore_test_providers_support as S

FIXTURES = S.FRAMEWORK_FIXTURES
EXPECTED = [
    ("lookup_customer", False),
    ("list_orders", False),
    ("refund_order", True),
    ("notify", False),
]


def _outline(calls: list[Any]) -> list[tuple[str, Any]]:
    return [(call["tool"], call["is_error"]) for call in calls]


def test_from_pydantic_ai_on_a_live_run_and_a_file() -> None:
    pytest.importorskip("pydantic_ai")
    from toolscore import from_pydantic_ai

    assert _outline(from_pydantic_ai(S.framework_builders().run_pydantic_ai())) == EXPECTED
    calls = from_pydantic_ai(FIXTURES / "pydantic_ai_v1_retry_messages.json")
    assert _outline(calls) == EXPECTED and calls[2]["error"] == "Refund window has closed"


def test_from_openai_agents_applies_the_error_heuristic_to_input_lists() -> None:
    from toolscore import from_openai_agents

    calls = from_openai_agents(FIXTURES / "openai_agents_input_list.json")
    assert _outline(calls) == EXPECTED
    assert calls[2]["error"] == "Refund window has closed"


def test_from_claude_agent_sdk_on_live_messages_and_stream_lines() -> None:
    pytest.importorskip("claude_agent_sdk")
    from toolscore import from_claude_agent_sdk

    assert _outline(from_claude_agent_sdk(S.framework_builders().run_claude_agent_sdk())) == EXPECTED
    assert _outline(from_claude_agent_sdk(str(FIXTURES / "claude_agent_sdk_stream.jsonl"))) == EXPECTED


def test_from_crewai_on_the_schema_built_files() -> None:
    from toolscore import from_crewai

    assert _outline(from_crewai(FIXTURES / "crewai_crew_output.json")) == EXPECTED
    assert _outline(from_crewai(FIXTURES / "crewai_tool_events.json")) == EXPECTED
