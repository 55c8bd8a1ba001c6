"""Hook specifications: the nine kinds of thing a Toolscore plugin can contribute.

A plugin is a module (or any object) named by an entry point in one of the
``toolscore.<kind>`` groups listed in :data:`toolscore_core.kernel.plugins.GROUPS`. It implements
the hook for that kind with :data:`toolscore_core.hookimpl`.

Every hook here is a *registration* hook: it takes no arguments and returns the items the
plugin provides (one item or a sequence). Items are classes or instances with a ``name``
that is unique within their kind. Returning values, rather than calling a ``register``
callback, lets the kernel record which plugin provided what, and turns a name claimed twice
into an explicit error instead of a silent overwrite decided by install order.

Only attributes whose names start with ``toolscore_`` are treated as hooks. A misspelled
hook name (``toolscore_register_metric``) is an error when the plugin is registered.
Hooks may later gain arguments; implementations may always accept fewer than specified.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:  # keep this module free to import: no click, no model code at run time
    from collections.abc import Sequence

    import click

    from toolscore_core.kernel.interfaces import (
        Executor,
        Exporter,
        Guard,
        Judge,
        LintRule,
        Metric,
        Provider,
        TraceAdapter,
    )

_spec = pluggy.HookspecMarker("toolscore")

@_spec
def toolscore_register_adapters() -> type[TraceAdapter] | Sequence[type[TraceAdapter] | TraceAdapter]:
    """Return the trace adapters this plugin provides.

    Group: ``toolscore.adapters``. Loaded by every command and API call that reads traces.

    Each adapter (see :class:`toolscore_core.TraceAdapter`) has a unique ``name``
    (the value users pass to ``--format``), ``detect(data) -> float`` (0.0 = not mine,
    1.0 = certainly mine) and ``load(data) -> Trace``. When no format is named, the adapter
    with the highest ``detect`` score wins; a tie at the top is an error naming both, never
    a choice made by install order.

    :returns: an adapter class or instance, or a sequence of them.
    """
    raise NotImplementedError  # a specification: plugins implement it


@_spec
def toolscore_register_metrics() -> type[Metric] | Sequence[type[Metric] | Metric]:
    """Return the metrics this plugin provides.

    Group: ``toolscore.metrics``. Loaded by ``evaluate()`` and ``toolscore eval``.

    Each metric (see :class:`toolscore_core.Metric`) has a unique ``name`` (the
    key users pass to ``--weight NAME=VALUE``), a ``default_weight`` (0 = opt-in: computed
    and reported, but only counted in the score when weighted) and
    ``compute(context) -> MetricResult``.

    :returns: a metric class or instance, or a sequence of them.
    """
    raise NotImplementedError


@_spec
def toolscore_register_lint_rules() -> type[LintRule] | Sequence[type[LintRule] | LintRule]:
    """Return the MCP lint rules this plugin provides.

    Group: ``toolscore.lint_rules``. Loaded by ``toolscore mcp lint`` and ``toolscore mcp test``.

    Each rule (see :class:`toolscore_core.LintRule`) has a stable ``name`` (its
    id, e.g. ``schema-missing-type``), a default ``severity`` and
    ``check(server: ServerDefinition) -> Iterable[Finding]``.

    :returns: a rule class or instance, or a sequence of them.
    """
    raise NotImplementedError


@_spec
def toolscore_register_guards() -> type[Guard] | Sequence[type[Guard] | Guard]:
    """Return the guard kinds this plugin provides.

    Group: ``toolscore.guards``. Loaded by the agent harness.

    A guard (see :class:`toolscore_core.Guard`) is consulted before the harness
    runs a tool call the model asked for, and may allow or deny it with a reason. Study
    specs refer to guards by ``name``.

    :returns: a guard class or instance, or a sequence of them.
    """
    raise NotImplementedError


@_spec
def toolscore_register_providers() -> type[Provider] | Sequence[type[Provider] | Provider]:
    """Return the model providers this plugin provides.

    Group: ``toolscore.providers``. Loaded by the agent harness and the LLM judge.

    A provider (see :class:`toolscore_core.Provider`) turns a chat request with
    tool definitions into a model response. Import SDKs inside its methods, never at the
    top of the plugin module, so that ``toolscore --help`` stays fast.

    :returns: a provider class or instance, or a sequence of them.
    """
    raise NotImplementedError


@_spec
def toolscore_register_exporters() -> type[Exporter] | Sequence[type[Exporter] | Exporter]:
    """Return the report formats this plugin provides.

    Group: ``toolscore.exporters``. Loaded by any command with ``--report``.

    An exporter (see :class:`toolscore_core.Exporter`) renders one kind of
    subject (``evaluation``, ``scorecard``, ``lint`` ...) in one ``format`` (``md``,
    ``html``, ``json`` ...). Its registry name is ``"<subject>-<format>"``, so two
    subjects can each have an ``md`` report without a conflict.

    :returns: an exporter class or instance, or a sequence of them.
    """
    raise NotImplementedError


@_spec
def toolscore_register_commands() -> click.Command | Sequence[click.Command]:
    """Return click commands or groups to add to the ``toolscore`` CLI.

    Group: ``toolscore.commands``. Loaded when the CLI lists or resolves commands, so
    ``toolscore --help`` imports every module in this group: keep those modules cheap, and
    return :func:`toolscore_core.lazy_command` objects that import their implementation only
    when the command runs. A command whose name a core command already uses is refused.

    :returns: a click command, or a sequence of them.
    """
    raise NotImplementedError


@_spec
def toolscore_register_executors() -> type[Executor] | Sequence[type[Executor] | Executor]:
    """Return the executors (where work runs) this plugin provides.

    Group: ``toolscore.executors``. Loaded by bulk scoring (``toolscore eval --traces``) and
    ``toolscore agent run`` when they start work, and by ``toolscore plugins``.

    An executor (see :class:`toolscore_core.Executor`) runs one picklable function
    over many items and yields each result as it finishes, so the caller stays the single
    writer of its output file. ``local`` (a process pool) is built in; ``--executor NAME``
    picks another. Items are factories: the kernel calls them with only the settings their
    signature names (``workers``, ``address`` ...).

    :returns: an executor class or instance, or a sequence of them.
    """
    raise NotImplementedError


@_spec
def toolscore_register_judges() -> type[Judge] | Sequence[type[Judge] | Judge]:
    """Return the judges this plugin provides: deciders for what deterministic matching left open.

    Group: ``toolscore.judges``. Loaded by ``evaluate(judge=NAME)`` and by the commands that
    accept a judge (``toolscore eval`` collects the options judges add to it, see
    :mod:`toolscore_core.cli.judge_options`); never by a plain ``evaluate()``.

    A judge (see :class:`toolscore_core.Judge`) gets, in one batch, the questions
    the deterministic pairing could not settle (is tool ``search_web`` the expected
    ``web_search``? is ``"NYC"`` the expected ``"New York"``?) and answers each with a
    verdict. It only ever turns a non-match into a match; an exact match is never asked.

    :returns: a judge class or instance, or a sequence of them.
    """
    raise NotImplementedError
