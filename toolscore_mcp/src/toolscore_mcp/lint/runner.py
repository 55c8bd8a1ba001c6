"""Run lint rules on a server definition: the one entry point for the CLI and the scorecard.

::

    from toolscore_mcp.lint.runner import lint_server
    result = lint_server(server_definition)          # every installed rule
    result.score, result.counts, result.findings     # the scorecard's "lint %" is result.score

The rules come from the plugin registry (``collect(pm, "lint_rules")``), so built-in
rules and third-party ones (e.g. ``example-snake-case-names`` from
examples/third_party_plugin) run the same way. A rule that raises is reported in
``rule_failures`` and the others still run: one broken plugin never hides the rest.

**Lint score.** Each tool starts at 1.0 and loses 0.25 per error and 0.10 per warning
found on it (never below 0); info findings cost nothing. Findings about the server as a
whole (its instructions, or with no tool) are subtracted from the sum once. The score is
that sum over the number of tools, clamped to [0, 1]::

    score = max(0, (sum over tools of max(0, 1 - 0.25*E_t - 0.10*W_t) - (0.25*E_s + 0.10*W_s)) / n_tools)

A 5-tool server with one error and one warning scores (5 - 0.35) / 5 = 93%. A server with
no tools scores 1 minus its server-level penalty. The score counts every finding the
configuration left on, including those a baseline marks as known: the baseline decides
what fails CI, not how healthy the server is.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

import attrs

from toolscore_core.kernel.model import (
    SEVERITIES,
    Finding,
    ServerDefinition,
    Severity,
    to_json_data,
)
from toolscore_mcp.lint.baseline import fingerprint, split_known
from toolscore_mcp.lint.config import LintConfig

PENALTY = {"error": 0.25, "warning": 0.10, "info": 0.0}
_RANK = {severity: i for i, severity in enumerate(SEVERITIES)}


@attrs.frozen
class RuleInfo:
    """A rule that ran, with the severity it ran at."""

    name: str
    severity: str
    default_severity: str
    description: str


@attrs.frozen
class LintResult:
    """What a lint run found.

    ``findings`` are the ones to act on (new ones, when a baseline is used); ``known``
    are those the baseline accepted. ``counts`` counts ``findings`` by severity;
    ``score`` is described in this module's docstring.
    """

    server: ServerDefinition
    findings: tuple[Finding, ...]
    known: tuple[Finding, ...] = ()
    rules: tuple[RuleInfo, ...] = ()
    disabled: tuple[str, ...] = ()
    rule_failures: tuple[str, ...] = ()
    score: float = 1.0

    @property
    def counts(self) -> dict[str, int]:
        return {s: sum(1 for f in self.findings if f.severity == s) for s in SEVERITIES}

    @property
    def errors(self) -> int:
        return self.counts["error"]

    @property
    def warnings(self) -> int:
        return self.counts["warning"]

    @property
    def failed(self) -> bool:
        """True when there is at least one (new) error: the command exits 1."""
        return self.errors > 0

    @property
    def poisoning(self) -> tuple[Finding, ...]:
        """Tool-poisoning errors, known ones included: the scorecard caps the grade of a
        server that has any (a server that hides instructions from its user is never an A)."""
        return tuple(f for f in self.all_findings() if f.code.startswith("poison-") and f.severity == "error")

    def summary(self) -> str:
        """``"93% (1 errors, 1 warnings)"``: the score line of a scorecard."""
        return f"{self.score:.0%} ({self.errors} errors, {self.warnings} warnings)"

    def all_findings(self) -> tuple[Finding, ...]:
        return tuple(sort_findings([*self.findings, *self.known]))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe record (the ``lint-json`` report)."""
        return {
            "schema": "toolscore.lint/1",
            "server": {"name": self.server.name, "version": self.server.version,
                       "protocol_version": self.server.protocol_version, "tools": len(self.server.tools)},
            "score": round(self.score, 4),
            "counts": self.counts,
            "failed": self.failed,
            "findings": [_finding_record(f) for f in self.findings],
            "known": [_finding_record(f) for f in self.known],
            "rules": [attrs.asdict(r) for r in self.rules],
            "disabled": list(self.disabled),
            "rule_failures": list(self.rule_failures),
        }


