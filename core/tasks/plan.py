"""The task plan: tasks, their statuses and the questions an executor asks of them.

Everything here is immutable. A change (a task starts, finishes, a replan)
makes a new :class:`TaskPlan`; the executor keeps the current one and hands it
to the functions of this package.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class TaskStatus(StrEnum):
    """Where a task stands. A ``str`` so it serialises as its value."""

    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"
    REPLANNED = "replanned"
    """The task's agent called ``update_task_plan``: its remaining work moved into new tasks."""


SATISFIED = frozenset({TaskStatus.DONE, TaskStatus.SKIPPED})
"""Statuses of a dependency that let a dependent task run."""

COMPLETED = frozenset({TaskStatus.DONE, TaskStatus.FAILED, TaskStatus.SKIPPED, TaskStatus.REPLANNED})
"""Statuses a task never leaves on its own; a replan keeps tasks in them."""


@dataclass(frozen=True)
class Task:
    """One step of a plan.

    Attributes:
        id: Positive, unique within its plan.
        description: What to do, one line, at most 500 characters.
        tool_hint: The tool or skill suggested for it, or ``None``.
        depends_on: Ids of tasks that must be done (or skipped) first.
        status: Where it stands.
    """

    id: int
    description: str
    tool_hint: str | None = None
    depends_on: tuple[int, ...] = ()
    status: TaskStatus = TaskStatus.PENDING

    def __post_init__(self) -> None:
        if self.id < 1:
            raise ValueError(f"a task id is a positive integer, not {self.id}")
        object.__setattr__(self, "status", TaskStatus(self.status))
        object.__setattr__(self, "depends_on", tuple(self.depends_on))


@dataclass(frozen=True)
class TaskPlan:
    """A run's plan: its tasks in display order and the counters of its history.

    Attributes:
        tasks: In display order (not necessarily the order they run in).
        goal: What the user asked for.
        replan_count: How many ``update_task_plan`` calls were applied.
        decision_count: How many failed-task decisions the replanner made.
    """

    tasks: tuple[Task, ...]
    goal: str
    replan_count: int = 0
    decision_count: int = 0

    def task(self, task_id: int) -> Task | None:
        """The task with ``task_id``, or ``None``."""
        return next((t for t in self.tasks if t.id == task_id), None)


def with_status(plan: TaskPlan, task_id: int, status: TaskStatus) -> TaskPlan:
    """``plan`` with task ``task_id`` in ``status`` (unchanged when there is no such task)."""
    return replace_task(plan, task_id, status=status)


def replace_task(plan: TaskPlan, task_id: int, **changes: Any) -> TaskPlan:
    """``plan`` with the fields ``changes`` set on task ``task_id``."""
    tasks = tuple(dataclasses.replace(t, **changes) if t.id == task_id else t for t in plan.tasks)
    return dataclasses.replace(plan, tasks=tasks)


def ready(plan: TaskPlan) -> tuple[Task, ...]:
    """Pending tasks whose dependencies are all done or skipped, in display order."""
    status = {t.id: t.status for t in plan.tasks}
    return tuple(
        t for t in plan.tasks
        if t.status is TaskStatus.PENDING and all(status.get(d) in SATISFIED for d in t.depends_on)
    )


def blocked(plan: TaskPlan) -> tuple[Task, ...]:
    """Pending tasks that can never run: a dependency, direct or not, failed or was replanned."""
    by_id = {t.id: t for t in plan.tasks}
    memo: dict[int, bool] = {}

    def dead(task_id: int) -> bool:
        if task_id not in memo:
            memo[task_id] = False  # dependencies are acyclic; this only guards a hand-made plan
            task = by_id.get(task_id)
            if task is None or task.status in (TaskStatus.FAILED, TaskStatus.REPLANNED):
                memo[task_id] = True
            elif task.status is TaskStatus.PENDING:
                memo[task_id] = any(dead(d) for d in task.depends_on)
        return memo[task_id]

    return tuple(t for t in plan.tasks if t.status is TaskStatus.PENDING and any(dead(d) for d in t.depends_on))


def is_finished(plan: TaskPlan) -> bool:
    """True when nothing more can happen: no task is running and none is ready."""
    return not any(t.status is TaskStatus.RUNNING for t in plan.tasks) and not ready(plan)


def progress(plan: TaskPlan) -> dict[TaskStatus, int]:
    """How many tasks are in each status (every status present, zero included)."""
    counts = Counter(t.status for t in plan.tasks)
    return {status: counts.get(status, 0) for status in TaskStatus}


def task_to_dict(task: Task) -> dict[str, Any]:
    """The task as JSON-ready data: ``{id, description, tool_hint, depends_on, status}``."""
    return {
        "id": task.id,
        "description": task.description,
        "tool_hint": task.tool_hint,
        "depends_on": list(task.depends_on),
        "status": task.status.value,
    }


def plan_to_dict(plan: TaskPlan) -> dict[str, Any]:
    """The plan as JSON-ready data."""
    return {
        "goal": plan.goal,
        "replan_count": plan.replan_count,
        "decision_count": plan.decision_count,
        "tasks": [task_to_dict(t) for t in plan.tasks],
    }
