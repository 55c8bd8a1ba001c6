"""toolscore-providers: the model providers of the agent harness and the LLM judge.

``scripted`` (offline, free), ``openai`` (the OpenAI Responses API), ``anthropic``
(Anthropic Messages) and ``openai-chat`` (any OpenAI-compatible Chat Completions server:
vLLM, Ollama, LM Studio), ``gemini`` (Google's generateContent API), registered in the ``toolscore.providers`` entry-point group, and
:mod:`toolscore_providers.fake_server`, a scripted model server for offline tests.

Names resolve on first use so importing the package (as plugin listing does) loads no SDK.
"""

from __future__ import annotations

from toolscore_core import lazy_attributes

__version__ = "0.1.0"

_LAZY: dict[str, str] = {
    "ScriptedProvider": "toolscore_providers.scripted",
    "OpenAIResponsesProvider": "toolscore_providers.openai_responses",
    "OpenAIChatProvider": "toolscore_providers.openai_chat",
    "AnthropicMessagesProvider": "toolscore_providers.anthropic_messages",
    "GeminiProvider": "toolscore_providers.gemini",
    "RetryPolicy": "toolscore_providers.retry",
    "ToolNameMap": "toolscore_providers.names",
    "FakeModelServer": "toolscore_providers.fake_server",
}

__all__ = ["__version__", *sorted(_LAZY)]


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, extra=("__version__",))
