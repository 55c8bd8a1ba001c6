"""Google Gemini (google-genai): ``GenerateContentResponse`` and ``Content`` histories.

Calls are ``functionCall`` parts of model turns; results are ``functionResponse`` parts,
paired by ``id`` when the API set one and otherwise with the oldest unanswered call of the
same name. Gemini's convention is a response holding ``output`` on success and ``error``
on failure. Both JSON spellings are read: the REST API's camelCase (and the SDK's
``by_alias`` dumps) and the SDK's snake_case field names. A response produced with
automatic function calling carries the whole exchange in
``automatic_function_calling_history``, which is read before the candidate.
"""

from __future__ import annotations

from typing import Any, ClassVar

from toolscore_adapters._common import CallBook, as_plain, lenient_arguments, read_duration
from toolscore_adapters.providers._shapes import (
    GEMINI,
    check_styles,
    field,
    list_confidence,
    module_style,
    placer,
)
from toolscore_core import InputError, Trace, TraceAdapter
from toolscore_core.kernel.files import json_path


def _pick(mapping: dict[str, Any], camel: str, snake: str) -> tuple[Any, str]:
    if mapping.get(camel) is not None:
        return mapping[camel], camel
    return mapping.get(snake), snake


def _response_contents(response: dict[str, Any], prefix: list[str | int]) -> list[tuple[Any, list[str | int]]]:
    """(content, place) pairs of one GenerateContentResponse: its AFC history, then the
    first candidate's content."""
    out: list[tuple[Any, list[str | int]]] = []
    history, key = _pick(response, "automaticFunctionCallingHistory", "automatic_function_calling_history")
    if isinstance(history, list):
        out.extend((c, [*prefix, key, i]) for i, c in enumerate(history))
    candidates = response.get("candidates")
    if not isinstance(candidates, list):
        raise InputError("'candidates' must be a list", location=json_path([*prefix, "candidates"]))
    if candidates:
        content = as_plain(field(candidates[0], "content"))
        if content is not None:
            out.append((content, [*prefix, "candidates", 0, "content"]))
    return out


def _is_response(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("candidates"), list)


class GeminiAdapter(TraceAdapter):
    """GenerateContentResponse objects and Content lists (function_call / function_response parts)."""

    name: ClassVar[str] = "gemini"
    description: ClassVar[str] = "Google Gemini: GenerateContentResponse and Content lists"

    def detect(self, data: Any) -> float:
        if module_style(data) == GEMINI:
            return 1.0 if type(data).__name__ in ("GenerateContentResponse", "Content") else 0.0
        if isinstance(data, dict):
            if _is_response(data):
                candidates = data["candidates"]
                first = as_plain(candidates[0]) if candidates else {}
                return 0.95 if isinstance(first, dict) and ("content" in first or "finishReason" in first
                                                             or "finish_reason" in first) else 0.0
            if isinstance(data.get("contents"), list):
                return list_confidence(data["contents"], GEMINI, neutral=0.0) * 0.95
            if isinstance(data.get("parts"), list):
                return list_confidence([data], GEMINI, neutral=0.0)
            return 0.0
        if isinstance(data, (list, tuple)) and data and all(_is_response(as_plain(d)) for d in data[:16]):
            return 0.9
        return list_confidence(data, GEMINI, neutral=0.0)

    def load(self, data: Any) -> Trace:
        data = as_plain(data)
        contents: list[tuple[Any, list[str | int]]]
        if isinstance(data, dict):
            if _is_response(data):
                contents = _response_contents(data, [])
            elif isinstance(data.get("contents"), list):
                check_styles(data["contents"], GEMINI, placer(["contents"]))
                contents = [(c, ["contents", i]) for i, c in enumerate(data["contents"])]
            elif isinstance(data.get("parts"), list):
                contents = [(data, [])]
            else:
                raise InputError("is not a Gemini response or Content list",
                                 expected="a GenerateContentResponse, a {\"contents\": [...]} body or a list of Content")
        elif isinstance(data, list):
            if data and all(_is_response(as_plain(d)) for d in data):
                contents = [pair for i, d in enumerate(data) for pair in _response_contents(as_plain(d), [i])]
            else:
                check_styles(data, GEMINI, placer([]))
                contents = [(c, [i]) for i, c in enumerate(data)]
        else:
            raise InputError(f"is not a Gemini Content list (a {type(data).__name__})")
        book = CallBook(self.name)
        final: str | None = None
        for raw, at in contents:
            content = as_plain(raw)
            if not isinstance(content, dict):
                raise InputError("a Content must be an object", location=json_path(at))
            parts = content.get("parts") or []
            if not isinstance(parts, list):
                raise InputError("'parts' must be a list", location=json_path([*at, "parts"]))
            texts: list[str] = []
            asked = False
            for j, raw_part in enumerate(parts):
                part = as_plain(raw_part)
                if not isinstance(part, dict):
                    continue
                where = [*at, "parts", j]
                call, key = _pick(part, "functionCall", "function_call")
                answer, answer_key = _pick(part, "functionResponse", "function_response")
                if call is not None:
                    self._call(call, [*where, key], book)
                    asked = True
                elif answer is not None:
                    self._answer(answer, [*where, answer_key], book)
                elif isinstance(part.get("text"), str) and not part.get("thought"):
                    texts.append(part["text"])
            if content.get("role") == "model":
                final = None if asked else ("".join(texts) if texts else final)
        return Trace(calls=book.calls(), final_answer=final, source_format=self.name,
                     metadata=book.trace_metadata())

    def _call(self, call: Any, at: list[str | int], book: CallBook) -> None:
        if not isinstance(call, dict):
            raise InputError("a function call must be an object", location=json_path(at))
        name = call.get("name")
        if not isinstance(name, str) or not name:
            raise InputError(f"the function name must be a non-empty string, not {name!r}",
                             location=json_path([*at, "name"]))
        raw = call.get("args", {})
        args, invalid = lenient_arguments(raw, where=json_path([*at, "args"]))
        if args is None and invalid is None:  # no args at all: a call that takes none
            args = {}
        book.call(name, args, call_id=call.get("id"), location=json_path(at), metadata=invalid)

    def _answer(self, answer: Any, at: list[str | int], book: CallBook) -> None:
        if not isinstance(answer, dict):
            raise InputError("a function response must be an object", location=json_path(at))
        response = answer.get("response")
        is_error = False
        error = None
        result: Any = response
        if isinstance(response, dict):
            if "error" in response and "output" not in response:
                is_error = True
                error = response["error"] if isinstance(response["error"], str) else None
                result = response["error"]
            elif set(response) == {"output"}:
                result = response["output"]
        book.result(call_id=answer.get("id"), name=answer.get("name"), result=result, is_error=is_error,
                    error=error, duration=read_duration(answer), location=json_path(at))
