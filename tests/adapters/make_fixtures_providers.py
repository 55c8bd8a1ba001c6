"""Build the provider-format trace fixtures with the real SDK packages, offline.

Run ``python tests/adapters/make_fixtures_providers.py`` to (re)write the JSON files in
``tests/adapters/fixtures/providers/``. Nothing here calls a network API: every object is
made with the SDKs' own model classes (``model_validate`` / constructors), and the
LangGraph run is a real graph (``StateGraph`` + ``ToolNode``) driven by LangChain's
``GenericFakeChatModel``. The tests import the ``build_*`` functions too, so they read the
same sessions as live objects and as the saved files.

Every fixture tells the same support session, so tests can assert the same calls in
every format:

1. ``lookup_customer(email)`` -> the customer record
2. in parallel: ``list_orders(customer_id)`` and ``get_refund_policy()`` (no arguments)
3. ``refund_order(order_id, reason)`` -> fails: "Refund window has closed"
4. ``notify_customer(customer_id, message)`` with non-ASCII text -> "sent"
5. the final answer text.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures" / "providers"

SYSTEM = "You are a support agent. Use the tools; never guess order data."
USER = "Please refund order A-1002 for jane@example.com and tell her what happened."
NOTE = "Désolé Jane: the refund window for A-1002 has closed (30 days). — Café support ☕"
FINAL = "I could not refund order A-1002: the refund window has closed. Jane has been notified."
REFUND_ERROR = "Refund window has closed"

# (call id, tool, arguments, result, failed?) per round; round 2 holds two parallel calls.
ROUNDS: list[list[tuple[str, str, dict[str, Any], Any, bool]]] = [
    [("call_lookup_1", "lookup_customer", {"email": "jane@example.com"},
      {"customer_id": "C-17", "name": "Jane Doe"}, False)],
    [("call_orders_2", "list_orders", {"customer_id": "C-17"},
      [{"order_id": "A-1002", "total": 42.5, "placed": "2026-09-01"}], False),
     ("call_policy_3", "get_refund_policy", {}, "Refunds within 30 days of purchase.", False)],
    [("call_refund_4", "refund_order", {"order_id": "A-1002", "reason": "damaged"}, REFUND_ERROR, True)],
    [("call_notify_5", "notify_customer", {"customer_id": "C-17", "message": NOTE}, "sent", False)],
]
ALL_CALLS = [call for round_ in ROUNDS for call in round_]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


# --------------------------------------------------------------------------- OpenAI Chat


def build_openai_chat_completion() -> Any:
    """A ChatCompletion whose message asks for the two parallel calls of round 2."""
    from openai.types.chat import ChatCompletion

    return ChatCompletion.model_validate({
        "id": "chatcmpl-fixture-1", "object": "chat.completion", "created": 1764660000,
        "model": "gpt-4o-2024-08-06",
        "choices": [{
            "index": 0, "finish_reason": "tool_calls", "logprobs": None,
            "message": {
                "role": "assistant", "content": None, "refusal": None,
                "tool_calls": [
                    {"id": cid, "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}
                    for cid, tool, args, _, _ in ROUNDS[1]
                ],
            },
        }],
        "usage": {"prompt_tokens": 120, "completion_tokens": 40, "total_tokens": 160},
    })


def build_openai_messages() -> list[Any]:
    """A chat history as an application keeps it: dicts for its own turns and the SDK's
    ChatCompletionMessage objects for the model's turns."""
    from openai.types.chat import ChatCompletionMessage

    messages: list[Any] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": USER}]
    for round_ in ROUNDS:
        messages.append(ChatCompletionMessage.model_validate({
            "role": "assistant", "content": None,
            "tool_calls": [
                {"id": cid, "type": "function",
                 "function": {"name": tool, "arguments": json.dumps(args, ensure_ascii=False)}}
                for cid, tool, args, _, _ in round_
            ],
        }))
        for cid, _, _, result, failed in round_:
            content = f"Error: {result}" if failed else _text(result)
            messages.append({"role": "tool", "tool_call_id": cid, "content": content})
    messages.append(ChatCompletionMessage(role="assistant", content=FINAL))
    return messages


