"""Explicit replanning (TASK-5…7): applying ``update_task_plan(tasks)`` to a plan.

Rules:

* Every task that is not pending is kept as it is (done, failed, skipped,
  replanned, and running tasks beside the caller); pending tasks are replaced.
* The calling task ends ``replanned`` (one already done, failed or skipped keeps its status).
* New tasks are validated like a decomposition and pass the same sanitiser;
  their ids continue after the highest kept id; they start pending. A new
  task's ``depends_on`` may name another new task (by the id the model gave
  it, which wins) or a kept task that did not fail or get replanned.
* ``replan_count`` counts applied replans; a refused call changes nothing.
* From the :data:`SOFT_REPLAN_CAP`-th replan on, the tool result ends with
  :func:`soft_cap_text` — a nudge, not a block.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from ljtui.core.tasks.diff import PlanDiff, diff_tasks
from ljtui.core.tasks.plan import COMPLETED, Task, TaskPlan, TaskStatus
from ljtui.core.tasks.sanitise import StrippedHint, sanitise
from ljtui.core.tasks.validate import validate_tasks

SOFT_REPLAN_CAP = 3
"""Replans after which the tool result asks the model to stop replanning."""


def soft_cap_text(count: int) -> str:
    """The nudge that ends the tool result once ``count`` reaches :data:`SOFT_REPLAN_CAP`."""
    return f"You have now replanned {count} time(s). Please STOP replanning and EXECUTE the current plan step by step."


@dataclass(frozen=True)
class ReplanResult:
    """What an ``update_task_plan`` call did.

    Attributes:
        ok: False when the call was refused; ``plan`` is then unchanged.
        plan: The plan after the call.
        tool_result: What the calling agent reads: the error, or the new plan.
        diff: Old task list to new.
        notes: Every repair made to the proposed tasks.
        stripped: Hints removed by the sanitiser (emit ``tool_hint_stripped`` for each).
        verification_added: The verification task the sanitiser appended, or ``None``.
    """

    ok: bool
    plan: TaskPlan
    tool_result: str
    diff: PlanDiff = PlanDiff()
    notes: tuple[str, ...] = ()
    stripped: tuple[StrippedHint, ...] = ()
    verification_added: Task | None = None


def apply_replan(
    plan: TaskPlan, new_tasks_raw: Any, known_hints: Collection[str], caller_task_id: int | None,
) -> ReplanResult:
    """Apply the task list ``new_tasks_raw`` (the tool's ``tasks`` argument) to ``plan``.

    Args:
        plan: The current plan.
        new_tasks_raw: The untrusted ``tasks`` argument.
        known_hints: Names of the tools and skills that exist.
        caller_task_id: The task whose agent called the tool, or ``None``.

    Returns:
        The new plan with its diff and tool result, or the refusal; never raises.
    """
    error = _refusal(plan, new_tasks_raw, caller_task_id)
    if error:
        return ReplanResult(False, plan, error)
    kept = tuple(_after_call(t, caller_task_id) for t in plan.tasks if t.status is not TaskStatus.PENDING
                 or t.id == caller_task_id)
    first_id = max((t.id for t in kept), default=0) + 1
    checked = validate_tasks(new_tasks_raw, first_id=first_id, kept={t.id: t.status for t in kept})
    if not checked.tasks:
        return ReplanResult(False, plan, _error("none of the tasks is usable", checked.notes))
    clean = sanitise(checked.tasks, known_hints)
    notes = list(checked.notes) + [f'task {s.task_id}: tool_hint "{s.hint}" names no tool or skill: removed.'
                                   for s in clean.stripped]
    if clean.verification_added is not None:
        notes.append(f"No task verifies the result: task {clean.verification_added.id} added to do so.")
    new_plan = dataclasses.replace(plan, tasks=kept + clean.tasks, replan_count=plan.replan_count + 1)
    text = _success_text(new_plan, len(clean.tasks), notes)
    return ReplanResult(True, new_plan, text, diff_tasks(plan.tasks, new_plan.tasks), tuple(notes),
                        clean.stripped, clean.verification_added)


def _refusal(plan: TaskPlan, raw: Any, caller: int | None) -> str:
    if not isinstance(raw, list):
        return _error(f"`tasks` must be a list of task objects, not {type(raw).__name__}")
    if not raw:
        return _error("the task list is empty. Give at least one task; "
                      "to finish the current task, call `complete_task` instead")
    if caller is not None and plan.task(caller) is None:
        return _error(f"there is no task {caller} in the plan")
    return ""


def _error(message: str, notes: tuple[str, ...] = ()) -> str:
    lines = [f"update_task_plan refused: {message}. The plan is unchanged."]
    lines.extend(f"- {note}" for note in notes)
    lines.append('Each task is {"id": N, "description": "...", "tool_hint": "tool or skill name", '
                 '"depends_on": [ids]}.')
    return "\n".join(lines)


def _after_call(task: Task, caller: int | None) -> Task:
    if task.id == caller and task.status not in COMPLETED:
        return dataclasses.replace(task, status=TaskStatus.REPLANNED)
    return task


def _success_text(plan: TaskPlan, added: int, notes: list[str]) -> str:
    lines = [f"Task plan updated ({added} new task(s)). Continue with the new plan.", "Plan:"]
    lines.extend(f"- {describe_task(t)}" for t in plan.tasks)
    if notes:
        lines.append("Repairs:")
        lines.extend(f"- {note}" for note in notes)
    text = "\n".join(lines)
    if plan.replan_count >= SOFT_REPLAN_CAP:
        text += "\n\n" + soft_cap_text(plan.replan_count)
    return text


def describe_task(task: Task) -> str:
    """One line for a model: ``4 [pending] Write the parser (tool: edit_file; after: 1, 2)``."""
    extras = []
    if task.tool_hint:
        extras.append(f"tool: {task.tool_hint}")
    if task.depends_on:
        extras.append("after: " + ", ".join(str(d) for d in task.depends_on))
    tail = f" ({'; '.join(extras)})" if extras else ""
    return f"{task.id} [{task.status.value}] {task.description}{tail}"
