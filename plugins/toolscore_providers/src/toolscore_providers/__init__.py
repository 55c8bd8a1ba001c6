"""toolscore-providers: the model providers of the agent harness and the LLM judge.

``scripted`` (offline, free), ``openai`` (the OpenAI Responses API), ``anthropic``
(Anthropic Messages) and ``openai-chat`` (any OpenAI-compatible Chat Completions server:
vLLM, Ollama, LM Studio), registered in the ``toolscore.providers`` entry-point group, and
:mod:`toolscore_providers.fake_server`, a scripted model server for offline tests.

Names resolve on first use so importing the package (as plugin listing does) loads no SDK.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_LAZY: dict[str, str] = {
    "ScriptedProvider": "toolscore_providers.scripted",
    "OpenAIResponsesProvider": "toolscore_providers.openai_responses",
    "OpenAIChatProvider": "toolscore_providers.openai_chat",
    "AnthropicMessagesProvider": "toolscore_providers.anthropic_messages",
    "RetryPolicy": "toolscore_providers.retry",
    "ToolNameMap": "toolscore_providers.names",
    "FakeModelServer": "toolscore_providers.fake_server",
}

__all__ = ["__version__", *sorted(_LAZY)]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolscore_providers' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
