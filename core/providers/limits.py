"""How long a model call may take, and the one retry a silent server gets.

``provider.timeout`` is the longest the client waits for the server's next
byte: for the response to begin once the request is sent, for the first
event after the headers, and between any two bytes of the stream. It is the
SDKs' socket timeout, so it measures silence only: a server that trickles a
byte or a ping every second never trips it.

A call that meets that silence is sent again once at most (when
``provider.max_retries`` allows any retry): a server that stayed silent
through two whole timeouts rarely answers a third, and the user should not
sit through ``max_retries`` timeouts to learn it. That retry budget stays for
429, 529, 5xx and refused connections, which the SDKs retry themselves;
silence is taken out of their hands. Silence after part of the reply has
streamed fails at once: the caller has already shown that part.

``provider.call_timeout`` bounds one whole call, the SDK's retries and the
silence retry included, so a stream that never ends fails too.
"""

from __future__ import annotations

import asyncio
import math
from contextlib import aclosing
from dataclasses import dataclass
from typing import AsyncIterator, Callable, Union

from ljtui.core.config import ProviderConfig
from ljtui.core.providers.base import Delta
from ljtui.core.providers.deadline import CallDeadline
from ljtui.core.providers.errors import (
    call_timeout_error, silence_error, silence_mid_reply_error, silence_retry,
)
from ljtui.core.providers.retry import RetryPolicy, RetryScheduled

SILENCE_RETRIES = 1
"""Most times a call that met ``provider.timeout`` of silence is sent again."""

Streamed = Union[Delta, RetryScheduled]
"""What a provider's stream yields: the reply, and notices of retries while it waits."""

Attempt = Callable[[CallDeadline], AsyncIterator[Streamed]]
"""Starts one attempt of a call, bounded by the call's deadline."""


class ServerSilent(Exception):
    """An attempt waited ``provider.timeout`` for the server's next byte in vain.

    Raised by a provider's attempt; :func:`bounded_call` turns it into a retry
    or a :class:`~ljtui.core.providers.base.ProviderError`.
    """


@dataclass(frozen=True)
class CallLimits:
    """The timeouts of one model call and how silence is retried.

    Attributes:
        idle: ``provider.timeout``, seconds of silence an attempt tolerates.
        call: ``provider.call_timeout``, seconds the whole call may take.
        silence_retries: times a silent attempt is sent again.
        retry: the pace of retries (the silence retry waits like a first retry).
    """

    idle: float
    call: float
    silence_retries: int
    retry: RetryPolicy

    @classmethod
    def from_config(cls, cfg: ProviderConfig) -> CallLimits:
        """The limits set by ``provider.timeout``, ``provider.call_timeout`` and the retry keys.

        A timeout that is not a positive finite number falls back to its default.
        """
        policy = RetryPolicy.from_config(cfg)
        return cls(
            idle=_seconds(cfg.timeout, ProviderConfig.timeout),
            call=_seconds(cfg.call_timeout, ProviderConfig.call_timeout),
            silence_retries=min(SILENCE_RETRIES, policy.max_retries),
            retry=policy,
        )

    @property
    def silent_attempts(self) -> int:
        """Attempts a call makes to a server that never answers."""
        return 1 + self.silence_retries

    def silence_delay(self, retry: int) -> float:
        """Seconds before silence retry number ``retry`` (1-based)."""
        return self.retry.delay(retry)

    def silent_failure_bound(self) -> float:
        """Longest a call to a server that accepts the request and never sends a byte
        takes to fail: every attempt waits out the idle timeout, with the retry
        pauses between them, and the whole call bound caps it all."""
        waiting = self.silent_attempts * self.idle
        pauses = sum(self.silence_delay(n) for n in range(1, self.silent_attempts))
        return min(self.call, waiting + pauses)


def _seconds(value: float, default: float) -> float:
    return value if math.isfinite(value) and value > 0 else default


async def bounded_call(provider: str, attempt: Attempt, limits: CallLimits) -> AsyncIterator[Streamed]:
    """Run ``attempt`` within the call's deadline, once more if the server was silent.

    Args:
        provider: the provider's name, for messages.
        attempt: starts a fresh attempt; raises :class:`ServerSilent` on silence.
        limits: the timeouts and the silence budget.

    Yields:
        The attempt's deltas; a :class:`RetryScheduled` before a silence retry.

    Raises:
        ProviderError: silence past the budget or mid-reply, the call bound, or
            whatever the attempt raised.
    """
    deadline = CallDeadline(limits.call, lambda: call_timeout_error(provider, limits.call))
    for number in range(1, limits.silent_attempts + 1):
        replied = False
        try:
            async with aclosing(attempt(deadline)) as deltas:
                async for delta in deltas:
                    replied = replied or not isinstance(delta, RetryScheduled)
                    yield delta
            return
        except ServerSilent:
            if replied:
                raise silence_mid_reply_error(provider, limits.idle) from None
            if number == limits.silent_attempts:
                raise silence_error(provider, limits.idle, limits.silence_retries) from None
        delay = limits.silence_delay(number)
        yield silence_retry(provider, limits.idle, number, limits.silence_retries, delay)
        await deadline.run(asyncio.sleep(delay))
