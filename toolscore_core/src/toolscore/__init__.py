"""Toolscore's everyday API: ``from toolscore import evaluate, expect, ANY``.

This facade is the one place that may name a feature distribution. Each name is resolved
on first use; a name whose distribution is not installed says which one to install.
"""

from __future__ import annotations

import importlib
from typing import Any

from toolscore_core import __version__

# name -> (module, distribution that provides it)
_NAMES: dict[str, tuple[str, str]] = {
    # scoring (toolscore-core)
    "evaluate": ("toolscore_core.scoring.evaluation", "toolscore-core"),
    "evaluate_trace": ("toolscore_core.scoring.evaluation", "toolscore-core"),
    "assert_tools": ("toolscore_core.scoring.assertions", "toolscore-core"),
    "test_agent": ("toolscore_core.scoring.assertions", "toolscore-core"),
    "test_agent_async": ("toolscore_core.scoring.assertions", "toolscore-core"),
    "expect": ("toolscore_core.scoring.fluent", "toolscore-core"),
    "ToolscoreAssertionError": ("toolscore_core.scoring.assertions", "toolscore-core"),
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
    # MCP (toolscore-mcp)
    "MCPStdioClient": ("toolscore_mcp.client", "toolscore-mcp"),
    "MCPHttpClient": ("toolscore_mcp.client", "toolscore-mcp"),
}

__all__ = ["__version__", *sorted(_NAMES)]


def __getattr__(name: str) -> Any:
    try:
        module_name, distribution = _NAMES[name]
    except KeyError:
        raise AttributeError(f"module 'toolscore' has no attribute {name!r}") from None
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name.split(".")[0]):
            raise ImportError(
                f"toolscore.{name} needs the {distribution} distribution: pip install {distribution}"
            ) from exc
        raise
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
