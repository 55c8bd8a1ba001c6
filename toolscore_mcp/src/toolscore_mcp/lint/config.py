"""Which lint rules run and how severe they are: a config file plus command-line flags.

The file is YAML or JSON, found as ``toolscore-lint.yaml`` (``.yml``, ``.json``) in the
current directory or given with ``--lint-config FILE``. Its settings may sit at the top
level or under a ``lint:`` key (so they can share a file with other settings)::

    lint:
      disable: [schema-required-missing, compat-gemini]
      severity:
        description-too-short: error      # error | warning | info | off
        compat-openai-strict: info
      baseline: .toolscore-lint-baseline.json

Command-line flags win over the file: ``--disable RULE`` (repeatable) and
``--severity RULE=LEVEL`` (repeatable; ``off`` disables). An unknown rule id is an input
error with a did-you-mean, so a typo never silently leaves a rule on.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs

from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.model import SEVERITIES

LEVELS = (*SEVERITIES, "off")
DEFAULT_FILES = ("toolscore-lint.yaml", "toolscore-lint.yml", "toolscore-lint.json")
_KEYS = ("disable", "severity", "baseline")


def _frozen(values: Iterable[str]) -> frozenset[str]:
    return frozenset(values)


@attrs.frozen
class LintConfig:
    """Rule ids to skip, severities to use instead of each rule's default, and where the
    baseline of known findings lives (``None``: no baseline)."""

    disabled: frozenset[str] = attrs.field(factory=frozenset, converter=_frozen)
    severities: dict[str, str] = attrs.field(factory=dict)
    baseline: str | None = None
    source: str | None = None  # the file it came from, for messages

    def merged(self, other: LintConfig) -> LintConfig:
        """``other`` layered on top of this one (command line over file)."""
        severities = {**self.severities, **other.severities}
        disabled = (self.disabled - set(other.severities)) | other.disabled
        return LintConfig(
            disabled=disabled | {r for r, level in severities.items() if level == "off"},
            severities={r: level for r, level in severities.items() if level != "off"},
            baseline=other.baseline or self.baseline,
            source=other.source or self.source,
        )

    def rule_ids(self) -> set[str]:
        return set(self.disabled) | set(self.severities)


def find_config_file(directory: str | Path = ".") -> Path | None:
    """The first ``toolscore-lint.*`` file in ``directory``, if any."""
    for name in DEFAULT_FILES:
        candidate = Path(directory) / name
        if candidate.is_file():
            return candidate
    return None


def load_config(path: str | Path) -> LintConfig:
    """Read a lint config file; a bad key or level names the file and the place in it."""
    from toolscore_core.kernel.files import load_data_file

    data = load_data_file(path)
    where = "$"
    if isinstance(data, dict) and "lint" in data:
        data, where = data["lint"], "$.lint"
    if data is None:
        return LintConfig(source=str(path))
    if not isinstance(data, dict):
        raise InputError("lint settings must be a mapping", file=path, location=where,
                         expected="keys " + ", ".join(_KEYS))
    unknown = sorted(set(data) - set(_KEYS))
    if unknown:
        raise InputError(f"unknown setting {unknown[0]!r}", file=path, location=f"{where}.{unknown[0]}",
                         expected="one of " + ", ".join(_KEYS))
    disable = data.get("disable") or []
    if isinstance(disable, str):
        disable = [disable]
    if not isinstance(disable, list) or not all(isinstance(r, str) for r in disable):
        raise InputError("'disable' must be a list of rule ids", file=path, location=f"{where}.disable")
    severity = data.get("severity") or {}
    if not isinstance(severity, dict):
        raise InputError("'severity' must map rule ids to levels", file=path, location=f"{where}.severity",
                         expected="e.g. {description-too-short: error}")
    levels: dict[str, str] = {}
    for rule, level in severity.items():
        level_text = "off" if level is False else str(level).lower()
        if level_text not in LEVELS:
            raise InputError(f"unknown level {level!r} for rule {rule!r}", file=path,
                             location=f"{where}.severity.{rule}", expected="one of " + ", ".join(LEVELS))
        levels[str(rule)] = level_text
    baseline = data.get("baseline")
    if baseline is not None and not isinstance(baseline, str):
        raise InputError("'baseline' must be a file path", file=path, location=f"{where}.baseline")
    if baseline is not None:
        baseline = str(Path(path).parent / baseline)  # relative to the config file
    return LintConfig(disabled=frozenset(), source=str(path)).merged(
        LintConfig(disabled=frozenset(disable), severities=levels, baseline=baseline, source=str(path))
    )


def from_cli(disable: Iterable[str] = (), severity: Iterable[str] = ()) -> LintConfig:
    """``--disable RULE`` and ``--severity RULE=LEVEL`` flags as a config layer."""
    levels: dict[str, str] = {}
    for item in severity:
        rule, sep, level = item.partition("=")
        if not sep or not rule.strip() or level.strip().lower() not in LEVELS:
            raise InputError(f"--severity {item!r} is not RULE=LEVEL",
                             expected="LEVEL one of " + ", ".join(LEVELS),
                             hint="For example --severity description-too-short=error")
        levels[rule.strip()] = level.strip().lower()
    disabled = frozenset(r.strip() for r in disable if r.strip())
    return LintConfig().merged(LintConfig(disabled=disabled, severities=levels))


def check_rule_ids(config: LintConfig, known: Iterable[str]) -> None:
    """Raise for a rule id no installed rule has (with the closest ids as suggestions)."""
    import difflib

    names = sorted(known)
    for rule in sorted(config.rule_ids()):
        if rule not in names:
            close = difflib.get_close_matches(rule, names, n=2, cutoff=0.5)
            suggestion = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
            raise InputError(f"unknown lint rule {rule!r}", file=config.source,
                             expected="an installed rule id" + suggestion,
                             hint="List them with: toolscore mcp lint --list-rules")


def describe(config: LintConfig) -> dict[str, Any]:
    """The effective settings, JSON-safe (for the JSON report)."""
    return {"disabled": sorted(config.disabled), "severity": dict(sorted(config.severities.items())),
            "baseline": config.baseline, "source": config.source}