def build_openai_stream() -> list[Any]:
    """What ``stream=True`` yields for round 2: ChatCompletionChunk objects whose tool-call
    deltas carry the id and name first and the argument string in pieces."""
    from openai.types.chat import ChatCompletionChunk

    def chunk(delta: dict[str, Any], finish: str | None = None) -> Any:
        return ChatCompletionChunk.model_validate({
            "id": "chatcmpl-stream-1", "object": "chat.completion.chunk", "created": 1764660000,
            "model": "gpt-4o-2024-08-06",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
        })

    chunks = [chunk({"role": "assistant", "content": None})]
    for k, (cid, tool, args, _, _) in enumerate(ROUNDS[1]):
        text = json.dumps(args)
        chunks.append(chunk({"tool_calls": [{"index": k, "id": cid, "type": "function",
                                             "function": {"name": tool, "arguments": ""}}]}))
        for start in range(0, len(text), 7):
            chunks.append(chunk({"tool_calls": [{"index": k, "function": {"arguments": text[start:start + 7]}}]}))
    chunks.append(chunk({}, finish="tool_calls"))
    return chunks


def build_openai_legacy_function_call() -> list[Any]:
    """The deprecated ``functions`` API: one ``function_call`` per turn, results in
    ``role="function"`` messages matched by name (there are no call ids)."""
    from openai.types.chat import ChatCompletionMessage
    from openai.types.chat.chat_completion_message import FunctionCall

    messages: list[Any] = [{"role": "user", "content": USER}]
    for _, tool, args, result, _ in (ROUNDS[0][0], ROUNDS[2][0]):
        messages.append(ChatCompletionMessage(
            role="assistant", content=None,
            function_call=FunctionCall(name=tool, arguments=json.dumps(args)),
        ))
        messages.append({"role": "function", "name": tool, "content": _text(result)})
    messages.append(ChatCompletionMessage(role="assistant", content=FINAL))
    return messages


# ------------------------------------------------------------------- OpenAI Responses


def build_openai_response() -> Any:
    """A Responses API ``Response`` whose output asks for round 2's two calls."""
    from openai.types.responses import Response

    return Response.model_validate({
        "id": "resp_fixture_1", "object": "response", "created_at": 1764660000,
        "model": "gpt-4.1-2025-04-14", "status": "completed", "parallel_tool_calls": True,
        "tool_choice": "auto", "tools": [], "output": [
            {"type": "function_call", "id": f"fc_{i}", "call_id": cid, "name": tool,
             "arguments": json.dumps(args), "status": "completed"}
            for i, (cid, tool, args, _, _) in enumerate(ROUNDS[1])
        ],
    })


def build_openai_responses_input() -> list[Any]:
    """A Responses API input list after the whole session: the user's message, the
    model's function_call items (SDK objects), the application's function_call_output
    items, and the final assistant message."""
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage
    from openai.types.responses.response_input_item import FunctionCallOutput

    items: list[Any] = [{"role": "user", "content": USER}]
    n = 0
    for round_ in ROUNDS:
        for cid, tool, args, _, _ in round_:
            n += 1
            items.append(ResponseFunctionToolCall(
                type="function_call", id=f"fc_{n}", call_id=cid, name=tool,
                arguments=json.dumps(args, ensure_ascii=False), status="completed",
            ))
        for cid, _, _, result, failed in round_:
            output = f"Error: {result}" if failed else _text(result)
            items.append(FunctionCallOutput(type="function_call_output", call_id=cid, output=output))
    items.append(ResponseOutputMessage.model_validate({
        "type": "message", "id": "msg_final", "role": "assistant", "status": "completed",
        "content": [{"type": "output_text", "text": FINAL, "annotations": []}],
    }))
    return items


# --------------------------------------------------------------------------- Anthropic


def build_anthropic_message() -> Any:
    """An Anthropic ``Message`` with a text block and round 2's two tool_use blocks."""
    from anthropic.types import Message

    return Message.model_validate({
        "id": "msg_fixture_1", "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-5", "stop_reason": "tool_use", "stop_sequence": None,
        "content": [{"type": "text", "text": "Let me check the orders and the policy."}] + [
            {"type": "tool_use", "id": cid.replace("call_", "toolu_"), "name": tool, "input": args}
            for cid, tool, args, _, _ in ROUNDS[1]
        ],
        "usage": {"input_tokens": 200, "output_tokens": 60},
    })


