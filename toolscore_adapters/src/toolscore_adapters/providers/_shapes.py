"""Which provider wrote a message: the shape tests every provider adapter shares.

Chat histories from different providers look alike (``{"role": "user", "content": "hi"}``
is valid for OpenAI and Anthropic), so each message is classified as one provider's
*style*, as *neutral* (a plain chat turn any of them could have written) or as *foreign*
(nothing a provider adapter reads). Detection then scores a list by the styles it holds,
and loading checks the whole list so that a history mixing providers is a clear error
naming two places, never a half-read trace.

Live SDK objects are classified by their class's module, so nothing here imports an SDK.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolscore_core import InputError
from toolscore_core.kernel.files import json_path

OPENAI = "openai"
RESPONSES = "openai-responses"
ANTHROPIC = "anthropic"
GEMINI = "gemini"
LANGCHAIN = "langchain"
NEUTRAL = "neutral"
FOREIGN = "foreign"

LABELS = {
    OPENAI: "an OpenAI Chat Completions message",
    RESPONSES: "an OpenAI Responses API item",
    ANTHROPIC: "an Anthropic Messages API message",
    GEMINI: "a Google Gemini Content",
    LANGCHAIN: "a LangChain message",
}

# How many items detect() looks at: detection must stay cheap on a 100k-message file;
# load() checks every item.
SAMPLE = 64

_MODULE_STYLES = (
    ("openai.types.chat", OPENAI),
    ("openai.types.responses", RESPONSES),
    ("anthropic.types", ANTHROPIC),
    ("google.genai.types", GEMINI),
    ("langchain_core.messages", LANGCHAIN),
)
_LC_TYPES = frozenset({"ai", "human", "tool", "system", "function", "chat", "remove", "AIMessageChunk",
                       "HumanMessageChunk", "ToolMessageChunk", "SystemMessageChunk",
                       "FunctionMessageChunk", "ChatMessageChunk"})
_RESPONSES_ITEMS = frozenset({
    "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output", "mcp_call",
    "mcp_list_tools", "mcp_approval_request", "mcp_approval_response", "reasoning", "web_search_call",
    "file_search_call", "computer_call", "computer_call_output", "code_interpreter_call",
    "image_generation_call", "local_shell_call", "local_shell_call_output", "item_reference",
})
_RESPONSES_PARTS = frozenset({"input_text", "output_text", "input_image", "input_file", "input_audio"})
_ANTHROPIC_BLOCKS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use",
                               "web_search_tool_result", "mcp_tool_use", "mcp_tool_result"})
_OPENAI_PARTS = frozenset({"image_url", "input_audio"})
_GEMINI_PART_KEYS = frozenset({
    "text", "functionCall", "function_call", "functionResponse", "function_response", "inlineData",
    "inline_data", "fileData", "file_data", "thought", "thoughtSignature", "thought_signature",
    "executableCode", "executable_code", "codeExecutionResult", "code_execution_result",
})
_CHAT_ROLES = frozenset({"system", "user", "assistant", "developer"})
# LangChain's own type names written as a chat role: no other provider uses them as roles.
_LC_ROLES = frozenset({"human", "ai"})


def field(obj: Any, key: str) -> Any:
    """``obj[key]`` for a dict, ``obj.key`` for an SDK object, ``None`` when absent."""
    if isinstance(obj, dict):
        return obj.get(key)
    try:
        return getattr(obj, key, None)
    except Exception:  # a property of a foreign object may raise anything
        return None


def module_style(obj: Any) -> str | None:
    module = type(obj).__module__ or ""
    for prefix, style in _MODULE_STYLES:
        if module == prefix or module.startswith(prefix + "."):
            return style
    return None


def _block_kinds(content: Any) -> set[str]:
    if not isinstance(content, (list, tuple)):
        return set()
    kinds = set()
    for block in content[:SAMPLE]:
        kind = field(block, "type")
        if isinstance(kind, str):
            kinds.add(kind)
    return kinds


def message_style(item: Any) -> str:
    """The provider style of one history item (see the module docstring)."""
    if not isinstance(item, dict):
        return module_style(item) or FOREIGN
    kind = item.get("type")
    role = item.get("role")
    if kind == "constructor" and item.get("lc") == 1:
        ident = item.get("id")
        name = ident[-1] if isinstance(ident, list) and ident else ""
        return LANGCHAIN if isinstance(name, str) and "Message" in name else FOREIGN
    if isinstance(kind, str) and kind in _LC_TYPES and role is None and ("data" in item or "content" in item):
        return LANGCHAIN
    if kind is None and isinstance(role, str) and role in _LC_ROLES:  # tool-scorer 1.10.0 read {"role": "ai", "tool_calls": [...]}
        return LANGCHAIN
    parts = item.get("parts")
    if isinstance(parts, list) and "kind" not in item and role in (None, "user", "model", "function", "tool"):
        if role == "model" or not parts or any(
            isinstance(p, dict) and not _GEMINI_PART_KEYS.isdisjoint(p) for p in parts[:SAMPLE]
        ):
            return GEMINI
        return FOREIGN
    if isinstance(kind, str) and kind in _RESPONSES_ITEMS:
        return RESPONSES
    content = item.get("content")
    blocks = _block_kinds(content)
    if kind == "message":
        if blocks & _RESPONSES_PARTS:
            return RESPONSES
        if blocks & (_ANTHROPIC_BLOCKS | {"text"}) or "stop_reason" in item or "model" in item:
            return ANTHROPIC
        return RESPONSES if "status" in item else NEUTRAL
    if kind is not None and kind != "message":
        return FOREIGN
    if not isinstance(role, str):
        return FOREIGN
    if role == "model":
        return GEMINI
    if item.get("tool_calls") or item.get("function_call") or role in ("tool", "function"):
        return OPENAI
    if blocks & _ANTHROPIC_BLOCKS:
        return ANTHROPIC
    if blocks & _RESPONSES_PARTS:
        return RESPONSES
    if blocks & _OPENAI_PARTS:
        return OPENAI
    return NEUTRAL if role in _CHAT_ROLES else FOREIGN


def list_confidence(items: Any, me: str, *, neutral: float) -> float:
    """How sure adapter ``me`` is that ``items`` is its message list, from a sample.

    Only its own style (and neutral turns): 0.9. Only neutral turns: ``neutral`` (each
    adapter gives a different, low value so a plain chat never ties). Several providers:
    0.5 for the adapter whose style comes first, so that its load() reports the mix;
    anything foreign: 0.
    """
    if not isinstance(items, (list, tuple)) or not items:
        return 0.0
    first: str | None = None
    styles = set()
    for item in items[:SAMPLE]:
        style = message_style(item)
        if style == FOREIGN:
            return 0.0
        if style != NEUTRAL:
            if first is None and style != me:
                # Another provider's turn comes first: 0 whatever follows. Stopping here
                # spares every other provider's detector a walk of the whole sample (every
                # detector asks, and detection was a quarter of a small trace's scoring).
                return 0.0
            styles.add(style)
            first = first or style
    if not styles:
        return neutral
    if styles == {me}:
        return 0.9
    return 0.5 if first == me else 0.0


Place = Callable[[int], str]


def placer(prefix: list[str | int], *, single: bool = False) -> Place:
    """index -> the JSON path of item ``index``: ``$.messages[3]`` for a list under
    ``prefix``; for a lone message (``single``) the path of the message itself."""
    base = json_path(prefix)
    if single:
        return lambda index: base
    return lambda index: f"{base}[{index}]"


def check_styles(items: list[Any], me: str, place: Place) -> None:
    """Raise an InputError when ``items`` holds another provider's messages (naming the
    first place of each style) or something that is no message at all."""
    seen: dict[str, int] = {}
    for index, item in enumerate(items):
        style = message_style(item)
        if style == FOREIGN:
            raise InputError(
                f"is not {LABELS[me]} ({describe(item)})",
                location=place(index),
                expected=f"every item to be {LABELS[me]}",
            )
        if style not in (NEUTRAL, me) and style not in seen:
            seen[style] = index
            if me in seen:
                break
        elif style == me and me not in seen:
            seen[me] = index
            if len(seen) > 1:
                break
    others = [s for s in seen if s != me]
    if not others:
        return
    other = others[0]
    where = place(seen[other])
    if me in seen:
        mine = place(seen[me])
        raise InputError(
            f"the message list mixes providers: {mine} is {LABELS[me]} but {where} is {LABELS[other]}",
            location=where,
            hint="Keep one provider's messages per trace (convert them to one format first)",
        )
    raise InputError(
        f"is {LABELS[other]}, not {LABELS[me]}",
        location=where,
        hint=f"Read it with --format {other} (or let Toolscore detect the format)",
    )


def describe(item: Any) -> str:
    if isinstance(item, dict):
        keys = ", ".join(map(str, list(item)[:5]))
        return f"an object with keys {keys}" if keys else "an empty object"
    return f"a {type(item).__name__}"
