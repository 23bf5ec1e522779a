"""Backoff between retries of a failed model call.

One policy serves both the SDKs' own retries (429, 529, 5xx, connection
errors before the stream starts) and the engine's retries of errors that
arrive mid-stream, so a single pair of config keys sets the pace.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from ljtui.core.config import ProviderConfig

MAX_RETRY_AFTER = 60.0
"""Longest server-requested wait we honour, in seconds; longer asks are capped."""

BACKOFF_FACTOR = 2.0
"""Each retry waits this many times longer than the one before."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a failed call is retried.

    Attributes:
        max_retries: retries after the first attempt.
        base_delay: seconds before the first retry.
        max_delay: cap on the computed (not server-requested) delay.
        max_retry_after: cap on a server's ``retry-after``.
    """

    max_retries: int
    base_delay: float
    max_delay: float
    max_retry_after: float = MAX_RETRY_AFTER

    @classmethod
    def from_config(cls, cfg: ProviderConfig) -> RetryPolicy:
        """The policy set by ``provider.max_retries`` and the delay keys."""
        return cls(max(0, cfg.max_retries), max(0.0, cfg.retry_delay), max(0.0, cfg.retry_max_delay))

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (1-based).

        A server's ``retry-after`` wins when given (capped); otherwise the
        delay grows exponentially from ``base_delay`` up to ``max_delay``.
        """
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, self.max_retry_after)
        return min(self.base_delay * BACKOFF_FACTOR ** max(0, retry - 1), self.max_delay)


def parse_retry_after(headers: Mapping[str, str] | Any | None, now: Callable[[], float] = time.time) -> float | None:
    """Seconds a response asks us to wait: ``retry-after-ms``, then ``retry-after``.

    ``retry-after`` may be seconds (integer or decimal) or an HTTP date.
    Returns ``None`` when neither header is present or parseable.
    """
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return float(ms) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    import email.utils  # only the rare HTTP-date form needs it; keeps startup lean

    parsed = email.utils.parsedate_tz(value)
    if parsed is None:
        return None
    return max(0.0, email.utils.mktime_tz(parsed) - now())


class PolicyRetries:
    """Mixin for an SDK client class: its retry sleeps follow a :class:`RetryPolicy`.

    Both SDKs compute each sleep in ``_calculate_retry_timeout``; overriding
    it keeps their retry decisions (which statuses, how many times) while the
    timing comes from our config and honours ``retry-after``.
    """

    retry_policy: RetryPolicy
    max_retries: int

    def _calculate_retry_timeout(
        self, remaining_retries: int, options: Any, response_headers: Any = None
    ) -> float:
        total = options.get_max_retries(self.max_retries)
        retry = total - remaining_retries + 1
        return self.retry_policy.delay(retry, parse_retry_after(response_headers))
