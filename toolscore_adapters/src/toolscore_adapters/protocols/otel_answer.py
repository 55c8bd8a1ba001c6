"""The agent's final answer, when the spans recorded it (opt-in message content).

GenAI inference spans carry ``gen_ai.output.messages`` (``[{"role": "assistant", "parts":
[{"type": "text", "content": ...}], "finish_reason": ...}]``, a JSON string or a structured
value); the Vercel AI SDK records ``ai.response.text``. The final answer is the text of
the span that ended last; with content capture off there is none (``None``), never "".
"""

from __future__ import annotations

from typing import Any

from toolscore_adapters.protocols.otel_messages import output_messages

ANSWER_KEYS = ("gen_ai.output.messages", "ai.response.text")


def carries_answer(attributes: dict[str, Any]) -> bool:
    # ANSWER_KEYS spelled out: asked of nearly every span, where any() over a generator cost
    # more than the two lookups
    return attributes.get("gen_ai.output.messages") is not None or attributes.get("ai.response.text") is not None


def answer_text(attributes: dict[str, Any], output: list[Any] | None = None) -> str | None:
    """The assistant text a span recorded, or ``None`` (tool-call turns have no text).

    ``output``: the span's ``output_messages`` when the caller has them already. Malformed
    content is not worth failing a trace over: its messages are ``[]``, no answer known.
    """
    text = attributes.get("ai.response.text")
    if isinstance(text, str) and text.strip():
        return text
    messages = output_messages(attributes) if output is None else output
    for message in reversed(messages):
        if not isinstance(message, dict) or message.get("role") not in (None, "assistant"):
            continue
        parts = message.get("parts")
        texts: list[str] = [p["content"] for p in parts if isinstance(p, dict) and p.get("type") == "text"
                            and isinstance(p.get("content"), str)] if isinstance(parts, list) else []
        if texts:
            return "".join(texts)
    return None
