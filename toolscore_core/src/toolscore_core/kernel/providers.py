"""The model-call vocabulary: what a provider is asked, what it answers, and its base class.

A provider turns one :class:`ModelRequest` (system prompt, conversation, tool definitions)
into one :class:`ModelTurn` (text, tool calls, why the model stopped, token usage). The
agent harness and the LLM judge speak only these types, so one provider plugin serves
both, and neither feature knows any SDK. Turns and requests round-trip through JSON
(``to_dict``/``from_dict``) because the scripted provider replays stored turns and run rows
keep them.

Rules a provider follows:

- Import the SDK inside methods, never at module top: the plugin module is imported
  whenever the ``providers`` group is, and ``toolscore --help`` must stay cheap.
- Never execute a tool: return the turn, or raise one of the
  :class:`~toolscore_core.kernel.errors.ProviderError` family (``RateLimited``,
  ``Overloaded``, ``Refused``, ``BadRequest``, ``ProviderTransportError``) with
  ``retryable`` and ``retry_after`` filled in.
- Retries are counted, never hidden. Turn the SDK's own retries off (``max_retries=0``): a
  provider that retries rate-limited or overloaded answers itself (the API providers of
  toolscore-providers do, honouring retry-after within a capped total wait) reports how many
  it made (``last_retries``; ``retries`` on the error it finally raises), so a run row can say
  "3 retries" instead of silently taking three times as long.
- Malformed tool-call arguments are the model's failure, not the provider's: keep them with
  :meth:`ModelToolCall.parse` (``arguments=None``, the raw text kept) and let the harness
  report them to the model.
- Unknown is ``None``: usage a server did not report is ``Usage()``, never zeros.
- Keys come from the environment variable named by ``api_key_env`` (:meth:`Provider.api_key`)
  and never appear in a message: pass ``secrets=[key]`` when raising a provider error.

A minimal provider plugin for an OpenAI-compatible chat server, complete::

    # local_chat.py, named by an entry point in the "toolscore.providers" group
    import json

    from toolscore_core import (
        AssistantMessage, BadRequest, ModelToolCall, ModelTurn, Provider, RateLimited,
        ToolResultMessage, Usage, hookimpl, normalise_stop_reason,
    )

    class LocalChat(Provider):
        name = "local-chat"
        description = "Any server speaking the chat completions API (vLLM, Ollama)"

        def complete(self, request):
            import openai  # here, not at the top: listing plugins must not load the SDK

            key = self.api_key() or "not-needed"
            client = self.client or openai.OpenAI(base_url=self.base_url, api_key=key, max_retries=0)
            messages = [{"role": "system", "content": request.system}] if request.system else []
            for item in request.messages:
                if isinstance(item, AssistantMessage):
                    calls = [{"id": c.id, "type": "function", "function": {
                        "name": c.name, "arguments": c.raw_arguments or json.dumps(c.arguments)}}
                        for c in item.tool_calls]
                    messages.append({"role": "assistant", "content": item.text,
                                     **({"tool_calls": calls} if calls else {})})
                elif isinstance(item, ToolResultMessage):
                    messages.append({"role": "tool", "tool_call_id": item.call_id,
                                     "content": item.content})
                else:
                    messages.append({"role": "user", "content": item.text})
            options = {"extra_body": dict(request.extra)}  # sent as they are, unchecked by the SDK
            if request.tools:
                options["tools"] = [{"type": "function", "function": {
                    "name": t.name, "description": t.description or "",
                    "parameters": t.input_schema}} for t in request.tools]
            if request.max_output_tokens is not None:
                options["max_tokens"] = request.max_output_tokens
            try:
                reply = client.chat.completions.create(
                    model=request.model or self.model, messages=messages, **options)
            except openai.RateLimitError as exc:
                raise RateLimited(str(exc), provider=self.name, status=429, secrets=[key]) from None
            except openai.BadRequestError as exc:
                raise BadRequest(str(exc), provider=self.name, status=400, secrets=[key]) from None
            choice = reply.choices[0]
            calls = tuple(ModelToolCall.parse(c.id, c.function.name, c.function.arguments)
                          for c in choice.message.tool_calls or ())
            used = reply.usage
            return ModelTurn(
                text=choice.message.content,
                tool_calls=calls,
                stop_reason=normalise_stop_reason(choice.finish_reason, has_tool_calls=bool(calls)),
                raw_stop_reason=choice.finish_reason,
                usage=Usage(used.prompt_tokens, used.completion_tokens) if used else Usage(),
                model=reply.model,
                response_id=reply.id,
            )

    @hookimpl
    def toolscore_register_providers():
        return [LocalChat]

The harness then makes it with the settings of the study's arm:
``collect(pm, "providers").create("local-chat", model="qwen3", base_url="http://localhost:8000/v1")``.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import attrs

if TYPE_CHECKING:
    import cattrs

from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.model import ToolCall, ToolDefinition

StopReason = Literal["end_turn", "tool_use", "max_tokens", "refusal", "other"]

#: The normalised stop reasons. ``end_turn``: the model finished its answer (a natural end or
#: a stop sequence). ``tool_use``: it wants tool calls run. ``max_tokens``: output was cut off
#: by a token cap or the context window, so any tool call in the turn may be truncated and must
#: not run. ``refusal``: the model or a content filter declined. ``other``: anything else
#: (paused, failed, a value this version does not know); ``raw_stop_reason`` says which.
STOP_REASONS: tuple[str, ...] = ("end_turn", "tool_use", "max_tokens", "refusal", "other")

# Raw values of the three wire formats (Anthropic stop_reason, chat finish_reason, Responses
# status / incomplete_details.reason), lower-cased.
_RAW_STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "stop": "end_turn",
    "stop_sequence": "end_turn",
    "completed": "end_turn",
    "tool_use": "tool_use",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "max_tokens": "max_tokens",
    "length": "max_tokens",
    "max_output_tokens": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
    "refusal": "refusal",
    "content_filter": "refusal",
}


def normalise_stop_reason(raw: str | None, *, has_tool_calls: bool = False) -> StopReason:
    """Map a wire-format stop value onto :data:`STOP_REASONS`.

    ``has_tool_calls`` matters because chat servers answer ``"stop"`` even when the turn holds
    tool calls (OpenAI does so when ``tool_choice`` names a function): whether to run tools is
    decided by their presence, so a natural end with calls is ``tool_use``. A cut-off turn stays
    ``max_tokens`` even with calls, because those calls may be truncated.
    """
    reason = _RAW_STOP_REASONS.get(raw.strip().lower(), "other") if raw else "other"
    if has_tool_calls and reason == "end_turn":
        return "tool_use"
    if raw is None and has_tool_calls:
        return "tool_use"
    return reason


def _tuple(value: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(value)


def _non_negative(_instance: Any, attribute: attrs.Attribute[Any], value: int | None) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise ValueError(f"{attribute.name} must be a non-negative integer or None, not {value!r}")


class _JsonRoundTrip:
    """``to_dict``/``from_dict`` through this module's strict converter (see :func:`_structure`)."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe primitives; message items carry a ``role`` key naming their kind."""
        data: dict[str, Any] = _converter().unstructure(self, unstructure_as=type(self))
        return data

    @classmethod
    def from_dict(cls, data: Any) -> Any:
        """Rebuild from :meth:`to_dict` output; a bad shape is an :class:`InputError` with its path."""
        return _structure(data, cls)


