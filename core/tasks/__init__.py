"""The task plan as pure data: model, decomposition, sanitiser, replans, decisions, nudges and events.

No I/O, no threads, no model calls: an executor drives it from outside by
passing the current :class:`TaskPlan` in and keeping the one that comes back.
"""

from __future__ import annotations

from ljtui.core.tasks.decisions import (
    MAX_DECISIONS_PER_RUN,
    Decision,
    DecisionError,
    DecisionKind,
    DecisionOutcome,
    apply_decision,
    parse_decision,
)
from ljtui.core.tasks.decompose import Decomposition, DecompositionKind, fallback, parse_decomposition
from ljtui.core.tasks.diff import PlanDiff, TaskChange, diff_tasks, diff_to_dict
from ljtui.core.tasks.nudges import (
    CONSECUTIVE_FAILURE_LIMIT,
    TOOL_CALL_BUDGET,
    ToolStreak,
    depth_limit_nudge,
    failures_nudge,
    no_tool_call_nudge,
    record_tool_call,
)
from ljtui.core.tasks.plan import (
    Task,
    TaskPlan,
    TaskStatus,
    blocked,
    is_finished,
    plan_to_dict,
    progress,
    ready,
    replace_task,
    task_to_dict,
    with_status,
)
from ljtui.core.tasks.replan import SOFT_REPLAN_CAP, ReplanResult, apply_replan, describe_task, soft_cap_text
from ljtui.core.tasks.sanitise import Sanitised, StrippedHint, is_verification, sanitise
from ljtui.core.tasks.validate import MAX_DESCRIPTION_CHARS, MAX_TASKS, MIN_TASKS

__all__ = [
    "CONSECUTIVE_FAILURE_LIMIT", "MAX_DECISIONS_PER_RUN", "MAX_DESCRIPTION_CHARS", "MAX_TASKS", "MIN_TASKS",
    "SOFT_REPLAN_CAP", "TOOL_CALL_BUDGET",
    "Decision", "DecisionError", "DecisionKind", "DecisionOutcome", "Decomposition", "DecompositionKind",
    "PlanDiff", "ReplanResult", "Sanitised", "StrippedHint", "Task", "TaskChange", "TaskPlan", "TaskStatus",
    "ToolStreak",
    "apply_decision", "apply_replan", "blocked", "depth_limit_nudge", "describe_task", "diff_tasks",
    "diff_to_dict", "failures_nudge", "fallback", "is_finished", "is_verification", "no_tool_call_nudge",
    "parse_decision", "parse_decomposition", "plan_to_dict", "progress", "ready", "record_tool_call",
    "replace_task", "sanitise", "soft_cap_text", "task_to_dict", "with_status",
]
