"""What the score does not show: failed calls, blind retries, loops, leaked credentials and
forbidden calls. Each check reads the actual calls once and returns figures for
``Evaluation.metrics`` plus findings with a concrete fix.

Call numbers in messages are 1-based ("call 2 run_shell"), as people count; indexes in
machine-readable data (``policy_violations[*].index``, ``secrets[*].index``) are 0-based.
Every value that reaches a message or a record is redacted and shortened first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import repeat
from operator import is_
from typing import Any

# MAX_ITEMS, MAX_STRING and bounded live in the kernel's JSON-safe conversion; they are
# re-exported here because scoring code has always imported them from this module.
from toolscore_core.kernel.jsonsafe import MAX_ITEMS, MAX_STRING, bounded
from toolscore_core.kernel.model import Finding, ForbiddenRule, ToolCall
from toolscore_core.scoring.forbidden_match import rule_value_matches
from toolscore_core.scoring.matchers import canonical
from toolscore_core.scoring.secrets import calls_to_scan, find_secrets, redact_text
from toolscore_core.scoring.tool_names import same_tool


def _tool_counts(calls: Sequence[ToolCall], indexes: Sequence[int]) -> str:
    counts = Counter(calls[i].tool for i in indexes)
    return ", ".join(f"{tool} x{n}" if n > 1 else tool for tool, n in counts.most_common())


def call_key(call: ToolCall) -> Any:
    """Hashable identity of a call's content (tool and arguments)."""
    return (call.tool, canonical(call.args))


def _blind_retries(calls: Sequence[ToolCall], keys: Sequence[Any], repeats: Counter[Any]) -> list[int]:
    """Calls whose previous call of the same tool failed and which repeat it unchanged.

    :func:`efficiency` asks only when some failed call's key occurs more than once
    (``repeats``): a retry repeats its failed call's key, so otherwise there is none, and
    a clean 10k-call trace does not walk its calls once more to learn it."""
    last_by_tool: dict[str, int] = {}
    retries: list[int] = []
    for i, call in enumerate(calls):
        prev = last_by_tool.get(call.tool)
        if prev is not None and calls[prev].is_error is True and keys[prev] == keys[i]:
            retries.append(i)
        last_by_tool[call.tool] = i
    return retries


