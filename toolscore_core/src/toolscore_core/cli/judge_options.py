"""Options that judge plugins add to a core command, and the judge those options ask for.

Why this exists: ``toolscore eval`` offers a judge plugin's flags (the LLM judge's, say)
when that plugin is installed, and the core must not know any judge exists. So a judge class in the ``judges`` registry may
declare two class methods (see :class:`toolscore_core.Judge`):

- ``command_options(command) -> [click.Option, ...]``: the options it adds to ``command``;
- ``from_command_options(command, values) -> Judge | None``: the judge the parsed values
  ask for, or ``None`` when they do not ask for one (the flag was not given).

A core command built with ``cls=JudgeOptionsCommand`` collects those options when click
parses it or shows its own ``--help`` (never when ``toolscore --help`` lists commands, so the
root help stays cheap), keeps their values out of the command function's arguments, and the
command body asks :func:`judge_from_context` for the judge (made then, inside the command's
error handling, so a missing key is one clear message and exit 2). After the command ends,
the judge's ``summary()`` line (what the judge cost) goes to stderr.
"""

from __future__ import annotations

from typing import Any

import click

_PARAMS = "toolscore.judge_params"
_VALUES = "toolscore.judge_values"
_MADE = "toolscore.judge"


def _judge_params(command: click.Command, ctx: click.Context) -> list[tuple[Any, list[click.Parameter]]]:
    """(judge item, its options) for every installed judge that adds options to ``command``."""
    key = f"{_PARAMS}.{command.name}"
    cached = ctx.meta.get(key)
    if cached is not None:
        return list(cached)
    from toolscore_core.cli._app import App

    app = ctx.find_object(App) or App()
    taken = {name for p in command.params for name in (*p.opts, *p.secondary_opts)}
    found: list[tuple[Any, list[click.Parameter]]] = []
    for entry in app.registry("judges").entries():
        declare = getattr(entry.item, "command_options", None)
        if not callable(declare):
            continue
        params: list[click.Parameter] = []
        for param in declare(command.name or ""):
            clash = taken.intersection((*param.opts, *param.secondary_opts))
            if clash:
                click.echo(f"toolscore: warning: judge {entry.name!r} ({entry.distribution}) adds "
                           f"{', '.join(sorted(clash))} to `{command.name}`, which it already has; ignored",
                           err=True)
                continue
            taken.update((*param.opts, *param.secondary_opts))
            params.append(param)
        if params:
            found.append((entry.item, params))
    ctx.meta[key] = found
    return found


class JudgeOptionsCommand(click.Command):
    """A click command that also accepts the options installed judges declare for it."""

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        params = super().get_params(ctx)
        extra = [p for _item, group in _judge_params(self, ctx) for p in group]
        help_option = self.get_help_option(ctx)
        if help_option is not None and help_option in params:  # --help stays last in the listing
            params.remove(help_option)
            return [*params, *extra, help_option]
        return [*params, *extra]

    def invoke(self, ctx: click.Context) -> Any:
        groups = _judge_params(self, ctx)
        ctx.meta[_VALUES] = [(item, {p.name: ctx.params.pop(p.name, None) for p in group if p.name})
                             for item, group in groups]
        ctx.meta[_MADE] = None
        try:
            return super().invoke(ctx)
        finally:
            judge = ctx.meta.get(_MADE)
            summary = getattr(judge, "summary", None)
            line = summary() if callable(summary) else None
            if line:
                click.echo(line, err=True)


def judge_from_context(ctx: click.Context | None = None) -> Any:
    """The judge the current command's judge options ask for (made once), or None.

    Two judges asked for at once is an InputError naming both: one evaluation has one judge.
    """
    from toolscore_core.kernel.errors import InputError

    ctx = ctx or click.get_current_context()
    if ctx.meta.get(_MADE) is not None:
        return ctx.meta[_MADE]
    chosen: list[tuple[str, Any]] = []
    for item, values in ctx.meta.get(_VALUES, []):
        made = item.from_command_options(ctx.command.name or "", values)
        if made is not None:
            chosen.append((getattr(item, "name", type(item).__name__), made))
    if len(chosen) > 1:
        raise InputError(f"the options given ask for {len(chosen)} judges ({', '.join(n for n, _ in chosen)})",
                         hint="Give the options of one judge only")
    judge = chosen[0][1] if chosen else None
    ctx.meta[_MADE] = judge
    return judge


__all__ = ["JudgeOptionsCommand", "judge_from_context"]
