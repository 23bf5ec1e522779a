"""Published list prices of common Anthropic and OpenAI models, in USD per million tokens.

A session's cost is shown only where a price is known: the user's
``provider.prices`` entry for the model first, then this table. The table
applies only to the provider that publishes the price, reached at its own
endpoint (an OpenAI-compatible server elsewhere, a proxy or a local model may
bill differently, or not at all); any other model or endpoint has no price,
and no cost is shown rather than a guess.

A model named with a release date (``claude-sonnet-4-5-20250929``,
``gpt-4o-2024-08-06``) or ``-latest`` is priced as its family; no other
prefix or likeness is matched (``gpt-4o-mini`` is never ``gpt-4o``).
"""

from __future__ import annotations

import re
from typing import Mapping
from urllib.parse import urlsplit

Rates = Mapping[str, float]
"""``input``, ``output``, ``cache_read``, ``cache_write``: USD per million tokens."""


def _rates(input_: float, output: float, cache_read: float, cache_write: float | None = None) -> Rates:
    rates = {"input": input_, "output": output, "cache_read": cache_read}
    if cache_write is not None:
        rates["cache_write"] = cache_write
    return rates


ANTHROPIC_PRICES: dict[str, Rates] = {
    "claude-opus-4-5": _rates(5, 25, 0.5, 6.25),
    "claude-opus-4-1": _rates(15, 75, 1.5, 18.75),
    "claude-opus-4-0": _rates(15, 75, 1.5, 18.75),
    "claude-opus-4": _rates(15, 75, 1.5, 18.75),
    "claude-sonnet-4-5": _rates(3, 15, 0.3, 3.75),
    "claude-sonnet-4-0": _rates(3, 15, 0.3, 3.75),
    "claude-sonnet-4": _rates(3, 15, 0.3, 3.75),
    "claude-3-7-sonnet": _rates(3, 15, 0.3, 3.75),
    "claude-3-5-sonnet": _rates(3, 15, 0.3, 3.75),
    "claude-haiku-4-5": _rates(1, 5, 0.1, 1.25),
    "claude-3-5-haiku": _rates(0.8, 4, 0.08, 1),
    "claude-3-haiku": _rates(0.25, 1.25, 0.03, 0.3),
}
"""Anthropic's API prices (cache writes at the 5-minute rate)."""

OPENAI_PRICES: dict[str, Rates] = {
    "gpt-5": _rates(1.25, 10, 0.125),
    "gpt-5-mini": _rates(0.25, 2, 0.025),
    "gpt-5-nano": _rates(0.05, 0.4, 0.005),
    "gpt-4.1": _rates(2, 8, 0.5),
    "gpt-4.1-mini": _rates(0.4, 1.6, 0.1),
    "gpt-4.1-nano": _rates(0.1, 0.4, 0.025),
    "gpt-4o": _rates(2.5, 10, 1.25),
    "gpt-4o-mini": _rates(0.15, 0.6, 0.075),
    "o3": _rates(2, 8, 0.5),
    "o3-mini": _rates(1.1, 4.4, 0.55),
    "o4-mini": _rates(1.1, 4.4, 0.275),
}
"""OpenAI's API prices (standard tier; cached input at its own rate)."""

PUBLISHERS: dict[str, tuple[str, dict[str, Rates]]] = {
    "anthropic": ("api.anthropic.com", ANTHROPIC_PRICES),
    "openai-compatible": ("api.openai.com", OPENAI_PRICES),
}
"""Provider name → (the host whose prices the table holds, the table)."""

_RELEASE = re.compile(r"(?:-\d{8}|-\d{4}-\d{2}-\d{2}|-latest)$")


def family(model: str) -> str:
    """``model`` without a release-date or ``-latest`` suffix."""
    return _RELEASE.sub("", model.strip().lower())


def published_rates(provider: str, model: str, base_url: str | None = None) -> Rates | None:
    """The published price of ``model`` at ``provider``, or ``None`` when it is not in the table, or the
    endpoint is not the provider's own (``base_url`` set to another host)."""
    known = PUBLISHERS.get(provider)
    if known is None:
        return None
    host, table = known
    if base_url and (urlsplit(base_url).hostname or "").lower() != host:
        return None
    return table.get(family(model))


def rates_for_model(configured: Mapping[str, Rates], provider: str, model: str,
                    base_url: str | None = None) -> Rates | None:
    """The rates ``model`` is priced at: the user's ``provider.prices`` entry, else the published price,
    else ``None`` (no cost is shown)."""
    return configured.get(model) or published_rates(provider, model, base_url)
