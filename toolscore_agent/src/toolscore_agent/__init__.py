"""toolscore-agent: the agent harness (see README.md).

``from toolscore_agent import run_study, load_agent_spec`` (or, as the docs write it,
``from toolscore.mcp.agent import ...``). Every name resolves on first use, so importing
the package (as plugin listing does) loads no SDK, MCP client or rich. ``Budget``,
``Price``, ``allow`` and ``deny`` are the kernel's own objects; the providers are
toolscore-providers' own.
"""

from __future__ import annotations

from toolscore_core import lazy_attributes

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
    # regrading recorded runs
    "regrade": "toolscore_agent.regrading",
    "RegradeResult": "toolscore_agent.regrading",
    # comparing arms
    "compare_runs": "toolscore_agent.compare",
    "Comparison": "toolscore_agent.compare",
    # the preflight
    "run_doctor": "toolscore_agent.doctor",
    "DoctorReport": "toolscore_agent.doctor",
    "DoctorCheck": "toolscore_agent.doctor",
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


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, extra=("__version__",))
