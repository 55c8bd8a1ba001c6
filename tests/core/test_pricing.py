"""The price table, price lookup, cost from usage, worst cases and offline token estimates."""

from __future__ import annotations

import json
import math

import attrs
import pytest

import toolscore_core
from toolscore_core.kernel.errors import InputError
from toolscore_core.kernel.model import ToolCall, Trace
from toolscore_core.kernel.pricing import (
    PRICE_TABLE,
    SCRIPTED_SOURCE,
    TOKENS_PER_MESSAGE,
    TOKENS_PER_REQUEST,
    Price,
    cost_usd,
    estimate_json_tokens,
    estimate_request_tokens,
    estimate_text_tokens,
    price_for,
    price_from_data,
    worst_case_usd,
)


# -- Price ------------------------------------------------------------------------------------
def test_price_takes_the_positional_order_of_the_docs_example() -> None:
    price = Price(0.10, 0.50, "list price")
    assert (price.input_per_million, price.output_per_million, price.source) == (0.10, 0.50, "list price")
    assert price.cached_input_per_million is None
    assert price.describe() == "$0.1 in / $0.5 out per 1M (list price)"


def test_price_is_frozen_and_slotted() -> None:
    price = Price(1, 2)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        price.input_per_million = 3  # type: ignore[misc]
    assert not hasattr(price, "__dict__")


@pytest.mark.parametrize("bad", [-0.1, math.nan, math.inf, "0.1", None, True])
def test_a_price_that_is_not_a_non_negative_number_is_an_input_error(bad: object) -> None:
    with pytest.raises(InputError, match="input_per_million"):
        Price(bad, 0.5)  # type: ignore[arg-type]


def test_cached_input_price_is_validated_too() -> None:
    assert Price(1, 2, cached_input_per_million=0.1).cached_input_per_million == 0.1
    with pytest.raises(InputError, match="cached_input_per_million"):
        Price(1, 2, cached_input_per_million=-1)


# -- the table and lookup -------------------------------------------------------------------
def test_the_docs_model_has_the_docs_price_and_a_table_source() -> None:
    price = price_for("claude-haiku-5-5")
    assert price is not None
    assert (price.input_per_million, price.output_per_million) == (0.10, 0.50)
    # the doctor shows "claude-haiku-5-5: $0.1 in / $0.5 out per 1M (toolscore price ..."
    assert price.describe().startswith("$0.1 in / $0.5 out per 1M (toolscore price table")


@pytest.mark.parametrize(
    ("model", "prices"),
    [
        ("gpt-5", (1.25, 10.00)),
        ("gpt-5-mini", (0.25, 2.00)),
        ("gpt-5-nano", (0.05, 0.40)),
        ("gpt-4o", (2.50, 10.00)),
        ("gpt-4o-mini", (0.15, 0.60)),
        ("claude-opus-4-6", (15.00, 75.00)),
        ("claude-sonnet-4-5", (3.00, 15.00)),
        ("claude-haiku-4-5", (1.00, 5.00)),
        ("claude-3-haiku", (0.25, 1.25)),
        ("gemini-2.5-flash-lite", (0.10, 0.40)),
        ("gemini-1.5-flash", (0.075, 0.30)),
    ],
)
def test_tool_scorer_1_10_models_keep_their_prices(model: str, prices: tuple[float, float]) -> None:
    price = price_for(model)
    assert price is not None and (price.input_per_million, price.output_per_million) == prices
    assert price.source and "2026-02" in price.source


def test_every_table_entry_says_where_it_came_from() -> None:
    assert len(PRICE_TABLE) >= 20
    assert all(p.source and p.source.startswith("toolscore price table") for p in PRICE_TABLE.values())
    assert all(name == name.lower() for name in PRICE_TABLE)


def test_the_table_cannot_be_changed_by_accident() -> None:
    with pytest.raises(TypeError):
        PRICE_TABLE["gpt-5"] = Price(0, 0)  # type: ignore[index]


def test_an_unknown_model_has_no_price_never_zero() -> None:
    assert price_for("claude-sonnet-6") is None  # not priced by any source we have
    assert price_for("my-local-llama") is None
    assert price_for("") is None
    assert price_for(None) is None


def test_snapshots_of_listed_models_cost_what_the_model_costs() -> None:
    assert price_for("claude-haiku-4-5-20251001") == PRICE_TABLE["claude-haiku-4-5"]
    assert price_for("gpt-4o-2024-08-06") == PRICE_TABLE["gpt-4o"]
    # the longest listed name wins: a gpt-4o-mini snapshot is not priced as gpt-4o
    assert price_for("gpt-4o-mini-2024-07-18") == PRICE_TABLE["gpt-4o-mini"]
    assert price_for("GPT-5-Mini") == PRICE_TABLE["gpt-5-mini"]
    assert price_for("openai/gpt-5") == PRICE_TABLE["gpt-5"]