def build_anthropic_messages() -> list[Any]:
    """A Messages API history: the model's turns are the SDK's content blocks, the
    results are ``tool_result`` blocks (the refund's with ``is_error``)."""
    from anthropic.types import Message

    messages: list[Any] = [{"role": "user", "content": USER}]
    for number, round_ in enumerate(ROUNDS):
        reply = Message.model_validate({
            "id": f"msg_{number}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "stop_reason": "tool_use", "stop_sequence": None,
            "content": [{"type": "tool_use", "id": cid.replace("call_", "toolu_"), "name": tool, "input": args}
                        for cid, tool, args, _, _ in round_],
            "usage": {"input_tokens": 10, "output_tokens": 10},
        })
        messages.append({"role": "assistant", "content": reply.content})
        results = []
        for cid, _, _, result, failed in round_:
            block: dict[str, Any] = {"type": "tool_result", "tool_use_id": cid.replace("call_", "toolu_"),
                                     "content": [{"type": "text", "text": _text(result)}]}
            if failed:
                block["is_error"] = True
            results.append(block)
        messages.append({"role": "user", "content": results})
    messages.append({"role": "assistant", "content": [{"type": "text", "text": FINAL}]})
    return messages


# ------------------------------------------------------------------------------ Gemini


def build_gemini_response() -> Any:
    """A ``GenerateContentResponse`` whose candidate asks for round 2's two calls."""
    from google.genai import types

    return types.GenerateContentResponse(
        candidates=[types.Candidate(
            index=0, finish_reason=types.FinishReason.STOP,
            content=types.Content(role="model", parts=[
                types.Part(function_call=types.FunctionCall(id=cid, name=tool, args=args))
                for cid, tool, args, _, _ in ROUNDS[1]
            ]),
        )],
        model_version="gemini-2.5-flash",
        usage_metadata=types.GenerateContentResponseUsageMetadata(prompt_token_count=90, total_token_count=120),
    )


def build_gemini_contents() -> list[Any]:
    """A Gemini ``Content`` history; results are ``function_response`` parts whose
    response holds ``output`` or, for the refund, ``error``."""
    from google.genai import types

    contents: list[Any] = [types.Content(role="user", parts=[types.Part(text=USER)])]
    for round_ in ROUNDS:
        contents.append(types.Content(role="model", parts=[
            types.Part(function_call=types.FunctionCall(id=cid, name=tool, args=args))
            for cid, tool, args, _, _ in round_
        ]))
        contents.append(types.Content(role="user", parts=[
            types.Part(function_response=types.FunctionResponse(
                id=cid, name=tool, response={"error": result} if failed else {"output": result}))
            for cid, tool, _, result, failed in round_
        ]))
    contents.append(types.Content(role="model", parts=[types.Part(text=FINAL)]))
    return contents


# ------------------------------------------------------------------ LangChain / LangGraph


def build_langgraph_app() -> Any:
    """The canonical ReAct graph, built by hand: an agent node on a scripted fake chat
    model, a ToolNode running real ``@tool`` functions, and ``tools_condition``."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.tools import ToolException, tool
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition

    results = {tool_name: result for _, tool_name, _, result, _ in ALL_CALLS}

    @tool
    def lookup_customer(email: str) -> str:
        """Find a customer by email."""
        return _text(results["lookup_customer"])

    @tool
    def list_orders(customer_id: str) -> str:
        """List a customer's orders."""
        return _text(results["list_orders"])

    @tool
    def get_refund_policy() -> str:
        """The refund policy."""
        return _text(results["get_refund_policy"])

    @tool
    def refund_order(order_id: str, reason: str) -> str:
        """Refund an order."""
        raise ToolException(REFUND_ERROR)

    refund_order.handle_tool_error = True  # the decorator does not take this keyword

    @tool
    def notify_customer(customer_id: str, message: str) -> str:
        """Send the customer a message."""
        return "sent"

    scripted = [
        AIMessage(content="", tool_calls=[{"name": tool_name, "args": args, "id": cid, "type": "tool_call"}
                                          for cid, tool_name, args, _, _ in round_])
        for round_ in ROUNDS
    ] + [AIMessage(content=FINAL)]
    model = GenericFakeChatModel(messages=iter(scripted))

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode([lookup_customer, list_orders, get_refund_policy, refund_order,
                                      notify_customer]))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile()


