"""Build the framework trace fixtures offline, with the real packages.

Run from the repo root:  .venv/bin/python tests/adapters/make_fixtures_frameworks.py
The pydantic-ai 1.x file needs a venv with ``pip install 'pydantic-ai-slim<2'``:
    /tmp/pai1/bin/python tests/adapters/make_fixtures_frameworks.py --pydantic-ai-v1

Every framework runs the same refund session (the spec's frameworks reference):
lookup_customer -> list_orders -> refund_order (fails: "Refund window has closed") -> notify
-> a final text. The tools are real Python functions run by each framework; only the model is
scripted, so no network and no API key are needed. The JSON written here is committed under
tests/adapters/fixtures/frameworks/ and is what the adapters' file tests read.

The test modules import the ``run_*`` functions to get the same live objects a user would
pass to ``evaluate(actual=...)``.

CrewAI is not installed here (1 GB, pins that clash with openai-agents): its files are built
from the schema the spec's frameworks reference documents, by
:func:`write_crewai_schema_fixtures`, and are named ``crewai_*`` like the others. They are
the only fixtures not made by the package.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures" / "frameworks"

CUSTOMER = {"customer_id": "C-1", "name": "Ada Lovelace"}
ORDERS = [{"order_id": "A-17", "amount": 42.5, "status": "delivered"}]
REFUND_ERROR = "Refund window has closed"
FINAL_TEXT = "I could not refund order A-17 because the refund window has closed; I have notified you."

#: the scripted model's plan: (tool, arguments) in order, then FINAL_TEXT
PLAN: list[tuple[str, dict[str, Any]]] = [
    ("lookup_customer", {"email": "ada@example.com"}),
    ("list_orders", {"customer_id": "C-1"}),
    ("refund_order", {"order_id": "A-17", "amount": 42.5}),
    ("notify", {"customer_id": "C-1", "message": "Your refund for A-17 could not be processed."}),
]
PROMPT = "Please refund my last order. My email is ada@example.com."


def lookup_customer(email: str) -> dict[str, Any]:
    """Find a customer by email."""
    return dict(CUSTOMER)


def list_orders(customer_id: str) -> list[dict[str, Any]]:
    """List a customer's orders."""
    return [dict(o) for o in ORDERS]


def notify(customer_id: str, message: str) -> str:
    """Send the customer a message."""
    return "sent"


# --------------------------------------------------------------------------- pydantic-ai


def run_pydantic_ai(*, failure: str = "failed", json_string_args: bool = False) -> Any:
    """Run a pydantic-ai Agent on a FunctionModel; returns the AgentRunResult.

    ``failure="failed"`` makes refund_order raise ToolFailed (2.x ``outcome: "failed"``);
    ``"retried"`` raises ModelRetry (``outcome: "retried"``). ``json_string_args`` makes the
    model send arguments as JSON strings, as OpenAI-backed models do.
    """
    from pydantic_ai import Agent, ModelRetry
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        done = sum(
            1 for m in messages for p in getattr(m, "parts", [])
            if isinstance(p, ToolReturnPart) or getattr(p, "part_kind", "") == "retry-prompt"
        )
        if done < len(PLAN):
            tool, args = PLAN[done]
            sent: Any = json.dumps(args) if json_string_args else dict(args)
            return ModelResponse(parts=[ToolCallPart(tool, sent, tool_call_id=f"pyd_call_{done + 1}")])
        return ModelResponse(parts=[TextPart(FINAL_TEXT)])

    agent = Agent(FunctionModel(model), retries=1)
    agent.tool_plain(lookup_customer)
    agent.tool_plain(list_orders)
    agent.tool_plain(notify)

    @agent.tool_plain
    def refund_order(order_id: str, amount: float) -> str:
        """Refund an order."""
        if failure == "retried":
            raise ModelRetry(REFUND_ERROR)
        from pydantic_ai.exceptions import ToolFailed  # 2.x only

        raise ToolFailed(REFUND_ERROR)

    return agent.run_sync(PROMPT)


def write_pydantic_ai() -> None:
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    result = run_pydantic_ai()
    _write_bytes("pydantic_ai_messages.json", result.all_messages_json())
    retry = run_pydantic_ai(failure="retried", json_string_args=True)
    _write_bytes("pydantic_ai_retry_messages.json", retry.all_messages_json())
    # the other documented way to save: the TypeAdapter over new_messages()
    _write_bytes("pydantic_ai_new_messages_typeadapter.json",
                 ModelMessagesTypeAdapter.dump_json(result.new_messages(), indent=2))