def test_a_different_model_with_a_listed_prefix_stays_unknown() -> None:
    assert price_for("gpt-5-pro") is None
    assert price_for("gpt-4o-audio") is None
    assert price_for("my-gpt-4o-deployment") is None


def test_scripted_is_free_with_its_own_source() -> None:
    for price in (price_for("scripted"), price_for("anything", provider="scripted")):
        assert price == Price(0.0, 0.0, SCRIPTED_SOURCE)
    assert SCRIPTED_SOURCE == "scripted (free)"


def test_overrides_come_before_the_table() -> None:
    mine = Price(9, 9, "pricing in the spec")
    assert price_for("gpt-5", {"gpt-5": mine}) is mine
    assert price_for("Vendor/My-Model", {"my-model": mine}) is mine
    assert price_for("gpt-5", {"other": mine}) == PRICE_TABLE["gpt-5"]
    assert price_for("unpriced", {"other": mine}) is None


def test_price_from_data_reads_a_spec_pricing_entry() -> None:
    assert price_from_data({"input_per_million": 0.1, "output_per_million": 0.5}) == Price(
        0.1, 0.5, "pricing in the spec"
    )
    assert price_from_data([1, 2, "quote 2026-10"]) == Price(1, 2, "quote 2026-10")
    full = price_from_data(
        {"input_per_million": 1, "output_per_million": 2, "cached_input_per_million": 0.1, "source": "s"}
    )
    assert full == Price(1, 2, "s", cached_input_per_million=0.1)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"input_per_million": 1}, "needs output_per_million"),
        ({"input_per_million": 1, "output_per_million": 2, "input": 3}, "unknown pricing field 'input'"),
        ({"input_per_million": "cheap", "output_per_million": 2}, "input_per_million"),
        ("0.1/0.5", "pricing is str"),
    ],
)
def test_a_bad_pricing_entry_names_the_file_and_place(data: object, message: str) -> None:
    with pytest.raises(InputError) as caught:
        price_from_data(data, file="study.yaml", location="$.arms[0].pricing")
    assert message in caught.value.message
    assert caught.value.file == "study.yaml" and caught.value.location == "$.arms[0].pricing"
    assert caught.value.expected


# -- cost and worst case --------------------------------------------------------------------
@attrs.frozen
class ReportedUsage:
    """The shape a provider's usage has: counts that may be missing."""

    input_tokens: int | None
    output_tokens: int | None
    cached_tokens: int | None = None


def test_cost_is_tokens_times_price() -> None:
    price = Price(0.10, 0.50, "list price")
    assert cost_usd(ReportedUsage(1_000_000, 2_000_000), price) == pytest.approx(1.10)
    assert cost_usd({"input_tokens": 812, "output_tokens": 95}, price) == pytest.approx(
        (812 * 0.10 + 95 * 0.50) / 1e6
    )
    assert cost_usd(ReportedUsage(0, 0), price) == 0.0


def test_cached_input_uses_the_cached_price_or_the_full_one() -> None:
    usage = ReportedUsage(1_000_000, 0, cached_tokens=400_000)
    assert cost_usd(usage, Price(1.0, 0, cached_input_per_million=0.1)) == pytest.approx(0.6 + 0.04)
    assert cost_usd(usage, Price(1.0, 0)) == pytest.approx(1.0)  # no cached price: never understated


def test_cost_is_unknown_when_anything_it_needs_is_unknown() -> None:
    price = Price(1, 1)
    assert cost_usd(ReportedUsage(10, None), price) is None
    assert cost_usd(ReportedUsage(None, 10), price) is None
    assert cost_usd(None, price) is None
    assert cost_usd(ReportedUsage(10, 10), None) is None
    assert cost_usd({"input_tokens": 10}, price) is None


def test_a_negative_token_count_is_an_input_error() -> None:
    with pytest.raises(InputError, match="output_tokens"):
        cost_usd(ReportedUsage(1, -1), Price(1, 1))


def test_worst_case_is_the_whole_request_plus_the_output_cap() -> None:
    price = Price(0.10, 0.50)
    assert worst_case_usd(2_000, 1_024, price) == pytest.approx((2_000 * 0.10 + 1_024 * 0.50) / 1e6)
    assert worst_case_usd(2_000, 1_024, None) is None
    assert worst_case_usd(None, 1_024, price) is None
    assert worst_case_usd(2_000, None, price) is None  # no output cap: no bound
    with pytest.raises(InputError, match="max_output_tokens"):
        worst_case_usd(10, -5, price)