def efficiency(calls: Sequence[ToolCall], keys: Sequence[Any] | None = None, *,
               arg_keys: Sequence[Any] | None = None) -> tuple[dict[str, Any], list[Finding]]:
    """Failed calls, blind retries and loops.

    ``keys``: :func:`call_key` of each call. Without them, ``arg_keys`` (``canonical(call.args)``
    of each call, as the evaluation has them) or nothing: the keys are then built only when
    some argument set occurs twice (see :func:`_repeated_keys`).

    - ``error_count`` / ``error_rate``: calls known to have failed (``is_error`` True);
      denied calls are counted apart (``denied_count``), unknown outcomes too.
    - ``retry_after_error_count``: blind retries, i.e. calls whose previous call of the same
      tool failed and which repeat it with identical arguments.
    - ``identical_rate``: share of calls that repeat an earlier call exactly (same tool,
      same arguments); a call made 3 or more times gets a ``loop`` finding.
    """
    total = len(calls)
    outcomes = [c.is_error for c in calls]  # a comprehension reads a slot faster than attrgetter
    failed = [i for i, e in enumerate(outcomes) if e is True] if True in outcomes else []
    denied = [i for i, c in enumerate(calls) if c.denied] if any([c.denied for c in calls]) else []
    if denied:
        unknown = sum(1 for c in calls if c.is_error is None and not c.denied)
    else:
        unknown = sum(map(is_, outcomes, repeat(None)))
    if keys is None:
        keys = _repeated_keys(calls, arg_keys)
    repeats = Counter(keys)
    retries = _blind_retries(calls, keys, repeats) if failed and keys and any(repeats[keys[i]] > 1 for i in failed) else []
    identical = len(keys) - len(repeats)  # the sum of n - 1 over the counts n
    durations = [c.duration for c in calls if c.duration is not None]
    # Arguments the model wrote that are not a JSON object (an answer cut off by max_tokens,
    # or malformed): the adapter kept the call with unknown arguments and the raw text.
    invalid = ([i for i, c in enumerate(calls) if c.metadata and "arguments_error" in c.metadata]
               if any([c.metadata for c in calls]) else [])
    figures: dict[str, Any] = {
        "total_calls": total,
        "error_count": len(failed),
        "error_rate": len(failed) / total if total else 0.0,
        "denied_count": len(denied),
        "unknown_outcome_count": unknown,
        "retry_after_error_count": len(retries),
        "identical_call_count": identical,
        "identical_rate": identical / total if total else 0.0,
        "total_duration": sum(durations) if durations else None,
        "mean_duration": sum(durations) / len(durations) if durations else None,
        "failed_calls": failed[:MAX_ITEMS],
        "blind_retries": retries[:MAX_ITEMS],
        "invalid_arguments_count": len(invalid),
    }
    findings: list[Finding] = []
    if invalid:
        findings.append(_invalid_arguments_finding(calls, invalid))
    if failed:
        first = calls[failed[0]]
        findings.append(Finding(
            severity="warning", code="failed-calls",
            message=f"{len(failed)} of {total} tool calls failed ({_tool_counts(calls, failed)})",
            call_index=failed[0], tool=first.tool,
            evidence=bounded(first.error or first.result, max_string=200) if (first.error or first.result) else None,
            fix="Read the tool's error and make the agent change its arguments or try another tool, "
                "instead of stopping or repeating the same call",
            details={"category": "behavior", "calls": failed[:MAX_ITEMS]},
        ))
    if denied:
        findings.append(Finding(
            severity="info", code="denied-calls",
            message=f"{len(denied)} of {total} tool calls were denied ({_tool_counts(calls, denied)})",
            call_index=denied[0], tool=calls[denied[0]].tool,
            details={"category": "behavior", "calls": denied[:MAX_ITEMS]},
        ))
    if retries:
        n = len(retries)
        findings.append(Finding(
            severity="warning", code="blind-retry",
            message=f"{n} call{' repeats' if n == 1 else 's repeat'} a failed call with the same arguments",
            call_index=retries[0], tool=calls[retries[0]].tool,
            fix=f"After `{calls[retries[0]].tool}` fails, change the arguments or the approach before calling it again",
            details={"category": "behavior", "calls": retries[:MAX_ITEMS]},
        ))
    # a count of 3 needs 2 repeats; the common case, no repeat at all, skips the walk
    loops = [(key, n) for key, n in repeats.items() if n >= 3] if identical >= 2 else []
    for key, n in sorted(loops, key=lambda kn: -kn[1])[:10]:
        first_index = keys.index(key)
        tool = calls[first_index].tool
        findings.append(Finding(
            severity="warning", code="loop",
            message=f"`{tool}` was called {n} times with the same arguments (a loop)",
            call_index=first_index, tool=tool,
            fix=f"Give the agent a stop condition: reuse the first result of `{tool}` instead of asking again",
            details={"category": "behavior", "count": n},
        ))
    return figures, findings


def _repeated_keys(calls: Sequence[ToolCall], arg_keys: Sequence[Any] | None) -> Sequence[Any]:
    """:func:`call_key` of each call, or an empty list when no two calls have equal arguments.

    Why: two calls with equal keys have equal arguments, so when every argument set is
    distinct no call repeats another, and the per-call ``(tool, arguments)`` pairs and their
    counter (most of ``efficiency`` on a 10k-call trace) are not needed: an empty list gives
    the same figures (no repeat, so no identical call, no blind retry and no loop)."""
    if arg_keys is None:
        arg_keys = [canonical(call.args) for call in calls]
    if len(set(arg_keys)) == len(arg_keys):
        return []
    return [(call.tool, key) for call, key in zip(calls, arg_keys, strict=True)]