# --------------------------------------------------------------------------- openai-agents


def run_openai_agents(*, default_errors: bool = False) -> Any:
    """Run an openai-agents Agent on a scripted Model subclass; returns the RunResult.

    By default refund_order's failure text comes from ``failure_error_function`` giving
    ``"Error: <message>"``; ``default_errors`` keeps the SDK's own default text instead.
    """
    from agents import Agent, RunConfig, Runner, function_tool, set_tracing_disabled
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.usage import Usage
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    set_tracing_disabled(True)

    class ScriptedRefundModel(Model):
        """Plays PLAN, picking the step from the number of tool outputs already sent."""

        async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> ModelResponse:
            items = input if isinstance(input, list) else []
            done = sum(1 for i in items if isinstance(i, dict) and i.get("type") == "function_call_output")
            if done < len(PLAN):
                tool, arguments = PLAN[done]
                output: list[Any] = [ResponseFunctionToolCall(
                    id=f"fc_{done + 1}", call_id=f"call_{done + 1}", type="function_call", name=tool,
                    arguments=json.dumps(arguments), status="completed")]
            else:
                output = [ResponseOutputMessage(
                    id="msg_final", type="message", role="assistant", status="completed",
                    content=[ResponseOutputText(type="output_text", text=FINAL_TEXT, annotations=[])])]
            return ModelResponse(output=output, usage=Usage(requests=1), response_id=f"resp_{done + 1}")

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError("the fixtures only use Runner.run_sync")

    def refund_order(order_id: str, amount: float) -> str:
        """Refund an order."""
        raise RuntimeError(REFUND_ERROR)

    refund_tool = (function_tool(refund_order) if default_errors
                   else function_tool(refund_order, failure_error_function=lambda ctx, e: f"Error: {e}"))
    agent = Agent(
        name="refund-agent", instructions="Help with refunds.", model=ScriptedRefundModel(),
        tools=[function_tool(lookup_customer), function_tool(list_orders), refund_tool, function_tool(notify)],
    )
    return Runner.run_sync(agent, PROMPT, run_config=RunConfig(tracing_disabled=True))


def dump_openai_agents_items(items: list[Any]) -> list[dict[str, Any]]:
    """``result.new_items`` as JSON: each item's type, raw_item and (for outputs) output."""
    out = []
    for item in items:
        raw = item.raw_item
        entry: dict[str, Any] = {
            "type": item.type,
            "raw_item": raw.model_dump(mode="json", exclude_none=True) if hasattr(raw, "model_dump") else raw,
        }
        if hasattr(item, "output"):
            entry["output"] = item.output
        out.append(entry)
    return out


def write_openai_agents() -> None:
    result = run_openai_agents()
    _write_json("openai_agents_input_list.json", result.to_input_list())
    _write_json("openai_agents_new_items.json", dump_openai_agents_items(result.new_items))
    _write_json("openai_agents_run_state.json", result.to_state().to_json())
    default = run_openai_agents(default_errors=True)
    _write_json("openai_agents_default_error_input_list.json", default.to_input_list())


# --------------------------------------------------------------------------- claude-agent-sdk


