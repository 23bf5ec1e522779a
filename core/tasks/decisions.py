"""The replanner's decision on a failed task (TASK-9): skip, retry or replace.

The replanner replies ``{"decision": "skip" | "retry" | "replace", "reason": "...",
"description": "new text, for replace"}`` (``action`` is accepted for
``decision``), bare, fenced or with prose around it. Only its own, finished
answer is read (:mod:`ljtui.core.tasks.own_answer`): not an object its prompt
holds, nor a reply cut off at its ``max_tokens``. At most
:data:`MAX_DECISIONS_PER_RUN` decisions are applied in one run; the failure
after that stops the run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from dataclasses import dataclass
from enum import StrEnum

from ljtui.core.tasks.own_answer import Reply, find_answer
from ljtui.core.tasks.plan import TaskPlan, TaskStatus, replace_task
from ljtui.core.tasks.validate import MAX_DESCRIPTION_CHARS, clean_text

MAX_DECISIONS_PER_RUN = 3
"""Failed-task decisions applied in one run before the run stops."""
MAX_REASON_CHARS = 500
"""A longer reason is cut to this many characters."""
DECISION_KEYS = ("decision", "action")


class DecisionKind(StrEnum):
    """What to do with a failed task."""

    SKIP = "skip"
    RETRY = "retry"
    REPLACE = "replace"


@dataclass(frozen=True)
class Decision:
    """A valid decision: ``description`` is set only for ``replace``."""

    kind: DecisionKind
    reason: str
    description: str | None = None


@dataclass(frozen=True)
class DecisionError:
    """A reply that holds no valid decision, and why."""

    message: str


def read_decision(reply: Reply) -> Decision | DecisionError:
    """Read the replanner call's reply as :func:`parse_decision` does; one cut off at its ``max_tokens`` is not
    read."""
    if reply.cut:
        return DecisionError(f"the reply was cut off at max_tokens ({reply.max_tokens:,} tokens)")
    return parse_decision(reply.text, reply.prompt)


def parse_decision(text: str, prompt: Collection[str] = ()) -> Decision | DecisionError:
    """Read the replanner's reply (an object ``prompt``, the texts it was sent, holds is not its answer); never
    raises."""
    found = find_answer(text, DECISION_KEYS[0], prompt)
    if found.value is None:
        alias = find_answer(text, DECISION_KEYS[1], prompt)
        found = alias if alias.value is not None else found
    if found.value is not None:
        key = next(k for k in DECISION_KEYS if k in found.value)
        return _decision(found.value[key], found.value)
    return DecisionError(f"no decision in the reply ({found.error}: {found.detail})")


def _decision(raw_kind: object, value: dict[str, object]) -> Decision | DecisionError:
    if not isinstance(raw_kind, str) or raw_kind.strip().lower() not in set(DecisionKind):
        allowed = ", ".join(k.value for k in DecisionKind)
        return DecisionError(f"the decision must be one of {allowed}, not {str(raw_kind)[:40]!r}")
    kind = DecisionKind(raw_kind.strip().lower())
    raw_reason = value.get("reason")
    reason = clean_text(raw_reason, MAX_REASON_CHARS)[0] if isinstance(raw_reason, str) else ""
    if kind is not DecisionKind.REPLACE:
        return Decision(kind, reason)
    raw_description = value.get("description")
    description = clean_text(raw_description, MAX_DESCRIPTION_CHARS)[0] if isinstance(raw_description, str) else ""
    if not description:
        return DecisionError("a replace decision needs a non-empty \"description\" for the new task")
    return Decision(kind, reason, description)


@dataclass(frozen=True)
class DecisionOutcome:
    """What applying a decision did.

    Attributes:
        plan: The plan after it (``decision_count`` counted when applied).
        applied: Whether the decision changed the plan.
        stop: True when the run must stop: the decisions of this run are used up.
        message: What happened, for the user and the log.
    """

    plan: TaskPlan
    applied: bool
    stop: bool
    message: str


def apply_decision(plan: TaskPlan, task_id: int, decision: Decision) -> DecisionOutcome:
    """Apply ``decision`` to the failed task ``task_id``.

    ``skip`` marks it skipped (its dependents may run); ``retry`` makes it
    pending again; ``replace`` gives it the new description and makes it
    pending. Once :data:`MAX_DECISIONS_PER_RUN` decisions were applied, nothing
    changes and ``stop`` is set.
    """
    task = plan.task(task_id)
    if task is None or task.status is not TaskStatus.FAILED:
        state = "not in the plan" if task is None else task.status.value
        return DecisionOutcome(plan, False, False, f"task {task_id} is {state}, not failed: no decision applied")
    if plan.decision_count >= MAX_DECISIONS_PER_RUN:
        return DecisionOutcome(plan, False, True, stop_message(task_id, plan.decision_count))
    if decision.kind is DecisionKind.SKIP:
        new = replace_task(plan, task_id, status=TaskStatus.SKIPPED)
    elif decision.kind is DecisionKind.RETRY:
        new = replace_task(plan, task_id, status=TaskStatus.PENDING)
    else:
        new = replace_task(plan, task_id, status=TaskStatus.PENDING, description=decision.description)
    new = dataclasses.replace(new, decision_count=plan.decision_count + 1)
    message = f"task {task_id}: {decision.kind.value}" + (f" ({decision.reason})" if decision.reason else "")
    return DecisionOutcome(new, True, False, message)


def stop_message(task_id: int, decisions: int) -> str:
    """Why the run stops when task ``task_id`` fails after ``decisions`` decisions."""
    return (f"The run stops: task {task_id} failed and the replanner has already decided "
            f"{decisions} time(s) in this run (at most {MAX_DECISIONS_PER_RUN}).")
