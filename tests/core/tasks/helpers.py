"""Builders shared by the task-plan tests."""

from __future__ import annotations

import json
from typing import Any

from ljtui.core.tasks import Task, TaskPlan, TaskStatus

KNOWN = frozenset({"read_file", "edit_file", "bash", "grep", "run-tests"})
"""Tool and skill names the tests treat as existing."""


def raw(task_id: Any, description: Any = None, deps: Any = None, hint: Any = None) -> dict[str, Any]:
    """One task object as a model would write it."""
    item: dict[str, Any] = {"id": task_id, "description": description or f"step {task_id}"}
    if deps is not None:
        item["depends_on"] = deps
    if hint is not None:
        item["tool_hint"] = hint
    return item


def reply(*items: dict[str, Any]) -> str:
    """A decomposition reply holding ``items``."""
    return json.dumps({"tasks": list(items)})


def plan(*specs: tuple[int, TaskStatus] | tuple[int, TaskStatus, tuple[int, ...]], goal: str = "goal") -> TaskPlan:
    """A plan of tasks given as ``(id, status[, depends_on])``."""
    tasks = tuple(Task(s[0], f"task {s[0]}", None, s[2] if len(s) > 2 else (), s[1]) for s in specs)
    return TaskPlan(tasks, goal)


def said(text: str, task_id: int) -> dict[str, Any]:
    """A task agent's last scripted turn: its words, and ``complete_task`` for its own task."""
    return {"text": text, "tool_calls": [{"name": "complete_task", "input": {"task_id": task_id}}]}
