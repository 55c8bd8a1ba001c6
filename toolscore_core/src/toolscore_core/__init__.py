"""Toolscore's kernel: the public API that plugins and the facade build on.

Everything listed in ``__all__`` is public and stable; plugins (``plugins/*``, third-party
distributions) import only these names. Heavy names are resolved on first use so that
``import toolscore_core`` (done by ``toolscore --help``) stays cheap.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

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
    "json_path": "toolscore_core.kernel.files",
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
    "evaluate": "toolscore_core.scoring.evaluation",
    "evaluate_many": "toolscore_core.scoring.bulk",
    "BulkResult": "toolscore_core.scoring.bulk",
    "honesty": "toolscore_core.scoring.honesty",
    # reading contracts, and the forbidden-rule matcher (guards and the report must agree)
    "expected_calls": "toolscore_core.scoring.contracts",
    "forbidden_rules": "toolscore_core.scoring.contracts",
    "rule_matches": "toolscore_core.scoring.behaviour",
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
    "redact_command": "toolscore_core.scoring.secrets",
    "redact_text": "toolscore_core.scoring.secrets",
    # outside text made safe to print: control characters visible; Markdown escaped
    "visible": "toolscore_core.reports.text",
    "md_escape": "toolscore_core.reports.markdown",
    "md_code": "toolscore_core.reports.markdown",
    # baselines of accepted runs (toolscore eval --save-baseline / toolscore regression)
    "save_baseline": "toolscore_core.reports.baseline",
    "load_baseline": "toolscore_core.reports.baseline",
    "compare_baseline": "toolscore_core.reports.baseline",
}

__all__ = ["__version__", "hookimpl", "lazy_attributes", *sorted(_LAZY)]

if TYPE_CHECKING:  # what mypy and IDEs see; at run time each name is resolved on first use
    from toolscore_core.cli import (
        run_command as run_command,
    )
    from toolscore_core.cli.lazy import (
        lazy_command as lazy_command,
    )
    from toolscore_core.kernel.budget import (
        Budget as Budget,
    )
    from toolscore_core.kernel.budget import (
        BudgetLike as BudgetLike,
    )
    from toolscore_core.kernel.budget import (
        Reservation as Reservation,
    )
    from toolscore_core.kernel.errors import (
        BadRequest as BadRequest,
    )
    from toolscore_core.kernel.errors import (
        BudgetStopped as BudgetStopped,
    )
    from toolscore_core.kernel.errors import (
        InputError as InputError,
    )
    from toolscore_core.kernel.errors import (
        Overloaded as Overloaded,
    )
    from toolscore_core.kernel.errors import (
        PluginConflictError as PluginConflictError,
    )
    from toolscore_core.kernel.errors import (
        PluginError as PluginError,
    )
    from toolscore_core.kernel.errors import (
        ProviderError as ProviderError,
    )
    from toolscore_core.kernel.errors import (
        ProviderTransportError as ProviderTransportError,
    )
    from toolscore_core.kernel.errors import (
        RateLimited as RateLimited,
    )
    from toolscore_core.kernel.errors import (
        Refused as Refused,
    )
    from toolscore_core.kernel.errors import (
        ToolscoreError as ToolscoreError,
    )
    from toolscore_core.kernel.errors import (
        UnknownNameError as UnknownNameError,
    )
    from toolscore_core.kernel.executors import (
        Executor as Executor,
    )
    from toolscore_core.kernel.executors import (
        WorkError as WorkError,
    )
    from toolscore_core.kernel.executors import (
        WorkResult as WorkResult,
    )
    from toolscore_core.kernel.executors import (
        get_executor as get_executor,
    )
    from toolscore_core.kernel.exporters import (
        exporter_formats as exporter_formats,
    )
    from toolscore_core.kernel.exporters import (
        find_exporter as find_exporter,
    )
    from toolscore_core.kernel.files import (
        json_path as json_path,
    )
    from toolscore_core.kernel.files import (
        load_data_file as load_data_file,
    )
    from toolscore_core.kernel.guards import (
        Guard as Guard,
    )
    from toolscore_core.kernel.guards import (
        GuardContext as GuardContext,
    )
    from toolscore_core.kernel.guards import (
        GuardDecision as GuardDecision,
    )
    from toolscore_core.kernel.guards import (
        ServerInfo as ServerInfo,
    )
    from toolscore_core.kernel.guards import (
        TaskInfo as TaskInfo,
    )
    from toolscore_core.kernel.guards import (
        allow as allow,
    )
    from toolscore_core.kernel.guards import (
        as_guard as as_guard,
    )
    from toolscore_core.kernel.guards import (
        combine_guards as combine_guards,
    )
    from toolscore_core.kernel.guards import (
        decide as decide,
    )
    from toolscore_core.kernel.guards import (
        deny as deny,
    )
    from toolscore_core.kernel.interfaces import (
        Exporter as Exporter,
    )
    from toolscore_core.kernel.interfaces import (
        Judge as Judge,
    )
    from toolscore_core.kernel.interfaces import (
        LintRule as LintRule,
    )
    from toolscore_core.kernel.interfaces import (
        Metric as Metric,
    )
    from toolscore_core.kernel.interfaces import (
        MetricResult as MetricResult,
    )
    from toolscore_core.kernel.interfaces import (
        TraceAdapter as TraceAdapter,
    )
    from toolscore_core.kernel.interfaces import (
        exporter_name as exporter_name,
    )
    from toolscore_core.kernel.jsonl import (
        RunWriter as RunWriter,
    )
    from toolscore_core.kernel.jsonl import (
        TornLine as TornLine,
    )
    from toolscore_core.kernel.jsonl import (
        completed_cells as completed_cells,
    )
    from toolscore_core.kernel.jsonl import (
        latest_rows as latest_rows,
    )
    from toolscore_core.kernel.jsonl import (
        read_runs as read_runs,
    )
    from toolscore_core.kernel.jsonsafe import (
        to_json_safe as to_json_safe,
    )
    from toolscore_core.kernel.model import (
        SEVERITIES as SEVERITIES,
    )
    from toolscore_core.kernel.model import (
        CallPair as CallPair,
    )
    from toolscore_core.kernel.model import (
        Contract as Contract,
    )
    from toolscore_core.kernel.model import (
        Evaluation as Evaluation,
    )
    from toolscore_core.kernel.model import (
        ExpectedCall as ExpectedCall,
    )
    from toolscore_core.kernel.model import (
        Finding as Finding,
    )
    from toolscore_core.kernel.model import (
        ForbiddenRule as ForbiddenRule,
    )
    from toolscore_core.kernel.model import (
        ServerDefinition as ServerDefinition,
    )
    from toolscore_core.kernel.model import (
        Severity as Severity,
    )
    from toolscore_core.kernel.model import (
        ToolCall as ToolCall,
    )
    from toolscore_core.kernel.model import (
        ToolDefinition as ToolDefinition,
    )
    from toolscore_core.kernel.model import (
        Trace as Trace,
    )
    from toolscore_core.kernel.model import (
        converter as converter,
    )
    from toolscore_core.kernel.plugins import (
        GROUPS as GROUPS,
    )
    from toolscore_core.kernel.plugins import (
        PluginManager as PluginManager,
    )
    from toolscore_core.kernel.plugins import (
        get_plugin_manager as get_plugin_manager,
    )
    from toolscore_core.kernel.pricing import (
        PRICE_TABLE as PRICE_TABLE,
    )
    from toolscore_core.kernel.pricing import (
        Price as Price,
    )
    from toolscore_core.kernel.pricing import (
        cost_usd as cost_usd,
    )
    from toolscore_core.kernel.pricing import (
        estimate_json_tokens as estimate_json_tokens,
    )
    from toolscore_core.kernel.pricing import (
        estimate_request_tokens as estimate_request_tokens,
    )
    from toolscore_core.kernel.pricing import (
        estimate_text_tokens as estimate_text_tokens,
    )
    from toolscore_core.kernel.pricing import (
        price_for as price_for,
    )
    from toolscore_core.kernel.pricing import (
        price_from_data as price_from_data,
    )
    from toolscore_core.kernel.pricing import (
        worst_case_usd as worst_case_usd,
    )
    from toolscore_core.kernel.providers import (
        STOP_REASONS as STOP_REASONS,
    )
    from toolscore_core.kernel.providers import (
        AssistantMessage as AssistantMessage,
    )
    from toolscore_core.kernel.providers import (
        ModelRequest as ModelRequest,
    )
    from toolscore_core.kernel.providers import (
        ModelToolCall as ModelToolCall,
    )
    from toolscore_core.kernel.providers import (
        ModelTurn as ModelTurn,
    )
    from toolscore_core.kernel.providers import (
        Provider as Provider,
    )
    from toolscore_core.kernel.providers import (
        ToolResultMessage as ToolResultMessage,
    )
    from toolscore_core.kernel.providers import (
        Usage as Usage,
    )
    from toolscore_core.kernel.providers import (
        UserMessage as UserMessage,
    )
    from toolscore_core.kernel.providers import (
        normalise_stop_reason as normalise_stop_reason,
    )
    from toolscore_core.kernel.registry import (
        Registry as Registry,
    )
    from toolscore_core.kernel.registry import (
        collect as collect,
    )
    from toolscore_core.kernel.registry import (
        instantiate as instantiate,
    )
    from toolscore_core.kernel.runs import (
        RUN_RECORD_VERSION as RUN_RECORD_VERSION,
    )
    from toolscore_core.kernel.runs import (
        CellId as CellId,
    )
    from toolscore_core.kernel.runs import (
        GuardDenial as GuardDenial,
    )
    from toolscore_core.kernel.runs import (
        RunCall as RunCall,
    )
    from toolscore_core.kernel.runs import (
        RunRow as RunRow,
    )
    from toolscore_core.kernel.runs import (
        ServerRecord as ServerRecord,
    )
    from toolscore_core.kernel.runs import (
        make_cell_id as make_cell_id,
    )
    from toolscore_core.kernel.runs import (
        parse_cell_id as parse_cell_id,
    )
    from toolscore_core.kernel.runs import (
        validate_run_row as validate_run_row,
    )
    from toolscore_core.kernel.traces import (
        load_trace as load_trace,
    )
    from toolscore_core.reports.baseline import (
        compare_baseline as compare_baseline,
    )
    from toolscore_core.reports.baseline import (
        load_baseline as load_baseline,
    )
    from toolscore_core.reports.baseline import (
        save_baseline as save_baseline,
    )
    from toolscore_core.reports.markdown import (
        md_code as md_code,
    )
    from toolscore_core.reports.markdown import (
        md_escape as md_escape,
    )
    from toolscore_core.reports.text import (
        visible as visible,
    )
    from toolscore_core.scoring.behaviour import (
        rule_matches as rule_matches,
    )
    from toolscore_core.scoring.bulk import (
        BulkResult as BulkResult,
    )
    from toolscore_core.scoring.bulk import (
        evaluate_many as evaluate_many,
    )
    from toolscore_core.scoring.contracts import (
        expected_calls as expected_calls,
    )
    from toolscore_core.scoring.contracts import (
        forbidden_rules as forbidden_rules,
    )
    from toolscore_core.scoring.evaluation import (
        EvaluationContext as EvaluationContext,
    )
    from toolscore_core.scoring.evaluation import (
        evaluate as evaluate,
    )
    from toolscore_core.scoring.honesty import (
        honesty as honesty,
    )
    from toolscore_core.scoring.judging import (
        JudgeAnswer as JudgeAnswer,
    )
    from toolscore_core.scoring.judging import (
        JudgeQuestion as JudgeQuestion,
    )
    from toolscore_core.scoring.pairing import (
        Pairing as Pairing,
    )
    from toolscore_core.scoring.secrets import (
        redact as redact,
    )
    from toolscore_core.scoring.secrets import (
        redact_command as redact_command,
    )
    from toolscore_core.scoring.secrets import (
        redact_text as redact_text,
    )


def lazy_attributes(package: str, names: Mapping[str, str], *, extra: Iterable[str] = ()) -> tuple[
        Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for a package whose public names load on first use.

    Every distribution's package keeps its names lazy (so ``toolscore --help``, which imports
    each plugin's package, loads no SDK, MCP client or scoring code); this is the one
    implementation of that, so they all fail the same way. ``names`` maps a public name to
    the module defining it; ``extra`` lists the names defined in the package itself. A name
    whose module belongs to a distribution that is not installed raises an ImportError that
    says what to install (an AttributeError's message would be replaced by Python's own
    during ``from package import name``).
    """
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        target = names.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        try:
            module = importlib.import_module(target)
        except ModuleNotFoundError as exc:
            top = target.split(".")[0]
            if exc.name is None or exc.name.split(".")[0] != top:
                raise  # something that module needs is missing: say that, not this
            distribution = top.replace("_", "-")
            raise ImportError(f"{package}.{name} needs the {distribution} distribution, which is not "
                              f"installed: pip install {distribution}") from None
        value = getattr(module, name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*names, *extra})

    return __getattr__, __dir__


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, extra=("__version__", "hookimpl", "lazy_attributes"))
