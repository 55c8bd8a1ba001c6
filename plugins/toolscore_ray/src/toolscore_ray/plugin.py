"""Hook implementations of toolscore-ray: the only module its entry point names.

It imports the executor class, whose module imports Ray only when work runs.
"""

from __future__ import annotations

from typing import Any

from toolscore_core import hookimpl


@hookimpl
def toolscore_register_executors() -> list[Any]:
    """The ``ray`` executor."""
    from toolscore_ray.executor import RayExecutor

    return [RayExecutor]