def build_langgraph_state() -> dict[str, Any]:
    """``graph.invoke(...)``: the final state ``{"messages": [...]}`` of LangChain messages."""
    from langchain_core.messages import HumanMessage, SystemMessage

    app = build_langgraph_app()
    return app.invoke({"messages": [SystemMessage(content=SYSTEM), HumanMessage(content=USER)]})


def build_langgraph_stream_updates() -> list[Any]:
    """``graph.stream(..., stream_mode="updates")``: one ``{node: {"messages": [...]}}`` per step."""
    from langchain_core.messages import HumanMessage

    app = build_langgraph_app()
    return list(app.stream({"messages": [HumanMessage(content=USER)]}, stream_mode="updates"))


def build_langchain_messages() -> list[Any]:
    """The LangChain message list of the LangGraph run (System, Human, AI, Tool messages)."""
    return list(build_langgraph_state()["messages"])


# ---------------------------------------------------------------------------- writing


def _dump_models(value: Any, **kwargs: Any) -> Any:
    if isinstance(value, list):
        return [_dump_models(v, **kwargs) for v in value]
    if isinstance(value, dict):
        return {k: _dump_models(v, **kwargs) for k, v in value.items()}
    dump = getattr(value, "model_dump", None)
    return dump(mode="json", **kwargs) if callable(dump) else value


def build_all() -> dict[str, Any]:
    """File name -> JSON-ready data, each made from the live objects above."""
    from langchain_core.load import dumpd
    from langchain_core.messages import messages_to_dict

    lc_messages = build_langchain_messages()
    state = build_langgraph_state()
    out: dict[str, Any] = {
        "openai_chat_completion.json": _dump_models(build_openai_chat_completion()),
        "openai_messages.json": _dump_models(build_openai_messages(), exclude_none=True),
        "openai_legacy_function_call.json": _dump_models(build_openai_legacy_function_call(), exclude_none=True),
        "openai_stream_chunks.json": _dump_models(build_openai_stream(), exclude_none=True),
        "openai_responses_response.json": _dump_models(build_openai_response()),
        "openai_responses_input.json": _dump_models(build_openai_responses_input(), exclude_none=True),
        "anthropic_message.json": _dump_models(build_anthropic_message()),
        "anthropic_messages.json": _dump_models(build_anthropic_messages(), exclude_none=True),
        "gemini_response_camel.json": _dump_models(build_gemini_response(), exclude_none=True, by_alias=True),
        "gemini_response_snake.json": _dump_models(build_gemini_response(), exclude_none=True),
        "gemini_contents_camel.json": _dump_models(build_gemini_contents(), exclude_none=True, by_alias=True),
        "gemini_contents_snake.json": _dump_models(build_gemini_contents(), exclude_none=True),
        "langchain_messages_to_dict.json": messages_to_dict(lc_messages),
        "langchain_dumpd.json": [dumpd(m) for m in lc_messages],
        "langchain_model_dump.json": [m.model_dump(mode="json") for m in lc_messages],
        "langgraph_state_dumpd.json": dumpd(state),
        "langgraph_state_messages_to_dict.json": {"messages": messages_to_dict(state["messages"])},
        "langgraph_stream_updates.json": [dumpd(chunk) for chunk in build_langgraph_stream_updates()],
    }
    return out


def main(argv: list[str]) -> int:
    target = Path(argv[1]) if len(argv) > 1 else FIXTURES
    target.mkdir(parents=True, exist_ok=True)
    for name, data in build_all().items():
        text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
        (target / name).write_text(text, encoding="utf-8")
        print(f"wrote {target / name}")
    # JSON Lines: the same OpenAI history, one message per line
    lines = [json.dumps(m, ensure_ascii=False) for m in _dump_models(build_openai_messages(), exclude_none=True)]
    (target / "openai_messages.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {target / 'openai_messages.jsonl'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
