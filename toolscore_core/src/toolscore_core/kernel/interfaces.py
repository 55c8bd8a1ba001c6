"""Base classes for the items plugins register, one per kind.

Each class documents the contract the kernel relies on. Subclassing is optional (duck
typing works) but gives defaults and type hints. Every item has a ``name`` unique within
its kind: it is how users select it (``--format``, ``--weight``, ``--report``, rule ids)
and how the registries detect conflicts.

A minimal adapter plugin, complete::

    # my_plugin.py, named by an entry point in the "toolscore.adapters" group
    from toolscore_core import Trace, ToolCall, TraceAdapter, hookimpl

    class MyAdapter(TraceAdapter):
        name = "my-format"
        description = "Traces written by my framework"

        def detect(self, data):
            return 0.9 if isinstance(data, dict) and data.get("kind") == "my-run" else 0.0

        def load(self, data):
            return Trace(calls=[ToolCall(tool=s["tool"], args=s["args"]) for s in data["steps"]])

    @hookimpl
    def toolscore_register_adapters():
        return [MyAdapter]
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, ClassVar

import attrs

from toolscore_core.kernel.model import Finding, ServerDefinition, Severity, Trace

if TYPE_CHECKING:  # for readers and mypy only: importing scoring here would slow every plugin import
    from collections.abc import Mapping, Sequence

    # Re-exported lazily, see _ELSEWHERE; imported here so type checkers see them.
    from toolscore_core.kernel.executors import Executor
    from toolscore_core.kernel.guards import Guard, GuardDecision
    from toolscore_core.kernel.providers import Provider
    from toolscore_core.scoring.evaluation import EvaluationContext
    from toolscore_core.scoring.judging import JudgeAnswer, JudgeQuestion

#: Base classes whose contracts are long enough for their own modules (where work runs, what
#: a guard decides, how a model is called), re-exported here so every kind's base class can be
#: found in one place. Why lazily: nothing here needs them, and importing them with every
#: adapter, metric or exporter cost each ``toolscore eval`` about 7 ms.
_ELSEWHERE = {
    "Executor": "toolscore_core.kernel.executors",
    "Guard": "toolscore_core.kernel.guards",
    "GuardDecision": "toolscore_core.kernel.guards",
    "Provider": "toolscore_core.kernel.providers",
}


def __getattr__(name: str) -> Any:
    """A re-exported base class, imported from its own module when first asked for."""
    module = _ELSEWHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # asked for once
    return value


def __dir__() -> list[str]:
    """The module's names, the lazily re-exported ones included."""
    return sorted({*globals(), *_ELSEWHERE})


class TraceAdapter:
    """Reads one trace format.

    ``detect`` must be cheap and must never raise: return 0.0 for data that is not yours.
    ``load`` raises :class:`toolscore_core.InputError` for data that looks like yours but
    is broken (with the place inside it).

    File-level hooks are optional: an adapter that can recognise and stream a file without
    parsing it whole (JSON Lines, a 1 GB OTLP export) overrides ``detect_path`` and
    ``load_path``. The default reads the file as JSON (or JSON Lines) and calls
    ``detect``/``load`` on the parsed data.
    """

    name: ClassVar[str]
    description: ClassVar[str] = ""
    experimental: ClassVar[bool] = False

    def detect(self, data: Any) -> float:
        """Confidence in [0, 1] that ``data`` (a parsed file or a live object) is this format."""
        raise NotImplementedError

    def load(self, data: Any) -> Trace:
        """Turn ``data`` into a :class:`Trace`."""
        raise NotImplementedError

    def detect_path(self, path: Path, head: bytes) -> float:
        """Confidence that the file at ``path`` is this format, from its first bytes.

        Return 0.0 (the default) to be judged on the parsed data instead.
        """
        return 0.0

    def load_path(self, path: Path) -> Trace:
        """Read the file at ``path``; called only when ``detect_path`` won."""
        raise NotImplementedError


@attrs.frozen
class MetricResult:
    """What a metric computed: a value in [0, 1] (``None`` when it does not apply),
    findings for people, and details for machines (kept in ``Evaluation.metrics``)."""

    value: float | None
    findings: tuple[Finding, ...] = attrs.field(factory=tuple, converter=tuple)
    details: dict[str, Any] = attrs.field(factory=dict)


class Metric:
    """One measure of a trace against the expected calls.

    ``default_weight`` is its share of the composite score before renormalisation; 0 makes
    it opt-in (computed and reported, counted only when the user weights it).
    ``compute`` receives the :class:`toolscore_core.EvaluationContext` built once per
    evaluation (expected calls, the trace as scored, the pairing, forbidden rules, mode,
    argument keys, resolved weights, options) and must not pair calls again: every metric
    reads the same pairing, so they cannot disagree about which call answered which.

    Options: a metric that takes settings declares them as a class attribute
    ``options: ClassVar[dict[str, type | tuple[type, ...]]]`` (``{"max_calls": int}``) and
    reads the values given with ``context.options_for(self.name)``. Users pass them as
    ``evaluate(..., metric_options={"my_metric": {"max_calls": 3}})``; an undeclared key, a
    wrong type or options for a metric that declares none are input errors.
    """

    name: ClassVar[str]
    description: ClassVar[str] = ""
    default_weight: ClassVar[float] = 0.0

    def compute(self, context: EvaluationContext) -> MetricResult:
        raise NotImplementedError


