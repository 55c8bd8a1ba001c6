"""``evaluate()``: score what an agent did against what the task needed.

One evaluation = read the expectation and the trace, pair the calls once
(:mod:`toolscore_core.scoring.pairing`), let every registered metric read that pairing, combine
the weighted metrics into the score, and add what the score does not show (failed
calls, blind retries, loops, credentials, forbidden calls; :mod:`toolscore_core.scoring.behaviour`;
a final answer claiming what the calls did not do; :mod:`toolscore_core.scoring.honesty`).

Weights: the registered metrics' default weights, overridden by the gold file's
``weights`` and then by ``weights=``, are renormalised to sum 1 over the metrics with a
positive weight. An unknown name is an InputError with a did-you-mean.

Metric options (``metric_options={"name": {"key": value}}``) are checked against what each
metric declares before anything is scored. A judge (``judge=``) is consulted once, after the
deterministic pairing and before the metrics, so every metric reads the judged pairing;
without one, the judge module is never imported and nothing changes.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import gc
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import attrs

from toolscore_core.kernel.errors import InputError, PluginError, UnknownNameError
from toolscore_core.kernel.interfaces import MetricResult
from toolscore_core.kernel.model import (
    CallPair,
    Evaluation,
    ExpectedCall,
    Finding,
    ForbiddenRule,
    ToolCall,
    Trace,
    unread,
)
from toolscore_core.kernel.plugins import PluginManager, get_plugin_manager
from toolscore_core.kernel.registry import Registry, collect, instantiate
from toolscore_core.scoring.behaviour import bounded, efficiency, policy, security
from toolscore_core.scoring.contracts import as_contract, as_forbidden, load_contract
from toolscore_core.scoring.honesty import honesty
from toolscore_core.scoring.matchers import canonical
from toolscore_core.scoring.modes import DEFAULT_MODE, check_mode
from toolscore_core.scoring.pairing import Pairing, PairRows, pair_calls
from toolscore_core.scoring.tool_names import align_expected
from toolscore_core.scoring.verdict import grade_for, verdict_for
from toolscore_core.scoring.weight_names import current_weight_name

if TYPE_CHECKING:
    from toolscore_core.kernel.interfaces import Judge

MAX_FINDINGS_PER_CODE = 20


@attrs.frozen
class EvaluationContext:
    """What every metric reads: built once per evaluation, never recomputed by a metric.

    Public (``toolscore_core.EvaluationContext``): it is the whole input of
    ``Metric.compute``, so it carries what a plugin metric needs and could not rebuild
    cheaply or consistently on its own.

    - ``expected``: the expected calls (matchers already parsed).
    - ``trace``: the trace as scored. Without a judge it is the trace as recorded. With a
      judge, a call the judge matched carries the expected tool name (or the expected value
      of a judged argument), the recorded one kept in ``call.metadata["judged_tool"]`` /
      ``["judged_arguments"]``, so every metric agrees with the judge;
      ``Evaluation.actual`` keeps the recorded trace.
    - ``pairing``: the one pairing of expected to actual calls (:class:`Pairing`).
    - ``forbidden``: the forbidden rules in force (gold file's, then the caller's).
    - ``mode``: the order mode (see :mod:`toolscore_core.scoring.modes`).
    - ``outcomes_recorded``: False when no call in the trace says whether it succeeded (a
      plain list of tool + args), so "unknown" is the format's limit, not a failure.
    - ``options``: metric name -> that metric's options, validated against what it
      declares (see :func:`resolve_metric_options`); read yours with :meth:`options_for`.
    - ``arg_keys``: ``canonical(call.args)`` of each call in ``calls``, in order: a hashable
      form to compare or count argument sets without walking them again.
    - ``weights``: the resolved weights (defaults, gold file, caller; renormalised to sum 1),
      by metric name; a metric with weight 0 is absent (it is reported, not counted).
    - ``judge``: the name of the judge consulted, or None for a deterministic evaluation.
    """

    expected: tuple[ExpectedCall, ...]
    trace: Trace
    pairing: Pairing
    forbidden: tuple[ForbiddenRule, ...] = ()
    mode: str = DEFAULT_MODE
    outcomes_recorded: bool = True
    options: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict)
    arg_keys: tuple[Any, ...] = ()
    weights: Mapping[str, float] = attrs.field(factory=dict)
    judge: str | None = None

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        """The actual calls as scored (``trace.calls``)."""
        return self.trace.calls

    def options_for(self, metric: str) -> Mapping[str, Any]:
        """The options given to ``metric`` (empty when none were)."""
        return self.options.get(metric, _NO_OPTIONS)


_NO_OPTIONS: Mapping[str, Any] = MappingProxyType({})


def metric_registry(pm: PluginManager | None = None) -> Registry:
    return collect(pm or get_plugin_manager(), "metrics")


def resolve_weights(registry: Registry, *layers: Mapping[str, Any] | None, file: str | None = None) -> dict[str, float]:
    """Default weights overridden by each layer in turn, renormalised to sum 1."""
    weights = {name: float(getattr(registry.get(name), "default_weight", 0.0)) for name in registry.names()}
    for layer in layers:
        for name, value in (layer or {}).items():
            name = current_weight_name(name)  # an old name means the new metric
            if name not in registry:
                try:
                    registry.get(str(name))  # raises UnknownNameError with did-you-mean
                except InputError as exc:
                    if not file:
                        raise
                    raise InputError(exc.message, file=file, location=f"$.weights.{name}",
                                     expected=exc.expected) from None
            # inf and NaN are rejected too: inf/inf renormalises to NaN, a silent 0.0 F
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
                raise InputError(f"weight {name}={value!r} is not a finite non-negative number", file=file,
                                 location=f"$.weights.{name}" if file else None,
                                 hint="Use e.g. --weight required_call_recall=0.3")
            weights[name] = float(value)
    total = sum(w for w in weights.values() if w > 0)
    if total <= 0:
        raise InputError("every metric weight is 0, so there is nothing to score",
                         expected="at least one positive weight")
    return {name: w / total for name, w in sorted(weights.items()) if w > 0}


def resolve_metric_options(registry: Registry,
                           metric_options: Mapping[str, Mapping[str, Any]] | None) -> dict[str, Mapping[str, Any]]:
    """``metric_options`` checked against the registered metrics and what each declares.

    A metric takes options only if it declares them, as a class attribute
    ``options: ClassVar[dict[str, type | tuple[type, ...]]]`` (option name -> accepted
    type(s); ``object`` accepts anything, ``type(None)`` allows None). An option for an
    unknown metric, for a metric that declares no options, an undeclared key or a value of
    the wrong type is an InputError naming the metric and the key: a misspelt option must
    fail loudly, never be ignored silently. Types are strict as matching is: ``bool`` is not
    an ``int``; an ``int`` is accepted where ``float`` is declared.
    """
    if not metric_options:
        return {}
    example = 'e.g. {"my_metric": {"threshold": 0.5}}'
    if not isinstance(metric_options, Mapping):
        raise InputError(f"metric options must map metric names to options, not {type(metric_options).__name__}",
                         expected=example)
    resolved: dict[str, Mapping[str, Any]] = {}
    for name, given in metric_options.items():
        if not isinstance(name, str) or name not in registry:
            try:
                registry.get(str(name))
            except UnknownNameError as exc:
                raise UnknownNameError(f"metric options given for {exc.message}", expected=exc.expected,
                                       hint="Name an installed metric (toolscore plugins lists them)") from None
        if not isinstance(given, Mapping):
            raise InputError(f"the options of metric {name!r} must map option names to values, "
                             f"not {type(given).__name__}", expected=example)
        declared = getattr(registry.get(name), "options", None)
        if declared is not None and not isinstance(declared, Mapping):
            raise PluginError(f"metric {name!r} declares options as {type(declared).__name__}; "
                              "expected a dict of option name -> type")
        resolved[name] = MappingProxyType({key: _checked_option(name, declared or {}, key, value)
                                           for key, value in given.items()})
    return resolved


def _checked_option(metric: str, declared: Mapping[str, Any], key: Any, value: Any) -> Any:
    if not declared:
        raise InputError(f"metric {metric!r} takes no options (got {key!r})",
                         hint="Only metrics that declare an `options` attribute accept options")
    if not isinstance(key, str) or key not in declared:
        close = difflib.get_close_matches(str(key), list(declared), n=1, cutoff=0.5)
        raise InputError(f"metric {metric!r} has no option {key!r}",
                         expected=f"one of: {', '.join(sorted(declared))}"
                                  + (f" (did you mean {close[0]!r}?)" if close else ""))
    accepted = declared[key] if isinstance(declared[key], tuple) else (declared[key],)
    if not any(_is_a(value, t) for t in accepted):
        names = " or ".join("None" if t is type(None) else getattr(t, "__name__", str(t)) for t in accepted)
        raise InputError(f"option {metric}.{key}={value!r} is not {names}", expected=f"a {names} value")
    return value


def _is_a(value: Any, kind: Any) -> bool:
    if kind is object:
        return True
    if kind is None or kind is type(None):
        return value is None
    if isinstance(value, bool):
        return kind is bool
    if kind is float:
        return isinstance(value, (int, float))
    return isinstance(kind, type) and isinstance(value, kind)


SCORE_DIGITS = 12  # significant digits of the short form a noisy value snaps to
NOISE_ULPS = 4  # how far (in units in the last place) a value may sit from it to count as noise


def clean_score(value: float) -> float:
    """``value`` without float noise: 0.8500000000000001 -> 0.85, as the seed prints scores.

    Only noise goes: a value within a few units in the last place of a short decimal snaps to
    it, any other value is kept exactly (2/3 stays 0.6666666666666666, as the seed prints a
    recall), so a score never moves by more than rounding error.
    """
    number = float(value) + 0.0  # + 0.0 turns -0.0 into 0.0
    if not math.isfinite(number):
        return number
    short = float(f"{number:.{SCORE_DIGITS}g}")
    return short if abs(short - number) <= NOISE_ULPS * math.ulp(number) else number


def _combine(results: dict[str, MetricResult], weights: dict[str, float]) -> float:
    counted = {name: w for name, w in weights.items() if results[name].value is not None}
    total = math.fsum(counted.values())
    if total <= 0:
        return 0.0
    # fsum adds exactly, then one rounding: the score a user prints is the figure they expect
    score = math.fsum(w * float(results[name].value or 0.0) for name, w in counted.items()) / total
    return clean_score(min(1.0, max(0.0, score)))


def _check_result(name: str, result: Any) -> MetricResult:
    if not isinstance(result, MetricResult):
        raise PluginError(f"metric {name!r} returned {type(result).__name__}, not a MetricResult")
    value = result.value
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1):
        raise PluginError(f"metric {name!r} returned {value!r}; a metric value must be in [0, 1] or None")
    if value is not None and type(value) is float and value != (cleaned := clean_score(value)):
        return attrs.evolve(result, value=cleaned)  # an average such as 0.8000000000000002
    return result


class _Later:
    """A finding built only if :func:`_capped` keeps it.

    Why: a trace with thousands of differing calls gave one finding per call, each with its
    message, fix and details written out, and the cap then kept the first twenty of each
    code and counted the rest; only the code is needed to count."""

    __slots__ = ("build", "code")

    def __init__(self, code: str, build: Callable[[], Finding]) -> None:
        self.code = code
        self.build = build


class _Skipped(_Later):
    """The findings of one code past its cap in one list: counted by :func:`_capped`, never built.

    Why one for all: on 10k differing calls, a placeholder per finding past the cap was
    appended, then walked by :func:`_capped` only to be counted."""

    __slots__ = ("count",)

    def __init__(self, code: str, count: int) -> None:
        super().__init__(code, _never_built)
        self.count = count


def _capped(findings: list[Finding | _Later]) -> list[Finding]:
    """At most MAX_FINDINGS_PER_CODE findings per code; the rest summarised in one line."""
    kept: list[Finding] = []
    counts: dict[str, int] = {}
    for f in findings:
        n = counts[f.code] = counts.get(f.code, 0) + (f.count if isinstance(f, _Skipped) else 1)
        if n <= MAX_FINDINGS_PER_CODE:  # never for a _Skipped: its findings are past the cap already
            kept.append(f.build() if isinstance(f, _Later) else f)
    for code, n in counts.items():
        if n > MAX_FINDINGS_PER_CODE:
            sample = next(f for f in kept if f.code == code)  # the code's first finding, always kept
            kept.append(Finding(severity="info", code=code,
                                message=f"… and {n - MAX_FINDINGS_PER_CODE} more finding(s) like this ({code})",
                                details={"category": sample.details.get("category", "score"), "omitted": n - MAX_FINDINGS_PER_CODE}))
    return kept


def _score_findings(context: EvaluationContext, calls: tuple[ToolCall, ...]) -> list[Finding | _Later]:
    """Missing, wrong, failed and extra calls and argument mismatches, from the pairing.

    ``calls`` are the calls as recorded, so messages name the tool the agent really called
    even where a judge counted it as another. Each is built only if the cap keeps it."""
    pairs = unread(context.pairing, "pairs")
    outline: Iterable[tuple[int | None, int | None, bool, bool]]
    if isinstance(pairs, PairRows):  # rows not built yet: walk their outline, build only the rows shown
        outline, row_at = pairs.outline(), pairs.row
    else:
        outline = ((p.expected_index, p.actual_index, p.tool_match, bool(p.mismatches)) for p in pairs)
        row_at = pairs.__getitem__
    expected = context.expected
    findings: list[Finding | _Later] = []
    later = _Counted(findings)
    keep, add = later.keep, later.add
    for k, (i, j, tool_match, mismatched) in enumerate(outline):
        if tool_match and i is not None and j is not None:  # the usual row, tested first: neither branch below
            call = calls[j]
            if mismatched and keep("argument-mismatch"):
                add("argument-mismatch", _with_row, _argument_mismatch, call, i, j, row_at, k)
            if (call.denied or call.is_error is True) and keep("required-call-failed"):  # unknown: not a failure
                add("required-call-failed", _required_call_failed, call, i, j)
            continue
        if i is not None and (j is None or not tool_match) and keep("missing-call"):
            add("missing-call", _missing_call, expected[i].tool, i, j, calls)
        if j is not None and (i is None or not tool_match) and keep("unexpected-call"):
            add("unexpected-call", _with_row, _unexpected_call, calls[j].tool, j, row_at, k)
    later.close()
    return findings


BUILD_ALL_LATER = False  # tests set it to give every finding its builder, as before


class _Counted:
    """Counts the findings of each code; appends a :class:`_Later` for those within the cap
    and, on :meth:`close`, one :class:`_Skipped` per code for the rest.

    Why: the cap counts findings across every list of the evaluation, so the n-th finding
    of a code here is at least the n-th overall; past MAX_FINDINGS_PER_CODE :func:`_capped`
    only counts it and never builds it. On 10k differing calls, making a builder (two
    partial objects) for each cost more than the rest of the findings, and a call with the
    builder's arguments per finding past the cap was still most of the findings' cost: the
    caller asks :meth:`keep` first and passes them only for a finding that is kept."""

    def __init__(self, findings: list[Finding | _Later]) -> None:
        self.findings = findings
        self.seen: dict[str, int] = {}

    def keep(self, code: str) -> bool:
        """Count one finding of ``code``; True when it is within the cap (then :meth:`add` it)."""
        seen = self.seen[code] = self.seen.get(code, 0) + 1
        return seen <= MAX_FINDINGS_PER_CODE or BUILD_ALL_LATER

    def add(self, code: str, build: Callable[..., Finding], *args: Any) -> None:
        self.findings.append(_Later(code, functools.partial(build, *args)))

    def close(self) -> None:
        """One :class:`_Skipped` per code for its findings past the cap, after the kept ones
        (safe: the first finding of each code, which orders the summaries, is kept)."""
        if BUILD_ALL_LATER:
            return
        for code, seen in self.seen.items():
            if seen > MAX_FINDINGS_PER_CODE:
                self.findings.append(_Skipped(code, seen - MAX_FINDINGS_PER_CODE))


def _with_row(build: Callable[..., Finding], *args: Any) -> Finding:
    """``build(*head, row)`` where ``args`` ends with the row getter and the row's number:
    the getter of the row is made only for a finding that is built."""
    *head, row_at, k = args
    return build(*head, functools.partial(row_at, k))


def _never_built() -> Finding:
    raise AssertionError("a finding past the cap of its code was built")


def _missing_call(tool: str, i: int, j: int | None, calls: tuple[ToolCall, ...]) -> Finding:
    instead = f" (`{calls[j].tool}` was called instead)" if j is not None else ""
    return Finding(
        severity="error", code="missing-call",
        message=f"expected call to `{tool}` never happened{instead}",
        call_index=j, tool=tool,
        fix=f"Make sure the agent can see `{tool}` (exact, case-sensitive name) and that the prompt "
            f"or the tool's description tells it when to call it",
        details={"category": "score", "expected_index": i},
    )


def _unexpected_call(tool: str, j: int, row: Callable[[], CallPair]) -> Finding:
    pair = row()
    return Finding(
        severity="info", code="unexpected-call",
        message=f"call {j + 1} {tool}: {pair.reason}",
        call_index=j, tool=tool,
        fix=f"Check why the agent calls `{tool}`: the task did not need this call",
        details={"category": "score"},
    )


def _argument_mismatch(call: ToolCall, i: int, j: int, row: Callable[[], CallPair]) -> Finding:
    pair = row()
    shown = "; ".join(
        f"{m['argument']}: {m['expected']} ≠ {m['actual']}" if m["problem"] == "mismatch"
        else f"{m['argument']}: {m['problem']}"
        for m in pair.mismatches[:3])
    more = f" (+{len(pair.mismatches) - 3} more)" if len(pair.mismatches) > 3 else ""
    names = ", ".join(f"`{m['argument']}`" for m in pair.mismatches[:3])
    return Finding(
        severity="warning", code="argument-mismatch",
        message=f"call {j + 1} {call.tool}: {shown}{more}",
        call_index=j, tool=call.tool,
        fix=f"Check how the agent fills {names}: make the tool's parameter descriptions state the "
            f"expected format, or loosen the expectation with a matcher",
        details={"category": "score", "expected_index": i, "mismatches": list(pair.mismatches)},
    )


def _required_call_failed(call: ToolCall, i: int, j: int) -> Finding:
    state = "was denied" if call.denied else "failed"
    return Finding(
        severity="warning", code="required-call-failed",
        message=f"expected call to `{call.tool}` was made but {state} (call {j + 1})",
        call_index=j, tool=call.tool,
        evidence=bounded(call.error, max_string=200) if call.error else None,
        fix=f"Make `{call.tool}` succeed: fix its arguments or the conditions it needs, and have the "
            "agent react to the error instead of moving on",
        details={"category": "score", "expected_index": i},
    )


def _order_finding(context: EvaluationContext, value: float | None, details: dict[str, Any]) -> list[Finding]:
    if context.mode == DEFAULT_MODE or value is None or value >= 1.0:
        return []
    where = ""
    if details.get("first_difference") is not None:
        where = f": first difference at call {details['first_difference'] + 1}"
    elif details.get("first_missing") is not None:
        i = details["first_missing"]
        where = f": expected call {i + 1} (`{context.expected[i].tool}`) not found in order"
    elif "matched" in details:
        where = f": {details['matched']} call(s) matched one-to-one"
    return [Finding(
        severity="warning", code="order",
        message=f"the calls do not satisfy mode {context.mode!r}{where}",
        fix=f"Make the agent follow the expected call order, or choose a looser mode than {context.mode!r}",
        details={"category": "score", **{k: v for k, v in details.items() if k != "mode"}},
    )]


def evaluate(
    expected: Any,
    actual: Any,
    forbidden: Any = None,
    weights: Mapping[str, float] | None = None,
    *,
    mode: str | None = None,
    format: str | None = None,
    min_score: float | None = None,
    plugin_manager: PluginManager | None = None,
    metric_options: Mapping[str, Mapping[str, Any]] | None = None,
    judge: Judge | type[Judge] | str | None = None,
    strict: bool = False,
) -> Evaluation:
    """Score ``actual`` (any trace the adapters read) against ``expected``.

    :param expected: a list of expected calls (dicts with matchers inline, ExpectedCall
        objects), a :class:`Contract`, or the path of a gold file.
    :param actual: a Trace, a trace file path, a list of call dicts, or a live SDK object.
    :param forbidden: rules (list of dicts / ForbiddenRule, or a file path); added after
        the gold file's own rules.
    :param weights: metric name -> weight, over the defaults and the gold file's weights.
    :param mode: order mode (see :mod:`toolscore_core.scoring.modes`); overrides the gold file's.
    :param format: the trace format, when detection should not decide.
    :param min_score: kept in the result for reports and assertions.
    :param metric_options: metric name -> {option: value}, for metrics that declare
        options (see :func:`resolve_metric_options`); each metric reads its own with
        ``context.options_for(name)``.
    :param judge: None (deterministic, the default), a judge object, or the name of a
        registered judge: asked once about what exact matching left open (see
        :mod:`toolscore_core.scoring.judging`).
    :param strict: plain expected numbers must also have the same type (``1`` does not
        match ``1.0``), as tool-scorer 1.10.0's ``strict`` (see :mod:`toolscore_core.scoring.strict_args`).
    """
    with collector_paused():  # reading too: see collector_paused
        return _evaluate(expected, actual, forbidden, weights, mode=mode, format=format, min_score=min_score,
                         plugin_manager=plugin_manager, metric_options=metric_options, judge=judge, strict=strict)


def _evaluate(
    expected: Any,
    actual: Any,
    forbidden: Any,
    weights: Mapping[str, float] | None,
    *,
    mode: str | None,
    format: str | None,
    min_score: float | None,
    plugin_manager: PluginManager | None,
    metric_options: Mapping[str, Mapping[str, Any]] | None,
    judge: Judge | type[Judge] | str | None,
    strict: bool,
) -> Evaluation:
    contract = as_contract(expected)
    rules = tuple(contract.forbidden) + as_forbidden(forbidden)
    chosen_mode = check_mode(mode if mode is not None else contract.mode)
    pm = plugin_manager or get_plugin_manager()
    if actual is None:
        raise InputError("no trace given (actual=None)", expected="a trace: a list of calls, a file, or an SDK result")
    from toolscore_core.kernel.traces import load_trace

    trace = load_trace(actual, format=format, pm=pm)
    expected_calls = contract.expected
    if strict:
        from toolscore_core.scoring.strict_args import strict_calls

        expected_calls = strict_calls(expected_calls)
    return evaluate_loaded(expected_calls, trace, rules, weights, mode=chosen_mode, pm=pm,
                           contract_weights=contract.weights, source=contract.source,
                           min_score=min_score if min_score is not None else contract.min_score,
                           metric_options=metric_options, judge=judge)


def evaluate_loaded(
    expected: tuple[ExpectedCall, ...],
    trace: Trace,
    rules: tuple[ForbiddenRule, ...],
    weights: Mapping[str, float] | None,
    *,
    mode: str,
    pm: PluginManager,
    contract_weights: Mapping[str, float] | None = None,
    source: str | None = None,
    min_score: float | None = None,
    metric_options: Mapping[str, Mapping[str, Any]] | None = None,
    judge: Judge | type[Judge] | str | None = None,
) -> Evaluation:
    """The evaluation proper, on an already-read expectation and trace.

    The cyclic garbage collector is paused meanwhile: scoring allocates many small,
    short-lived, acyclic objects, and on a 100k-call trace the collector's repeated full
    scans of the (large, live) trace cost more than the scoring itself.
    """
    with collector_paused():
        return _evaluate_loaded(expected, trace, rules, weights, mode=mode, pm=pm,
                                contract_weights=contract_weights, source=source, min_score=min_score,
                                metric_options=metric_options, judge=judge)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off inside (when it was on), back on after.

    Why: reading and scoring allocate many small objects that stay alive (the calls, the
    expectations, the rows), so the collector's passes find nothing to free while their
    cost grows with the heap: reading a 1M-call trace took twice as long with it on.
    Nested uses leave it to the outermost."""
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _evaluate_loaded(
    expected: tuple[ExpectedCall, ...],
    trace: Trace,
    rules: tuple[ForbiddenRule, ...],
    weights: Mapping[str, float] | None,
    *,
    mode: str,
    pm: PluginManager,
    contract_weights: Mapping[str, float] | None,
    source: str | None,
    min_score: float | None,
    metric_options: Mapping[str, Mapping[str, Any]] | None,
    judge: Judge | type[Judge] | str | None,
) -> Evaluation:
    if min_score is not None and (isinstance(min_score, bool) or not isinstance(min_score, (int, float))
                                  or not 0 <= min_score <= 1):
        raise InputError(f"min_score {min_score!r} is not a number between 0 and 1", hint="Use e.g. 0.9 for 90%")
    registry = metric_registry(pm)
    if contract_weights:
        resolve_weights(registry, contract_weights, file=source)  # name the gold file in its own errors
    normalised = resolve_weights(registry, contract_weights, weights)
    options = resolve_metric_options(registry, metric_options)
    calls = trace.calls
    expected = align_expected(expected, calls)  # mcp__<server>__<tool> in the gold is <tool> in the trace
    arg_keys = [canonical(c.args) for c in calls]  # computed once: pairing and loop detection share them
    pairing = pair_calls(expected, calls, actual_keys=arg_keys)
    outcomes_recorded = any(c.is_error is not None or c.denied for c in calls)
    scored, scored_keys, judgement = trace, arg_keys, None
    if judge is not None:  # the plain path never imports the judge module
        from toolscore_core.scoring.judging import consult

        judgement = consult(judge, expected, calls, pairing, pm)
        plain_pairing, pairing = pairing, judgement.pairing
        if judgement.changed:
            scored = attrs.evolve(trace, calls=judgement.calls)
            scored_keys = [canonical(c.args) if j in judgement.changed else k
                           for j, (c, k) in enumerate(zip(judgement.calls, arg_keys, strict=True))]
    context = EvaluationContext(expected=tuple(expected), trace=scored, pairing=pairing, forbidden=rules,
                                mode=mode, outcomes_recorded=outcomes_recorded, options=options,
                                arg_keys=tuple(scored_keys), weights=normalised,
                                judge=judgement.judge if judgement else None)
    results: dict[str, MetricResult] = {}
    for name in registry.names():
        metric = instantiate(registry.get(name))
        results[name] = _check_result(name, metric.compute(context))
    score = _combine(results, normalised)

    efficiency_metrics, behaviour_findings = efficiency(calls, arg_keys=arg_keys)
    security_metrics, security_findings = security(calls)
    violations, policy_findings = policy(calls, rules)
    honesty_metrics, honesty_findings = honesty(calls, trace.final_answer)

    metrics: dict[str, Any] = {
        "efficiency_metrics": efficiency_metrics,
        "security_metrics": security_metrics,
        "honesty": honesty_metrics,
        "pairing": {"pairs": len(unread(pairing, "pairs")), "paired": pairing.paired_count,
                    "exact_pairs": pairing.exact_pairs},
    }
    for name, result in results.items():
        metrics[name] = {"value": result.value, "weight": normalised.get(name, 0.0), "details": result.details}
        if name in options:
            metrics[name]["options"] = dict(options[name])
    if judgement is not None:  # the score without the judge, so a report can show both
        metrics["judge"] = {**judgement.record, "score": score,
                            "score_without_judge": _score_without_judge(registry, context, trace, arg_keys,
                                                                        normalised, plain_pairing, score)}
    sequence = results.get("sequence_accuracy")
    findings = (policy_findings + security_findings + honesty_findings + behaviour_findings
                + _score_findings(context, calls)
                + _order_finding(context, sequence.value if sequence else None, sequence.details if sequence else {}))
    if judgement is not None:
        findings.extend(judgement.findings)
    for result in results.values():
        findings.extend(result.findings)

    def value(name: str, default: float = 0.0) -> float:
        result = results.get(name)
        return float(result.value) if result is not None and result.value is not None else default

    return Evaluation(
        score=score,
        grade=grade_for(score),
        verdict=verdict_for(score, min_score),
        selection_accuracy=value("selection_accuracy"),
        argument_f1=value("argument_f1"),
        sequence_accuracy=value("sequence_accuracy"),
        redundancy=value("redundancy"),
        identical_rate=float(efficiency_metrics["identical_rate"]),
        required_call_recall=value("required_call_recall"),
        weights=normalised,
        metrics=metrics,
        findings=tuple(_capped(findings)),
        policy_violations=violations,
        pairs=unread(pairing, "pairs"),  # built when first read
        expected=tuple(expected),
        actual=trace,
        mode=mode,
        min_score=min_score,
        forbidden=tuple(rules),
    )


