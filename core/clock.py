"""Time, injected so tests and snapshots are deterministic."""

from __future__ import annotations

import time
from typing import Protocol, runtime_checkable


@runtime_checkable
class Clock(Protocol):
    """Wall and monotonic time, injected so tests are deterministic."""

    def now(self) -> float:
        """Seconds since the epoch."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back."""


class SystemClock:
    """The real clock."""

    def now(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()


class FixedClock:
    """A clock that stands still unless advanced; for tests and snapshots."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self._t = start

    def now(self) -> float:
        return self._t

    def monotonic(self) -> float:
        return self._t

    def advance(self, seconds: float) -> None:
        self._t += seconds
