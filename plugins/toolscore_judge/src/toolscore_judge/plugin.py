"""Hook implementations of toolscore-judge: the only module its ``toolscore.judges`` entry names.

It registers :class:`LLMJudgeEntry`, which is the ``llm`` judge and also declares the options
it adds to ``toolscore eval`` (the core's judge-options extension point, see
:mod:`toolscore_core.cli.judge_options`). ``toolscore eval`` collects those options every time it
is parsed, judge or not, so this module imports nothing of the judge itself: the entry is a
small factory class, and :mod:`toolscore_judge.judge` (the cache's sqlite3, the kernel's
providers and prices: about 100 ms measured at start-up) loads only when a judge is made.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolscore_core import Judge, hookimpl

#: The core commands the judge adds its options to.
COMMANDS = frozenset({"eval"})


class LLMJudgeEntry(Judge):
    """The registered ``llm`` judge: ``evaluate(judge="llm")`` makes one with the default
    settings; ``toolscore eval --llm-judge ...`` with the command line's.

    Calling the class returns a :class:`toolscore_judge.judge.LLMJudge` (``__new__`` hands over
    to it), so the registry's "a class entry is a factory" rule holds without importing the
    judge to list or parse options.
    """

    name = "llm"
    description = "LLM judge over OpenAI, Anthropic, Gemini or any OpenAI-compatible endpoint (toolscore-judge)"

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        from toolscore_judge.judge import LLMJudge

        return LLMJudge(*args, **kwargs)

    @classmethod
    def command_options(cls, command: str) -> Sequence[Any]:
        if command not in COMMANDS:
            return ()
        import click

        from toolscore_judge.options import OPTIONS

        made: list[Any] = []
        for name, flag, metavar, text in OPTIONS:
            if metavar is None:
                made.append(click.Option([flag, name], is_flag=True, default=False, help=text))
            elif name == "llm_max_usd":
                made.append(click.Option([flag, name], type=float, metavar=metavar, help=text))
            else:
                made.append(click.Option([flag, name], metavar=metavar, help=text))
        return made

    @classmethod
    def from_command_options(cls, command: str, values: Mapping[str, Any]) -> Any:
        from toolscore_judge.options import config_from_values

        config = config_from_values(values)
        return None if config is None else config.judge()


@hookimpl
def toolscore_register_judges() -> list[Any]:
    """The LLM judge."""
    return [LLMJudgeEntry]
