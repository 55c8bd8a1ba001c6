"""``toolscore.metrics.cost_estimator``: the price table and cost helpers under the path
tool-scorer 1.10.0 users know, on top of the kernel's pricing (``toolscore_core.kernel.pricing``).

The names and call shapes of 1.10.0 keep working, with two deliberate differences, both
because an unknown cost must never look like a real one:

- ``calculate_llm_cost`` and ``estimate_trace_cost`` return ``None`` for a model with no
  known price. (1.10.0 silently priced any unknown model as gpt-4o-mini.) Model names are
  matched exactly, or as a dated snapshot of a listed model (``gpt-4o-2024-08-06``), never by
  substring, so ``gpt-4o-mini`` is never priced as ``gpt-4o``.
- ``estimate_tokens`` errs high (UTF-8 bytes / 2) instead of averaging (characters / 4): it
  is the estimate the agent harness's budget check uses, and a budget needs an upper bound.

New code can use the kernel names re-exported here: ``Price``, ``price_for``, ``cost_usd``,
``worst_case_usd`` and ``PRICE_TABLE``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from toolscore_core.kernel.pricing import (
    PRICE_TABLE,
    Price,
    cost_usd,
    estimate_json_tokens,
    estimate_text_tokens,
    price_for,
    worst_case_usd,
)

#: 1.10.0's shape of the table: model -> (input, output) US dollars per million tokens.
MODEL_PRICING: Mapping[str, tuple[float, float]] = MappingProxyType(
    {name: (price.input_per_million, price.output_per_million) for name, price in PRICE_TABLE.items()}
)

#: The share of a trace's tokens ``estimate_trace_cost`` counts as input (the rest is output),
#: a typical split for tool-calling conversations; a trace does not say which is which.
TRACE_INPUT_SHARE = 0.7


def estimate_tokens(text: str) -> int:
    """Tokens ``text`` costs at most, estimated offline (0 for empty text)."""
    return estimate_text_tokens(text)


def calculate_llm_cost(model: str, input_tokens: int = 0, output_tokens: int = 0) -> float | None:
    """US dollars for one call of ``model``; ``None`` when the model has no known price."""
    return cost_usd({"input_tokens": input_tokens, "output_tokens": output_tokens}, price_for(model))


def estimate_trace_cost(trace_data: Any, model: str = "gpt-4o-mini") -> float | None:
    """A rough cost of sending a whole trace through ``model``: its estimated tokens, split
    :data:`TRACE_INPUT_SHARE` input / the rest output. ``None`` when the model has no price.

    ``trace_data`` is a JSON value (a dict counts as one document, a list item by item, strings
    as text) or a model object such as a ``Trace``.
    """
    price = price_for(model)
    if price is None:
        return None
    if isinstance(trace_data, list):
        total = sum(estimate_json_tokens(item) for item in trace_data if isinstance(item, (dict, str)))
    else:
        total = estimate_json_tokens(trace_data)
    input_tokens = int(total * TRACE_INPUT_SHARE)
    return cost_usd({"input_tokens": input_tokens, "output_tokens": total - input_tokens}, price)


def format_cost(cost: float | None) -> str:
    """``$0.0042`` under a cent, ``$1.23`` from a cent up, ``unknown`` for ``None``."""
    if cost is None:
        return "unknown"
    return f"${cost:.4f}" if abs(cost) < 0.01 else f"${cost:.2f}"


def calculate_cost_savings(baseline_cost: float, optimized_cost: float) -> dict[str, float | str | None]:
    """How much cheaper ``optimized_cost`` is than ``baseline_cost``.

    Returns ``absolute_savings`` (dollars), ``percentage_savings`` (``None`` when the baseline
    is 0: a share of nothing is undefined) and ``formatted_savings`` for people.
    """
    absolute = baseline_cost - optimized_cost
    percentage = absolute / baseline_cost * 100 if baseline_cost > 0 else None
    share = f"{percentage:.1f}% reduction" if percentage is not None else "no baseline cost"
    return {
        "absolute_savings": absolute,
        "percentage_savings": percentage,
        "formatted_savings": f"{format_cost(absolute)} ({share})",
    }


__all__ = [
    "MODEL_PRICING",
    "PRICE_TABLE",
    "TRACE_INPUT_SHARE",
    "Price",
    "calculate_cost_savings",
    "calculate_llm_cost",
    "cost_usd",
    "estimate_json_tokens",
    "estimate_tokens",
    "estimate_trace_cost",
    "format_cost",
    "price_for",
    "worst_case_usd",
]
