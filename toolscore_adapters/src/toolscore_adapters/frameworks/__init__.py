"""Adapters for agent frameworks: Pydantic AI, OpenAI Agents SDK, Claude Agent SDK, CrewAI.

Each module reads one framework's live run objects and saved forms without importing the
framework at module level (live objects are recognised by their class's package).
"""

from __future__ import annotations

from typing import Any

from toolscore_adapters.frameworks.claude_agent_sdk import ClaudeAgentSDKAdapter
from toolscore_adapters.frameworks.crewai import CrewAIAdapter
from toolscore_adapters.frameworks.openai_agents import OpenAIAgentsAdapter
from toolscore_adapters.frameworks.pydantic_ai import PydanticAIAdapter

ADAPTERS: list[Any] = [PydanticAIAdapter, OpenAIAgentsAdapter, ClaudeAgentSDKAdapter, CrewAIAdapter]
