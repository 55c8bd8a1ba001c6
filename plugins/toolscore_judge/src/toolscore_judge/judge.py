"""The LLM judge: answers the core's open questions through a toolscore-providers provider.

One model call per chunk of :data:`CHUNK` questions (one call for any ordinary trace), with
structured output (see :mod:`toolscore_judge.prompt`), temperature 0 where the API accepts
it, answers cached on disk (:mod:`toolscore_judge.cache`), and every call priced from the
kernel's price table and checked against the kernel budget *before* it is made.

Models are called only through the providers registry (one implementation per API in the
whole codebase), so this module imports no SDK, and nothing of the MCP client.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolscore_core import (
    Budget,
    BudgetStopped,
    InputError,
    Judge,
    JudgeAnswer,
    JudgeQuestion,
    ProviderTransportError,
    cost_usd,
    estimate_request_tokens,
    price_for,
    worst_case_usd,
)
from toolscore_judge.cache import JudgeCache, cache_key
from toolscore_judge.prompt import (
    PROMPT_VERSION,
    answer_data,
    build_request,
    question_payload,
    read_answers,
)
from toolscore_judge.routing import FALLBACK_KEY_ENV, route_for

if TYPE_CHECKING:
    from toolscore_judge.config import JudgeConfig

#: Questions per model call: large enough that a normal trace is one call, small enough that
#: one answer stays well under every model's output cap.
CHUNK = 40

#: The SDK each provider needs, for the "install this" message.
_SDKS = {"openai": "openai", "openai-chat": "openai", "anthropic": "anthropic", "gemini": "google-genai"}


class LLMJudge(Judge):
    """Decides open questions with a model; see the module doc for the rules it keeps."""

    name = "llm"
    description = "LLM judge over OpenAI, Anthropic, Gemini or any OpenAI-compatible endpoint (toolscore-judge)"

    def __init__(self, config: JudgeConfig | None = None, *, plugin_manager: Any = None, **settings: Any) -> None:
        if config is None:
            from toolscore_judge.config import JudgeConfig

            config = JudgeConfig(**settings)
        self.config = config
        self.name = config.name  # type: ignore[misc]  # "llm:<model>": reports say which model judged
        self.route = route_for(config.model, base_url=config.base_url, provider=config.provider)
        self.price = price_for(config.model, provider=self.route.provider)
        # Without a cap an unpriced model may still be used (its cost is then reported as
        # unknown); with one, the kernel refuses what it cannot bound.
        self.budget = Budget(max_usd=config.max_usd, allow_unknown_price=config.max_usd is None)
        self.cache = JudgeCache(config.cache_path, config.cache)
        self._pm = plugin_manager
        self._provider: Any = None
        self.calls = 0
        self.cached = 0
        self.answered = 0
        self.input_tokens: int | None = 0
        self.output_tokens: int | None = 0
        self.cost: float | None = 0.0

    # -- the Judge contract ------------------------------------------------------------------

    def decide(self, questions: Sequence[JudgeQuestion]) -> list[JudgeAnswer]:
        model = self.config.model
        keys = [cache_key(model, PROMPT_VERSION, question_payload(q)) for q in questions]
        answers: list[JudgeAnswer | None] = [self.cache.get(k) for k in keys]
        self.cached += sum(a is not None for a in answers)
        todo = [n for n, a in enumerate(answers) if a is None]
        for start in range(0, len(todo), CHUNK):
            chunk = todo[start:start + CHUNK]
            fresh = self._ask([questions[n] for n in chunk])
            for n, answer in zip(chunk, fresh, strict=True):
                answers[n] = answer
                self.cache.put(keys[n], model, PROMPT_VERSION, answer)
        self.answered += len(questions)
        return [a for a in answers if a is not None]

    def summary(self) -> str | None:
        if not self.answered:
            return None
        model = self.config.model
        calls = f"{self.calls} call{'s' if self.calls != 1 else ''}"
        cached = f", {self.cached} answer(s) from the cache" if self.cached else ""
        if self.input_tokens is None or self.output_tokens is None:
            tokens = "tokens not reported"
        else:
            tokens = f"{self.input_tokens + self.output_tokens:,} tokens ({self.input_tokens:,} in, " \
                     f"{self.output_tokens:,} out)"
        if self.calls == 0:
            dollars = "$0.00"
        elif self.price is None:
            dollars = f"cost unknown (no price for {model!r} in the price table)"
        elif self.cost is None:
            dollars = "cost unknown (usage not reported)"
        else:
            dollars = f"${self.cost:.6f} ({self.price.source})"
        return f"toolscore: judge {model} ({self.route.provider}): {calls}{cached}, {tokens}, {dollars}"

    def usage(self) -> dict[str, Any]:
        return {"model": self.config.model, "provider": self.route.provider, "calls": self.calls,
                "cached": self.cached, "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "cost_usd": self.cost if self.calls and self.price is not None else (0.0 if not self.calls else None)}

    # -- one model call ----------------------------------------------------------------------

    def provider(self) -> Any:
        """The provider object from the registry (made once, with the judge's settings)."""
        if self._provider is None:
            from toolscore_core import collect, get_plugin_manager

            registry = collect(self._pm or get_plugin_manager(), "providers")
            name = self.route.provider
            if name not in registry:
                raise InputError(f"the judge model {self.config.model!r} needs the {name!r} provider, "
                                 "which is not installed",
                                 hint=f"pip install 'toolscore[{self.route.extra}]'")
            self._provider = registry.create(name, model=self.config.model, base_url=self.config.base_url,
                                             api_key_env=self._key_env(),
                                             timeout=self.config.timeout, max_retries=self.config.max_retries)
        return self._provider

    def _key_env(self) -> str | None:
        """The variable the key is read from: the config's, else the provider's own (with
        tool-scorer 1.10.0's name as a fallback when only that one is set)."""
        if self.config.api_key_env:
            return self.config.api_key_env
        own, fallback = self.route.api_key_env, FALLBACK_KEY_ENV.get(self.route.provider)
        if own and fallback and not os.environ.get(own) and os.environ.get(fallback):
            return fallback
        return own

    def _ask(self, questions: Sequence[JudgeQuestion]) -> list[JudgeAnswer]:
        model = self.config.model
        request = build_request(self.route.provider, model, questions, temperature=self.route.sends_temperature)
        estimate = estimate_request_tokens(request.to_dict())
        worst = worst_case_usd(estimate, request.max_output_tokens, self.price)
        try:
            reservation = self.budget.reserve(worst)
        except BudgetStopped as exc:
            raise BudgetStopped(
                f"the judge stopped before a call to {model} that could cost up to ${worst or 0:.6f}: "
                f"--llm-max-usd ${self.config.max_usd:g}, ${self.budget.spent_usd:.6f} spent so far "
                f"({len(questions)} question(s) not judged)",
                spent_usd=exc.spent_usd, limit_usd=exc.limit_usd, next_call_usd=exc.next_call_usd) from None
        turn = None
        try:
            turn = self.provider().complete(request)
        except ImportError as exc:
            sdk = _SDKS.get(self.route.provider, "the provider's")
            raise InputError(f"the judge model {model!r} needs the {sdk} SDK, which is not installed ({exc.name})",
                             hint=f"pip install 'toolscore[{self.route.extra}]'") from None
        except ProviderTransportError as exc:
            where = self.config.base_url or f"the {self.route.provider} API"
            raise InputError(f"cannot reach the judge model {model!r} at {where}: {exc.message}",
                             hint="Check --llm-base-url and that the server is running"
                             if self.config.base_url else "Check the network, or the provider's base URL") from None
        finally:
            actual = cost_usd(turn.usage, self.price) if turn is not None else None
            self.budget.settle(reservation, actual)  # a failed call: unknown, settled as its worst case
        self.calls += 1
        self._count(turn.usage, actual)
        return read_answers(answer_data(self.route.provider, model, turn), model, len(questions))

    def _count(self, usage: Any, dollars: float | None) -> None:
        used_in, used_out = usage.input_tokens, usage.output_tokens
        self.input_tokens = None if self.input_tokens is None or used_in is None else self.input_tokens + used_in
        self.output_tokens = None if self.output_tokens is None or used_out is None else self.output_tokens + used_out
        self.cost = None if self.cost is None or dollars is None else self.cost + dollars


__all__ = ["CHUNK", "LLMJudge"]