def _invalid_arguments_finding(calls: Sequence[ToolCall], invalid: list[int]) -> Finding:
    first = calls[invalid[0]]
    raw = first.metadata.get("raw_arguments")
    n = len(invalid)
    return Finding(
        severity="error", code="invalid-arguments",
        message=(f"{n} of {len(calls)} tool calls have arguments that are not a JSON object "
                 f"(call {invalid[0] + 1} {first.tool}: {first.metadata.get('arguments_error')})"),
        call_index=invalid[0], tool=first.tool,
        evidence=bounded(redact_text(raw[:1000]), max_string=200) if isinstance(raw, str) else None,
        fix="If the answer was cut off (finish_reason \"length\"), raise max_tokens or shorten the context; "
            "otherwise use structured outputs / strict tool schemas so the model writes valid JSON",
        details={"category": "behavior", "calls": invalid[:MAX_ITEMS]},
    )


def security(calls: Sequence[ToolCall]) -> tuple[dict[str, Any], list[Finding]]:
    """Credentials passed in tool arguments (only their previews are kept)."""
    secrets: list[dict[str, Any]] = []
    findings: list[Finding] = []
    for i in calls_to_scan([call.args for call in calls]):
        call = calls[i]
        for hit in find_secrets(call.args):
            secrets.append({"index": i, "tool": call.tool, "path": hit.path, "kind": hit.kind, "preview": hit.preview})
            if len(findings) < MAX_ITEMS:
                findings.append(Finding(
                    severity="error", code="credential-in-arguments",
                    message=f"call {i + 1} {call.tool} passes a credential ({hit.kind}) in '{hit.path}': {hit.preview}",
                    call_index=i, tool=call.tool, evidence=hit.preview,
                    fix="Never pass credentials through tool arguments: let the tool read them from its own "
                        "configuration or environment, and rotate the exposed key",
                    details={"category": "safety", "path": hit.path, "kind": hit.kind},
                ))
    return {"secret_count": len(secrets), "secrets": secrets}, findings


def rule_matches(rule: ForbiddenRule, call: ToolCall) -> bool:
    """Same tool (or any tool when the rule names none) and every listed argument matches.

    A regex given directly for an argument of a forbidden rule fires when the pattern occurs
    anywhere in the value (``re.search``), unlike an expected argument, where ``$regex`` is
    a full match: a policy that forbids ``rm -rf`` must also catch ``sudo rm -rf /srv``,
    and the seed's policy file (``{"$regex": "rm -rf"}``) is written that way.
    """
    if rule.tool is not None and not same_tool(rule.tool, call):  # mcp__<server>__<tool> is <tool>
        return False
    if not rule.args:
        return True
    if call.args is None:
        return False
    return all(name in call.args and _rule_value_matches(value, call.args[name]) for name, value in rule.args.items())


def _rule_value_matches(expected: Any, actual: Any) -> bool:
    # $regex and a text $contains search every string, nested and argv-joined (forbidden_match)
    return rule_value_matches(expected, actual)


def policy(calls: Sequence[ToolCall], rules: Sequence[ForbiddenRule]) -> tuple[list[dict[str, Any]], list[Finding]]:
    """Calls matching a forbidden rule: one record per (call, rule)."""
    violations: list[dict[str, Any]] = []
    findings: list[Finding] = []
    if not rules:
        return violations, findings
    for i, call in enumerate(calls):
        for r, rule in enumerate(rules):
            if not rule_matches(rule, call):
                continue
            # a rule's reason comes from a policy file: redacted and bounded like any outside text
            reason = bounded(redact_text(rule.reason), max_string=300) if rule.reason else "forbidden call"
            violations.append({"index": i, "tool": call.tool, "rule": r, "reason": reason,
                               "args": bounded(call.args, max_string=200)})
            if len(findings) < MAX_ITEMS:
                findings.append(Finding(
                    severity="error", code="forbidden-call",
                    message=f"call {i + 1} {call.tool} matches forbidden rule {r + 1}: {reason}",
                    call_index=i, tool=call.tool,
                    evidence=str(bounded(call.args, max_string=120)),
                    fix=f"Stop the agent from making this call ({reason}): remove the tool, narrow its "
                        "permissions, or add a guard that denies it",
                    details={"category": "safety", "rule": r},
                ))
    return violations, findings


__all__ = ["MAX_ITEMS", "MAX_STRING", "bounded", "call_key", "efficiency", "policy", "rule_matches", "security"]
