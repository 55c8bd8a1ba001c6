"""Option types every command shares, so one flag means one thing everywhere.

Why a type of our own for seconds: click's ``float`` and even ``FloatRange`` accept
``nan`` and ``inf`` (``float("nan")`` parses), and a wait of NaN seconds compares false
with everything, so ``--timeout nan`` silently meant "wait forever". :class:`Seconds`
accepts only a finite number above a minimum; anything else is a usage error (exit 2)
naming the option.
"""

from __future__ import annotations

import math
from typing import Any

import click


class Seconds(click.ParamType):
    """A finite number of seconds, greater than ``minimum`` (default 0) and at most ``maximum``."""

    name = "seconds"

    def __init__(self, minimum: float = 0.0, *, maximum: float | None = None, inclusive: bool = False) -> None:
        self.minimum = minimum
        self.maximum = maximum
        self.inclusive = inclusive

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            number = float(value)
        else:
            try:
                number = float(str(value).strip())
            except ValueError:
                self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number of seconds", param, ctx)
        low_ok = number >= self.minimum if self.inclusive else number > self.minimum
        if not low_ok:
            bound = f"at least {self.minimum:g}" if self.inclusive else f"more than {self.minimum:g}"
            self.fail(f"{value!r} is too short: give {bound} seconds", param, ctx)
        if self.maximum is not None and number > self.maximum:
            self.fail(f"{value!r} is too long: give at most {self.maximum:g} seconds", param, ctx)
        return number

    def __repr__(self) -> str:
        return f"Seconds(minimum={self.minimum!r}, maximum={self.maximum!r})"


def executor_with_address(executor: str | None, ray_address: str | None) -> str | None:
    """The executor to use once ``--ray-address`` is taken into account.

    The address only means something to Ray, so given alone it picks ``--executor ray`` (what
    the user plainly meant), and given with another executor it is a usage error instead of
    being dropped without a word: a user who believes work runs on a cluster while it runs
    here would read the wrong throughput and spend on the wrong machines.
    """
    if ray_address is None:
        return executor
    if executor is None:
        return "ray"
    if executor != "ray":
        from toolscore_core.kernel.errors import InputError

        raise InputError(f"--ray-address applies to --executor ray, not to --executor {executor}",
                         hint=f"Drop --ray-address to run on {executor}, or use --executor ray")
    return executor


__all__ = ["Seconds", "executor_with_address"]
