"""Toolscore's kernel: the public API that plugins and the facade build on.

Everything listed in ``__all__`` is public and stable; plugins (``plugins/*``, third-party
distributions) import only these names. Heavy names are resolved on first use so that
``import toolscore_core`` (done by ``toolscore --help``) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

from toolscore_core.kernel.plugins import hookimpl

_LAZY: dict[str, str] = {
    # errors
    "ToolscoreError": "toolscore_core.kernel.errors",
    "InputError": "toolscore_core.kernel.errors",
    "PluginError": "toolscore_core.kernel.errors",
    "PluginConflictError": "toolscore_core.kernel.errors",
    "UnknownNameError": "toolscore_core.kernel.errors",
    "BudgetStopped": "toolscore_core.kernel.errors",
    "ProviderError": "toolscore_core.kernel.errors",
    "RateLimited": "toolscore_core.kernel.errors",
    "Overloaded": "toolscore_core.kernel.errors",
    "Refused": "toolscore_core.kernel.errors",
    "BadRequest": "toolscore_core.kernel.errors",
    "ProviderTransportError": "toolscore_core.kernel.errors",
    # model
    "ToolCall": "toolscore_core.kernel.model",
    "Trace": "toolscore_core.kernel.model",
    "ExpectedCall": "toolscore_core.kernel.model",
    "ForbiddenRule": "toolscore_core.kernel.model",
    "Contract": "toolscore_core.kernel.model",
    "Finding": "toolscore_core.kernel.model",
    "Evaluation": "toolscore_core.kernel.model",
    "CallPair": "toolscore_core.kernel.model",
    "ToolDefinition": "toolscore_core.kernel.model",
    "ServerDefinition": "toolscore_core.kernel.model",
    "converter": "toolscore_core.kernel.model",
    "Severity": "toolscore_core.kernel.model",
    "SEVERITIES": "toolscore_core.kernel.model",
    # interfaces
    "TraceAdapter": "toolscore_core.kernel.interfaces",
    "Metric": "toolscore_core.kernel.interfaces",
    "MetricResult": "toolscore_core.kernel.interfaces",
    "LintRule": "toolscore_core.kernel.interfaces",
    # providers: the model-call vocabulary
    "Provider": "toolscore_core.kernel.providers",
    "ModelRequest": "toolscore_core.kernel.providers",
    "ModelTurn": "toolscore_core.kernel.providers",
    "ModelToolCall": "toolscore_core.kernel.providers",
    "UserMessage": "toolscore_core.kernel.providers",
    "AssistantMessage": "toolscore_core.kernel.providers",
    "ToolResultMessage": "toolscore_core.kernel.providers",
    "Usage": "toolscore_core.kernel.providers",
    "STOP_REASONS": "toolscore_core.kernel.providers",
    "normalise_stop_reason": "toolscore_core.kernel.providers",
    # guards
    "Guard": "toolscore_core.kernel.guards",
    "GuardDecision": "toolscore_core.kernel.guards",
    "GuardContext": "toolscore_core.kernel.guards",
    "TaskInfo": "toolscore_core.kernel.guards",
    "ServerInfo": "toolscore_core.kernel.guards",
    "allow": "toolscore_core.kernel.guards",
    "deny": "toolscore_core.kernel.guards",
    "as_guard": "toolscore_core.kernel.guards",
    "combine_guards": "toolscore_core.kernel.guards",
    "decide": "toolscore_core.kernel.guards",
    "Exporter": "toolscore_core.kernel.interfaces",
    "exporter_name": "toolscore_core.kernel.interfaces",
    # executors (where work runs)
    "Executor": "toolscore_core.kernel.executors",
    "WorkResult": "toolscore_core.kernel.executors",
    "WorkError": "toolscore_core.kernel.executors",
    "get_executor": "toolscore_core.kernel.executors",
    # finding exporters (one lookup for every command)
    "find_exporter": "toolscore_core.kernel.exporters",
    "exporter_formats": "toolscore_core.kernel.exporters",
    # plugins and registries
    "GROUPS": "toolscore_core.kernel.plugins",
    "PluginManager": "toolscore_core.kernel.plugins",
    "get_plugin_manager": "toolscore_core.kernel.plugins",
    "Registry": "toolscore_core.kernel.registry",
    "collect": "toolscore_core.kernel.registry",
    "instantiate": "toolscore_core.kernel.registry",
    "lazy_command": "toolscore_core.cli.lazy",
    "run_command": "toolscore_core.cli",
    # reading input
    "load_trace": "toolscore_core.kernel.traces",
    "load_data_file": "toolscore_core.kernel.files",
    # run rows and their JSONL file (agent harness writes; compare, export, regrade read)
    "RUN_RECORD_VERSION": "toolscore_core.kernel.runs",
    "RunRow": "toolscore_core.kernel.runs",
    "RunCall": "toolscore_core.kernel.runs",
    "GuardDenial": "toolscore_core.kernel.runs",
    "ServerRecord": "toolscore_core.kernel.runs",
    "CellId": "toolscore_core.kernel.runs",
    "make_cell_id": "toolscore_core.kernel.runs",
    "parse_cell_id": "toolscore_core.kernel.runs",
    "validate_run_row": "toolscore_core.kernel.runs",
    "RunWriter": "toolscore_core.kernel.jsonl",
    "read_runs": "toolscore_core.kernel.jsonl",
    "latest_rows": "toolscore_core.kernel.jsonl",
    "completed_cells": "toolscore_core.kernel.jsonl",
    "TornLine": "toolscore_core.kernel.jsonl",
    # JSON-safe conversion (records, run rows, findings: bounded and redacted)
    "to_json_safe": "toolscore_core.kernel.jsonsafe",
    # scoring extension points (plugin metrics, judges)
    "EvaluationContext": "toolscore_core.scoring.evaluation",
    "Pairing": "toolscore_core.scoring.pairing",
    "Judge": "toolscore_core.kernel.interfaces",
    "JudgeQuestion": "toolscore_core.scoring.judging",
    "JudgeAnswer": "toolscore_core.scoring.judging",
    # prices, cost and the budget (agent harness, doctor, run rows)
    "Price": "toolscore_core.kernel.pricing",
    "PRICE_TABLE": "toolscore_core.kernel.pricing",
    "price_for": "toolscore_core.kernel.pricing",
    "price_from_data": "toolscore_core.kernel.pricing",
    "cost_usd": "toolscore_core.kernel.pricing",
    "worst_case_usd": "toolscore_core.kernel.pricing",
    "estimate_text_tokens": "toolscore_core.kernel.pricing",
    "estimate_json_tokens": "toolscore_core.kernel.pricing",
    "estimate_request_tokens": "toolscore_core.kernel.pricing",
    "Budget": "toolscore_core.kernel.budget",
    "BudgetLike": "toolscore_core.kernel.budget",
    "Reservation": "toolscore_core.kernel.budget",
    # hiding credentials
    "redact": "toolscore_core.scoring.secrets",
    "redact_text": "toolscore_core.scoring.secrets",
    # baselines of accepted runs (toolscore eval --save-baseline / toolscore regression)
    "save_baseline": "toolscore_core.reports.baseline",
    "load_baseline": "toolscore_core.reports.baseline",
    "compare_baseline": "toolscore_core.reports.baseline",
}

__all__ = ["__version__", "hookimpl", *sorted(_LAZY)]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolscore_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
