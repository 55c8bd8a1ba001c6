"""The judge: a second opinion on what deterministic matching left open.

Toolscore's scores are deterministic. A judge (an LLM behind a plugin, a synonym table, a
person at a prompt) is an opt-in extension for the cases exact matching cannot settle:
``search_web`` where the gold says ``web_search``, ``"NYC"`` where it says ``"New York"``.
This module asks it, in one batch, and folds its answers into the pairing.

Which questions are asked (and nothing else, so a judge is never consulted on what the
deterministic rules already decided):

- **tool** questions: an expected call left unpaired and an actual call left unpaired,
  when the actual call's tool is not itself the name of an expected call (the gold treats
  the tools it names as distinct) and the two have the same argument-name arity: the
  expected call lists as many argument names as the actual call passed, or either side's
  arguments are unknown (``args`` not checked in the gold, or not recorded in the trace).
- **argument** questions: an argument of a same-tool pair whose expected and actual values
  are both plain strings or numbers (never booleans, never a matcher such as ``$regex``,
  which has decided already) and differ. Missing and unexpected arguments are not asked.
  Values holding a credential are never sent to a judge.

Questions come in that order (tool questions by expected then actual index, argument
questions by expected index and argument order), at most :data:`MAX_QUESTIONS` of them; the
rest are counted as ``not_asked``. The judge is called once, and not at all when nothing
is open. Arguments of a pair the judge itself made are compared deterministically only.

A yes only ever adds a match. A tool yes pairs the two calls (when several yes answers
compete for one call, a maximum matching in question order decides); an argument yes
counts that argument as matched. Metrics see the result through the evaluation context:
its pairing, and its calls, in which a judged call carries the expected tool name or value
(the recorded one kept in ``call.metadata["judged_tool"]`` / ``["judged_arguments"]``).
The evaluation keeps the trace as recorded, explains each judged pair in its reason,
adds a ``judged-match`` finding per applied answer and lists every question and answer in
``Evaluation.metrics["judge"]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import attrs

from toolscore_core.kernel.errors import BudgetStopped, InputError, PluginError
from toolscore_core.kernel.model import CallPair, ExpectedCall, Finding, ToolCall
from toolscore_core.scoring.pairing import Pairing, assemble_pairing, preview_value

if TYPE_CHECKING:
    from toolscore_core.kernel.interfaces import Judge
    from toolscore_core.kernel.plugins import PluginManager

QuestionKind = Literal["tool", "argument"]
MAX_QUESTIONS = 500  # one batch stays affordable for an LLM judge on a long, badly paired trace
REASON_CHARS = 160  # a judge's reason inside a pair's explanation (the record keeps it whole)


@attrs.frozen
class JudgeQuestion:
    """One thing the deterministic rules left open.

    :param kind: ``"tool"`` (is the actual tool the expected one?) or ``"argument"`` (is
        the actual value the expected one?).
    :param expected: the expected tool name, or the expected argument value.
    :param actual: the actual tool name, or the actual argument value.
    :param tool: the expected call's tool (for an argument question, both calls' tool).
    :param argument: the argument's name; None for a tool question.
    :param expected_index: the expected call's index in the gold.
    :param actual_index: the actual call's index in the trace.
    :param context: a short hint for the judge: the expected call's description, when the
        gold gives one.
    """

    kind: QuestionKind
    expected: Any
    actual: Any
    tool: str
    argument: str | None
    expected_index: int
    actual_index: int
    context: str | None = None


@attrs.frozen
class JudgeAnswer:
    """A judge's verdict on one question: equivalent or not, and optionally why and how sure.

    ``confidence`` (0..1) is recorded for the reader; it does not change the decision.
    """

    equivalent: bool
    reason: str | None = None
    confidence: float | None = None


@attrs.frozen
class Judgement:
    """What consulting a judge changed, for the evaluation to use and to show."""

    judge: str
    calls: tuple[ToolCall, ...]  # the calls as scored (judged names and values applied)
    changed: frozenset[int]  # indexes of the calls that differ from the recorded ones
    pairing: Pairing
    record: dict[str, Any]  # Evaluation.metrics["judge"]
    findings: tuple[Finding, ...]


def resolve_judge(judge: Judge | str | type[Any], pm: PluginManager) -> tuple[Any, str]:
    """The judge object and its name: a registered name is made from the ``judges`` registry."""
    from toolscore_core.kernel.registry import collect, instantiate

    if isinstance(judge, str):
        obj = instantiate(collect(pm, "judges").get(judge))  # unknown: InputError with did-you-mean
    elif isinstance(judge, type):
        obj = instantiate(judge)
    else:
        obj = judge
    if not callable(getattr(obj, "decide", None)):
        raise InputError(f"judge {judge!r} has no decide() method",
                         expected="a registered judge name or an object with decide(questions) -> answers")
    name = getattr(obj, "name", None)
    return obj, name if isinstance(name, str) and name else type(obj).__name__


def _arity(args: dict[str, Any] | None) -> int | None:
    return None if args is None else len(args)


def _plain(value: Any) -> bool:
    return type(value) is str or (type(value) in (int, float) and value == value)


def open_questions(expected: Sequence[ExpectedCall], calls: Sequence[ToolCall], pairing: Pairing,
                   *, limit: int = MAX_QUESTIONS) -> tuple[list[JudgeQuestion], int]:
    """The questions to ask (see the module doc for the rules) and how many were left out."""
    from toolscore_core.scoring.secrets import contains_secret

    questions: list[JudgeQuestion] = []
    left_out = 0

    def add(question: JudgeQuestion) -> None:
        nonlocal left_out
        if len(questions) < limit:
            questions.append(question)
        else:
            left_out += 1

    expected_tools = {e.tool for e in expected}
    extra = [j for j, i in enumerate(pairing.actual_to_expected)
             if i is None and calls[j].tool not in expected_tools]
    for i, partner in enumerate(pairing.expected_to_actual):
        if partner is not None or not extra:
            continue
        exp = expected[i]
        for j in extra:
            a, b = _arity(exp.args), _arity(calls[j].args)
            if a is None or b is None or a == b:
                add(JudgeQuestion(kind="tool", expected=exp.tool, actual=calls[j].tool, tool=exp.tool,
                                  argument=None, expected_index=i, actual_index=j, context=exp.description))
    for pair in pairing.pairs:
        e, a = pair.expected_index, pair.actual_index
        if e is None or a is None or not pair.tool_match or not pair.mismatches:
            continue
        exp_args, act_args = expected[e].args or {}, calls[a].args or {}
        for problem in pair.mismatches:
            key = problem["argument"]
            if problem["problem"] != "mismatch" or key not in exp_args or key not in act_args:
                continue
            want, got = exp_args[key], act_args[key]
            if not (_plain(want) and _plain(got)) or contains_secret(want) or contains_secret(got):
                continue
            add(JudgeQuestion(kind="argument", expected=want, actual=got, tool=expected[e].tool,
                              argument=key, expected_index=e, actual_index=a, context=expected[e].description))
    return questions, left_out


def ask(judge: Any, name: str, questions: Sequence[JudgeQuestion]) -> list[JudgeAnswer]:
    """Call ``judge.decide`` once and check its answers; a broken judge is a PluginError.

    A judge's InputError (bad settings) and BudgetStopped (nothing more may be spent) pass
    through unchanged: they are the user's to act on, not a fault of the plugin.
    """
    try:
        answers = list(judge.decide(list(questions)))
    except (InputError, BudgetStopped):
        raise
    except Exception as exc:
        raise PluginError(f"judge {name!r} failed on {len(questions)} question(s): "
                          f"{type(exc).__name__}: {exc}") from exc
    if len(answers) != len(questions):
        raise PluginError(f"judge {name!r} returned {len(answers)} answer(s) for {len(questions)} question(s); "
                          "decide() must answer every question, in order")
    for n, answer in enumerate(answers):
        equivalent = getattr(answer, "equivalent", None)
        reason = getattr(answer, "reason", None)
        confidence = getattr(answer, "confidence", None)
        if not isinstance(equivalent, bool) or not (reason is None or isinstance(reason, str)) or not (
                confidence is None or (type(confidence) in (int, float) and 0 <= confidence <= 1)):
            raise PluginError(f"judge {name!r} answer {n + 1} is {answer!r}; expected "
                              "JudgeAnswer(equivalent: bool, reason: str | None, confidence: 0..1 | None)")
    return answers


def _max_matching(edges: Sequence[tuple[int, int]]) -> set[tuple[int, int]]:
    """A maximum one-to-one subset of ``edges`` (augmenting paths, tried in the given order).

    A free partner is always taken before an earlier pair is moved, so calls pair in order
    (first with first) whenever that is as good as anything else."""
    options: dict[int, list[int]] = {}
    for i, j in edges:
        options.setdefault(i, []).append(j)
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j in options[i]:
            if j not in owner:
                owner[j] = i
                return True
        for j in options[i]:
            if j not in seen:
                seen.add(j)
                if augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    for i in options:
        augment(i, set())
    return {(i, j) for j, i in owner.items()}


def apply_answers(expected: Sequence[ExpectedCall], calls: Sequence[ToolCall], pairing: Pairing, name: str,
                  questions: Sequence[JudgeQuestion], answers: Sequence[JudgeAnswer],
                  *, not_asked: int = 0) -> Judgement:
    """Fold the yes answers into the calls as scored and the pairing; record every answer."""
    yes_tools = [(q.expected_index, q.actual_index) for q, a in zip(questions, answers, strict=True)
                 if q.kind == "tool" and a.equivalent]
    chosen = _max_matching(yes_tools)
    view = list(calls)
    exp_to_act = list(pairing.expected_to_actual)
    act_to_exp = list(pairing.actual_to_expected)
    notes: dict[int, list[str]] = {}
    openings: dict[int, str] = {}
    refused: dict[int, dict[str, str]] = {}
    entries: list[dict[str, Any]] = []
    findings: list[Finding] = []
    for q, a in zip(questions, answers, strict=True):
        i, j = q.expected_index, q.actual_index
        applied = a.equivalent and (q.kind == "argument" or (i, j) in chosen)
        why = f": {_brief(a.reason)}" if a.reason else ""
        if applied and q.kind == "tool":
            call = view[j]
            view[j] = attrs.evolve(call, tool=q.expected, metadata={**call.metadata, "judged_tool": call.tool})
            exp_to_act[i], act_to_exp[j] = j, i
            openings[i] = f"`{call.tool}` judged the same tool as `{q.expected}` by judge `{name}`{why}"
            message = f"call {j + 1} {q.actual}: judge `{name}` counted it as the expected `{q.expected}`{why}"
        elif applied:
            call, key = view[j], q.argument or ""
            judged = {**call.metadata.get("judged_arguments", {}), key: q.actual}
            view[j] = attrs.evolve(call, args={**(call.args or {}), key: q.expected},
                                   metadata={**call.metadata, "judged_arguments": judged})
            shown = f"{preview_value(q.actual)} as {preview_value(q.expected)}"
            notes.setdefault(i, []).append(f"judge `{name}` counts `{q.argument}` {shown}{why}")
            message = f"call {j + 1} {q.tool}: judge `{name}` counted `{q.argument}` {shown}{why}"
        else:
            if q.kind == "argument" and q.argument is not None:
                refused.setdefault(i, {})[q.argument] = a.reason or ""
            message = ""
        if message:
            findings.append(Finding(severity="info", code="judged-match", message=_redacted(message),
                                    call_index=j, tool=q.tool,
                                    details={"category": "score", "judge": name, "kind": q.kind,
                                             "expected_index": i, "argument": q.argument}))
        entries.append({"kind": q.kind, "tool": q.tool, "argument": q.argument, "expected_index": i,
                        "actual_index": j, "expected": preview_value(q.expected), "actual": preview_value(q.actual),
                        "equivalent": a.equivalent, "reason": _redacted(a.reason) if a.reason else None,
                        "confidence": a.confidence, "applied": applied})
    judged_pairing = assemble_pairing(expected, view, exp_to_act, act_to_exp, pairing.exact_indexes,
                                      notes={i: _redacted("; ".join(n)) for i, n in notes.items()},
                                      openings={i: _redacted(o) for i, o in openings.items()})
    if refused:
        judged_pairing = attrs.evolve(judged_pairing, pairs=tuple(
            _mark_refused(p, refused[p.expected_index], name) if p.expected_index in refused and p.tool_match
            else p for p in judged_pairing.pairs))
    record = {
        "name": name,
        "questions": len(questions),
        "not_asked": not_asked,
        "matched_tools": sum(1 for e in entries if e["applied"] and e["kind"] == "tool"),
        "matched_arguments": sum(1 for e in entries if e["applied"] and e["kind"] == "argument"),
        "answers": entries,
    }
    changed = frozenset(j for j, (old, new) in enumerate(zip(calls, view, strict=True)) if old is not new)
    return Judgement(judge=name, calls=tuple(view), changed=changed, pairing=judged_pairing, record=record,
                     findings=tuple(findings))


def _mark_refused(pair: CallPair, reasons: dict[str, str], name: str) -> CallPair:
    """Say on each mismatch the judge was asked about that it answered no (and why)."""
    marked = tuple({**m, "judged_by": name, "judge_reason": _redacted(reasons[m["argument"]])}
                   if m["problem"] == "mismatch" and m["argument"] in reasons else m for m in pair.mismatches)
    return attrs.evolve(pair, mismatches=marked)


def _brief(reason: str, limit: int = REASON_CHARS) -> str:
    """A judge's reason as shown inside an explanation: one line, cut to ``limit`` characters."""
    text = " ".join(reason.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _redacted(text: str) -> str:
    """A judge's words may quote an argument; never let them carry a credential further."""
    if not text:
        return text
    from toolscore_core.scoring.secrets import redact_text

    return redact_text(text)


def consult(judge: Judge | str | type[Any], expected: Sequence[ExpectedCall], calls: Sequence[ToolCall],
            pairing: Pairing, pm: PluginManager) -> Judgement:
    """Ask ``judge`` every open question of this evaluation in one batch and apply the answers."""
    obj, name = resolve_judge(judge, pm)
    questions, not_asked = open_questions(expected, calls, pairing)
    answers = ask(obj, name, questions) if questions else []
    return apply_answers(expected, calls, pairing, name, questions, answers, not_asked=not_asked)


__all__ = ["MAX_QUESTIONS", "JudgeAnswer", "JudgeQuestion", "Judgement", "QuestionKind", "apply_answers", "ask",
           "consult", "open_questions", "resolve_judge"]
