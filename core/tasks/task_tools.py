"""The two tools only a task's agent has: ``complete_task`` and ``update_task_plan`` (TASK-5)."""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from ljtui.core.providers.base import ToolSpec
from ljtui.core.tasks.replan import ReplanResult
from ljtui.core.tools import Tool, ToolContext, ToolError, ToolResult

Replan = Callable[[int, Any, str], Awaitable[ReplanResult]]
"""Applies a replan asked for by a task (its id, the new tasks as the model sent them, the reason)."""

MAX_REASON_CHARS = 500
"""A longer reason for a replan is cut to this many characters."""

COMPLETE_SPEC = ToolSpec(
    "complete_task",
    "Record that your task is done. Call it once, with your own task id, when the task is finished.",
    {"type": "object", "properties": {"task_id": {"type": "integer", "minimum": 1}}, "required": ["task_id"],
     "additionalProperties": False},
)
UPDATE_SPEC = ToolSpec(
    "update_task_plan",
    "Replace the tasks still to do with a revised list, when the plan is wrong. Finished tasks are kept; "
    "your own task ends as replanned. Each task: {id, description, tool_hint?, depends_on[]}; new ids "
    "continue after the highest existing one. Replan only when you must: every replan is counted.",
    {"type": "object", "properties": {
        "tasks": {"type": "array", "minItems": 1, "items": {"type": "object", "properties": {
            "id": {"type": "integer", "minimum": 1}, "description": {"type": "string"},
            "tool_hint": {"type": "string"}, "depends_on": {"type": "array", "items": {"type": "integer"}}},
            "required": ["description"]}},
        "reason": {"type": "string", "description": "why the plan changes"}},
     "required": ["tasks", "reason"], "additionalProperties": False},
)


def task_tools(replan: Replan, task_id: int) -> list[Tool]:
    """``complete_task`` and ``update_task_plan`` (which asks ``replan``) for the agent of task ``task_id``."""

    async def complete(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        named = args.get("task_id")
        if isinstance(named, bool) or not isinstance(named, int):
            raise ToolError("argument 'task_id' must be an integer")
        if named != task_id:
            raise ToolError(f"you are the agent of task {task_id}; you cannot complete task {named}")
        return ToolResult(True, f"Task {task_id} is recorded as done.", f"task {task_id} done")

    async def update(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        reason = args.get("reason", "")
        if not isinstance(reason, str) or not reason.strip():
            raise ToolError("argument 'reason' must say why the plan changes")
        result = await replan(task_id, args.get("tasks"), reason.strip()[:MAX_REASON_CHARS])
        if not result.ok:
            return ToolResult(False, result.tool_result, "replan refused")
        return ToolResult(True, result.tool_result, f"replan {result.plan.replan_count}")

    return [Tool(COMPLETE_SPEC, complete), Tool(UPDATE_SPEC, update)]