def claude_model_frames() -> list[dict[str, Any]]:
    """What the scripted model side of the CLI emits as ``--output-format stream-json``: the
    ``system/init`` frame, one assistant turn per tool call, the final text and the ``result``
    frame. The tool results are not here: :func:`run_claude_agent_sdk` gets them from the
    SDK's MCP server. Shapes follow the real CLI (the spec's frameworks reference): tools are named
    ``mcp__shop__<tool>`` and ``tool_use_meta`` carries the bare name.
    """
    session = "5b0d6c1e-2f4a-4c53-9d0e-7a1b2c3d4e5f"
    model = "claude-sonnet-4-5"
    frames: list[dict[str, Any]] = [{
        "type": "system", "subtype": "init", "session_id": session, "model": model, "cwd": "/tmp/shop",
        "tools": [f"mcp__shop__{name}" for name, _ in PLAN],
        "mcp_servers": [{"name": "shop", "status": "connected"}], "permissionMode": "default",
    }]
    for number, (name, args) in enumerate(PLAN, start=1):
        use_id = f"toolu_0{number}"
        frames.append({
            "type": "assistant", "session_id": session, "parent_tool_use_id": None, "uuid": f"a-{number}",
            "message": {"id": f"msg_0{number}", "type": "message", "role": "assistant", "model": model,
                        "content": [{"type": "tool_use", "id": use_id, "name": f"mcp__shop__{name}", "input": args}],
                        "stop_reason": "tool_use", "usage": {"input_tokens": 100 * number, "output_tokens": 20}},
            "tool_use_meta": [{"id": use_id, "tool_name": name, "server_display_name": "shop"}],
        })
    frames.append({
        "type": "assistant", "session_id": session, "parent_tool_use_id": None, "uuid": "a-final",
        "message": {"id": "msg_final", "type": "message", "role": "assistant", "model": model,
                    "content": [{"type": "text", "text": FINAL_TEXT}], "stop_reason": "end_turn",
                    "usage": {"input_tokens": 600, "output_tokens": 30}},
    })
    frames.append({
        "type": "result", "subtype": "success", "is_error": False, "duration_ms": 2412, "duration_api_ms": 1980,
        "num_turns": 5, "result": FINAL_TEXT, "session_id": session, "total_cost_usd": 0.0123,
        "usage": {"input_tokens": 2100, "output_tokens": 110}, "stop_reason": "end_turn",
    })
    return frames


def claude_tools() -> dict[str, Any]:
    """The shop tools as Claude Agent SDK ``@tool`` objects (what create_sdk_mcp_server takes)."""
    from claude_agent_sdk import tool

    def text(value: Any) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": value if isinstance(value, str) else json.dumps(value)}]}

    @tool("lookup_customer", "Find a customer by email", {"email": str})
    async def lookup(args: dict[str, Any]) -> dict[str, Any]:
        return text(lookup_customer(**args))

    @tool("list_orders", "List a customer's orders", {"customer_id": str})
    async def orders(args: dict[str, Any]) -> dict[str, Any]:
        return text(list_orders(**args))

    @tool("refund_order", "Refund an order", {"order_id": str, "amount": float})
    async def refund(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": REFUND_ERROR}], "is_error": True}

    @tool("notify", "Send the customer a message", {"customer_id": str, "message": str})
    async def send(args: dict[str, Any]) -> dict[str, Any]:
        return text(notify(**args))

    return {t.name: t for t in (lookup, orders, refund, send)}


def run_claude_agent_sdk(record: list[dict[str, Any]] | None = None) -> list[Any]:
    """The refund session through the SDK's real ``query()``, on a scripted CLI transport.

    ``FakeCLI`` (a ``claude_agent_sdk.Transport``, the SDK's public hook for custom
    transports) stands where the Claude Code CLI would: it answers the SDK's ``initialize``
    control request, plays :func:`claude_model_frames`, and runs each tool call through the
    SDK's own in-process MCP server (``create_sdk_mcp_server``) over the ``mcp_message``
    control protocol (MCP ``initialize``, then ``tools/call``), turning each MCP result into
    the tool_result frame the CLI emits (an error's content is a plain string). Returns the
    messages ``query()`` yielded; the stream-json frames it was fed (control frames aside)
    are appended to ``record``.
    """
    import anyio
    from claude_agent_sdk import ClaudeAgentOptions, Transport, create_sdk_mcp_server, query

    frames = claude_model_frames()
    background: list[Any] = []

    class FakeCLI(Transport):
        def __init__(self) -> None:
            self.send, self.receive = anyio.create_memory_object_stream[dict[str, Any]](100)
            self.waiting: dict[str, Any] = {}
            self.answers: dict[str, Any] = {}
            self.counter = 0

        async def connect(self) -> None:
            return None

        def is_ready(self) -> bool:
            return True

        async def end_input(self) -> None:
            return None

        async def close(self) -> None:
            self.send.close()

        async def write(self, data: str) -> None:
            for line in data.splitlines():
                frame = json.loads(line)
                if frame.get("type") == "control_request" and frame["request"]["subtype"] == "initialize":
                    await self.send.send({"type": "control_response", "response": {
                        "subtype": "success", "request_id": frame["request_id"], "response": {"commands": []}}})
                elif frame.get("type") == "control_response":
                    request_id = frame["response"]["request_id"]
                    self.answers[request_id] = frame["response"].get("response", {})
                    self.waiting.pop(request_id).set()
                elif frame.get("type") == "user":  # the prompt: start the session
                    background.append(asyncio.get_running_loop().create_task(self.play()))

        async def ask_mcp(self, message: dict[str, Any]) -> dict[str, Any]:
            self.counter += 1
            request_id = f"req_{self.counter}"
            event = self.waiting[request_id] = anyio.Event()
            await self.send.send({"type": "control_request", "request_id": request_id, "request": {
                "subtype": "mcp_message", "server_name": "shop", "message": message}})
            await event.wait()
            return self.answers.pop(request_id)["mcp_response"]

        async def play(self) -> None:
            await self.ask_mcp({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "claude-code", "version": "2.1.332"}}})
            await self.ask_mcp({"jsonrpc": "2.0", "method": "notifications/initialized"})
            for frame in frames:
                await self.send.send(frame)
                for block in frame.get("message", {}).get("content", []):
                    if block.get("type") == "tool_use":
                        await self.send.send(await self.run_tool(frame, block))
            await self.send.send({"type": "system", "subtype": "session_state_changed", "state": "idle"})
            self.send.close()

        async def run_tool(self, frame: dict[str, Any], block: dict[str, Any]) -> dict[str, Any]:
            answer = await self.ask_mcp({"jsonrpc": "2.0", "id": self.counter + 1, "method": "tools/call", "params": {
                "name": block["name"].split("__", 2)[2], "arguments": block["input"]}})
            outcome = answer["result"]
            result: dict[str, Any] = {"type": "tool_result", "tool_use_id": block["id"]}
            if outcome.get("isError"):
                text = outcome["content"][0]["text"]
                result.update(content=text, is_error=True)
                tool_use_result: Any = f"Error: {text}"
            else:
                result["content"] = outcome["content"]
                tool_use_result = outcome["content"]
            return {"type": "user", "session_id": frame["session_id"], "parent_tool_use_id": None,
                    "uuid": f"u-{block['id']}", "message": {"role": "user", "content": [result]},
                    "tool_use_result": tool_use_result}

        async def read_messages(self) -> Any:
            async for frame in self.receive:
                if record is not None and not frame["type"].startswith("control_"):
                    record.append(frame)
                yield frame

    async def collect() -> list[Any]:
        server = create_sdk_mcp_server("shop", tools=list(claude_tools().values()))
        options = ClaudeAgentOptions(mcp_servers={"shop": server}, allowed_tools=[f"mcp__shop__{n}" for n, _ in PLAN])
        return [message async for message in query(prompt=PROMPT, options=options, transport=FakeCLI())]

    return asyncio.run(collect())


