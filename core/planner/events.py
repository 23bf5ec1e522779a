"""Events the planner reports while it runs, for the UI and the headless CLI.

Each is a frozen :class:`~ljtui.core.events.Event`, sent in order to the
optional :class:`~ljtui.core.ports.EventSink` given to
:func:`~ljtui.core.planner.loop.run_planner`. Tool calls are the shared
:class:`~ljtui.core.events.ToolCallStarted` / :class:`~ljtui.core.events.ToolCallFinished`
pair, with ``agent="planner"``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ljtui.core.events import Event


@dataclass(frozen=True)
class PlannerTurnStarted(Event):
    """A model call begins; ``turn`` counts from 1 up to ``max_turns``."""

    turn: int
    max_turns: int


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
class PlannerDeadlinePassed(Event):
    """The run passed its soft deadline: the plan is reported as it stands, with no further repair."""

    elapsed: float
    soft_deadline: float
    message: str = ""


@dataclass(frozen=True)
class PlannerFinished(Event):
    """The run ended: ``ok`` only for a plan that passed its check."""

    turns: int
    ok: bool
    aborted: str | None
    errors: tuple[str, ...] = ()
    message: str = ""
    """What happened, for the user: the abort explained, or why the plan failed."""


@dataclass(frozen=True)
class PlannerOutcome(Event):
    """What a headless planner run produced, reported last (``ljtui plan --json``).

    ``out`` is the file the plan was written to (``None`` when it was not);
    ``errors`` says why the plan fails, or why the model could not be reached.
    """

    ok: bool
    aborted: str | None
    out: str | None
    turns: int
    repair_rounds: int
    fence_repaired: bool
    trace: tuple[str, ...]
    errors: tuple[str, ...]
    declarations: dict[str, list[str]] | None
    plan: str
