"""The ports the engine talks through: events out, approvals in, time.

Adapters live at the edges: the TUI implements :class:`EventSink` with its
bridge and :class:`Approver` with modal screens; the CLI with stdout and
flags; tests with lists and scripted answers. The approval types live in
:mod:`ljtui.core.approval` and are re-exported here.
"""

from __future__ import annotations

import time
from typing import Protocol, runtime_checkable

from ljtui.core.approval import ApprovalRequest, Approver, Choice, Decision, DenyAll, ScriptedApprover
from ljtui.core.events import Event

__all__ = [
    "ApprovalRequest", "Approver", "Choice", "Clock", "Decision", "DenyAll", "EventSink", "FixedClock", "ListSink",
    "ScriptedApprover", "SystemClock",
]


@runtime_checkable
class EventSink(Protocol):
    """Receives every engine event, in order."""

    def emit(self, event: Event) -> None:
        """Take one event. Must not block."""


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
