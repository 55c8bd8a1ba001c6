"""The agent frameworks ``toolscore init`` knows: how to spot each one and what its
scaffolded sample output looks like.

Why one table: detection, ``--framework`` names, the printed labels and the sample data of
the generated test all come from the same entry, so adding a framework is one place.

The order of :data:`FRAMEWORKS` is the detection priority when a project shows several:
agent frameworks first (a LangGraph or CrewAI project imports a provider SDK underneath,
but what the user's test holds is the framework's run), then the raw provider SDKs, then
plain MCP (an MCP server or client with no agent framework), and the generic call list
last, when nothing is found.

Every sample is plain data in the framework's own saved shape, read by Toolscore's
auto-detection as that framework's format (a test checks it), so the scaffolded suite runs
offline with no SDK installed and no API key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

GENERIC = "generic"


@dataclass(frozen=True)
class Framework:
    """One framework: its ``--framework`` name, label and how it shows in a project."""

    key: str
    label: str
    #: top-level module names whose import marks the framework
    modules: tuple[str, ...]
    #: distribution names (PEP 503 normalised) whose dependency marks it
    dists: tuple[str, ...]
    #: the Toolscore adapter that reads :attr:`sample` (``toolscore validate`` names it)
    trace_format: str
    #: lines (Python) showing where the user's own agent call goes
    agent_hint: str
    #: a deterministic run in the framework's own shape
    sample: Any = field(repr=False)


_ARGS = {"origin": "SFO", "destination": "NYC"}
_ARGS_JSON = '{"origin": "SFO", "destination": "NYC"}'
_PROMPT = "book a flight to NYC"

FRAMEWORKS: tuple[Framework, ...] = (
    Framework(
        key="claude_agent_sdk", label="Claude Agent SDK",
        modules=("claude_agent_sdk", "claude_code_sdk"), dists=("claude-agent-sdk", "claude-code-sdk"),
        trace_format="claude-agent-sdk",
        agent_hint=(
            "from claude_agent_sdk import query\n\n"
            "messages = [m async for m in query(prompt=prompt, options=options)]\n"
            "return messages  # the message list, as query() yields it"
        ),
        sample=[
            {"type": "assistant", "session_id": "sample-session",
             "message": {"role": "assistant", "content": [
                 {"type": "tool_use", "id": "toolu_1", "name": "mcp__travel__search_flights", "input": _ARGS}]}},
            {"type": "user", "session_id": "sample-session",
             "message": {"role": "user", "content": [
                 {"type": "tool_result", "tool_use_id": "toolu_1", "content": "FL-100"}]}},
            {"type": "result", "subtype": "success", "session_id": "sample-session",
             "result": "Found flight FL-100.", "is_error": False},
        ],
    ),
    Framework(
        key="openai_agents", label="OpenAI Agents SDK",
        modules=("agents",), dists=("openai-agents",),
        trace_format="openai-agents",
        agent_hint=(
            "from agents import Runner\n\n"
            "result = Runner.run_sync(my_agent, prompt)\n"
            "return result  # the RunResult itself"
        ),
        sample=[
            {"type": "tool_call_item", "raw_item": {
                "type": "function_call", "call_id": "call_1", "name": "search_flights", "arguments": _ARGS_JSON}},
            {"type": "tool_call_output_item", "output": "FL-100", "raw_item": {
                "type": "function_call_output", "call_id": "call_1", "output": "FL-100"}},
            {"type": "message_output_item", "raw_item": {
                "type": "message", "role": "assistant",
                "content": [{"type": "output_text", "text": "Found flight FL-100."}]}},
        ],
    ),
    Framework(
        key="langgraph", label="LangGraph",
        modules=("langgraph",), dists=("langgraph",),
        trace_format="langgraph",
        agent_hint=(
            "from my_app.graph import graph\n\n"
            'state = graph.invoke({"messages": [("user", prompt)]})\n'
            'return state  # the final state, {"messages": [...]}'
        ),
        sample={"messages": [
            {"type": "human", "content": _PROMPT},
            {"type": "ai", "content": "", "tool_calls": [
                {"name": "search_flights", "args": _ARGS, "id": "call_1", "type": "tool_call"}]},
            {"type": "tool", "content": "FL-100", "tool_call_id": "call_1", "name": "search_flights"},
            {"type": "ai", "content": "Found flight FL-100."},
        ]},
    ),
    Framework(
        key="pydantic_ai", label="Pydantic AI",
        modules=("pydantic_ai",), dists=("pydantic-ai", "pydantic-ai-slim"),
        trace_format="pydantic-ai",
        agent_hint=(
            "from my_app.agent import agent\n\n"
            "result = agent.run_sync(prompt)\n"
            "return result  # the AgentRunResult itself"
        ),
        sample=[
            {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": _PROMPT}]},
            {"kind": "response", "parts": [
                {"part_kind": "tool-call", "tool_name": "search_flights", "args": _ARGS, "tool_call_id": "call_1"}]},
            {"kind": "request", "parts": [
                {"part_kind": "tool-return", "tool_name": "search_flights", "content": "FL-100",
                 "tool_call_id": "call_1"}]},
            {"kind": "response", "parts": [{"part_kind": "text", "content": "Found flight FL-100."}]},
        ],
    ),
    Framework(
        key="crewai", label="CrewAI",
        modules=("crewai",), dists=("crewai",),
        trace_format="crewai",
        agent_hint=(
            "from my_app.crew import crew\n\n"
            'result = crew.kickoff(inputs={"request": prompt})\n'
            "return result  # the CrewOutput itself"
        ),
        sample={"raw": "Found flight FL-100.", "token_usage": {}, "tasks_output": [{
            "description": _PROMPT, "agent": "Travel agent", "raw": "Found flight FL-100.",
            "messages": [
                {"role": "user", "content": _PROMPT},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "call_1", "type": "function",
                     "function": {"name": "search_flights", "arguments": _ARGS_JSON}}]},
                {"role": "tool", "tool_call_id": "call_1", "content": "FL-100"},
            ]}]},
    ),
    Framework(
        key="openai", label="OpenAI (raw SDK)",
        modules=("openai",), dists=("openai",),
        trace_format="openai",
        agent_hint=(
            "from openai import OpenAI\n\n"
            "response = OpenAI().chat.completions.create(\n"
            '    model="gpt-4o-mini", tools=TOOLS,\n'
            '    messages=[{"role": "user", "content": prompt}])\n'
            "return response  # the ChatCompletion itself"
        ),
        sample={"id": "chatcmpl-sample", "object": "chat.completion", "model": "gpt-4o-mini", "choices": [
            {"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": None, "tool_calls": [
                    {"id": "call_1", "type": "function",
                     "function": {"name": "search_flights", "arguments": _ARGS_JSON}}]}}]},
    ),
    Framework(
        key="anthropic", label="Anthropic (raw SDK)",
        modules=("anthropic",), dists=("anthropic",),
        trace_format="anthropic",
        agent_hint=(
            "from anthropic import Anthropic\n\n"
            "message = Anthropic().messages.create(\n"
            '    model="claude-sonnet-4-5", max_tokens=1024, tools=TOOLS,\n'
            '    messages=[{"role": "user", "content": prompt}])\n'
            "return message  # the Message itself"
        ),
        sample={"id": "msg_sample", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                "stop_reason": "tool_use", "content": [
                    {"type": "text", "text": "Let me search."},
                    {"type": "tool_use", "id": "toolu_1", "name": "search_flights", "input": _ARGS}]},
    ),
    Framework(
        key="mcp", label="MCP (plain)",
        modules=("mcp", "fastmcp"), dists=("mcp", "fastmcp"),
        trace_format="mcp",
        agent_hint=(
            "# start your server through the recorder (in your MCP client's config):\n"
            "#     toolscore mcp record -o session.jsonl -- python my_server.py\n"
            'return "session.jsonl"  # the recorded session file, read as it is'
        ),
        sample=[
            {"toolscore_record": "mcp-session", "version": 1, "command": ["python", "my_server.py"]},
            {"t": 0.0, "dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                             "params": {"name": "search_flights", "arguments": _ARGS}}},
            {"t": 0.01, "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 1, "result": {
                "content": [{"type": "text", "text": "FL-100"}], "isError": False}}},
        ],
    ),
    Framework(
        key=GENERIC, label="generic (a plain call list)",
        modules=(), dists=(),
        trace_format="custom",
        agent_hint=(
            "from my_app.agent import run_agent\n\n"
            "return run_agent(prompt)  # any list of {\"tool\": ..., \"args\": {...}} calls"
        ),
        sample=[{"tool": "search_flights", "args": _ARGS}],
    ),
)

BY_KEY: dict[str, Framework] = {f.key: f for f in FRAMEWORKS}


def framework_names() -> list[str]:
    """The names ``--framework`` accepts, in priority order."""
    return [f.key for f in FRAMEWORKS]


def lookup(name: str) -> Framework | None:
    """The framework called ``name``; case and ``-``/``_`` spelling do not matter
    (``pydantic-ai`` and ``Pydantic_AI`` both work)."""
    return BY_KEY.get(name.strip().lower().replace("-", "_"))
