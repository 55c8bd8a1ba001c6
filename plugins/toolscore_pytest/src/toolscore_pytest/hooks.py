"""The hook toolscore-pytest offers other pytest plugins (registered via ``pytest_addhooks``).

A judge plugin (toolscore-judge) implements :func:`pytest_toolscore_judge`, so snapshot
replays can use a judge without this plugin knowing about it.
"""

from __future__ import annotations

from typing import Any

import pytest


@pytest.hookspec(firstresult=True)
def pytest_toolscore_judge(config: pytest.Config) -> Any:
    """Return the judge snapshot replays pass to ``evaluate(judge=...)``, or None for none.

    Called once per session, the first time an approved snapshot is replayed; the first
    plugin returning something other than None wins.
    """