@attrs.frozen(slots=True)
class Usage(_JsonRoundTrip):
    """Tokens a call used, as the API reported them; ``None`` = not reported (never 0).

    ``input_tokens`` includes ``cached_tokens`` (the discounted part read from a prompt cache),
    as every supported API counts them.
    """

    input_tokens: int | None = attrs.field(default=None, validator=_non_negative)
    output_tokens: int | None = attrs.field(default=None, validator=_non_negative)
    cached_tokens: int | None = attrs.field(default=None, validator=_non_negative)

    @property
    def total_tokens(self) -> int | None:
        """Input plus output, or ``None`` when either is unknown."""
        if self.input_tokens is None or self.output_tokens is None:
            return None
        return self.input_tokens + self.output_tokens


@attrs.frozen(slots=True)
class ModelToolCall(_JsonRoundTrip):
    """A tool call as the model asked for it, in the provider's tool namespace.

    ``arguments`` is the parsed JSON object. When the model sent text that is not a JSON
    object (malformed, or cut off by the token cap) ``arguments`` is ``None`` and
    ``raw_arguments`` keeps the text: an agent failure to record and report back to the
    model, not a crash. ``raw_arguments`` is ``None`` when nothing needed keeping.
    """

    id: str
    name: str
    arguments: dict[str, Any] | None = attrs.field(factory=dict)
    raw_arguments: str | None = None

    @classmethod
    def parse(cls, id: str, name: str, arguments: str | dict[str, Any] | None) -> ModelToolCall:
        """Build a call from the wire: a JSON string (OpenAI), an object (Anthropic, some
        compatible servers) or nothing. Blank text counts as no arguments, because servers
        send ``""`` for tools without parameters; a cut-off turn is flagged by its
        ``stop_reason``, not here."""
        from toolscore_core.kernel.readlimits import MAX_NESTING, deeper_than

        if arguments is None:
            return cls(id=id, name=name, arguments={})
        if isinstance(arguments, dict):  # parsed by the SDK, which reads far deeper than the kernel:
            if deeper_than(arguments, MAX_NESTING):  # held to the limit of text arguments (below)
                return cls(id=id, name=name, arguments=None, raw_arguments=_text_of_deep(arguments))
            return cls(id=id, name=name, arguments=dict(arguments))
        if not arguments.strip():
            return cls(id=id, name=name, arguments={})
        try:
            parsed = json.loads(arguments)
        except (ValueError, RecursionError):  # RecursionError: nested past what the parser reads
            return cls(id=id, name=name, arguments=None, raw_arguments=arguments)
        # deeper than the kernel reads any document: every walk after this (the guard, the run
        # row, its export) could run out of stack, so it is the model's malformed call instead
        if not isinstance(parsed, dict) or deeper_than(parsed, MAX_NESTING, arguments):
            return cls(id=id, name=name, arguments=None, raw_arguments=arguments)
        return cls(id=id, name=name, arguments=parsed)

    @property
    def malformed(self) -> bool:
        """True when the model's arguments could not be read as a JSON object."""
        return self.arguments is None

    def to_tool_call(self, tool: str | None = None) -> ToolCall:
        """The kernel :class:`ToolCall` for this request (what guards and scoring read).

        ``tool`` is the server-side name when the provider's name was translated (MCP names
        may hold characters an API refuses). Malformed arguments become ``args=None`` (not
        known) with the raw text in ``metadata["raw_arguments"]``.
        """
        metadata = {"raw_arguments": self.raw_arguments} if self.raw_arguments is not None else {}
        return ToolCall(tool=tool or self.name, args=self.arguments, id=self.id, metadata=metadata)


