"""toolscore-ray: run Toolscore's bulk work as Ray tasks (``--executor ray``).

Importing this package does not import Ray: that happens when an executor first runs work,
so ``toolscore --help`` and ``toolscore plugins`` stay cheap.
"""

from __future__ import annotations

from toolscore_ray.executor import RayExecutor

__version__ = "0.1.0"

__all__ = ["RayExecutor", "__version__"]
