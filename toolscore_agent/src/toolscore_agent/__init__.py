"""toolscore-agent: the agent harness (see README.md).

``from toolscore_agent import run_study, load_agent_spec`` (or, as the docs write it,
``from toolscore.mcp.agent import ...``). Every name resolves on first use, so importing
the package (as plugin listing does) loads no SDK, MCP client or rich. ``Budget``,
``Price``, ``allow`` and ``deny`` are the kernel's own objects; the providers are
toolscore-providers' own.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_LAZY: dict[str, str] = {
    # the loop and the study
    "run_agent": "toolscore_agent.loop",
    "AgentRun": "toolscore_agent.loop",
    "run_study": "toolscore_agent.study",
    "plan_study": "toolscore_agent.study",
    "StudyPlan": "toolscore_agent.study",
    "StudyResult": "toolscore_agent.study",
    "StudyProgress": "toolscore_agent.study",
    "Cell": "toolscore_agent.study",
    # the spec
    "load_agent_spec": "toolscore_agent.spec",
    "AgentSpec": "toolscore_agent.model",
    "Arm": "toolscore_agent.model",
    "Task": "toolscore_agent.model",
    "Limits": "toolscore_agent.model",
    # guards and outcomes
    "rules_guard": "toolscore_agent.guards",
    "grade_run": "toolscore_agent.outcome",
    # the kernel's budget, prices and guard decisions
    "Budget": "toolscore_core",
    "Price": "toolscore_core",
    "allow": "toolscore_core",
    "deny": "toolscore_core",
    # providers
    "AnthropicMessagesProvider": "toolscore_providers",
    "OpenAIResponsesProvider": "toolscore_providers",
    "OpenAIChatProvider": "toolscore_providers",
    "ScriptedProvider": "toolscore_providers",
}

__all__ = ["__version__", *sorted(_LAZY)]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolscore_agent' has no attribute {name!r}")
    try:
        imported = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or not module.startswith(exc.name):
            raise  # something the module itself needs is missing: say that, not this
        raise AttributeError(f"toolscore_agent.{name} needs {module}, which is not installed "
                             f"(pip install {module.split('.')[0].replace('_', '-')})") from None
    value = getattr(imported, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
