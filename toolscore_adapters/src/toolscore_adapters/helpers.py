"""The explicit helpers of the ``toolscore`` facade: ``from_openai(response)`` and friends.

Auto-detection already reads all of these formats (``evaluate(actual=response)``); the
helpers are for code that wants to say which format it hands over, and to get the calls
as a plain list (each :class:`~toolscore_core.ToolCall` also answers ``call["tool"]``).
Each helper reads with the adapter of its name, so a broken input gets that adapter's
error instead of a guess at another format. A path (``Path`` or a ``.json``/``.jsonl``
string) is read as a file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolscore_core import InputError, ToolCall, Trace
from toolscore_core.kernel.plugins import PluginManager

__all__ = [
    "from_anthropic",
    "from_claude_agent_sdk",
    "from_crewai",
    "from_gemini",
    "from_langgraph",
    "from_openai",
    "from_openai_agents",
    "from_otel",
    "from_pydantic_ai",
    "read_calls",
]


def read_calls(data: Any, format: str, *, pm: PluginManager | None = None) -> list[ToolCall]:
    """The tool calls in ``data`` read by the adapter called ``format``."""
    from toolscore_core.kernel.traces import load_trace

    if isinstance(data, Trace):
        return list(data.calls)
    return list(load_trace(data, format=format, pm=pm).calls)


_FILE_SUFFIXES = frozenset({".json", ".jsonl", ".ndjson", ".yaml", ".yml", ".txt"})


def _is_path(data: Any) -> bool:
    """A ``Path``, or a one-line string naming a trace file (as ``load_trace`` decides)."""
    if isinstance(data, Path):
        return True
    return (isinstance(data, str) and "\n" not in data and len(data) < 4096
            and Path(data).suffix.lower() in _FILE_SUFFIXES)


def from_openai(data: Any, *, pm: PluginManager | None = None) -> list[ToolCall]:
    """Calls from OpenAI output: a ``ChatCompletion`` or chat message list, or a Responses
    API ``Response`` / item list (whichever of the two OpenAI APIs ``data`` comes from)."""
    from toolscore_core.kernel.files import load_data_file
    from toolscore_core.kernel.registry import instantiate
    from toolscore_core.kernel.traces import adapter_registry

    if isinstance(data, Trace):
        return list(data.calls)
    loaded = load_data_file(Path(data), allow_json_lines=True) if _is_path(data) else data
    registry = adapter_registry(pm)
    chat = instantiate(registry.get("openai"))
    responses = registry.get_or_none("openai-responses")
    chosen = chat
    if responses is not None:
        responses = instantiate(responses)
        if _score(responses, loaded) > _score(chat, loaded):
            chosen = responses
    try:
        return list(chosen.load(loaded).calls)
    except InputError as exc:
        raise (exc.with_file(data) if _is_path(data) else exc) from None


def _score(adapter: Any, data: Any) -> float:
    try:
        return float(adapter.detect(data))
    except Exception:  # detect() must not raise; a broken one simply does not win
        return 0.0


def from_anthropic(data: Any, *, pm: PluginManager | None = None) -> list[ToolCall]:
    """Calls from an Anthropic ``Message`` or Messages API history (tool_use / tool_result)."""
    return read_calls(data, "anthropic", pm=pm)


def from_gemini(data: Any, *, pm: PluginManager | None = None) -> list[ToolCall]:
    """Calls from a Gemini ``GenerateContentResponse`` or ``Content`` history."""
    return read_calls(data, "gemini", pm=pm)


def from_langgraph(data: Any, *, pm: PluginManager | None = None) -> list[ToolCall]:
    """Calls from a LangGraph state, stream chunks, or a LangChain message list."""
    return read_calls(data, "langgraph", pm=pm)


def from_pydantic_ai(data: Any, *, pm: PluginManager | None = None) -> list[ToolCall]:
    """Calls from a Pydantic AI run result or its message history."""
    return read_calls(data, "pydantic-ai", pm=pm)


def from_openai_agents(data: Any, *, pm: PluginManager | None = None) -> list[ToolCall]:
    """Calls from an OpenAI Agents SDK ``RunResult`` (or its items / input list)."""
    return read_calls(data, "openai-agents", pm=pm)


def from_claude_agent_sdk(data: Any, *, pm: PluginManager | None = None) -> list[ToolCall]:
    """Calls from a Claude Agent SDK message list."""
    return read_calls(data, "claude-agent-sdk", pm=pm)


def from_crewai(data: Any, *, pm: PluginManager | None = None) -> list[ToolCall]:
    """Calls from a CrewAI run (experimental)."""
    return read_calls(data, "crewai", pm=pm)


def from_otel(data: Any, *, pm: PluginManager | None = None) -> list[ToolCall]:
    """Calls from OpenTelemetry GenAI spans (OTLP JSON, JSON Lines, or SDK spans)."""
    return read_calls(data, "otel", pm=pm)
