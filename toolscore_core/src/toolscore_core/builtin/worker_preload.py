"""Imported once by the forkserver the ``local`` executor forks its workers from.

Why: a worker forked from a bare server imports the scoring code, scans the installed entry
points and builds the adapter registry before its first item, about 0.2 s each time a pool
starts (a run of a few hundred small traces took twice as long as its scoring). Done here,
in the server, every worker it forks starts with all of that in memory.

Nothing here runs in the caller's process, and a failure is harmless: the standard library
ignores a preload module that cannot be imported, and a worker then warms up on its own.
"""

from __future__ import annotations

import toolscore_core.scoring.evaluation  # noqa: F401  (the scoring code every bulk worker runs)
from toolscore_core.kernel.plugins import get_plugin_manager
from toolscore_core.kernel.traces import adapter_registry

adapter_registry(get_plugin_manager()).instances()
