"""Nudges toward finishing or replanning a task (TASK-8): two exits, not a wall.

The texts name the current task so the model can call ``complete_task(task_id=N)``
or ``update_task_plan``. :class:`ToolStreak` is the per-task state that says
when one is due.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

TOOL_CALL_BUDGET = 25
"""Tool calls a task may make before the model is nudged."""
NUDGE_ROOM = 2
"""Model calls left to a task when the depth-limit nudge comes, at the latest (before ``agent.max_iterations``)."""
CONSECUTIVE_FAILURE_LIMIT = 3
"""Tool failures in a row after which the model is nudged."""

_EXITS = (
    "Call `complete_task(task_id={task_id})` to record completion. "
    "If the current approach is clearly wrong, "
    "you may call `update_task_plan` with a revised task list instead."
)


def depth_limit_nudge(task_id: int, used: int = TOOL_CALL_BUDGET) -> str:
    """The text for a task that used its tool-call budget."""
    return f"You have used {used} tool calls for the current task. " + _EXITS.format(task_id=task_id)


def failures_nudge(task_id: int, failures: int = CONSECUTIVE_FAILURE_LIMIT) -> str:
    """The text after ``failures`` tool calls in a row failed."""
    return f"Your last {failures} tool calls for the current task failed. " + _EXITS.format(task_id=task_id)


def no_tool_call_nudge(task_id: int) -> str:
    """The text after a turn in which the model called no tool."""
    return "Your last turn called no tool. " + _EXITS.format(task_id=task_id)


@dataclass(frozen=True)
class ToolStreak:
    """One task's tool-call counters.

    Attributes:
        task_id: The task the counters belong to.
        calls: Tool calls made so far.
        failures_in_a_row: Failed calls since the last success.
    """

    task_id: int
    calls: int = 0
    failures_in_a_row: int = 0


def record_tool_call(streak: ToolStreak, ok: bool) -> tuple[ToolStreak, str | None]:
    """Count one tool call; returns the new counters and the failure nudge now due, if any.

    The failure nudge comes each time :data:`CONSECUTIVE_FAILURE_LIMIT`
    failures in a row are reached (the count then starts again); the depth
    limit is :func:`depth_nudge_due`.
    """
    calls = streak.calls + 1
    failures = 0 if ok else streak.failures_in_a_row + 1
    nudge = None
    if failures >= CONSECUTIVE_FAILURE_LIMIT:
        nudge = failures_nudge(streak.task_id, failures)
        failures = 0
    return dataclasses.replace(streak, calls=calls, failures_in_a_row=failures), nudge


def depth_nudge_due(calls: int, model_calls: int, limit: int, budget: int = TOOL_CALL_BUDGET) -> bool:
    """Whether the depth-limit nudge is due: ``budget`` tool calls made, or only :data:`NUDGE_ROOM` of the
    ``limit`` model calls (``agent.max_iterations``) left after the ``model_calls`` made, whichever comes first.
    """
    return calls >= budget or model_calls >= limit - NUDGE_ROOM