# -- offline token estimates ----------------------------------------------------------------
def test_text_estimates_err_high() -> None:
    assert estimate_text_tokens("") == 0 and estimate_text_tokens(None) == 0
    english = "The quick brown fox jumps over the lazy dog. " * 20
    # real tokenizers give about 3.7 characters per token for prose: the estimate must be above
    assert estimate_text_tokens(english) >= len(english) / 3.7
    assert estimate_text_tokens("abc") == 2  # ceil(3 bytes / 2)
    assert estimate_text_tokens("€") == 2  # 3 UTF-8 bytes, not one character
    assert estimate_text_tokens("a1b2c3d4", bytes_per_token=1) == 8


def test_json_estimates_count_compact_json_and_model_objects() -> None:
    data = {"tool": "search", "args": {"query": "weather in Paris"}}
    compact = json.dumps(data, separators=(",", ":"))
    assert estimate_json_tokens(data) == math.ceil(len(compact) / 2)
    assert estimate_json_tokens("plain text") == estimate_text_tokens("plain text")
    assert estimate_json_tokens(None) == 0
    trace = Trace(calls=(ToolCall(tool="search", args={"q": "x"}),))
    assert estimate_json_tokens(trace) > estimate_json_tokens({"tool": "search"})


def test_request_estimate_adds_framing_and_scales_by_tokenizer() -> None:
    request = {"system": "Be brief.", "messages": [{"role": "user", "content": "hi"}], "tools": []}
    base = estimate_json_tokens(request)
    assert estimate_request_tokens(request, message_count=1) == base + TOKENS_PER_MESSAGE + TOKENS_PER_REQUEST
    assert estimate_request_tokens(request, message_count=3, tokenizer_factor=1.3) == math.ceil(
        (base + 3 * TOKENS_PER_MESSAGE + TOKENS_PER_REQUEST) * 1.3
    )
    with pytest.raises(InputError):
        estimate_request_tokens(request, tokenizer_factor=0)


def test_pricing_is_public_kernel_api() -> None:
    for name in ("Price", "PRICE_TABLE", "price_for", "price_from_data", "cost_usd", "worst_case_usd",
                 "estimate_text_tokens", "estimate_json_tokens", "estimate_request_tokens"):
        assert name in toolscore_core.__all__
    assert toolscore_core.Price is Price
    assert toolscore_core.price_for is price_for


def test_cached_input_is_priced_where_the_price_sheet_has_a_rule() -> None:
    from toolscore_core import PRICE_TABLE, Usage, cost_usd

    # Anthropic: cache reads at a tenth of the input price; OpenAI's gpt-5 family likewise
    assert PRICE_TABLE["claude-sonnet-4-5"].cached_input_per_million == 0.3
    assert PRICE_TABLE["gpt-5"].cached_input_per_million == 0.125
    assert PRICE_TABLE["gpt-4o"].cached_input_per_million == 1.25
    # a model with no rule bills cached input at the full input price: never an understatement
    assert PRICE_TABLE["gemini-2.5-pro"].cached_input_per_million is None
    half_cached = Usage(input_tokens=2_000_000, output_tokens=0, cached_tokens=1_000_000)
    assert cost_usd(half_cached, PRICE_TABLE["claude-sonnet-4-5"]) == pytest.approx(3.0 + 0.3)
    assert cost_usd(half_cached, PRICE_TABLE["gemini-2.5-pro"]) == pytest.approx(2.5)


def test_the_models_the_harness_docs_name_are_priced() -> None:
    """The seed's study compares Haiku 5.5 with Sonnet 5.5 and names GPT-6 Luna; each has a
    dated price with its source, and cached input at the provider's own rule."""
    haiku, sonnet, luna = (price_for(name) for name in ("claude-haiku-5-5", "claude-sonnet-5-5", "gpt-6-luna"))
    assert haiku is not None and (haiku.input_per_million, haiku.output_per_million) == (0.10, 0.50)
    assert sonnet is not None and (sonnet.input_per_million, sonnet.output_per_million) == (2.00, 10.00)
    assert sonnet.cached_input_per_million == 0.20 and "2026-12" in (sonnet.source or "")
    assert luna is not None and (luna.input_per_million, luna.output_per_million, luna.cached_input_per_million) == (
        0.10, 0.50, 0.01)