def _score_without_judge(registry: Any, context: EvaluationContext, trace: Trace, arg_keys: list[Any],
                         weights: dict[str, float], plain_pairing: Pairing, score: float) -> float:
    """The composite score the same metrics give on the recorded trace and the plain pairing."""
    if plain_pairing is context.pairing:
        return score
    plain = attrs.evolve(context, trace=trace, pairing=plain_pairing, arg_keys=tuple(arg_keys), judge=None)
    results = {name: _check_result(name, instantiate(registry.get(name)).compute(plain)) for name in registry.names()}
    return _combine(results, weights)


def evaluate_trace(
    gold_path: str | Path,
    trace_path: str | Path,
    *,
    forbidden: Any = None,
    weights: Mapping[str, float] | None = None,
    format: str | None = None,
    mode: str | None = None,
    min_score: float | None = None,
    plugin_manager: PluginManager | None = None,
    metric_options: Mapping[str, Mapping[str, Any]] | None = None,
    judge: Judge | type[Judge] | str | None = None,
) -> Evaluation:
    """``evaluate`` on a gold file and a trace file; errors name the file at fault.

    ``metric_options`` and ``judge`` are as in :func:`evaluate`."""
    with collector_paused():  # reading too: see collector_paused
        return _evaluate_trace(gold_path, trace_path, forbidden=forbidden, weights=weights, format=format, mode=mode,
                               min_score=min_score, plugin_manager=plugin_manager, metric_options=metric_options,
                               judge=judge)


def _evaluate_trace(
    gold_path: str | Path,
    trace_path: str | Path,
    *,
    forbidden: Any,
    weights: Mapping[str, float] | None,
    format: str | None,
    mode: str | None,
    min_score: float | None,
    plugin_manager: PluginManager | None,
    metric_options: Mapping[str, Mapping[str, Any]] | None,
    judge: Judge | type[Judge] | str | None,
) -> Evaluation:
    from toolscore_core.kernel.traces import load_trace_file

    contract = load_contract(gold_path)
    pm = plugin_manager or get_plugin_manager()
    trace = load_trace_file(Path(trace_path), format=format, pm=pm)
    rules = tuple(contract.forbidden) + as_forbidden(forbidden)
    return evaluate_loaded(
        contract.expected, trace, rules, weights,
        mode=check_mode(mode if mode is not None else contract.mode, file=str(gold_path)),
        pm=pm, contract_weights=contract.weights, source=contract.source,
        min_score=min_score if min_score is not None else contract.min_score,
        metric_options=metric_options, judge=judge,
    )


__all__ = ["CallPair", "EvaluationContext", "evaluate", "evaluate_loaded", "evaluate_trace", "metric_registry",
           "resolve_metric_options", "resolve_weights"]
