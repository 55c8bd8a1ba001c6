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
    # interfaces
    "TraceAdapter": "toolscore_core.kernel.interfaces",
    "Metric": "toolscore_core.kernel.interfaces",
    "MetricResult": "toolscore_core.kernel.interfaces",
    "LintRule": "toolscore_core.kernel.interfaces",
    "Guard": "toolscore_core.kernel.interfaces",
    "GuardDecision": "toolscore_core.kernel.interfaces",
    "Provider": "toolscore_core.kernel.interfaces",
    "Exporter": "toolscore_core.kernel.interfaces",
    "exporter_name": "toolscore_core.kernel.interfaces",
    # plugins and registries
    "GROUPS": "toolscore_core.kernel.plugins",
    "PluginManager": "toolscore_core.kernel.plugins",
    "get_plugin_manager": "toolscore_core.kernel.plugins",
    "Registry": "toolscore_core.kernel.registry",
    "collect": "toolscore_core.kernel.registry",
    "lazy_command": "toolscore_core.cli.lazy",
    "run_command": "toolscore_core.cli",
    # reading input
    "load_trace": "toolscore_core.kernel.traces",
    "load_data_file": "toolscore_core.kernel.files",
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