def dump_claude_messages(messages: list[Any]) -> list[dict[str, Any]]:
    """``[{"_type": <class>, **dataclasses.asdict(m)}]``: blocks lose their type tag."""
    return [{"_type": type(m).__name__, **dataclasses.asdict(m)} for m in messages]


def write_claude_agent_sdk() -> None:
    frames: list[dict[str, Any]] = []
    messages = run_claude_agent_sdk(record=frames)
    path = FIXTURES / "claude_agent_sdk_stream.jsonl"
    path.write_text("".join(json.dumps(f, ensure_ascii=False) + "\n" for f in frames), encoding="utf-8")
    _write_json("claude_agent_sdk_messages.json", dump_claude_messages(messages))


# --------------------------------------------------------------------------- crewai (schema)


def write_crewai_schema_fixtures() -> None:
    """CrewAI is not installed here: build its files from the documented schema.

    ``crewai_crew_output.json``: CrewOutput.model_dump(mode="json") of the native-tool-calling
    path (task messages in OpenAI chat format, tool failures joined by tool name and args);
    ``crewai_tool_events.json``: the tool events of that run (no call ids);
    ``crewai_react_crew_output.json``: the ReAct path (Action / Action Input / Observation
    text in the assistant messages, the final answer only in ``raw``).
    """
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are Refund clerk. You handle refunds."},
        {"role": "user", "content": f"\nCurrent Task: {PROMPT}"},
    ]
    events: list[dict[str, Any]] = []
    react: list[dict[str, Any]] = list(messages)
    failures: list[dict[str, Any]] = []
    for number, (name, args) in enumerate(PLAN, start=1):
        call_id = f"call_crew_{number}"
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]})
        failed = name == "refund_order"
        output = REFUND_ERROR if failed else _tool_output(name, args)
        messages.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": output})
        started = f"evt-{number}-start"
        events.append({"type": "tool_usage_started", "event_id": started, "tool_name": name,
                       "tool_args": json.dumps(args), "run_attempts": 1, "agent_role": "Refund clerk",
                       "task_id": "task-1", "timestamp": f"2026-12-02T10:00:0{number}.000000"})
        failure = ({"message": REFUND_ERROR, "reason": "tool_reported", "code": None, "retryable": False,
                    "details": None} if failed else None)
        events.append({"type": "tool_usage_finished", "event_id": f"evt-{number}-end", "started_event_id": started,
                       "tool_name": name, "tool_args": args, "output": output, "failure": failure,
                       "run_attempts": 1, "agent_role": "Refund clerk", "task_id": "task-1",
                       "started_at": f"2026-12-02T10:00:0{number}.000000",
                       "finished_at": f"2026-12-02T10:00:0{number}.250000"})
        if failed:
            failures.append({"tool_name": name, "tool_args": args, "failure": failure})
            events.append({"type": "tool_failure_detected", "event_id": f"evt-{number}-fail", "tool_name": name,
                           "tool_args": args, "failure": failure, "agent_role": "Refund clerk", "task_id": "task-1"})
        react.append({"role": "assistant", "content": (
            f"Thought: I should call {name}.\nAction: {name}\nAction Input: {json.dumps(args)}\n"
            f"Observation: {output}")})
    messages.append({"role": "assistant", "content": FINAL_TEXT})

    def crew_output(task_messages: list[dict[str, Any]], tool_failures: list[dict[str, Any]]) -> dict[str, Any]:
        task = {"description": PROMPT, "name": None, "expected_output": "A short answer", "summary": "Please refund…",
                "raw": FINAL_TEXT, "pydantic": None, "json_dict": None, "agent": "Refund clerk",
                "output_format": "raw", "messages": task_messages, "tool_failures": tool_failures}
        return {"raw": FINAL_TEXT, "pydantic": None, "json_dict": None, "tasks_output": [task],
                "token_usage": {"total_tokens": 1200, "prompt_tokens": 1000, "completion_tokens": 200,
                                "successful_requests": 5}}

    _write_json("crewai_crew_output.json", crew_output(messages, failures))
    _write_json("crewai_tool_events.json", events)
    _write_json("crewai_react_crew_output.json", crew_output(react, failures))


