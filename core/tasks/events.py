"""Events of a task-plan run, for the Plan pane, ``ljtui run --json`` and ``.agent/events.jsonl``.

Each is a frozen :class:`~ljtui.core.events.Event`, so ``kind`` is the
snake-case class name and :func:`~ljtui.core.events.event_to_dict` serialises
it: tasks become ``{id, description, tool_hint, depends_on, status}`` (status
a ``str`` enum, so JSON writes its value).
"""

from __future__ import annotations

from dataclasses import dataclass

from ljtui.core.events import Event
from ljtui.core.tasks.diff import TaskChange
from ljtui.core.tasks.plan import Task, TaskStatus
from ljtui.core.tasks.replan import ReplanResult
from ljtui.core.tasks.sanitise import StrippedHint


@dataclass(frozen=True)
class TaskPlanProposed(Event):
    """A plan awaits approval."""

    run_id: str
    tasks: tuple[Task, ...]


@dataclass(frozen=True)
class TaskPlanApproved(Event):
    """The user (or ``--yes``) approved the plan; execution may start."""

    run_id: str


@dataclass(frozen=True)
class TaskPlanRejected(Event):
    """The user rejected the plan; nothing ran."""

    run_id: str


@dataclass(frozen=True)
class TaskPlanFallback(Event):
    """The decomposition could not be used; the plan is one task, the goal."""

    run_id: str
    reason: str


@dataclass(frozen=True)
class TaskStarted(Event):
    """A task's agent started."""

    run_id: str
    task_id: int
    description: str


@dataclass(frozen=True)
class TaskFinished(Event):
    """A task ended with ``status`` (done, failed, skipped or replanned)."""

    run_id: str
    task_id: int
    description: str
    status: TaskStatus
    summary: str = ""
    """What the task's agent said at the end, or why it failed (shortened)."""


@dataclass(frozen=True)
class TaskPlanUpdated(Event):
    """A replan was applied: the ``replan_count``-th, with its reason and diff."""

    run_id: str
    replan_count: int
    reason: str
    added: tuple[Task, ...]
    removed: tuple[Task, ...]
    changed: tuple[TaskChange, ...]


@dataclass(frozen=True)
class ToolHintStripped(Event):
    """A tool hint named no known tool or skill and was removed from task ``task_id``."""

    run_id: str
    task_id: int
    hint: str


@dataclass(frozen=True)
class ReplannerDecided(Event):
    """The replanner decided ``skip``, ``retry`` or ``replace`` for failed task ``task_id``."""

    run_id: str
    task_id: int
    decision: str
    reason: str


@dataclass(frozen=True)
class RunFinished(Event):
    """The run ended: ``status`` is ``done``, ``failed``, ``stopped`` or ``cancelled``."""

    run_id: str
    status: str
    replans: int
    failed: int


@dataclass(frozen=True)
class MessageRouted(Event):
    """A plain message was routed (TASK-1): ``route`` is ``chat`` or ``plan``, ``skill`` the skill whose
    steps are the plan (or ``None``), ``reason`` the router's short reason or why it fell back to chat."""

    route: str
    skill: str | None
    reason: str


def plan_updated(run_id: str, result: ReplanResult, reason: str) -> TaskPlanUpdated:
    """The event for an applied replan ``result`` called with ``reason``."""
    diff = result.diff
    return TaskPlanUpdated(run_id, result.plan.replan_count, reason, diff.added, diff.removed, diff.changed)


def hints_stripped(run_id: str, stripped: tuple[StrippedHint, ...]) -> tuple[ToolHintStripped, ...]:
    """One event per hint the sanitiser removed (from a decomposition or a replan)."""
    return tuple(ToolHintStripped(run_id, s.task_id, s.hint) for s in stripped)
