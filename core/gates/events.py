"""Events of delivery gates, for the Gates pane, ``ljtui run --json`` and ``.agent/events.jsonl``.

Each is a frozen :class:`~ljtui.core.events.Event`; ``kind`` is the snake-case
class name (``gate_proposed`` … ``gate_breaker_opened``). :class:`RunLogSink` also
writes them to the run log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ljtui.core.events import Event

if TYPE_CHECKING:
    from ljtui.core.ports import EventSink


@dataclass(frozen=True)
class GateProposed(Event):
    """A gate was written (new, or its items, factors or level changed); it waits for the user's confirmation."""

    gate: str
    level: int
    r: float
    items: tuple[str, ...]


@dataclass(frozen=True)
class GateConfirmed(Event):
    """The user confirmed the gate's items and level."""

    gate: str
    level: int


@dataclass(frozen=True)
class GateStarted(Event):
    """The user started a run of the gate; at L2 and above, writes are now held back (``in_layer``: in the session's
    layer, else in the staging tree)."""

    gate: str
    run_id: str
    level: int
    staged: bool
    in_layer: bool = False


@dataclass(frozen=True)
class GateCheckRecorded(Event):
    """The engine ran an item's command and recorded what it saw."""

    gate: str
    run_id: str
    item: str
    exit_code: int | None
    duration_ms: int
    verifier: str
    agent: str
    command: str = ""
    content_hash: str = ""
    """What the evidence is bound to (``layer:…`` in the layer; empty outside a run)."""
    output: str = ""
    """The command's output as recorded (its head and tail)."""


@dataclass(frozen=True)
class GateChecksProgressed(Event):
    """A run of a gate's checks moved on: ``done`` of ``total`` commands ran, ``item`` runs now.

    ``started`` is when the first check began, on the engine clock's
    monotonic seconds. ``ended`` says the checks are over (all ran, one
    failed to start, or they were cancelled): their progress is no longer
    shown. Not written to the run log: it is for a live view.
    """

    gate: str
    done: int
    total: int
    started: float
    item: str = ""
    ended: bool = False


@dataclass(frozen=True)
class DeliveryBlocked(Event):
    """Delivery of the staged change was refused: the gate has not passed."""

    gate: str
    run_id: str
    missing: tuple[str, ...]
    failed: tuple[str, ...]
    stale: tuple[str, ...]
    bounces: int
    reason: str = ""


@dataclass(frozen=True)
class GateFinished(Event):
    """A run of the gate ended: ``pass``, ``fail``, ``exempt`` or ``rework``."""

    gate: str
    run_id: str
    outcome: str


@dataclass(frozen=True)
class GateBreakerOpened(Event):
    """Delivery was refused ``bounces`` times; the decision went to the user."""

    gate: str
    run_id: str
    bounces: int
    decision: str


@dataclass(frozen=True)
class GateDelivered(Event):
    """The staged change of a run was opened as one EDIT plan and applied to the user's tree (or not)."""

    gate: str
    run_id: str
    files: tuple[str, ...]
    applied: bool
    warning: str = ""


class RunLogSink:
    """The engine's sink; gate events also go to the run log (``.agent/events.jsonl``)."""

    def __init__(self, inner: EventSink, log: Callable[[object], object] | None) -> None:
        self._inner = inner
        self._log = log

    def emit(self, event: object) -> None:
        self._inner.emit(event)  # type: ignore[arg-type]
        if self._log is not None and type(event).__module__ == __name__ and not isinstance(
                event, GateChecksProgressed):
            self._log(event)
