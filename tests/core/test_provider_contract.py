"""The provider contract: the model-call types, their JSON form, factories and provider errors.

The docstring's example provider is run for real: the installed openai SDK talks to a chat
completions server on 127.0.0.1 that answers like a compatible server would.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from toolscore_core import (
    STOP_REASONS,
    AssistantMessage,
    BadRequest,
    InputError,
    ModelRequest,
    ModelToolCall,
    ModelTurn,
    Overloaded,
    Provider,
    ProviderError,
    ProviderTransportError,
    RateLimited,
    Refused,
    ToolDefinition,
    ToolResultMessage,
    ToolscoreError,
    Usage,
    UserMessage,
    collect,
    hookimpl,
    normalise_stop_reason,
)
from toolscore_core.kernel import interfaces, providers

OPENAI_STYLE_KEY = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
LOCAL_KEY = "local-cluster-passphrase-7781"


def full_request() -> ModelRequest:
    turn = ModelTurn(
        text="Reading it first.",
        tool_calls=[ModelToolCall.parse("call_A", "read_file", '{"path": "foo.py"}'),
                    ModelToolCall.parse("call_B", "write_file", '{"path": "foo.py", "te')],
        stop_reason="tool_use",
        raw_stop_reason="tool_calls",
        usage=Usage(input_tokens=812, output_tokens=40, cached_tokens=None),
        model="model-a",
        response_id="resp_1",
        provider_data={"reasoning": [{"type": "reasoning", "encrypted_content": "gAAA"}]},
    )
    return ModelRequest(
        system="You are a coding agent.",
        messages=[
            UserMessage("Fix the failing test in foo.py"),
            turn.as_message(),
            ToolResultMessage(call_id="call_A", tool="read_file", content="def test_x(): ...", is_error=False),
            ToolResultMessage(call_id="call_B", tool="write_file", content="arguments were not JSON",
                              is_error=True),
        ],
        tools=[ToolDefinition(name="read_file", description="Read a file.",
                              input_schema={"type": "object", "properties": {"path": {"type": "string"}}})],
        max_output_tokens=4096,
        extra={"temperature": 0, "reasoning": {"effort": "low"}},
        model="model-b",
    )


# -- the types and their JSON form ---------------------------------------------------------


def test_request_round_trips_through_json_text_with_every_message_kind():
    request = full_request()
    text = json.dumps(request.to_dict())
    back = ModelRequest.from_dict(json.loads(text))
    assert back == request
    assert [type(m) for m in back.messages] == [UserMessage, AssistantMessage, ToolResultMessage,
                                                ToolResultMessage]
    assert [m["role"] for m in json.loads(text)["messages"]] == ["user", "assistant", "tool", "tool"]
    assert back.messages[1].provider_data["reasoning"][0]["encrypted_content"] == "gAAA"


@pytest.mark.parametrize("value", [
    Usage(1, 2, 0),
    Usage(),
    ModelToolCall.parse("c", "t", "{not json"),
    UserMessage("hi"),
    AssistantMessage(text=None, tool_calls=[ModelToolCall("c", "t", {"a": [1, 2]})]),
    ToolResultMessage("c", "t", "boom", is_error=True),
    ModelTurn(text=None, stop_reason="max_tokens", raw_stop_reason="length", usage=Usage(5, None, None)),
])
def test_each_type_round_trips(value):
    assert type(value).from_dict(json.loads(json.dumps(value.to_dict()))) == value


def test_unknown_usage_stays_none_and_totals_only_known_counts():
    turn = ModelTurn.from_dict({"text": "ok"})
    assert turn.usage == Usage(None, None, None)
    assert turn.usage.total_tokens is None
    assert Usage(10, 5).total_tokens == 15
    with pytest.raises(ValueError, match="non-negative"):
        Usage(input_tokens=-1)


@pytest.mark.parametrize(("cls", "data", "says"), [
    (Usage, {"input_tokens": "812"}, "$.input_tokens"),
    (Usage, {"output_tokens": True}, "$.output_tokens"),
    (ModelTurn, {"stop_reason": "finished"}, "expected one of end_turn"),
    (ModelRequest, {"messages": [{"role": "bot", "text": "x"}]}, "$.messages[0]"),
    (ModelRequest, {"messages": [{"role": "tool", "call_id": "c", "tool": "t", "content": "x",
                                  "is_error": "false"}]}, "$.messages[0].is_error"),
    (ModelToolCall, {"name": "x"}, "id"),
    (ModelTurn, ["not", "an", "object"], "JSON object"),
])
def test_bad_json_is_an_input_error_naming_the_place(cls, data, says):
    with pytest.raises(InputError) as info:
        cls.from_dict(data)
    assert says in str(info.value)
    assert info.value.exit_code == 2


def test_request_refuses_things_that_are_not_messages():
    with pytest.raises(TypeError, match="messages\\[1\\]"):
        ModelRequest(messages=[UserMessage("a"), {"role": "user", "text": "b"}])


def test_extended_appends_without_changing_the_original():
    request = ModelRequest(messages=[UserMessage("a")])
    longer = request.extended(UserMessage("b"))
    assert [m.text for m in longer.messages] == ["a", "b"]
    assert len(request.messages) == 1


# -- stop reasons --------------------------------------------------------------------------


@pytest.mark.parametrize(("raw", "expected"), [
    ("end_turn", "end_turn"), ("stop_sequence", "end_turn"), ("tool_use", "tool_use"),
    ("max_tokens", "max_tokens"), ("refusal", "refusal"), ("pause_turn", "other"),
    ("model_context_window_exceeded", "max_tokens"),                         # Anthropic
    ("stop", "end_turn"), ("length", "max_tokens"), ("tool_calls", "tool_use"),
    ("content_filter", "refusal"), ("function_call", "tool_use"),            # chat completions
    ("completed", "end_turn"), ("max_output_tokens", "max_tokens"), ("failed", "other"),  # Responses
    ("STOP", "end_turn"), ("something-new", "other"), (None, "other"), ("", "other"),
])
def test_stop_reasons_are_normalised(raw, expected):
    assert normalise_stop_reason(raw) == expected
    assert expected in STOP_REASONS


def test_tool_calls_decide_tool_use_but_a_cut_off_turn_stays_cut_off():
    assert normalise_stop_reason("stop", has_tool_calls=True) == "tool_use"
    assert normalise_stop_reason(None, has_tool_calls=True) == "tool_use"
    assert normalise_stop_reason("length", has_tool_calls=True) == "max_tokens"
    assert normalise_stop_reason("refusal", has_tool_calls=True) == "refusal"


def test_a_turn_only_takes_a_normalised_stop_reason():
    with pytest.raises(ValueError, match="stop_reason"):
        ModelTurn(stop_reason="stop")


# -- tool-call arguments -------------------------------------------------------------------


def test_arguments_as_deep_as_the_kernel_reads_are_a_call():
    raw = '{"a": ' + "[" * 99 + "]" * 99 + "}"  # 100 levels
    call = ModelToolCall.parse("call_1", "write_file", raw)
    assert not call.malformed and call.arguments == json.loads(raw)


@pytest.mark.parametrize("raw", ['{"path": "foo.py", "te', "[1, 2]", '"just text"', "{'a': 1}",
                                 '{"a": ' + "[" * 100 + "]" * 100 + "}",  # 101 levels: past the kernel's limit
                                 '{"a": ' + "[" * 5000 + "]" * 5000 + "}"])  # past the parser's stack
def test_malformed_or_truncated_arguments_are_kept_raw(raw):
    call = ModelToolCall.parse("call_1", "write_file", raw)
    assert call.arguments is None and call.raw_arguments == raw and call.malformed
    kernel_call = call.to_tool_call(tool="fs.write_file")
    assert kernel_call.tool == "fs.write_file" and kernel_call.id == "call_1"
    assert kernel_call.args is None and kernel_call.metadata == {"raw_arguments": raw}


@pytest.mark.parametrize(("wire", "arguments"), [
    ('{"path": "a"}', {"path": "a"}), ({"path": "a"}, {"path": "a"}), ("", {}), ("  ", {}), (None, {}),
])
def test_well_formed_arguments_parse(wire, arguments):
    call = ModelToolCall.parse("c", "read", wire)
    assert call.arguments == arguments and call.raw_arguments is None and not call.malformed
    assert call.to_tool_call().args == arguments and call.to_tool_call().tool == "read"


# -- the Provider base and factories -------------------------------------------------------


def test_interfaces_still_exports_the_same_provider_class():
    assert interfaces.Provider is providers.Provider is Provider


def test_a_registered_provider_gets_only_the_settings_it_names(plugin_manager, register_plugin):
    seen: dict[str, Any] = {}

    class Narrow(Provider):
        name = "narrow"

        def __init__(self, model: str, *, base_url: str | None = None) -> None:
            super().__init__(model, base_url=base_url)
            seen.update(model=model, base_url=base_url)

        def complete(self, request: ModelRequest) -> ModelTurn:
            return ModelTurn(text=f"{self.model}@{self.base_url}: {request.messages[-1].text}")

    class Wide(Provider):
        name = "wide"

    class Plugin:
        @hookimpl
        def toolscore_register_providers(self):
            return [Narrow, Wide]

    register_plugin(Plugin())
    registry = collect(plugin_manager, "providers")
    settings = {"model": "m-1", "base_url": "http://127.0.0.1:9/v1", "client": object(),
                "api_key_env": "NARROW_KEY", "temperature": 0.2}
    narrow = registry.create("narrow", **settings)
    assert seen == {"model": "m-1", "base_url": "http://127.0.0.1:9/v1"}
    assert narrow.complete(ModelRequest(messages=[UserMessage("hi")])).text == "m-1@http://127.0.0.1:9/v1: hi"

    wide = registry.create("wide", **settings)  # the base __init__ takes every setting
    assert (wide.model, wide.base_url, wide.api_key_env) == ("m-1", "http://127.0.0.1:9/v1", "NARROW_KEY")
    assert wide.client is settings["client"] and wide.options == {"temperature": 0.2}
    with pytest.raises(NotImplementedError):
        wide.complete(ModelRequest())


def test_api_key_reads_the_named_variable_and_says_which_is_missing(monkeypatch):
    monkeypatch.setenv("MY_TEST_KEY", LOCAL_KEY)
    assert Provider(api_key_env="MY_TEST_KEY").api_key() == LOCAL_KEY
    assert Provider().api_key() is None
    monkeypatch.delenv("MY_TEST_KEY")
    with pytest.raises(InputError, match="MY_TEST_KEY is not set"):
        Provider(api_key_env="MY_TEST_KEY").api_key()


def test_repr_shows_option_names_not_values():
    text = repr(Provider("m", api_key_env="K", api_key=LOCAL_KEY))
    assert "api_key" in text and LOCAL_KEY not in text


# -- provider errors -----------------------------------------------------------------------


def test_error_family_defaults():
    cases = [(RateLimited, True), (Overloaded, True), (ProviderTransportError, True),
             (Refused, False), (BadRequest, False), (ProviderError, False)]
    for cls, retryable in cases:
        error = cls("it failed", provider="p", status=500)
        assert isinstance(error, ProviderError) and isinstance(error, ToolscoreError)
        assert error.retryable is retryable and error.exit_code == 2
        assert str(error) == "p: it failed"
    quota = RateLimited("You exceeded your current quota", retryable=False, retry_after=None)
    assert quota.retryable is False and quota.retry_after is None and quota.provider is None
    assert not issubclass(ProviderTransportError, ConnectionError)  # no builtin shadowed or mixed in


def test_error_messages_hide_known_key_formats_even_when_not_told():
    error = BadRequest(f"401: Incorrect API key provided: {OPENAI_STYLE_KEY}", provider="openai", status=401)
    assert OPENAI_STYLE_KEY not in str(error) and OPENAI_STYLE_KEY not in error.message
    assert "sk-p" in str(error)  # a recognisable preview stays, so the user knows which key


class _Script:
    """What the fake chat server answers next: (status, headers, JSON body) per request."""

    def __init__(self) -> None:
        self.replies: list[tuple[int, dict[str, str], Any]] = []
        self.requests: list[dict[str, Any]] = []


@pytest.fixture
def chat_server() -> Iterator[tuple[str, _Script]]:
    """A chat completions endpoint on 127.0.0.1 whose error bodies echo the auth header,
    as badly behaved proxies do: the worst case for a key leaking into a message."""
    script = _Script()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            script.requests.append({"path": self.path, "body": body,
                                    "authorization": self.headers.get("authorization")})
            status, headers, reply = script.replies.pop(0)
            if status >= 400:
                reply = {"error": {"message": f"rejected {self.headers.get('authorization')}",
                                   "type": "rate_limit_exceeded" if status == 429 else "invalid_request_error"}}
            data = json.dumps(reply).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", script
    finally:
        server.shutdown()
        server.server_close()


def _docstring_plugin() -> dict[str, Any]:
    """Run the provider plugin shown in the providers module docstring, as a module would."""
    doc = providers.__doc__ or ""
    block = doc.split("complete::\n", 1)[1].split("\nThe harness then", 1)[0]
    code = "\n".join(line[4:] for line in block.splitlines())
    namespace: dict[str, Any] = {"__name__": "local_chat"}
    exec(compile(code, "local_chat.py", "exec"), namespace)
    return namespace


def test_the_documented_provider_plugin_works_against_a_real_sdk(
    chat_server, plugin_manager, register_plugin, monkeypatch
):
    pytest.importorskip("openai")
    base_url, script = chat_server
    plugin = _docstring_plugin()
    register_plugin(type("Plugin", (), {"toolscore_register_providers": staticmethod(
        plugin["toolscore_register_providers"])})())
    monkeypatch.setenv("LOCAL_CHAT_KEY", LOCAL_KEY)
    provider = collect(plugin_manager, "providers").create(
        "local-chat", model="qwen-test", base_url=base_url, api_key_env="LOCAL_CHAT_KEY")

    script.replies.append((200, {}, {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "qwen-test",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": None,
            "tool_calls": [{"id": "call_1", "type": "function",
                            "function": {"name": "write_file", "arguments": '{"path": "a.txt", "te'}}]}}],
    }))
    request = full_request()
    turn = provider.complete(request)
    sent = script.requests[0]
    assert sent["path"] == "/v1/chat/completions" and sent["authorization"] == f"Bearer {LOCAL_KEY}"
    assert sent["body"]["model"] == "model-b"  # the request's override wins over the arm's model
    assert [m["role"] for m in sent["body"]["messages"]] == ["system", "user", "assistant", "tool", "tool"]
    assert sent["body"]["messages"][2]["tool_calls"][1]["function"]["arguments"] == '{"path": "foo.py", "te'
    assert sent["body"]["max_tokens"] == 4096 and sent["body"]["temperature"] == 0
    assert turn.stop_reason == "tool_use" and turn.raw_stop_reason == "stop"  # calls present: tool_use
    assert turn.tool_calls[0].malformed and turn.tool_calls[0].raw_arguments == '{"path": "a.txt", "te'
    assert turn.usage == Usage()  # the server reported none: unknown, not zero
    assert ModelTurn.from_dict(json.loads(json.dumps(turn.to_dict()))) == turn

    script.replies.append((429, {"retry-after": "2"}, None))
    with pytest.raises(RateLimited) as info:
        provider.complete(ModelRequest(messages=[UserMessage("again")]))
    assert "rejected" in str(info.value)  # the server's message is kept ...
    assert LOCAL_KEY not in str(info.value) and LOCAL_KEY not in info.value.message  # ... its key is not
    assert info.value.retryable and info.value.status == 429 and info.value.provider == "local-chat"
