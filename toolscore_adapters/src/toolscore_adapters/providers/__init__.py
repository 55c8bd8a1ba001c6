"""Adapters for model providers' own formats: OpenAI (Chat Completions and Responses),
Anthropic, Google Gemini, and LangChain / LangGraph messages. One adapter per module."""

from __future__ import annotations

from typing import Any

from toolscore_adapters.providers.anthropic import AnthropicAdapter
from toolscore_adapters.providers.gemini import GeminiAdapter
from toolscore_adapters.providers.langchain import LangChainAdapter
from toolscore_adapters.providers.langgraph import LangGraphAdapter
from toolscore_adapters.providers.openai import OpenAIChatAdapter
from toolscore_adapters.providers.openai_responses import OpenAIResponsesAdapter

ADAPTERS: list[Any] = [
    OpenAIChatAdapter,
    OpenAIResponsesAdapter,
    AnthropicAdapter,
    GeminiAdapter,
    LangChainAdapter,
    LangGraphAdapter,
]
