"""One deadline for a whole model call, checked at every wait inside it.

An ``asyncio.timeout`` block cannot span the ``yield`` of a streaming
generator (it would cancel whatever the consumer does between deltas), so
the call keeps one absolute deadline and each wait inside it is bounded by
what is left of it.
"""

from __future__ import annotations

import asyncio
from typing import Awaitable, Callable, TypeVar

T = TypeVar("T")


class CallDeadline:
    """The moment a call must be over, and the error to raise when it is not.

    Example::

        deadline = CallDeadline(600.0, lambda: ProviderError("timeout", "too slow"))
        chunk = await deadline.run(anext(chunks))
    """

    def __init__(self, seconds: float, expired: Callable[[], Exception]) -> None:
        """Start the clock.

        Args:
            seconds: how long from now the call may take.
            expired: builds the error raised by a wait that reaches the deadline.
        """
        self.seconds = seconds
        self._when = asyncio.get_running_loop().time() + seconds
        self._expired = expired

    def remaining(self) -> float:
        """Seconds left before the deadline (0 once it has passed)."""
        return max(0.0, self._when - asyncio.get_running_loop().time())

    async def run(self, awaitable: Awaitable[T]) -> T:
        """Await ``awaitable``, giving up at the deadline.

        Raises:
            Exception: the ``expired`` error, when the deadline came first.
        """
        scope = asyncio.timeout_at(self._when)
        try:
            async with scope:
                return await awaitable
        except TimeoutError:
            if scope.expired():
                raise self._expired() from None
            raise
