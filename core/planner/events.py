"""Events the planner reports while it runs, for the UI and the headless CLI.

Each is a frozen :class:`~ljtui.core.events.Event`, sent in order to the
optional :class:`~ljtui.core.ports.EventSink` given to
:func:`~ljtui.core.planner.loop.run_planner`. The UI shows each
:class:`PlannerToolCalled` as one folded line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ljtui.core.events import Event


@dataclass(frozen=True)
class PlannerTurnStarted(Event):
    """A model call begins; ``turn`` counts from 1 up to ``max_turns``."""

    turn: int
    max_turns: int


@dataclass(frozen=True)
class PlannerToolCalled(Event):
    """A tool call ran; ``summary`` is its one-line result."""

    turn: int
    name: str
    args_summary: str
    ok: bool
    summary: str
    arguments: dict[str, Any] = field(default_factory=dict)
    """The arguments as the model wrote them (values of any JSON type)."""


@dataclass(frozen=True)
class PlannerReplyRejected(Event):
    """A reply was refused and the model was told why.

    ``reason`` is ``fabrication``, ``malformed-action`` or ``no-action``.
    """

    turn: int
    reason: str
    message: str


@dataclass(frozen=True)
class PlannerPlanChecked(Event):
    """A plan was checked against the repository.

    ``repair_round`` is 0 for the first plan and counts the repairs after it.
    """

    turn: int
    ok: bool
    errors: tuple[str, ...]
    repair_round: int
    fence_repaired: bool = False


@dataclass(frozen=True)
class PlannerFinished(Event):
    """The run ended: ``ok`` only for a plan that passed its check."""

    turns: int
    ok: bool
    aborted: str | None
    errors: tuple[str, ...] = ()