def _text_of_deep(arguments: dict[str, Any]) -> str:
    """The JSON text of arguments an SDK parsed that nest past the kernel's limit: the model's
    malformed call, kept as text as a string's would be. Past what the encoder can walk, a
    sentence saying so (a Python caller's value; no SDK parses that deep)."""
    try:
        return json.dumps(arguments, ensure_ascii=False)
    except (RecursionError, ValueError, TypeError):
        return "(arguments nested too deeply to write as JSON)"


@attrs.frozen(slots=True)
class UserMessage(_JsonRoundTrip):
    """Text from the user (the task prompt, or a follow-up)."""

    text: str


@attrs.frozen(slots=True)
class AssistantMessage(_JsonRoundTrip):
    """What the model said in an earlier turn, replayed to it so the conversation continues.

    ``provider_data`` is opaque, JSON-safe state the provider needs to replay the turn
    faithfully (reasoning items, thinking blocks and their signatures); only the provider that
    wrote it reads it.
    """

    text: str | None = None
    tool_calls: tuple[ModelToolCall, ...] = attrs.field(factory=tuple, converter=_tuple)
    provider_data: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen(slots=True)
class ToolResultMessage(_JsonRoundTrip):
    """The answer to one tool call, paired with it by ``call_id``.

    Every call in an assistant turn must be answered once before the next request, denied
    and failed calls included (``is_error=True`` with the reason as ``content``); every API
    rejects a conversation with an unanswered call.
    """

    call_id: str
    tool: str
    content: str
    is_error: bool = False


