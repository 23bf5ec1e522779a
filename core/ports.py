"""The ports the engine talks through: events out, approvals in, time.

Adapters live at the edges: the TUI implements :class:`EventSink` with its
bridge and :class:`Approver` with modal screens; the CLI with stdout and
flags; tests with lists and scripted answers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ljtui.core.events import Event


@runtime_checkable
class EventSink(Protocol):
    """Receives every engine event, in order."""

    def emit(self, event: Event) -> None:
        """Take one event. Must not block."""


@dataclass(frozen=True)
class ApprovalRequest:
    """A question the engine needs a human to answer."""

    kind: str
    title: str
    detail: str = ""


@runtime_checkable
class Approver(Protocol):
    """Answers the engine's questions (permission, plan approval, gates)."""

    async def approve(self, request: ApprovalRequest) -> bool:
        """True when the human allows the action."""


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


class ListSink:
    """An EventSink that keeps every event in a list."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


class DenyAll:
    """An Approver that refuses everything: the safe headless default."""

    async def approve(self, request: ApprovalRequest) -> bool:
        return False
