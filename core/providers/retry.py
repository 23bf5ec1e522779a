"""Backoff between retries of a failed model call, and telling the user about them.

One policy serves the SDKs' own retries (429, 529, 5xx, connection errors
before the stream starts), the one retry of a silent server
(:mod:`ljtui.core.providers.limits`) and the engine's retries of errors that
arrive mid-stream, so a single pair of config keys sets the pace. The SDK's
retry sleeps are announced through a context variable, so a provider can
yield them as :class:`RetryScheduled` deltas while the request is pending.
"""

from __future__ import annotations

import asyncio
import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, AsyncIterator, Awaitable, Callable, Coroutine, Generic, Mapping, TypeVar

from ljtui.core.config import ProviderConfig
from ljtui.core.providers.base import ProviderError
from ljtui.core.providers.deadline import CallDeadline

T = TypeVar("T")

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


def retried_suffix(retries: int) -> str:
    """``; still failing after N retries`` (empty when there were none)."""
    return f"; still failing after {retries} {'retry' if retries == 1 else 'retries'}" if retries else ""


async def retry_call(
    call: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    on_retry: Callable[[int, ProviderError, float], None],
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> T:
    """Run ``call`` — one whole model call, streamed and consumed — and run it
    again while it fails with a ``retryable`` :class:`ProviderError` (an
    ``overloaded_error`` mid-stream, which the SDKs do not retry).

    Args:
        call: starts a fresh attempt each time; it must drop what an earlier
            attempt streamed (the caller's ``on_retry`` is the place to say so).
        on_retry: told ``(retry, error, delay)`` before each wait.
        sleep: waits ``delay`` seconds (inject a fake in tests).

    Raises:
        ProviderError: a non-retryable failure at once; a retryable one once
            the budget is spent, with ``; still failing after N retries`` added.
    """
    retry = 0
    while True:
        try:
            return await call()
        except ProviderError as exc:
            if not exc.retryable:
                raise
            if retry >= policy.max_retries:
                exc.message += retried_suffix(retry)
                raise
            retry += 1
            delay = policy.delay(retry, exc.retry_after)
            on_retry(retry, exc, delay)
            await sleep(delay)


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


@dataclass(frozen=True)
class SDKRetry:
    """The SDK is about to sleep before retrying its request."""

    retry: int
    max_retries: int
    status: int | None
    """HTTP status of the failed attempt; None for a connection error or timeout."""
    delay: float


@dataclass(frozen=True)
class RetryScheduled:
    """A delta: the call failed before streaming and is retried after ``delay`` seconds."""

    retry: int
    max_retries: int
    kind: str
    message: str
    delay: float


RETRY_LISTENER: ContextVar[Callable[[SDKRetry], None] | None] = ContextVar("ljtui_retry_listener", default=None)
"""Receives the SDK's retry notices within the task that opened the request."""


class PolicyRetries:
    """Mixin for an SDK client class: its retry sleeps follow a :class:`RetryPolicy`
    and are announced to :data:`RETRY_LISTENER`.

    Both SDKs sleep between attempts in ``_sleep_for_retry``; overriding it
    keeps their retry decisions (which statuses, how many times) while the
    timing comes from our config and honours ``retry-after``.
    """

    retry_policy: RetryPolicy

    async def _sleep_for_retry(
        self, *, retries_taken: int, max_retries: int, options: Any, response: Any
    ) -> None:
        headers = response.headers if response is not None else None
        notice = SDKRetry(
            retries_taken + 1, max_retries, getattr(response, "status_code", None),
            self.retry_policy.delay(retries_taken + 1, parse_retry_after(headers)),
        )
        listener = RETRY_LISTENER.get()
        if listener is not None:
            listener(notice)
        await asyncio.sleep(notice.delay)


class OpeningWithRetries(Generic[T]):
    """Runs the SDK call that opens a stream (retries included) as a task,
    relaying its retry notices as they happen.

    Example::

        opening = OpeningWithRetries(manager.__aenter__())
        try:
            async for notice in opening.notices():
                yield ...
            stream = opening.result()
        finally:
            opening.cancel()
    """

    def __init__(self, opening: Coroutine[Any, Any, T]) -> None:
        self._queue: asyncio.Queue[SDKRetry] = asyncio.Queue()
        token = RETRY_LISTENER.set(self._queue.put_nowait)
        try:
            self._task: asyncio.Task[T] = asyncio.ensure_future(opening)
        finally:
            RETRY_LISTENER.reset(token)

    async def notices(self, deadline: CallDeadline | None = None) -> AsyncIterator[SDKRetry]:
        """Each retry notice, until the opening call has finished (either way).

        Args:
            deadline: the call's deadline; reaching it raises its error (the
                caller cancels the opening).
        """
        while not self._task.done():
            getter = asyncio.ensure_future(self._queue.get())
            waiting = asyncio.wait({self._task, getter}, return_when=asyncio.FIRST_COMPLETED)
            try:
                await (waiting if deadline is None else deadline.run(waiting))
            finally:
                if not getter.done():
                    getter.cancel()
            if getter.done() and not getter.cancelled():
                yield getter.result()
        while not self._queue.empty():
            yield self._queue.get_nowait()

    def result(self) -> T:
        """The opened stream; raises what the opening call raised."""
        return self._task.result()

    def cancel(self) -> None:
        """Stop the opening call if it is still running (the consumer went away)."""
        if not self._task.done():
            self._task.cancel()
        elif not self._task.cancelled():
            self._task.exception()  # marks a failure as seen; the caller already reported it
