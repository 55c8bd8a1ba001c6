"""``JudgeConfig``: the LLM judge's settings, usable directly as ``evaluate(..., judge=...)``.

The seed writes ``evaluate_trace(gold, trace, judge=JudgeConfig(model="gemini-2.0-flash"))``,
so the config is itself a judge: the evaluation calls its ``decide``, which builds the
:class:`~toolscore_judge.judge.LLMJudge` on first use (no SDK is imported before then).
One config keeps one judge, so its ``summary()`` covers every evaluation it judged.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from toolscore_judge.defaults import DEFAULT_MODE, DEFAULT_MODEL

if TYPE_CHECKING:
    from toolscore_core import JudgeAnswer, JudgeQuestion
    from toolscore_judge.judge import LLMJudge


@attrs.define(eq=False)
class JudgeConfig:
    """Settings of the LLM judge.

    :param model: the model's id; its provider is inferred from the name (``gpt-*``/``o*``
        OpenAI, ``claude-*`` Anthropic, ``gemini-*`` Gemini) or, with ``base_url``, an
        OpenAI-compatible chat server.
    :param base_url: an OpenAI-compatible endpoint (Ollama, vLLM, Groq), or the address of a
        vendor API when ``provider`` names it.
    :param provider: ``openai``, ``anthropic``, ``gemini`` or ``openai-chat``, when the name
        should not decide.
    :param api_key_env: the variable holding the key (default: the provider's own, e.g.
        ``OPENAI_API_KEY``; none for a compatible server). Keys are read from the
        environment only.
    :param cache: ``write`` (read and store answers), ``read`` (read only) or ``off``.
    :param cache_path: the SQLite file (default: ``judge.sqlite`` in the user cache dir).
    :param max_usd: stop before a judge call that could take the spending over this.
    :param timeout: seconds per model call.
    :param max_retries: retries of a rate-limited, overloaded or unreachable call.
    """

    model: str = DEFAULT_MODEL
    base_url: str | None = None
    provider: str | None = None
    api_key_env: str | None = None
    cache: str = DEFAULT_MODE
    cache_path: str | Path | None = None
    max_usd: float | None = None
    timeout: float | None = 60.0
    max_retries: int = 2
    _judge: LLMJudge | None = attrs.field(default=None, init=False, repr=False)

    @property
    def name(self) -> str:
        return f"llm:{self.model}"

    def judge(self) -> LLMJudge:
        """The judge these settings make (built once)."""
        if self._judge is None:
            from toolscore_judge.judge import LLMJudge

            self._judge = LLMJudge(self)
        return self._judge

    def decide(self, questions: Sequence[JudgeQuestion]) -> Sequence[JudgeAnswer]:
        return self.judge().decide(questions)

    def summary(self) -> str | None:
        return self._judge.summary() if self._judge is not None else None

    def usage(self) -> dict[str, Any]:
        """Calls, cached answers, tokens and dollars so far (empty before any question)."""
        return self._judge.usage() if self._judge is not None else {}


__all__ = ["JudgeConfig"]