Message = UserMessage | AssistantMessage | ToolResultMessage
_ROLES: dict[type, str] = {UserMessage: "user", AssistantMessage: "assistant", ToolResultMessage: "tool"}


def _check_messages(_instance: Any, _attribute: Any, value: tuple[Any, ...]) -> None:
    for index, item in enumerate(value):
        if not isinstance(item, (UserMessage, AssistantMessage, ToolResultMessage)):
            raise TypeError(f"messages[{index}] is a {type(item).__name__}, not a message item")


@attrs.frozen(slots=True)
class ModelRequest(_JsonRoundTrip):
    """One call to a model: the whole conversation so far, stateless.

    Sent whole every time (no server-side conversation state), so a recorded run replays
    exactly and a provider needs nothing but this object. ``model`` overrides the provider's
    configured model for this request; ``extra`` holds further request parameters passed to
    the API as they are (``temperature``, ``reasoning`` ...), as a study's ``extra`` says.
    """

    messages: tuple[Message, ...] = attrs.field(factory=tuple, converter=_tuple, validator=_check_messages)
    system: str | None = None
    tools: tuple[ToolDefinition, ...] = attrs.field(factory=tuple, converter=_tuple)
    max_output_tokens: int | None = attrs.field(default=None, validator=_non_negative)
    extra: dict[str, Any] = attrs.field(factory=dict)
    model: str | None = None

    def extended(self, *messages: Message) -> ModelRequest:
        """This request with ``messages`` appended (requests are immutable)."""
        return attrs.evolve(self, messages=(*self.messages, *messages))


@attrs.frozen(slots=True)
class ModelTurn(_JsonRoundTrip):
    """One answer from the model.

    ``stop_reason`` is one of :data:`STOP_REASONS` (see :func:`normalise_stop_reason`);
    ``raw_stop_reason`` the API's own value, kept for the record. ``model`` is the model id
    the API says answered (it may differ from the one asked for); ``response_id`` its id for
    the API's logs. ``provider_data`` is what :meth:`as_message` carries into the replay.
    """

    text: str | None = None
    tool_calls: tuple[ModelToolCall, ...] = attrs.field(factory=tuple, converter=_tuple)
    stop_reason: StopReason = attrs.field(default="end_turn", validator=attrs.validators.in_(STOP_REASONS))
    raw_stop_reason: str | None = None
    usage: Usage = attrs.field(factory=Usage)
    model: str | None = None
    response_id: str | None = None
    provider_data: dict[str, Any] = attrs.field(factory=dict)

    def as_message(self) -> AssistantMessage:
        """This turn as the history item that replays it to the model."""
        return AssistantMessage(text=self.text, tool_calls=self.tool_calls, provider_data=self.provider_data)


