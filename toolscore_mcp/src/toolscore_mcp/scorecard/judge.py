"""Did one call meet its scenario's expectation? The rules, in one place.

Why separate from the runner: these rules are the heart of the grade and deserve tests of
their own on plain outcomes, without a server.

- A valid call (``success``) must answer without ``isError`` and without a JSON-RPC error.
- Invalid input (``reject``) must come back as a clean rejection: ``isError: true`` or the
  JSON-RPC invalid-params error (-32602). Any other answer means the server accepted it.
- Unusual but schema-valid input (``answer``) may succeed or be refused, but cleanly.
- Always: no crash, no hang, no protocol violation, no error text marked as success, no
  answer larger than the limit.
"""

from __future__ import annotations

import json
import re
from typing import Any

from toolscore_mcp.scorecard.model import Scenario, ScenarioResult

INVALID_PARAMS = -32602
# Text that reads as a failure even though isError is false ("Database error: no such table").
_ERROR_TEXT = re.compile(
    r"^\s*(?:[\w .-]{0,30}\b)?(?:error|exception|traceback|fatal)\b\s*[:(\-]|^\s*(?:failed|failure)\b\s*[:(]"
    r"|^\s*\{\s*\"error\"\s*:",
    re.IGNORECASE,
)


def answer_text(result: dict[str, Any] | None) -> str:
    """The text a model would read: the text blocks joined, else the structured content."""
    if not isinstance(result, dict):
        return ""
    content = result.get("content")
    texts = [block.get("text", "") for block in content if isinstance(block, dict)
             and block.get("type") == "text" and isinstance(block.get("text"), str)] if isinstance(content, list) else []
    if texts:
        return "\n".join(texts)
    if "structuredContent" in result:
        return json.dumps(result["structuredContent"], ensure_ascii=False, default=str)
    return ""


def looks_like_error(text: str) -> bool:
    return bool(_ERROR_TEXT.search(text[:200]))


def result_size(result: dict[str, Any] | None) -> int:
    if result is None:
        return 0
    return len(json.dumps(result, ensure_ascii=False, default=str).encode("utf-8"))


def _short(text: str | None, limit: int = 80) -> str:
    """One line of at most ``limit`` characters, credentials replaced by previews (AKIA…LE):
    servers echo their environment and inputs, and reports must never carry a key."""
    from toolscore_core.scoring.secrets import redact_head

    flat = " ".join(redact_head(text or "", limit * 4 + 64).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def judge(scenario: Scenario, outcome: Any, *, max_result_bytes: int) -> ScenarioResult:
    """Turn a CallOutcome (``toolscore_mcp.session``) into a ScenarioResult."""
    result = getattr(outcome, "result", None)
    text = answer_text(result)
    size = result_size(result)
    common: dict[str, Any] = {
        "is_error": outcome.is_error,
        "error": _short(outcome.error, 300) if outcome.error else None,
        "excerpt": _short(text, 200) if text else None,
        "duration": outcome.duration,
        "timed_out": bool(outcome.timed_out),
        "crashed": bool(outcome.crashed),
        "protocol_error": _short(outcome.protocol_error, 300) if outcome.protocol_error else None,
        "result_bytes": size if result is not None else None,
    }

    def verdict(passed: bool, reason: str, problem: str | None = None) -> ScenarioResult:
        return ScenarioResult(scenario=scenario, passed=passed, reason=reason, problem=problem, **common)

    def valid_call_failed(reason: str, message: str | None) -> ScenarioResult:
        """A valid call failed; when it says our made-up value was wrong, it proves nothing."""
        from toolscore_mcp.scorecard.fairness import INVENTED_REFUSED, complains_about_input

        if scenario.invented and complains_about_input(message):
            return ScenarioResult(scenario=scenario, passed=False, problem=INVENTED_REFUSED, inconclusive=True,
                                  reason=f"inconclusive: refused made-up {', '.join(scenario.invented)}: "
                                         f"{_short(message)}", **common)
        return verdict(False, reason, "fails-on-valid-input")

    if outcome.crashed:
        return verdict(False, f"the server crashed: {_short(outcome.error)}", "server-crash")
    if outcome.timed_out:
        return verdict(False, f"no answer in time: {_short(outcome.error)}", "tool-timeout")
    if outcome.protocol_error:
        return verdict(False, f"protocol violation: {_short(outcome.protocol_error)}", "protocol-violation")
    code = getattr(outcome, "error_code", None)
    if result is None:  # a JSON-RPC error answer
        message = _short(outcome.error)
        if scenario.expect == "success":
            return valid_call_failed(f"JSON-RPC error {code}: {message}", outcome.error)
        if code == INVALID_PARAMS:
            return verdict(True, f"rejected with invalid-params: {message}")
        if scenario.expect == "reject":
            return verdict(False, f"rejected with JSON-RPC error {code} instead of isError or -32602: {message}",
                           "unclean-rejection")
        return verdict(False, f"JSON-RPC error {code} on schema-valid input: {message}", "internal-error")
    if size > max_result_bytes:
        return verdict(False, f"answer of {size:,} bytes is over the {max_result_bytes:,}-byte limit",
                       "oversized-answer")
    if outcome.is_error:
        if scenario.expect == "success":
            return valid_call_failed(f"isError on valid input: {_short(outcome.error or text)}",
                                     outcome.error or text)
        return verdict(True, f"refused cleanly: {_short(outcome.error or text)}")
    if looks_like_error(text):
        return verdict(False, f"error text without isError: {_short(text)}", "error-reported-as-success")
    if scenario.expect == "reject":
        return verdict(False, f"accepted invalid input ({scenario.description}): {_short(text)}",
                       "accepts-invalid-input")
    return verdict(True, "answered" if scenario.expect == "answer" else "succeeded")
