"""Checks ``test_agent`` runs before it calls the agent.

Why before: calling the agent is the expensive part (a paid model call, seconds of
latency). A bar of ``90`` instead of ``0.9``, a misspelt tool list or weight, or an
unknown keyword argument would only surface after that call when left to ``evaluate``;
here it is an :class:`~toolscore_core.kernel.errors.InputError` with no call made.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from toolscore_core.kernel.errors import InputError


def check_before_calling(agent: Any, expected: Any, min_score: Any, evaluate_kwargs: Mapping[str, Any]) -> None:
    """Raise InputError for any argument ``evaluate`` would refuse; the agent is not called."""
    if not callable(agent):
        raise InputError(f"agent must be a callable (prompt in, response out), not {type(agent).__name__}")
    if min_score is not None and (isinstance(min_score, bool) or not isinstance(min_score, (int, float))
                                  or not 0 <= min_score <= 1):
        raise InputError(f"min_score {min_score!r} is not a number between 0 and 1", hint="Use e.g. 0.9 for 90%")
    from toolscore_core.scoring.contracts import as_contract, as_forbidden
    from toolscore_core.scoring.evaluation import evaluate

    accepted = set(inspect.signature(evaluate).parameters) - {"expected", "actual", "min_score"}
    unknown = sorted(set(evaluate_kwargs) - accepted)
    if unknown:
        raise InputError(f"unknown keyword argument(s) {', '.join(map(repr, unknown))}",
                         expected=f"one of {', '.join(sorted(accepted))}")
    contract = as_contract(expected)  # the expected list (or gold file), read and checked
    as_forbidden(evaluate_kwargs.get("forbidden"))
    from toolscore_core.scoring.modes import check_mode

    mode = evaluate_kwargs.get("mode")
    check_mode(mode if mode is not None else contract.mode)
    weights = evaluate_kwargs.get("weights")
    if weights is not None or contract.weights:
        if weights is not None and not isinstance(weights, Mapping):
            raise InputError(f"weights must map metric names to numbers, not {type(weights).__name__}")
        from toolscore_core.kernel.plugins import get_plugin_manager
        from toolscore_core.scoring.evaluation import metric_registry, resolve_weights

        pm = evaluate_kwargs.get("plugin_manager") or get_plugin_manager()
        resolve_weights(metric_registry(pm), contract.weights, weights)
    strict = evaluate_kwargs.get("strict", False)
    if not isinstance(strict, bool):
        raise InputError(f"strict must be True or False, not {strict!r}")


__all__ = ["check_before_calling"]
