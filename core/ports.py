"""The ports the engine talks through: events out, approvals in, time.

Adapters live at the edges: the TUI implements :class:`EventSink` with its
bridge and :class:`Approver` with modal screens; the CLI with stdout and
flags; tests with lists and scripted answers. The approval types live in
:mod:`ljtui.core.approval` and are re-exported here.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ljtui.core.approval import ApprovalRequest, Approver, Choice, Decision, DenyAll, ScriptedApprover
from ljtui.core.clock import Clock, FixedClock, SystemClock
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


class ListSink:
    """An EventSink that keeps every event in a list."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)
