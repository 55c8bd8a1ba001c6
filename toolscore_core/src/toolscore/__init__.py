"""Toolscore's everyday API: ``from toolscore import evaluate, expect, ANY``.

This facade is the one place that may name a feature distribution. Each name is resolved
on first use; a name whose distribution is not installed says which one to install.

The subpackages give code written for tool-scorer 1.10.0 and the agent harness docs the
paths it expects: ``toolscore.mcp`` (MCP clients), ``toolscore.mcp.agent`` (the harness),
``toolscore.mcp.sample_server`` (``python -m``), ``toolscore.export`` and
``toolscore.metrics.cost_estimator``.

Type checkers read the ``TYPE_CHECKING`` imports below, so ``evaluate`` has its real
signature in an IDE while nothing is imported at run time until it is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from toolscore._lazy import missing_attribute, resolve
from toolscore_core import __version__

if TYPE_CHECKING:
    from toolscore_pytest.cases import cases as cases

    from toolscore import export as export
    from toolscore import mcp as mcp
    from toolscore import metrics as metrics
    from toolscore_adapters.helpers import from_anthropic as from_anthropic
    from toolscore_adapters.helpers import from_claude_agent_sdk as from_claude_agent_sdk
    from toolscore_adapters.helpers import from_crewai as from_crewai
    from toolscore_adapters.helpers import from_gemini as from_gemini
    from toolscore_adapters.helpers import from_langgraph as from_langgraph
    from toolscore_adapters.helpers import from_openai as from_openai
    from toolscore_adapters.helpers import from_openai_agents as from_openai_agents
    from toolscore_adapters.helpers import from_otel as from_otel
    from toolscore_adapters.helpers import from_pydantic_ai as from_pydantic_ai
    from toolscore_core.kernel.errors import InputError as InputError
    from toolscore_core.kernel.model import Evaluation as Evaluation
    from toolscore_core.kernel.model import ToolCall as ToolCall
    from toolscore_core.kernel.model import Trace as Trace
    from toolscore_core.kernel.traces import load_trace as load_trace
    from toolscore_core.scoring.assertions import ToolScoreAssertionError as ToolScoreAssertionError
    from toolscore_core.scoring.assertions import ToolscoreAssertionError as ToolscoreAssertionError
    from toolscore_core.scoring.assertions import assert_tools as assert_tools
    from toolscore_core.scoring.assertions import test_agent as test_agent
    from toolscore_core.scoring.assertions import test_agent_async as test_agent_async
    from toolscore_core.scoring.bulk import evaluate_many as evaluate_many
    from toolscore_core.scoring.evaluation import evaluate as evaluate
    from toolscore_core.scoring.evaluation import evaluate_trace as evaluate_trace
    from toolscore_core.scoring.fluent import expect as expect
    from toolscore_core.scoring.matchers import ANY as ANY
    from toolscore_core.scoring.matchers import Approx as Approx
    from toolscore_core.scoring.matchers import Contains as Contains
    from toolscore_core.scoring.matchers import IsType as IsType
    from toolscore_core.scoring.matchers import OneOf as OneOf
    from toolscore_core.scoring.matchers import Regex as Regex
    from toolscore_judge.config import JudgeConfig as JudgeConfig
    from toolscore_mcp.client import MCPHttpClient as MCPHttpClient
    from toolscore_mcp.client import MCPStdioClient as MCPStdioClient

# name -> (module, distribution that provides it)
_NAMES: dict[str, tuple[str, str]] = {
    # scoring (toolscore-core)
    "evaluate": ("toolscore_core.scoring.evaluation", "toolscore-core"),
    "evaluate_trace": ("toolscore_core.scoring.evaluation", "toolscore-core"),
    "evaluate_many": ("toolscore_core.scoring.bulk", "toolscore-core"),
    "assert_tools": ("toolscore_core.scoring.assertions", "toolscore-core"),
    "test_agent": ("toolscore_core.scoring.assertions", "toolscore-core"),
    "test_agent_async": ("toolscore_core.scoring.assertions", "toolscore-core"),
    "expect": ("toolscore_core.scoring.fluent", "toolscore-core"),
    "ToolscoreAssertionError": ("toolscore_core.scoring.assertions", "toolscore-core"),
    "ToolScoreAssertionError": ("toolscore_core.scoring.assertions", "toolscore-core"),  # tool-scorer 1.10.0's name
    "ANY": ("toolscore_core.scoring.matchers", "toolscore-core"),
    "Regex": ("toolscore_core.scoring.matchers", "toolscore-core"),
    "Approx": ("toolscore_core.scoring.matchers", "toolscore-core"),
    "Contains": ("toolscore_core.scoring.matchers", "toolscore-core"),
    "OneOf": ("toolscore_core.scoring.matchers", "toolscore-core"),
    "IsType": ("toolscore_core.scoring.matchers", "toolscore-core"),
    "load_trace": ("toolscore_core.kernel.traces", "toolscore-core"),
    "Evaluation": ("toolscore_core.kernel.model", "toolscore-core"),
    "ToolCall": ("toolscore_core.kernel.model", "toolscore-core"),
    "Trace": ("toolscore_core.kernel.model", "toolscore-core"),
    "InputError": ("toolscore_core.kernel.errors", "toolscore-core"),
    # native formats (toolscore-adapters)
    "from_openai": ("toolscore_adapters.helpers", "toolscore-adapters"),
    "from_anthropic": ("toolscore_adapters.helpers", "toolscore-adapters"),
    "from_gemini": ("toolscore_adapters.helpers", "toolscore-adapters"),
    "from_langgraph": ("toolscore_adapters.helpers", "toolscore-adapters"),
    "from_pydantic_ai": ("toolscore_adapters.helpers", "toolscore-adapters"),
    "from_openai_agents": ("toolscore_adapters.helpers", "toolscore-adapters"),
    "from_claude_agent_sdk": ("toolscore_adapters.helpers", "toolscore-adapters"),
    "from_crewai": ("toolscore_adapters.helpers", "toolscore-adapters"),
    "from_otel": ("toolscore_adapters.helpers", "toolscore-adapters"),
    # the LLM judge (toolscore-judge)
    "JudgeConfig": ("toolscore_judge.config", "toolscore-judge"),
    # MCP (toolscore-mcp)
    "MCPStdioClient": ("toolscore_mcp.client", "toolscore-mcp"),
    "MCPHttpClient": ("toolscore_mcp.client", "toolscore-mcp"),
    # parametrize a test from case dicts (toolscore-pytest)
    "cases": ("toolscore_pytest.cases", "toolscore-pytest"),
}

# The subpackages with the paths of the docs; importing one imports no feature distribution.
_SUBPACKAGES = frozenset({"export", "mcp", "metrics"})

__all__ = ["__version__", *sorted(_NAMES)]


def __getattr__(name: str) -> Any:
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    try:
        module_name, distribution = _NAMES[name]
    except KeyError:
        raise missing_attribute(__name__, name) from None
    value = resolve(f"{__name__}.{name}", module_name, distribution, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*__all__, *_SUBPACKAGES})
