"""The scorecard's data: scenarios, what each call did, per-tool rows and the scorecard.

Plain attrs classes so every report format (console, Markdown, HTML, JSON) renders the same
object, and the JSON report is just :func:`scorecard_to_json`.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from toolscore_core.kernel.model import Finding, to_json_data
from toolscore_core.scoring.secrets import redact

Category = Literal["happy", "edge"]
# success: a valid call that must succeed; reject: invalid input that must be refused
# cleanly; answer: unusual but schema-valid input that must get a clean answer of any kind.
Expectation = Literal["success", "reject", "answer"]

SCORECARD_SCHEMA_VERSION = "1"


@attrs.frozen
class Scenario:
    """One generated call: which tool, with what arguments, and what must come back."""

    tool: str
    kind: str  # required_only, all_properties, enum_value, boundary_min, wrong_type ...
    category: Category
    expect: Expectation
    args: dict[str, Any]
    description: str
    # Arguments whose values toolscore made up (not given by the schema's const / enum /
    # default / examples, nor found on the server): a refusal of them may be our fault.
    invented: tuple[str, ...] = ()


@attrs.frozen
class ScenarioResult:
    """What one scenario's call did, and whether it met the scenario's expectation."""

    scenario: Scenario
    passed: bool
    reason: str  # one line: why it passed or failed
    problem: str | None = None  # a finding code when the call showed a defect
    is_error: bool | None = None
    error: str | None = None
    excerpt: str | None = None  # the start of the answer's text
    duration: float | None = None  # seconds
    timed_out: bool = False
    crashed: bool = False
    protocol_error: str | None = None
    result_bytes: int | None = None
    # A valid call refused because of a value we made up: it proves nothing either way, so
    # it counts neither as a pass nor as a failure.
    inconclusive: bool = False


@attrs.frozen
class ToolReport:
    """One row of the Tools table."""

    name: str
    passed: int
    run: int
    generated: int
    avg_latency_ms: float | None
    definition_tokens: int
    skipped: str | None = None  # why some or all scenarios were not run


@attrs.frozen
class Scorecard:
    """Everything ``toolscore mcp test`` found out about one server."""

    server_name: str
    server_version: str | None
    protocol_version: str | None
    grade: str
    score: float  # 0..1
    happy: float | None  # pass rate of the happy-path scenarios, 0..1
    edge: float | None  # resilience on the edge cases, 0..1
    lint: float | None  # the lint score, 0..1
    lint_errors: int
    lint_warnings: int
    tools: tuple[ToolReport, ...]
    definition_tokens: int
    instructions_tokens: int
    findings: tuple[Finding, ...]
    top_issues: tuple[Finding, ...]
    blocking: tuple[Finding, ...]
    grade_cap: str | None = None  # why the grade was capped, if it was
    weights: dict[str, float] = attrs.field(factory=dict)
    results: tuple[ScenarioResult, ...] = ()
    duration: float = 0.0
    complete: bool = True
    target: str | None = None

    @property
    def title(self) -> str:
        return f"{self.server_name} {self.server_version}" if self.server_version else self.server_name


def percent(value: float | None) -> str:
    """``0.8666`` -> ``"87%"``; unknown stays visible as ``"n/a"``."""
    return "n/a" if value is None else f"{round_half_up(value * 100)}%"


def round_half_up(value: float) -> int:
    """Round like people do (86.5 -> 87), not like ``round`` (banker's rounding)."""
    import math

    return math.floor(value + 0.5)


def scorecard_to_json(card: Scorecard) -> dict[str, Any]:
    """A JSON-safe, versioned record of the scorecard (the ``--report json`` format)."""
    data: dict[str, Any] = {"schema_version": SCORECARD_SCHEMA_VERSION, "kind": "toolscore.mcp.scorecard"}
    data.update(to_json_data(card))
    data["title"] = card.title
    for result in data.get("results", []):
        # a schema's const/enum/default can hold a credential: the record shows its preview,
        # while the call sent to the server kept the real value
        result["scenario"]["args"] = _clip_long_strings(redact(result["scenario"]["args"]))
    return data


def _clip_long_strings(value: Any, limit: int = 200) -> Any:
    """Keep the record readable: a 100,000-character test string is shown by its size."""
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:20]}… ({len(value):,} characters)"
    if isinstance(value, dict):
        return {key: _clip_long_strings(item, limit) for key, item in value.items()}
    if isinstance(value, list):
        return [_clip_long_strings(item, limit) for item in value]
    return value