class LintRule:
    """One check of an MCP server's definitions.

    ``name`` is the rule's stable id (``schema-missing-type``); ``severity`` its default,
    which users may change. ``check`` yields findings whose ``code`` is the rule id;
    :meth:`finding` builds them so a rule cannot get the code, the severity or the
    redaction of evidence wrong.
    """

    name: ClassVar[str]
    description: ClassVar[str] = ""
    severity: ClassVar[Severity] = "warning"

    #: Characters of evidence a finding keeps: enough to recognise the text, small enough
    #: that a 1 MB tool description does not end up in every report.
    evidence_limit: ClassVar[int] = 500

    def check(self, server: ServerDefinition) -> Iterable[Finding]:
        raise NotImplementedError

    def finding(self, message: str, *, tool: str | None = None, severity: Severity | None = None,
                evidence: str | None = None, fix: str | None = None, **details: Any) -> Finding:
        """A finding of this rule: ``code`` is the rule's name and ``severity`` the rule's
        current one (an instance may carry a user-changed level) unless given.

        ``evidence`` comes from the server, which may be hostile or careless: credentials in
        it are replaced by their previews and it is cut to ``evidence_limit`` characters.
        Extra keywords go to ``details`` (built-in rules put a stable ``key`` there, which
        lint baselines use to recognise a finding after its message is reworded).
        """
        from toolscore_core.kernel.model import SEVERITIES
        from toolscore_core.scoring.secrets import redact_head, redact_text

        level = self.severity if severity is None else severity
        if level not in SEVERITIES:
            raise ValueError(f"lint rule {self.name!r}: severity {level!r} is not one of {', '.join(SEVERITIES)}")
        if evidence is not None:
            limit = self.evidence_limit
            evidence = (redact_text(evidence) if len(evidence) <= limit
                        else f"{redact_head(evidence, limit)}… ({len(evidence)} characters)")
        return Finding(severity=level, code=self.name, message=message, tool=tool, evidence=evidence,
                       fix=fix, details=details)


class Exporter:
    """Renders one ``subject`` (``evaluation``, ``scorecard``, ``lint`` ...) in one
    ``format`` (``console``, ``md``, ``html``, ``json``, ``junit``, ``sarif`` ...).

    Its ``name`` must be ``f"{subject}-{format}"``; :func:`exporter_name` builds it.
    ``export`` writes to a text stream; console exporters may style for a terminal when
    ``stream.isatty()``.
    """

    name: ClassVar[str]
    subject: ClassVar[str]
    format: ClassVar[str]
    description: ClassVar[str] = ""
    extension: ClassVar[str] = ".txt"

    def export(self, subject: Any, stream: IO[str], **options: Any) -> None:
        raise NotImplementedError


class Judge:
    """Decides what deterministic matching left open: is ``search_web`` the expected
    ``web_search``, is ``"NYC"`` the expected ``"New York"``?

    ``decide`` is called once per evaluation with every open question (a batch, so an LLM
    judge can answer them in one request) and returns one
    :class:`toolscore_core.JudgeAnswer` per :class:`toolscore_core.JudgeQuestion`, in the
    same order. It is never asked about an exact match and only for plausible pairs (the
    rules are in :mod:`toolscore_core.scoring.judging`); a yes only ever adds a match. An
    exception, or a wrong number of answers, is a PluginError naming the judge: the
    evaluation never falls back silently to a deterministic score. Users select a judge
    with ``evaluate(..., judge="name")`` (made from the ``judges`` registry) or pass an
    instance.

    Command options (optional): a judge may add options to the core commands that accept a
    judge (``toolscore eval``) with the class methods :meth:`command_options` and
    :meth:`from_command_options`, so the core never names a judge's flags; a judge that
    spends something says what in :meth:`summary`, printed on stderr after the command
    (see :mod:`toolscore_core.cli.judge_options`).
    """

    name: ClassVar[str]
    description: ClassVar[str] = ""

    def decide(self, questions: Sequence[JudgeQuestion]) -> Sequence[JudgeAnswer]:
        raise NotImplementedError

    @classmethod
    def command_options(cls, command: str) -> Sequence[Any]:
        """The click options this judge adds to core command ``command`` (none by default)."""
        return ()

    @classmethod
    def from_command_options(cls, command: str, values: Mapping[str, Any]) -> Judge | None:
        """The judge the parsed option ``values`` (parameter name -> value) ask for, or None
        when they do not ask for this judge (its flag was not given)."""
        return None

    def summary(self) -> str | None:
        """One line for stderr after a command used this judge (calls, tokens, cost), or None."""
        return None


def exporter_name(subject: str, fmt: str) -> str:
    """The registry name of the exporter for ``subject`` in format ``fmt``."""
    return f"{subject}-{fmt}"


__all__ = [
    "Executor",
    "Exporter",
    "Guard",
    "GuardDecision",
    "Judge",
    "LintRule",
    "Metric",
    "MetricResult",
    "Provider",
    "TraceAdapter",
    "exporter_name",
]
