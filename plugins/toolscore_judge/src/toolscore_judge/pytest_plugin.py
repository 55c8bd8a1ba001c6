"""pytest options for judged snapshot replays: ``pytest --llm-judge [--llm-model M] [--llm-base-url U]``.

Named by this distribution's ``pytest11`` entry point. It implements toolscore-pytest's
``pytest_toolscore_judge`` hook as an optional hook, so it is silent when toolscore-pytest
is not installed, and it imports nothing of the judge until a replay asks for one.
"""

from __future__ import annotations

from typing import Any

import pytest

_JUDGE = pytest.StashKey[Any]()


def pytest_addoption(parser: pytest.Parser) -> None:
    from toolscore_judge.options import OPTIONS

    group = parser.getgroup("toolscore-judge", "Toolscore LLM judge for snapshot replays (toolscore-judge)")
    for name, flag, metavar, text in OPTIONS:
        text = text.replace("%", "%%")  # argparse formats help with %
        if metavar is None:
            group.addoption(flag, dest=name, action="store_true", default=False, help=text)
        else:
            group.addoption(flag, dest=name, default=None, metavar=metavar, help=text)


@pytest.hookimpl(optionalhook=True)
def pytest_toolscore_judge(config: pytest.Config) -> Any:
    """The judge ``--llm-judge`` asks for (its settings from the other options), or None."""
    from toolscore_judge.options import OPTIONS, config_from_values

    values = {name: config.getoption(name) for name, *_rest in OPTIONS}
    judge = config_from_values(values)
    config.stash[_JUDGE] = judge
    return judge


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """The judge's cost line (calls, tokens, dollars) after a run that used it."""
    judge = config.stash.get(_JUDGE, None)
    line = judge.summary() if judge is not None else None
    if line:
        terminalreporter.write_line(line)
