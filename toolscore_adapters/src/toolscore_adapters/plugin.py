"""Hook implementations of toolscore-adapters: the trace formats it reads.

The only module named by this distribution's entry points. It imports no SDK: adapters
recognise live SDK objects by their class's module and name, and import nothing to do so.
"""

from __future__ import annotations

from typing import Any

from toolscore_core import hookimpl


@hookimpl
def toolscore_register_adapters() -> list[Any]:
    return []


@hookimpl
def toolscore_register_commands() -> list[Any]:
    return []