def _tool_output(name: str, args: dict[str, Any]) -> str:
    functions = {"lookup_customer": lookup_customer, "list_orders": list_orders, "notify": notify}
    value = functions[name](**args)
    return value if isinstance(value, str) else json.dumps(value)


# --------------------------------------------------------------------------- output


def _write_json(name: str, data: Any) -> None:
    (FIXTURES / name).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _write_bytes(name: str, data: bytes) -> None:
    (FIXTURES / name).write_bytes(data if data.endswith(b"\n") else data + b"\n")


def write_pydantic_ai_v1() -> None:
    """Run under pydantic-ai-slim 1.x (a separate venv: ``pip install 'pydantic-ai-slim<2'``):
    1.x has no ToolFailed and stores ModelRetry as a legacy ``retry-prompt`` part."""
    import pydantic_ai

    if not pydantic_ai.__version__.startswith("1."):
        raise SystemExit(f"--pydantic-ai-v1 needs pydantic-ai 1.x, this is {pydantic_ai.__version__}")
    retry = run_pydantic_ai(failure="retried", json_string_args=True)
    _write_bytes("pydantic_ai_v1_retry_messages.json", retry.all_messages_json())


def main() -> int:
    FIXTURES.mkdir(parents=True, exist_ok=True)
    if sys.argv[1:] == ["--pydantic-ai-v1"]:
        write_pydantic_ai_v1()
        return 0
    write_pydantic_ai()
    write_openai_agents()
    write_claude_agent_sdk()
    write_crewai_schema_fixtures()
    for path in sorted(FIXTURES.iterdir()):
        print(f"{path.stat().st_size:>8}  {path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