def _finding_record(finding: Finding) -> dict[str, Any]:
    record = to_json_data(finding)
    record["fingerprint"] = fingerprint(finding)
    return record


def lint_server(
    server: ServerDefinition,
    *,
    rules: Iterable[Any] | None = None,
    config: LintConfig | None = None,
    plugin_manager: Any = None,
    known: set[str] | None = None,
) -> LintResult:
    """Lint ``server`` with ``rules`` (default: every installed rule) under ``config``.

    ``known`` is a set of baseline fingerprints (see :mod:`toolscore_mcp.lint.baseline`);
    matching findings go to ``LintResult.known``. Unknown rule ids in ``config`` are an
    :class:`~toolscore_core.kernel.errors.InputError`.
    """
    from toolscore_mcp.lint.config import check_rule_ids

    config = config or LintConfig()
    instances = _rule_instances(rules, plugin_manager)
    check_rule_ids(config, [rule_name(r) for r in instances])
    found: list[Finding] = []
    ran: list[RuleInfo] = []
    failures: list[str] = []
    for rule in instances:
        name = rule_name(rule)
        if name in config.disabled:
            continue
        default = str(getattr(rule, "severity", "warning"))
        severity = config.severities.get(name, default)
        ran.append(RuleInfo(name, severity, default, str(getattr(rule, "description", "") or "")))
        try:
            produced = list(rule.check(server) or [])
        except Exception as exc:  # a broken plugin rule must not hide the other rules' findings
            failures.append(f"rule {name!r} failed: {type(exc).__name__}: {exc}")
            continue
        for finding in produced:
            if not isinstance(finding, Finding):
                failures.append(f"rule {name!r} returned {type(finding).__name__}, not a Finding")
                continue
            level = config.severities.get(finding.code, severity if finding.code == name else finding.severity)
            if finding.code in config.disabled:
                continue
            found.append(finding if finding.severity == level else attrs.evolve(finding, severity=cast(Severity, level)))
    ordered = sort_findings(found)
    new, old = split_known(ordered, known) if known else (ordered, [])
    return LintResult(
        server=server,
        findings=tuple(new),
        known=tuple(old),
        rules=tuple(sorted(ran, key=lambda r: r.name)),
        disabled=tuple(sorted(config.disabled)),
        rule_failures=tuple(failures),
        score=lint_score(server, ordered),
    )


def lint_score(server: ServerDefinition, findings: Iterable[Finding]) -> float:
    """The score described in the module docstring."""
    tools = server.tool_names()
    per_tool = dict.fromkeys(tools, 0.0)
    server_penalty = 0.0
    for finding in findings:
        cost = PENALTY.get(finding.severity, 0.0)
        if finding.tool in per_tool:
            per_tool[finding.tool] += cost
        else:
            server_penalty += cost
    if not tools:
        return max(0.0, 1.0 - server_penalty)
    total = sum(max(0.0, 1.0 - p) for p in per_tool.values()) - server_penalty
    return min(1.0, max(0.0, total / len(tools)))


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Errors first, then by tool (server-level first), rule and message."""
    return sorted(findings, key=lambda f: (_RANK.get(f.severity, 9), f.tool or "", f.code, f.message))


def rule_name(rule: Any) -> str:
    return str(getattr(rule, "name", type(rule).__name__))


def _rule_instances(rules: Iterable[Any] | None, plugin_manager: Any) -> list[Any]:
    if rules is not None:
        return [r() if isinstance(r, type) else r for r in rules]
    from toolscore_core.kernel.registry import collect

    if plugin_manager is None:
        from toolscore_core.kernel.plugins import get_plugin_manager

        plugin_manager = get_plugin_manager()
    return collect(plugin_manager, "lint_rules").instances()
