"""How the export's worker pool (a ``multiprocessing.Pool``) stops early, an error or Ctrl-C,
without killing a worker while it talks to the pool.

The workers are asked to leave their jobs (:mod:`toolscore_core.kernel.worker_stop` says how
and why); then the pool is closed and wound down as after a finished export, each worker
taking its sentinel and exiting by itself. Only a job stuck in one long call of compiled code
for :data:`GRACE_SECONDS` (none of ours is) is still stopped by ``terminate``.
``tests/export/test_pool_stopping_s35.py`` keeps the recipe of the hang this avoids: a driver
stopping while its workers sent large results hung about one time in five.
"""

from __future__ import annotations

from typing import Any

from toolscore_core.kernel.worker_stop import ask_to_stop

GRACE_SECONDS = 10.0
"""How long the driver waits for its workers to leave their jobs before it terminates them."""


def stop_early(pool: Any, flag: Any) -> None:
    """Ask every worker of ``pool`` to leave its job."""
    ask_to_stop(getattr(pool, "_pool", ()), flag)


def wind_down(pool: Any, grace: float | None = None) -> None:
    """Close ``pool`` and wait for its workers to exit by themselves; terminate only those still
    in a job after ``grace`` seconds (:data:`GRACE_SECONDS`). A second Ctrl-C during the wait
    terminates them at once, and goes on."""
    grace = GRACE_SECONDS if grace is None else grace
    pool.close()
    handler = getattr(pool, "_worker_handler", None)  # the thread that ends once no job is left
    try:
        if handler is not None:  # else a later Python's pool without it: the standard way
            handler.join(grace)
    except KeyboardInterrupt:
        pool.terminate()
        pool.join()
        raise
    if handler is None or handler.is_alive():
        pool.terminate()
    pool.join()