class Provider:
    """A model behind an API. Subclass it, set ``name``, implement :meth:`complete`.

    Registered as a class, a provider is a factory: the harness calls
    ``registry.create(name, model=..., client=..., base_url=..., api_key_env=...)`` and the
    kernel passes only the settings the constructor names (this one takes them all and keeps
    unknown ones in ``options``). ``client`` is an SDK client made by the caller (tests pass
    one pointed at a local server); ``None`` means make one from ``base_url`` and the key.
    ``model`` may be ``None`` for providers that have no model (a scripted one) or when every
    request names its own.
    """

    name: ClassVar[str]
    description: ClassVar[str] = ""

    def __init__(
        self,
        model: str | None = None,
        *,
        client: Any = None,
        base_url: str | None = None,
        api_key_env: str | None = None,
        **options: Any,
    ) -> None:
        self.model = model
        self.client = client
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.options = options

    def complete(self, request: ModelRequest) -> ModelTurn:
        """Send ``request`` once and return the model's turn; raise a ``ProviderError`` on failure."""
        raise NotImplementedError

    def api_key(self) -> str | None:
        """The key from the environment variable named ``api_key_env``; ``None`` without one.

        A named variable that is unset is an :class:`InputError` naming the variable (never a
        value), so a study fails before its first paid call instead of in the SDK.
        """
        if self.api_key_env is None:
            return None
        value = os.environ.get(self.api_key_env)
        if not value:
            raise InputError(
                f"the environment variable {self.api_key_env} is not set",
                expected=f"the API key of provider {getattr(self, 'name', type(self).__name__)!r} in it",
                hint=f"export {self.api_key_env}=..., or name another variable with api_key_env",
            )
        return value

    def __repr__(self) -> str:
        # Option values may hold credentials: show their names only.
        options = f", options={sorted(self.options)}" if self.options else ""
        return (f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r}, "
                f"api_key_env={self.api_key_env!r}{options})")


def _strict(kinds: tuple[type, ...], label: str) -> Any:
    """A structure hook accepting only JSON values of ``kinds`` (cattrs would coerce
    ``"false"`` to ``True`` and ``"7"`` to 7; a stored turn must read back as written)."""

    def hook(value: Any, _type: Any) -> Any:
        if isinstance(value, bool) and bool not in kinds:
            raise TypeError(f"expected {label}, got a boolean")
        if not isinstance(value, kinds):
            raise TypeError(f"expected {label}, got {type(value).__name__}")
        accepted: Any = value
        return float(accepted) if label == "a number" else accepted

    return hook


@functools.cache
def _converter() -> cattrs.Converter:
    """This module's strict converter, made on first use (importing cattrs cost every
    command's start-up about 17 ms, and most commands never convert a message)."""
    import cattrs
    from cattrs.strategies import configure_tagged_union

    conv = cattrs.Converter(omit_if_default=False)
    conv.register_structure_hook(str, _strict((str,), "a string"))
    conv.register_structure_hook(int, _strict((int,), "an integer"))
    conv.register_structure_hook(float, _strict((int, float), "a number"))
    conv.register_structure_hook(bool, _strict((bool,), "true or false"))
    configure_tagged_union(Message, conv, tag_name="role", tag_generator=lambda cls: _ROLES[cls])
    return conv


def _describe(exc: BaseException, type_: Any) -> str:
    """Our own validators' messages say more than cattrs' generic "invalid value"."""
    if isinstance(exc, KeyError):
        return f"missing or unknown key {exc}"
    if isinstance(exc, (TypeError, ValueError)) and str(exc) and "not in literal" not in str(exc):
        return str(exc)
    if type_ is StopReason:
        return f"expected one of {', '.join(STOP_REASONS)}"
    from cattrs.v import format_exception

    return format_exception(exc, type_)


def _structure(data: Any, cls: type[Any]) -> Any:
    if not isinstance(data, dict):
        raise InputError(f"not a valid {cls.__name__}", expected="a JSON object",
                         location="$")
    conv = _converter()
    import cattrs

    try:
        return conv.structure(data, cls)
    except cattrs.BaseValidationError as exc:
        problems = cattrs.transform_error(exc, format_exception=_describe)
        raise InputError(f"not a valid {cls.__name__}: {'; '.join(problems)}") from None
    except (TypeError, ValueError, KeyError) as exc:
        raise InputError(f"not a valid {cls.__name__}: {exc}") from None


__all__ = [
    "STOP_REASONS",
    "AssistantMessage",
    "Message",
    "ModelRequest",
    "ModelToolCall",
    "ModelTurn",
    "Provider",
    "StopReason",
    "ToolResultMessage",
    "Usage",
    "UserMessage",
    "normalise_stop_reason",
]
