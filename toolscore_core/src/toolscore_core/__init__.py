"""Toolscore's kernel: the public API that plugins and the facade build on.

Everything listed in ``__all__`` is public and stable; plugins (``plugins/*``, third-party
distributions) import only these names. Heavy names are resolved on first use so that
``import toolscore_core`` (done by ``toolscore --help``) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

from toolscore_core.plugins import hookimpl

_LAZY: dict[str, str] = {
    # errors
    "ToolscoreError": "toolscore_core.errors",
    "InputError": "toolscore_core.errors",
    "PluginError": "toolscore_core.errors",
    "PluginConflictError": "toolscore_core.errors",
    "UnknownNameError": "toolscore_core.errors",
    # model
    "ToolCall": "toolscore_core.model",
    "Trace": "toolscore_core.model",
    "ExpectedCall": "toolscore_core.model",
    "ForbiddenRule": "toolscore_core.model",
    "Contract": "toolscore_core.model",
    "Finding": "toolscore_core.model",
    "Evaluation": "toolscore_core.model",
    "CallPair": "toolscore_core.model",
    "ToolDefinition": "toolscore_core.model",
    "ServerDefinition": "toolscore_core.model",
    "converter": "toolscore_core.model",
    # interfaces
    "TraceAdapter": "toolscore_core.interfaces",
    "Metric": "toolscore_core.interfaces",
    "MetricResult": "toolscore_core.interfaces",
    "LintRule": "toolscore_core.interfaces",
    "Guard": "toolscore_core.interfaces",
    "GuardDecision": "toolscore_core.interfaces",
    "Provider": "toolscore_core.interfaces",
    "Exporter": "toolscore_core.interfaces",
    "exporter_name": "toolscore_core.interfaces",
    # plugins and registries
    "GROUPS": "toolscore_core.plugins",
    "PluginManager": "toolscore_core.plugins",
    "get_plugin_manager": "toolscore_core.plugins",
    "Registry": "toolscore_core.registry",
    "collect": "toolscore_core.registry",
    "lazy_command": "toolscore_core.cli.lazy",
    "run_command": "toolscore_core.cli",
    # reading input
    "load_trace": "toolscore_core.traces",
    "load_data_file": "toolscore_core.files",
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
