"""Cost estimates from token usage and a configured price table (PROV-5)."""

from __future__ import annotations

from typing import Mapping

from ljtui.core.events import Usage

TOKENS_PER_PRICE_UNIT = 1_000_000
"""Prices are quoted in USD per this many tokens."""


def cost_usd(usage: Usage, rates: Mapping[str, float] | None) -> float | None:
    """The cost of ``usage`` at ``rates`` (a ``provider.prices`` entry), or None.

    Cache reads and writes are billed at their own rates when given, else at
    the input rate.
    """
    if not rates or "input" not in rates or "output" not in rates:
        return None
    input_rate = rates["input"]
    total = (
        usage.input_tokens * input_rate
        + usage.output_tokens * rates["output"]
        + usage.cache_read_tokens * rates.get("cache_read", input_rate)
        + usage.cache_write_tokens * rates.get("cache_write", input_rate)
    )
    return total / TOKENS_PER_PRICE_UNIT

