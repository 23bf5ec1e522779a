"""The difference between two task lists: what a replan added, removed and changed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ljtui.core.tasks.plan import Task, task_to_dict


@dataclass(frozen=True)
class TaskChange:
    """A task kept under the same id whose description, hint or dependencies differ."""

    before: Task
    after: Task


@dataclass(frozen=True)
class PlanDiff:
    """Tasks matched by id. A change of status alone is not a change.

    Attributes:
        added: Tasks only in the new list, in its order.
        removed: Tasks only in the old list, in its order.
        changed: Tasks in both whose description, tool hint or dependencies differ.
    """

    added: tuple[Task, ...] = ()
    removed: tuple[Task, ...] = ()
    changed: tuple[TaskChange, ...] = ()

    @property
    def empty(self) -> bool:
        """True when the lists hold the same tasks."""
        return not (self.added or self.removed or self.changed)


def diff_tasks(old: tuple[Task, ...], new: tuple[Task, ...]) -> PlanDiff:
    """What differs from ``old`` to ``new``."""
    old_by_id = {t.id: t for t in old}
    new_by_id = {t.id: t for t in new}
    added = tuple(t for t in new if t.id not in old_by_id)
    removed = tuple(t for t in old if t.id not in new_by_id)
    changed = tuple(
        TaskChange(old_by_id[t.id], t) for t in new
        if t.id in old_by_id and _content(old_by_id[t.id]) != _content(t)
    )
    return PlanDiff(added, removed, changed)


def _content(task: Task) -> tuple[str, str | None, tuple[int, ...]]:
    return task.description, task.tool_hint, task.depends_on


def diff_to_dict(diff: PlanDiff) -> dict[str, Any]:
    """The diff as JSON-ready data: ``added`` and ``removed`` tasks, ``changed`` as ``{before, after}``."""
    return {
        "added": [task_to_dict(t) for t in diff.added],
        "removed": [task_to_dict(t) for t in diff.removed],
        "changed": [{"before": task_to_dict(c.before), "after": task_to_dict(c.after)} for c in diff.changed],
    }
