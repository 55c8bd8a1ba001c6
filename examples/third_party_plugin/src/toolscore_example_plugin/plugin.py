"""A complete third-party plugin: a trace adapter, an MCP lint rule, a model provider, a guard
and an executor.

This is the only module its entry points name, and it holds only the hooks. Each item lives
in a module of its own, imported by its hook when Toolscore first asks for that kind: the
plugin is loaded for every kind it declares (``toolscore eval`` loads every adapter plugin to
detect a trace's format), so a hook module that imported all five items made every
``toolscore eval`` pay for the provider's and the executor's kernel modules (~50 M
instructions, ~8 ms). Each item module imports only public names from ``toolscore_core``
(what ``toolscore_core.__all__`` lists), exactly as an outside author would, and is found
through the entry points in its pyproject.toml: no registration code, no configuration.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolscore_core import hookimpl

if TYPE_CHECKING:
    from toolscore_core import Executor, Guard, LintRule, Provider, TraceAdapter


@hookimpl
def toolscore_register_providers() -> list[type[Provider]]:
    from toolscore_example_plugin.provider import CannedProvider

    return [CannedProvider]


@hookimpl
def toolscore_register_guards() -> list[type[Guard]]:
    from toolscore_example_plugin.guard import NoShellGuard

    return [NoShellGuard]


@hookimpl
def toolscore_register_executors() -> list[type[Executor]]:
    from toolscore_example_plugin.executor import InOrderExecutor

    return [InOrderExecutor]


@hookimpl
def toolscore_register_adapters() -> list[type[TraceAdapter]]:
    from toolscore_example_plugin.adapter import StepLogAdapter

    return [StepLogAdapter]


@hookimpl
def toolscore_register_lint_rules() -> list[type[LintRule]]:
    from toolscore_example_plugin.lint_rule import SnakeCaseToolNames

    return [SnakeCaseToolNames]
