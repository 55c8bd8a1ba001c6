"""What the judge sends and how it reads the answer: one request per chunk of questions.

The answer is structured output, never free text: a JSON schema the API enforces (OpenAI
``json_schema`` response format, Gemini ``responseSchema``) or a forced tool call whose input
schema is the answer (Anthropic). Whatever arrives is checked against the same schema here;
a wrong count, a bad id or a wrong type is an error naming the model, never a guess.

``PROMPT_VERSION`` is part of every cache key: change it whenever the instructions or the
question shape change, so old answers to another prompt are never reused.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from toolscore_core import (
    InputError,
    JudgeAnswer,
    JudgeQuestion,
    ModelRequest,
    PluginError,
    ToolDefinition,
    UserMessage,
)

PROMPT_VERSION = "toolscore-judge/1"
ANSWER_TOOL = "record_judgments"
#: Output tokens allowed per answer (an id, a boolean, a one-line reason, a number).
TOKENS_PER_ANSWER = 80
TOKENS_PER_REPLY = 200

SYSTEM = """You judge whether an AI agent's tool call matches what a test expected.
Each question gives an expected value and an actual value, either two tool names
(kind "tool": would calling the actual tool do the job of the expected tool?) or two
values of one argument (kind "argument": do they mean the same thing for that tool?).
Answer equivalent=true only when they are semantically the same: synonyms, word order,
abbreviations, formats of the same date or quantity ("NYC" = "New York",
"2026-12-01" = "1 Dec 2026", search_web = web_search). Different entities, amounts,
dates or actions are not equivalent, however similar they look. When unsure, answer false.
Give one short reason (one line) and a confidence between 0 and 1.
Answer every question exactly once, by its id."""


def question_payload(question: JudgeQuestion) -> dict[str, Any]:
    """The JSON a question is sent as, and hashed as for the cache."""
    payload: dict[str, Any] = {"kind": question.kind, "tool": question.tool, "expected": question.expected,
                               "actual": question.actual}
    if question.argument is not None:
        payload["argument"] = question.argument
    if question.context:
        payload["context"] = question.context
    return payload


def answer_schema() -> dict[str, Any]:
    """The answer's JSON schema, in the strict subset every API accepts."""
    item = {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "equivalent": {"type": "boolean"},
            "reason": {"type": "string"},
            "confidence": {"type": "number"},
        },
        "required": ["id", "equivalent", "reason", "confidence"],
        "additionalProperties": False,
    }
    return {"type": "object", "properties": {"answers": {"type": "array", "items": item}},
            "required": ["answers"], "additionalProperties": False}


def build_request(provider: str, model: str, questions: Sequence[JudgeQuestion], *,
                  temperature: bool) -> ModelRequest:
    """The request for one chunk, with the structured-output settings of ``provider``."""
    items = [{"id": n, **question_payload(q)} for n, q in enumerate(questions)]
    text = ("Judge these questions. Answer with one entry per id.\n"
            + json.dumps({"questions": items}, ensure_ascii=False, sort_keys=True))
    schema = answer_schema()
    extra: dict[str, Any] = {"temperature": 0} if temperature else {}
    tools: tuple[ToolDefinition, ...] = ()
    if provider == "openai":
        extra["text"] = {"format": {"type": "json_schema", "name": "judgments", "schema": schema, "strict": True}}
    elif provider == "openai-chat":
        extra["response_format"] = {"type": "json_schema",
                                    "json_schema": {"name": "judgments", "schema": schema, "strict": True}}
    elif provider == "anthropic":
        tools = (ToolDefinition(name=ANSWER_TOOL, description="Record one judgment per question id.",
                                input_schema=schema),)
        extra["tool_choice"] = {"type": "tool", "name": ANSWER_TOOL}
    elif provider == "gemini":
        extra["response_json_schema"] = schema
    else:
        raise InputError(f"the judge has no structured-output settings for provider {provider!r}")
    return ModelRequest(messages=(UserMessage(text),), system=SYSTEM, tools=tools, model=model, extra=extra,
                        max_output_tokens=TOKENS_PER_REPLY + TOKENS_PER_ANSWER * len(questions))


def _fail(model: str, why: str) -> PluginError:
    return PluginError(f"the judge model {model!r} gave a malformed answer: {why}; no match was assumed")


def answer_data(provider: str, model: str, turn: Any) -> Any:
    """The answer object in a turn: the forced tool call's input, or the JSON text."""
    if provider == "anthropic":
        calls = [c for c in turn.tool_calls if c.name == ANSWER_TOOL]
        if len(calls) != 1 or calls[0].arguments is None:
            raise _fail(model, f"expected one {ANSWER_TOOL} tool call, got {len(turn.tool_calls)} call(s)")
        return calls[0].arguments
    if not turn.text:
        raise _fail(model, f"no text (stop reason {turn.stop_reason})")
    try:
        return json.loads(turn.text)
    except ValueError as exc:
        raise _fail(model, f"not JSON ({exc})") from None


def read_answers(data: Any, model: str, count: int) -> list[JudgeAnswer]:
    """Check ``data`` against :func:`answer_schema` and return the answers in question order."""
    if not isinstance(data, dict) or set(data) != {"answers"} or not isinstance(data["answers"], list):
        raise _fail(model, 'expected an object {"answers": [...]}')
    entries = data["answers"]
    if len(entries) != count:
        raise _fail(model, f"{len(entries)} answer(s) for {count} question(s)")
    found: dict[int, JudgeAnswer] = {}
    for n, entry in enumerate(entries):
        if not isinstance(entry, dict) or set(entry) != {"id", "equivalent", "reason", "confidence"}:
            raise _fail(model, f"answer {n + 1} does not have exactly id, equivalent, reason, confidence")
        ident, equivalent, reason, confidence = (entry["id"], entry["equivalent"], entry["reason"],
                                                 entry["confidence"])
        if type(ident) is not int or not 0 <= ident < count or ident in found:
            raise _fail(model, f"answer {n + 1} has id {ident!r} (ids are 0..{count - 1}, each once)")
        if not isinstance(equivalent, bool) or not isinstance(reason, str):
            raise _fail(model, f"answer {n + 1}: equivalent must be true/false and reason a string")
        if type(confidence) not in (int, float) or not 0 <= confidence <= 1:
            raise _fail(model, f"answer {n + 1}: confidence {confidence!r} is not a number in 0..1")
        found[ident] = JudgeAnswer(equivalent=equivalent, reason=" ".join(reason.split()) or None,
                                   confidence=float(confidence))
    return [found[i] for i in range(count)]


__all__ = ["ANSWER_TOOL", "PROMPT_VERSION", "SYSTEM", "answer_data", "answer_schema", "build_request",
           "question_payload", "read_answers"]
