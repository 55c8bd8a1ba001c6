"""Hook implementations of toolscore-providers: the only module its entry point names.

It imports nothing at its top but the kernel's hook marker, and each provider module only
when the providers registry is built; no module imports an SDK before a model is called,
so ``toolscore --help`` and plugin listings stay cheap.
"""

from __future__ import annotations

from typing import Any

from toolscore_core import hookimpl


@hookimpl
def toolscore_register_providers() -> list[Any]:
    """The scripted, OpenAI Responses, Anthropic Messages, OpenAI-compatible chat and Gemini providers."""
    from toolscore_providers import (
        AnthropicMessagesProvider,
        GeminiProvider,
        OpenAIChatProvider,
        OpenAIResponsesProvider,
        ScriptedProvider,
    )

    return [ScriptedProvider, OpenAIResponsesProvider, AnthropicMessagesProvider, OpenAIChatProvider, GeminiProvider]
