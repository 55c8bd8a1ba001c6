"""``toolscore.metrics``: the cost helpers tool-scorer 1.10.0 users import from here.

Scoring metrics are plugins in this version (``toolscore plugins`` lists them, and
``toolscore_core.collect(pm, "metrics")`` reaches them); this package keeps the 1.10.0 path of
the cost estimator, :mod:`toolscore.metrics.cost_estimator`.
"""

from __future__ import annotations

from toolscore.metrics.cost_estimator import (
    calculate_cost_savings,
    calculate_llm_cost,
    estimate_tokens,
    estimate_trace_cost,
    format_cost,
)

__all__ = [
    "calculate_cost_savings",
    "calculate_llm_cost",
    "estimate_tokens",
    "estimate_trace_cost",
    "format_cost",
]
