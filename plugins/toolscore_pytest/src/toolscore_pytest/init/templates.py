"""The text of the files ``toolscore init`` writes: the snapshot test, the GitHub Actions
workflow and the ``.toolscore/README.md`` note.

Why string templates in code: they are short, they are filled with a framework's sample
data, and keeping them next to the renderer means a test that parses the result (the test
file compiles, the workflow is valid YAML) checks exactly what ships.
"""

from __future__ import annotations

import json

from toolscore_pytest.init.frameworks import Framework

TEST_FILE = "tests/test_toolscore_snapshots.py"
WORKFLOW_FILE = ".github/workflows/toolscore.yml"
README_FILE = ".toolscore/README.md"
#: the longest line of the scaffolded test (the default of ruff and black)
MAX_LINE = 88

_TEST_TEMPLATE = '''\
"""Tool-call snapshot tests, written by `toolscore init`.

Framework: {label}

This file passes on its first run:

    pytest                   # records the agent's tool calls (pending snapshots)
    toolscore approve --all  # review (toolscore snapshots show NAME), approve
    pytest                   # replays the approved baseline, fails on drift

Until you connect your own agent, `run_agent` returns a recorded sample run.
Change a value in SAMPLE_RUN after approving and pytest fails with an
expected-vs-actual table: that is what a regression in your agent looks like.
"""

from __future__ import annotations

from typing import Any

# A deterministic sample run in the framework's own shape, as your agent returns
# it. Toolscore reads it offline ({trace_format} format): no SDK, no API key.
SAMPLE_RUN: Any = {sample}


def run_agent(prompt: str) -> Any:
    """Your agent's output for one prompt, returned as it is."""
    # ---- YOUR AGENT GOES HERE ----------------------------------------------
    # Replace the sample below with a call to your own agent, for example:
    #
{hint}
    # ------------------------------------------------------------------------
    return SAMPLE_RUN


def test_books_a_flight(toolscore_snapshot: Any) -> None:
    # First run: records a pending snapshot under .toolscore/snapshots/.
    # After `toolscore approve`: replays against the baseline, fails on drift.
    toolscore_snapshot(run_agent("{prompt}"))
'''

_WORKFLOW_TEMPLATE = """\
# Written by `toolscore init`: replays the approved tool-call snapshots in .toolscore/
# on every push and pull request. CI is strict: a missing or pending (unapproved)
# snapshot fails the build and nothing is recorded or approved here. Record and approve
# locally (pytest, then toolscore approve --all) and commit .toolscore/ with your code.
name: Toolscore

on:
  push:
  pull_request:

permissions:
  contents: read

jobs:
  snapshots:
    runs-on: ubuntu-latest
    env:
      CI: "true"
    steps:
      - name: Check out the code and its .toolscore/ snapshots
        uses: actions/checkout@v4

      - name: Set up Python
        uses: actions/setup-python@v5
        with:
          python-version: "3.12"

      - name: Install the project and Toolscore
        run: |
          python -m pip install --upgrade pip
          if [ -f requirements.txt ]; then pip install -r requirements.txt; fi
          # the project itself, when it is a package (pyproject [project] / Poetry, or setup.py)
          if [ -f setup.py ] || grep -qE '^\\[(project|tool\\.poetry)\\]' pyproject.toml 2>/dev/null; then
            pip install -e .
          fi
          pip install toolscore pytest

      - name: Check that approved snapshots are committed
        run: |
          if [ ! -d .toolscore/snapshots ]; then
            echo "::error::No .toolscore/snapshots/ in the repository: run pytest, then toolscore approve --all, and commit .toolscore/"
            exit 1
          fi

      # The whole suite, so snapshot tests in any file replay. If other tests need secrets,
      # narrow this to your snapshot tests, e.g. python -m pytest -q {test_file}
      - name: Replay the approved snapshots
        run: python -m pytest -q

      - name: Keep the snapshots for review when the replay fails
        if: failure()
        uses: actions/upload-artifact@v4
        with:
          name: toolscore-snapshots
          path: .toolscore/
          if-no-files-found: ignore
"""

_README_TEMPLATE = """\
# .toolscore/

Toolscore's tool-call snapshots live in `snapshots/`: plain JSON, one file per test, named
after the pytest node id. Commit this folder; the snapshots are your agent's baseline.

- `pytest` records a new snapshot as *pending* on its first run.
- `toolscore snapshots list` / `toolscore snapshots show NAME` show what was recorded.
- `toolscore approve --all` (or `toolscore approve NAME`) makes pending snapshots the baseline.
- `pytest --toolscore-update` re-records and re-approves after an intended change.

In CI (the `CI` environment variable set) nothing is recorded or approved: a missing or
pending snapshot fails the run.
"""


_ASSIGNMENT = "SAMPLE_RUN: Any = "
_INDENT = "    "


def _flat(value: object) -> str:
    """``value`` as a one-line Python literal. Strings are written as JSON writes them,
    which is also valid Python, so the sample reads like the JSON the framework saves."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {_flat(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_flat(v) for v in value) + "]"
    if isinstance(value, str):
        return repr(value) if '"' in value else json.dumps(value)  # JSON in a string: no escapes
    return repr(value)  # None, True, False, numbers


def _python_literal(value: object, level: int = 0, used: int = len(_ASSIGNMENT)) -> str:
    """``value`` as Python source, one item per line (indented by four) wherever the flat
    form would pass :data:`MAX_LINE`; ``used`` is what the line already holds."""
    flat = _flat(value)
    if used + len(flat) + 1 <= MAX_LINE or not isinstance(value, (dict, list, tuple)) or not value:
        return flat
    inner = _INDENT * (level + 1)
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            head = f"{inner}{json.dumps(str(key))}: "
            lines.append(head + _python_literal(item, level + 1, len(head)) + ",")
        opening, closing = "{", "}"
    else:
        lines.extend(inner + _python_literal(item, level + 1, len(inner)) + "," for item in value)
        opening, closing = "[", "]"
    return "\n".join([opening, *lines, _INDENT * level + closing])


def render_test(framework: Framework) -> str:
    """The scaffolded snapshot test for ``framework``."""
    hint = "\n".join(f"{_INDENT}#     {line}".rstrip() for line in framework.agent_hint.splitlines())
    return _TEST_TEMPLATE.format(
        label=framework.label, trace_format=framework.trace_format, sample=_python_literal(framework.sample),
        hint=hint, prompt="book a flight to NYC",
    )


def render_workflow() -> str:
    """The GitHub Actions workflow that replays the approved snapshots."""
    return _WORKFLOW_TEMPLATE.format(test_file=TEST_FILE)


def render_readme() -> str:
    return _README_TEMPLATE
