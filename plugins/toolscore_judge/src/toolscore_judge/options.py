"""The judge's command-line options, shared by ``toolscore eval`` and pytest's snapshot replays.

``--llm-judge`` is the switch: without it no model is called whatever else is given (a paid
call is only ever made when asked for), and the other options without it are an error
rather than silently ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolscore_core import InputError

# The constants only, not the cache (sqlite3) or the routing: eval builds these options every run.
from toolscore_judge.defaults import ALIASES, CACHE_MODES, DEFAULT_MODE, DEFAULT_MODEL, ROUTE_NAMES

PROVIDERS = (*ROUTE_NAMES, *ALIASES)

#: (parameter name, flag, metavar or None for a switch, help)
OPTIONS: tuple[tuple[str, str, str | None, str], ...] = (
    ("llm_judge", "--llm-judge", None,
     "Let an LLM decide tool names and argument values that exact matching left open "
     f"(search_web vs web_search, NYC vs New York). Default model {DEFAULT_MODEL} (OpenAI, key in "
     "OPENAI_API_KEY). Costs money: see the cost line on stderr."),
    ("llm_model", "--llm-model", "NAME",
     "The judge's model: gpt-*/o* (OpenAI), claude-* (Anthropic), gemini-* (Gemini), or any name with "
     "--llm-base-url."),
    ("llm_provider", "--llm-provider", "|".join(PROVIDERS),
     "The judge's provider, when the model name should not decide (default: inferred)."),
    ("llm_base_url", "--llm-base-url", "URL",
     "An OpenAI-compatible endpoint for the judge (Ollama http://localhost:11434/v1, vLLM, Groq)."),
    ("llm_judge_cache", "--llm-judge-cache", "|".join(CACHE_MODES),
     f"Judge answers cache: write = reuse and store (default {DEFAULT_MODE}), read = reuse only, off."),
    ("llm_judge_cache_path", "--llm-judge-cache-path", "FILE",
     "The judge cache's SQLite file (default: judge.sqlite in the user cache dir, toolscore/)."),
    ("llm_max_usd", "--llm-max-usd", "X",
     "Stop (exit 3) before a judge call that could take the judge's spending over X dollars."),
)


def config_from_values(values: Mapping[str, Any], *, flag_prefix: str = "") -> Any:
    """The :class:`~toolscore_judge.config.JudgeConfig` the parsed ``values`` ask for, or None.

    The config module (attrs class) is imported only once a judge is asked for: eval calls
    this on every run."""
    given = [flag for name, flag, _m, _h in OPTIONS[1:] if values.get(name) is not None]
    if not values.get("llm_judge"):
        if given:
            raise InputError(f"{', '.join(flag_prefix + g for g in given)} given without {flag_prefix}--llm-judge",
                             hint="Add --llm-judge: the judge calls a model (and may cost money) only when asked")
        return None
    cache = values.get("llm_judge_cache") or DEFAULT_MODE
    if cache not in CACHE_MODES:
        raise InputError(f"--llm-judge-cache {cache!r} is not one of {', '.join(CACHE_MODES)}")
    max_usd = values.get("llm_max_usd")
    if max_usd is not None:
        try:
            max_usd = float(max_usd)
        except (TypeError, ValueError):
            raise InputError(f"--llm-max-usd {max_usd!r} is not a number", expected="dollars, e.g. 0.50") from None
        if not 0 <= max_usd < float("inf"):
            raise InputError(f"--llm-max-usd {max_usd!r} must be a finite amount of dollars, 0 or more")
    from toolscore_judge.config import JudgeConfig

    return JudgeConfig(model=values.get("llm_model") or DEFAULT_MODEL, base_url=values.get("llm_base_url"),
                       provider=values.get("llm_provider"),
                       cache=cache, cache_path=values.get("llm_judge_cache_path"), max_usd=max_usd)


__all__ = ["OPTIONS", "config_from_values"]
