"""What the task-plan agents are told: the decomposition call, the replanner, and each task's agent."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from ljtui.core.tasks.plan import Task, TaskPlan, TaskStatus
from ljtui.core.tasks.replan import SOFT_REPLAN_CAP, soft_cap_text
from ljtui.core.tasks.validate import MAX_TASKS, MIN_TASKS

DECOMPOSE_SYSTEM = f"""You split a software change request into a short plan of tasks for coding agents
working in one repository. Reply with one JSON object and nothing else:

{{"tasks": [{{"id": 1, "description": "...", "tool_hint": "read_file", "depends_on": []}}, ...]}}

Rules:
- {MIN_TASKS} to {MAX_TASKS} tasks, each one concrete step a single agent can finish (read, change, run).
- "depends_on" lists the ids of tasks that must be done first; independent tasks may run at the same time.
- "tool_hint" (optional) names the tool or skill the task mostly needs; use only these names: {{hints}}.
- The last task verifies the result (runs the tests or the program).
- If the request needs no change at all, reply with an empty "tasks" list."""
"""System prompt of the decomposition call (no tools); ``{hints}`` is filled in. It shows no answer the model
could copy as it is: a JSON object the prompt holds is not read as the model's answer
(:mod:`ljtui.core.tasks.own_answer`)."""

REPLANNER_SYSTEM = """A task of an approved plan failed. Decide what the run does next. Reply with one JSON
object and nothing else:

{"decision": "skip" | "retry" | "replace", "reason": "...", "description": "the new task (replace only)"}

skip: the rest of the plan can go on without it. retry: the failure looks transient. replace: the
task as written cannot work; give a better one."""
"""System prompt of the replanner call (no tools)."""

TASK_TAIL = """You are the agent for ONE task of an approved plan. Work only on your task; other tasks are
done by other agents, some at the same time as you. When your task is done, call
`complete_task(task_id={task_id})` (or end your turn with a short summary). If the plan itself is wrong,
call `update_task_plan` with the revised list of the tasks still to do."""
"""Added after the session's system prompt for a task's agent."""

MAX_RESULT_CHARS = 1500
"""Characters of a completed task's summary passed on to the tasks after it."""
MAX_FILES_LISTED = 30
"""Files of one completed task named to the tasks after it (the rest are counted)."""


@dataclass
class RunResults:
    """What the done tasks of a run leave for the tasks after them.

    Attributes:
        summaries: Each done task's last words, by task id.
        files: The files each task's agent wrote, by task id.
    """

    summaries: dict[int, str] = field(default_factory=dict)
    files: dict[int, tuple[str, ...]] = field(default_factory=dict)


def decompose_system(hints: Collection[str]) -> str:
    """The decomposition prompt listing the tool and skill names a ``tool_hint`` may use."""
    return DECOMPOSE_SYSTEM.replace("{hints}", ", ".join(sorted(hints)))


def task_message(plan: TaskPlan, task: Task, results: RunResults | Mapping[int, str]) -> str:
    """The first user message of ``task``'s agent: the goal, the plan, its task, what done tasks said and
    which files they wrote (what the run's record in ``.agent/workspace/`` holds: the model's tools never read
    ``.agent/``, so it is given here)."""
    found = results if isinstance(results, RunResults) else RunResults(dict(results))
    lines = [f"Goal: {plan.goal}", "", "The plan:"]
    lines += [f"  {t.id}. [{t.status.value}] {t.description}" for t in plan.tasks]
    if plan.replan_count:
        lines += ["", f"The plan has been replanned {plan.replan_count} time(s) in this run."]
        if plan.replan_count >= SOFT_REPLAN_CAP:
            lines.append(soft_cap_text(plan.replan_count))
    lines += ["", f"Your task: {task.id}. {task.description}"]
    if task.tool_hint:
        lines.append(f"Suggested tool: {task.tool_hint}")
    done = [t.id for t in plan.tasks if t.status is TaskStatus.DONE and t.id in found.summaries]
    if done:
        lines += ["", "What the finished tasks reported:"]
        for tid in done:
            lines.append(f"  task {tid}: {found.summaries[tid][:MAX_RESULT_CHARS]}")
            if found.files.get(tid):
                lines.append(f"    files it wrote: {_files(found.files[tid])}")
    return "\n".join(lines)


def _files(paths: Sequence[str]) -> str:
    shown = ", ".join(paths[:MAX_FILES_LISTED])
    more = len(paths) - MAX_FILES_LISTED
    return shown + (f" and {more} more" if more > 0 else "")


def replanner_message(plan: TaskPlan, task: Task, error: str) -> str:
    """The replanner's question about failed ``task``."""
    listing = "\n".join(f"  {t.id}. [{t.status.value}] {t.description}" for t in plan.tasks)
    return f"Goal: {plan.goal}\n\nThe plan:\n{listing}\n\nTask {task.id} failed: {error}"


def plan_lines(tasks: Sequence[Task]) -> tuple[str, ...]:
    """One line per task for an approval prompt: id, description, hint and dependencies."""
    out = []
    for t in tasks:
        extra = [f"tool: {t.tool_hint}"] if t.tool_hint else []
        if t.depends_on:
            extra.append("after " + ", ".join(map(str, t.depends_on)))
        out.append(f"{t.id}. {t.description}" + (f"  ({'; '.join(extra)})" if extra else ""))
    return tuple(out)
