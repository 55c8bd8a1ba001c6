"""Grade one open MCP client: list, lint, run the scenarios, build the scorecard.

The one entry point shared by ``toolscore mcp test``, ``toolscore demo`` and the benchmark,
so they can never disagree about how a server is graded.
"""

from __future__ import annotations

from typing import Any

from toolscore_mcp.scorecard.grading import build_scorecard
from toolscore_mcp.scorecard.model import Scorecard
from toolscore_mcp.scorecard.runner import Activity, Progress, RunOptions, ScenarioRunner


def grade_client(
    client: Any,
    options: RunOptions | None = None,
    *,
    plugin_manager: Any = None,
    lint_rules: list[Any] | None = None,
    progress: Progress | None = None,
    target: str | None = None,
    activity: Activity | None = None,
) -> Scorecard:
    """Grade the server behind ``client`` (started and initialized, e.g. ``with open_client(...)``).

    ``lint_rules`` (rule instances) or ``plugin_manager`` choose the lint rules; by default
    every installed rule runs, as in ``toolscore mcp lint``. ``activity`` hears what the
    run waits for at each step (for a progress bar or a CI log).
    """
    from toolscore_mcp.lint.runner import lint_server
    from toolscore_mcp.tokens import estimate_tokens

    if activity is not None:
        activity("listing the tools (tools/list)")
    raw_tools = client.list_tools()
    server = client.server_definition(raw_tools)
    tool_tokens: dict[str, int] = {}
    for raw in raw_tools:
        name = str(raw.get("name", ""))
        tool_tokens[name] = tool_tokens.get(name, 0) + estimate_tokens(raw)
    lint = lint_server(server, rules=lint_rules, plugin_manager=plugin_manager)
    run = ScenarioRunner(client, server.tools, options, progress=progress, activity=activity).run()
    return build_scorecard(server, run, lint, tool_tokens=tool_tokens,
                           instructions_tokens=estimate_tokens(server.instructions), target=target)
