"""Which provider answers for a model: inferred from its name, as the seed promises.

``gpt-*`` / ``o1``-style names go to the OpenAI Responses API, ``claude-*`` to Anthropic
Messages, ``gemini-*`` to Gemini, and any model with a base URL to an OpenAI-compatible chat
server (Ollama, vLLM, Groq), because a base URL is how a user names a server that is not one
of the three vendors. An explicit provider always wins.
"""

from __future__ import annotations

import re

import attrs

from toolscore_core import InputError
from toolscore_judge.defaults import ALIASES, DEFAULT_MODEL

_O_SERIES = re.compile(r"^o\d")


@attrs.frozen
class Route:
    """A provider name in the ``providers`` registry, its key variable and the extra to install."""

    provider: str
    api_key_env: str | None
    extra: str
    sends_temperature: bool = True


#: provider -> (key variable, the ``toolscore`` extra holding its SDK)
ROUTES: dict[str, Route] = {
    "openai": Route("openai", "OPENAI_API_KEY", "llm"),
    "anthropic": Route("anthropic", "ANTHROPIC_API_KEY", "anthropic", sends_temperature=False),
    "gemini": Route("gemini", "GEMINI_API_KEY", "gemini"),
    "openai-chat": Route("openai-chat", None, "llm"),
}

#: Read when the route's own key variable is unset (tool-scorer 1.10.0 used it for Gemini).
FALLBACK_KEY_ENV = {"gemini": "GOOGLE_API_KEY"}


def _bare(model: str) -> str:
    return model.strip().lower().rsplit("/", 1)[-1]


def route_for(model: str, *, base_url: str | None = None, provider: str | None = None) -> Route:
    """The route for ``model``; an unknown name with no base URL is an InputError saying what to do.

    Anthropic's current API version refuses ``temperature`` (it is deterministic enough only
    through our cache), and OpenAI's reasoning models (``o*``, ``gpt-5*``) refuse it too, so
    those routes do not send it.
    """
    if provider is not None:
        chosen = ROUTES.get(ALIASES.get(provider, provider))
        if chosen is None:
            raise InputError(f"unknown judge provider {provider!r}",
                             expected=", ".join(sorted([*ROUTES, *ALIASES])))
    elif base_url:
        chosen = ROUTES["openai-chat"]
    else:
        name = _bare(model)
        if name.startswith(("gpt-", "chatgpt-")) or _O_SERIES.match(name):
            chosen = ROUTES["openai"]
        elif name.startswith("claude-"):
            chosen = ROUTES["anthropic"]
        elif name.startswith("gemini-"):
            chosen = ROUTES["gemini"]
        else:
            raise InputError(f"cannot tell which provider serves the judge model {model!r}",
                             expected="a gpt-*/o* (OpenAI), claude-* (Anthropic) or gemini-* (Gemini) model",
                             hint="For a local or other OpenAI-compatible server give --llm-base-url "
                                  "(e.g. http://localhost:11434/v1 for Ollama)")
    name = _bare(model)
    if chosen.provider == "openai" and (_O_SERIES.match(name) or name.startswith("gpt-5")):
        return attrs.evolve(chosen, sends_temperature=False)
    return chosen


__all__ = ["ALIASES", "DEFAULT_MODEL", "FALLBACK_KEY_ENV", "ROUTES", "Route", "route_for"]
