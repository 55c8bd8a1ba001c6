"""What a model call costs: prices per million tokens, the built-in price table, estimates.

The agent harness checks a budget before every model call, the doctor prices a whole study
before anything runs, and run rows record what each run cost. All three need the same
answers, so they live here, in the kernel:

- :class:`Price` is what one model costs per million input and output tokens, with the
  source of that number (a price is only as good as where it came from, and reports show it).
- :func:`price_for` finds a model's price: the caller's overrides (a study's ``pricing``)
  first, then the built-in table. A model nobody priced is ``None``, never a price of 0: an
  unknown cost that reads as free would let a budget check pass that should not.
- :func:`cost_usd` turns reported token usage into dollars; :func:`worst_case_usd` bounds
  what the next call can cost before it is sent.
- ``estimate_*_tokens`` count tokens offline. Real tokenizers differ per model and some
  need downloads, so the estimate is a rule that errs high on purpose: an estimate that is
  too low lets spending pass the cap, one that is too high only stops a run a little early.

Prices change; the table says when each entry was taken and from where. A study that needs
another number passes it as an override rather than editing the table.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Protocol

import attrs

from toolscore_core.kernel.errors import InputError

#: The ``source`` of a scripted model's price: it replays fixed turns and calls no API.
SCRIPTED_SOURCE = "scripted (free)"

#: Providers and models whose calls never reach a paid API.
SCRIPTED_NAMES = frozenset({"scripted"})


def _non_negative_price(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None and attribute.name == "cached_input_per_million":
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise InputError(
            f"price field {attribute.name} is {value!r}",
            expected="a finite number of US dollars per million tokens, 0 or more",
        )


@attrs.frozen(slots=True)
class Price:
    """US dollars per million tokens for one model, and where the numbers came from.

    ``Price(0.10, 0.50, "list price")`` reads as: $0.10 per million input tokens, $0.50 per
    million output tokens. ``cached_input_per_million`` is the discounted price of input read
    from a prompt cache; ``None`` means the price sheet has none (or we do not know it), and
    cached input is then billed at the full input price, which can only overstate a cost.
    """

    input_per_million: float = attrs.field(validator=_non_negative_price)
    output_per_million: float = attrs.field(validator=_non_negative_price)
    source: str | None = None
    cached_input_per_million: float | None = attrs.field(
        default=None, kw_only=True, validator=_non_negative_price
    )

    def describe(self) -> str:
        """``$0.1 in / $0.5 out per 1M (source)``: how reports and the doctor show a price."""
        text = f"${self.input_per_million:g} in / ${self.output_per_million:g} out per 1M"
        return f"{text} ({self.source})" if self.source else text


#: When the built-in entries were taken, and from where.
TABLE_SOURCE_LIST_PRICES = "toolscore price table, list prices as of 2026-02"
TABLE_SOURCE_HARNESS_DOCS = "toolscore price table, as the agent harness docs list it"
TABLE_SOURCE_CURRENT = "toolscore price table, list prices as of 2026-12"

_TABLE_ROWS: tuple[tuple[str, float, float, str], ...] = (
    # Models the agent harness documentation prices in its examples.
    ("claude-haiku-5-5", 0.10, 0.50, TABLE_SOURCE_HARNESS_DOCS),
    # The current models, from the providers' own model pages (Anthropic: Claude Sonnet 5.5
    # and Sonnet 5 at $2/$10, Opus 5.5 at $4/$20, Fable 5.1 at $10/$50; OpenAI, 2026-09-22:
    # GPT-6 Luna $0.10/$0.50, GPT-6 Sol $2/$10, GPT-6 Astra $10/$50).
    ("claude-sonnet-5-5", 2.00, 10.00, TABLE_SOURCE_CURRENT),
    ("claude-sonnet-5", 2.00, 10.00, TABLE_SOURCE_CURRENT),
    ("claude-opus-5-5", 4.00, 20.00, TABLE_SOURCE_CURRENT),
    ("claude-fable-5-1", 10.00, 50.00, TABLE_SOURCE_CURRENT),
    ("gpt-6-luna", 0.10, 0.50, TABLE_SOURCE_CURRENT),
    ("gpt-6-sol", 2.00, 10.00, TABLE_SOURCE_CURRENT),
    ("gpt-6-astra", 10.00, 50.00, TABLE_SOURCE_CURRENT),
    # OpenAI
    ("gpt-5", 1.25, 10.00, TABLE_SOURCE_LIST_PRICES),
    ("gpt-5-mini", 0.25, 2.00, TABLE_SOURCE_LIST_PRICES),
    ("gpt-5-nano", 0.05, 0.40, TABLE_SOURCE_LIST_PRICES),
    ("gpt-4o", 2.50, 10.00, TABLE_SOURCE_LIST_PRICES),
    ("gpt-4o-mini", 0.15, 0.60, TABLE_SOURCE_LIST_PRICES),
    # Anthropic
    ("claude-opus-4-6", 15.00, 75.00, TABLE_SOURCE_LIST_PRICES),
    ("claude-opus-4-1", 15.00, 75.00, TABLE_SOURCE_LIST_PRICES),
    ("claude-sonnet-4-5", 3.00, 15.00, TABLE_SOURCE_LIST_PRICES),
    ("claude-haiku-4-5", 1.00, 5.00, TABLE_SOURCE_LIST_PRICES),
    ("claude-3-5-sonnet", 3.00, 15.00, TABLE_SOURCE_LIST_PRICES),
    ("claude-3-sonnet", 3.00, 15.00, TABLE_SOURCE_LIST_PRICES),
    ("claude-3-opus", 15.00, 75.00, TABLE_SOURCE_LIST_PRICES),
    ("claude-3-haiku", 0.25, 1.25, TABLE_SOURCE_LIST_PRICES),
    # Google (Gemini 2.5 Pro: the price for prompts up to 200k tokens)
    ("gemini-2.5-pro", 1.25, 10.00, TABLE_SOURCE_LIST_PRICES),
    ("gemini-2.5-flash", 0.30, 2.50, TABLE_SOURCE_LIST_PRICES),
    ("gemini-2.5-flash-lite", 0.10, 0.40, TABLE_SOURCE_LIST_PRICES),
    ("gemini-2.0-flash", 0.10, 0.40, TABLE_SOURCE_LIST_PRICES),
    ("gemini-1.5-pro", 1.25, 5.00, TABLE_SOURCE_LIST_PRICES),
    ("gemini-1.5-flash", 0.075, 0.30, TABLE_SOURCE_LIST_PRICES),
)

#: Input read from a prompt cache, per million tokens, where the provider's price sheet has a
#: rule for it: Anthropic bills cache reads at 0.1x the model's input price; OpenAI's list
#: prices give the gpt-5 family 0.1x and the gpt-4o family 0.5x. Models not listed here bill
#: cached input at the full input price, which can only overstate a cost, never hide one.
_CACHED_INPUT: Mapping[str, float] = {
    **{name: round(price * 0.1, 6) for name, price, _out, _src in _TABLE_ROWS if name.startswith("claude-")},
    "gpt-6-luna": 0.01,
    "gpt-6-sol": 0.20,
    "gpt-6-astra": 1.00,
    "gpt-5": 0.125,
    "gpt-5-mini": 0.025,
    "gpt-5-nano": 0.005,
    "gpt-4o": 1.25,
    "gpt-4o-mini": 0.075,
}

#: The built-in price table: model name (lower case) -> Price. Read-only: pass
#: ``overrides`` to :func:`price_for` instead of changing it.
PRICE_TABLE: Mapping[str, Price] = MappingProxyType(
    {name: Price(input_price, output_price, source, cached_input_per_million=_CACHED_INPUT.get(name))
     for name, input_price, output_price, source in _TABLE_ROWS}
)

# A dated or aliased snapshot of a priced model costs what the model costs:
# claude-haiku-4-5-20251001, gpt-4o-2024-08-06, gpt-5-mini-latest. Anything else after the
# name (gpt-5-pro, gpt-4o-audio) is a different model and stays unknown.
_SNAPSHOT_SUFFIX = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2}|latest|preview(?:-\d{2}-\d{4})?)$")


def _canonical(model: str) -> str:
    """Lower case, without a routing prefix such as ``openai/`` or ``models/``."""
    return model.strip().lower().rsplit("/", 1)[-1]


def _table_lookup(model: str) -> Price | None:
    name = _canonical(model)
    if name in PRICE_TABLE:
        return PRICE_TABLE[name]
    # The longest priced name wins, so gpt-4o-mini-2024-07-18 is never priced as gpt-4o.
    for known in sorted(PRICE_TABLE, key=len, reverse=True):
        if name.startswith(known) and _SNAPSHOT_SUFFIX.fullmatch(name[len(known):]):
            return PRICE_TABLE[known]
    return None


def price_for(
    model: str | None,
    overrides: Mapping[str, Price] | None = None,
    *,
    provider: str | None = None,
) -> Price | None:
    """The price of ``model``, or ``None`` when nobody priced it (never a made-up 0).

    Looked up in order: a scripted provider or model is free (source ``"scripted (free)"``);
    ``overrides`` by the exact name, then by the canonical name (lower case, no ``vendor/``
    prefix); the built-in :data:`PRICE_TABLE`, where a dated snapshot of a listed model
    (``claude-haiku-4-5-20251001``) costs what the model costs.
    """
    if (provider is not None and provider.strip().lower() in SCRIPTED_NAMES) or (
        model is not None and _canonical(model) in SCRIPTED_NAMES
    ):
        return Price(0.0, 0.0, SCRIPTED_SOURCE)
    if model is None or not model.strip():
        return None
    if overrides:
        if model in overrides:
            return overrides[model]
        by_canonical = {_canonical(name): price for name, price in overrides.items()}
        if _canonical(model) in by_canonical:
            return by_canonical[_canonical(model)]
    return _table_lookup(model)


_PRICE_KEYS = ("input_per_million", "output_per_million", "cached_input_per_million", "source")


def price_from_data(data: Any, *, file: str | None = None, location: str | None = None) -> Price:
    """A :class:`Price` from a study file's ``pricing`` entry, with errors that name the place.

    Accepted: ``{"input_per_million": 0.1, "output_per_million": 0.5, "source": "...",
    "cached_input_per_million": 0.01}`` (source and cached price optional), or a list
    ``[0.1, 0.5]`` / ``[0.1, 0.5, "source"]`` written in the order of ``Price(...)``.
    """
    expected = (
        "{input_per_million: NUMBER, output_per_million: NUMBER} (optional source, "
        "cached_input_per_million), or [INPUT, OUTPUT]"
    )
    try:
        if isinstance(data, Mapping):
            unknown = sorted(set(data) - set(_PRICE_KEYS))
            if unknown:
                raise InputError(f"unknown pricing field {unknown[0]!r}", expected=expected)
            missing = [key for key in _PRICE_KEYS[:2] if key not in data]
            if missing:
                raise InputError(f"pricing needs {missing[0]}", expected=expected)
            source = data.get("source", "pricing in the spec")
            return Price(
                data["input_per_million"],
                data["output_per_million"],
                None if source is None else str(source),
                cached_input_per_million=data.get("cached_input_per_million"),
            )
        if isinstance(data, (list, tuple)) and len(data) in (2, 3):
            source = str(data[2]) if len(data) == 3 else "pricing in the spec"
            return Price(data[0], data[1], source)
        raise InputError(f"pricing is {type(data).__name__} {data!r}", expected=expected)
    except InputError as exc:
        raise InputError(
            exc.message, file=file, location=location, expected=exc.expected or expected, hint=exc.hint
        ) from None


class UsageLike(Protocol):
    """Token counts as a provider reports them; ``None`` means "not reported".

    ``input_tokens`` counts every input token, cached ones included; ``cached_tokens`` is
    the part read from a prompt cache. The kernel's provider ``Usage`` has this shape.
    """

    @property
    def input_tokens(self) -> int | None: ...

    @property
    def output_tokens(self) -> int | None: ...


def _count(usage: Any, name: str) -> int | None:
    value = usage.get(name) if isinstance(usage, Mapping) else getattr(usage, name, None)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"usage {name} is {value!r}", expected="a whole number of tokens, 0 or more")
    return value


def cost_usd(usage: UsageLike | Mapping[str, Any] | None, price: Price | None) -> float | None:
    """What a call with this ``usage`` cost at ``price``; ``None`` when that cannot be known.

    Unknown when the price is unknown, when there is no usage, or when input or output tokens
    were not reported: half a bill is not a bill. Cached input (``cached_tokens``, a part of
    ``input_tokens``) is billed at the cached price when the price has one; a missing
    ``cached_tokens`` is read as "nothing was cached", which can only overstate the cost.
    """
    if price is None or usage is None:
        return None
    input_tokens = _count(usage, "input_tokens")
    output_tokens = _count(usage, "output_tokens")
    if input_tokens is None or output_tokens is None:
        return None
    cached = min(_count(usage, "cached_tokens") or 0, input_tokens)
    cached_price = (
        price.input_per_million if price.cached_input_per_million is None else price.cached_input_per_million
    )
    dollars_per_million = (
        (input_tokens - cached) * price.input_per_million
        + cached * cached_price
        + output_tokens * price.output_per_million
    )
    return dollars_per_million / 1_000_000


def worst_case_usd(
    request_tokens_estimate: int | None, max_output_tokens: int | None, price: Price | None
) -> float | None:
    """The most the next call can cost: the whole estimated request plus every output token
    the cap allows, at full (uncached) prices. ``None`` when the price, the estimate or the
    output cap is unknown, because without them there is no bound to check."""
    if price is None or request_tokens_estimate is None or max_output_tokens is None:
        return None
    for name, value in (("request_tokens_estimate", request_tokens_estimate), ("max_output_tokens", max_output_tokens)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InputError(f"{name} is {value!r}", expected="a whole number of tokens, 0 or more")
    return (
        request_tokens_estimate * price.input_per_million + max_output_tokens * price.output_per_million
    ) / 1_000_000


# Offline token estimates. Byte-level BPE tokenizers never put less than one UTF-8 byte in a
# token, and measured text of every common kind (prose, code, JSON, digits) averages well
# over two bytes per token; only ids, hashes, base64 and emoji come close to one byte per
# token. So two bytes per token errs high for ordinary requests, and BYTES_PER_TOKEN_DENSE
# (a hard bound for those tokenizers) is there for content known to be dense.
BYTES_PER_TOKEN = 2
BYTES_PER_TOKEN_DENSE = 1
#: Framing a provider adds around every message (role markers, separators).
TOKENS_PER_MESSAGE = 50
#: What a request costs beyond its visible text (hidden system prompts for tool use).
TOKENS_PER_REQUEST = 500


def estimate_text_tokens(text: str | None, *, bytes_per_token: int = BYTES_PER_TOKEN) -> int:
    """Tokens ``text`` is likely to cost at most: its UTF-8 size over ``bytes_per_token``,
    rounded up. ``None`` and ``""`` cost 0."""
    if not text:
        return 0
    return math.ceil(len(text.encode("utf-8")) / bytes_per_token)


def _json_text(data: Any) -> str:
    if hasattr(data, "__attrs_attrs__"):
        from toolscore_core.kernel.model import to_json_data

        data = to_json_data(data)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)


def estimate_json_tokens(data: Any, *, bytes_per_token: int = BYTES_PER_TOKEN) -> int:
    """Tokens a JSON value (or a model object) costs when sent as compact JSON, estimated
    high like :func:`estimate_text_tokens`. A string is counted as text, not re-quoted."""
    if isinstance(data, str):
        return estimate_text_tokens(data, bytes_per_token=bytes_per_token)
    if data is None:
        return 0
    return estimate_text_tokens(_json_text(data), bytes_per_token=bytes_per_token)


def estimate_request_tokens(
    request: Any,
    *,
    message_count: int = 1,
    bytes_per_token: int = BYTES_PER_TOKEN,
    tokenizer_factor: float = 1.0,
) -> int:
    """Input tokens a whole request (system prompt, messages and tool definitions, as one
    JSON-able value) is likely to cost at most, for a budget check before sending it.

    Adds :data:`TOKENS_PER_MESSAGE` per message and :data:`TOKENS_PER_REQUEST` once for what
    the request text does not show. ``tokenizer_factor`` scales the result for models whose
    tokenizer is known to produce more tokens than byte-level BPE (about 1.3 for newer Claude
    models).
    """
    if message_count < 0 or tokenizer_factor <= 0:
        raise InputError(
            f"message_count {message_count!r} / tokenizer_factor {tokenizer_factor!r}",
            expected="message_count >= 0 and tokenizer_factor > 0",
        )
    text_tokens = estimate_json_tokens(request, bytes_per_token=bytes_per_token)
    return math.ceil(
        (text_tokens + TOKENS_PER_MESSAGE * message_count + TOKENS_PER_REQUEST) * tokenizer_factor
    )


__all__ = [
    "BYTES_PER_TOKEN",
    "BYTES_PER_TOKEN_DENSE",
    "PRICE_TABLE",
    "SCRIPTED_SOURCE",
    "TOKENS_PER_MESSAGE",
    "TOKENS_PER_REQUEST",
    "Price",
    "UsageLike",
    "cost_usd",
    "estimate_json_tokens",
    "estimate_request_tokens",
    "estimate_text_tokens",
    "price_for",
    "price_from_data",
    "worst_case_usd",
]
