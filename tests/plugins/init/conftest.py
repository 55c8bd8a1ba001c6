"""Fixtures for the ``toolscore init`` tests: sample projects per framework, the command run
through the real CLI (plugins loaded from their entry points), and a real pytest run of the
scaffolded suite in its own folder."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

# framework key -> (a source line that imports it, a distribution that declares it)
PROJECTS: dict[str, tuple[str, str]] = {
    "openai": ("from openai import OpenAI\n", "openai>=1.40"),
    "anthropic": ("import anthropic\n", "anthropic==0.40.0"),
    "langgraph": ("from langgraph.graph import StateGraph\n", "langgraph"),
    "pydantic_ai": ("from pydantic_ai import Agent\n", "pydantic-ai-slim[openai]>=0.1"),
    "openai_agents": ("from agents import Agent, Runner\n", "openai-agents>=0.2"),
    "claude_agent_sdk": ("from claude_agent_sdk import query\n", "claude-agent-sdk"),
    "crewai": ("from crewai import Agent, Crew\n", "crewai[tools]>=0.80"),
    "mcp": ("from mcp.server.fastmcp import FastMCP\n", "mcp>=1.2"),
}


@pytest.fixture
def projects() -> dict[str, tuple[str, str]]:
    return PROJECTS


@pytest.fixture
def init_cli(installed_plugin_manager: Any) -> Callable[..., Any]:
    """``toolscore init ARGS`` through the real root CLI with the installed plugins."""
    from click.testing import CliRunner

    from toolscore_core.cli import App, cli

    def _invoke(*args: str) -> Any:
        return CliRunner().invoke(cli, ["init", *args], obj=App(pm=installed_plugin_manager), catch_exceptions=False)

    return _invoke


def _clean_env(extra: dict[str, str] | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k != "CI" and not k.startswith(("TOOLSCORE_", "PYTEST_")) and k != "GITHUB_ACTIONS"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra or {})
    return env


# Third-party pytest plugins installed in the dev venv whose import alone takes seconds on a
# loaded machine; a user's project does not have them. Toolscore's own plugin still loads
# through its entry point, as it does for a user.
_UNRELATED = ("-p", "no:langsmith_plugin", "-p", "no:hypothesispytest", "-p", "no:anyio", "-p", "no:asyncio")


@pytest.fixture
def run_pytest() -> Callable[..., subprocess.CompletedProcess[str]]:
    """A real ``python -m pytest -q`` in the scaffolded project (CI unset unless given)."""

    def _run(root: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *_UNRELATED], cwd=root,
                              env=_clean_env(env), capture_output=True, text=True, timeout=120)

    return _run
