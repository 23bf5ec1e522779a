"""Reading the decomposition reply (TASK-2, TASK-10) into a plan, never raising.

The reply should hold ``{"tasks": [{id, description, tool_hint?, depends_on[]}, ...]}``,
bare, in a fence or with prose around it. Three outcomes:

* ``plan``: 1 to :data:`~ljtui.core.tasks.validate.MAX_TASKS` tasks, validated,
  repaired and sanitised; fewer than :data:`~ljtui.core.tasks.validate.MIN_TASKS`
  are kept as proposed, with a note (a short plan is still a plan).
* ``empty``: ``{"tasks": []}``; planning ends early.
* ``fallback``: the reply could not be used; the plan is one task whose
  description is the goal, and ``reason`` says why (the caller emits
  ``task_plan_fallback``).

Only the model's own, finished answer is read (:mod:`ljtui.core.tasks.own_answer`):
an object the prompt already holds is an echo, so a reply that only repeats
its prompt falls back, and so does a reply cut off at its ``max_tokens``.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from enum import StrEnum

from ljtui.core.tasks.own_answer import ECHOED, PromptObjects, Reply, find_answer
from ljtui.core.tasks.plan import Task, TaskPlan
from ljtui.core.tasks.sanitise import StrippedHint, sanitise
from ljtui.core.tasks.validate import MAX_DESCRIPTION_CHARS, MIN_TASKS, clean_text, validate_tasks

TASKS_KEY = "tasks"
LIMIT_KEY = "provider.max_tokens"


class DecompositionKind(StrEnum):
    """Which outcome a decomposition had."""

    PLAN = "plan"
    EMPTY = "empty"
    FALLBACK = "fallback"


@dataclass(frozen=True)
class Decomposition:
    """What a decomposition reply became.

    Attributes:
        kind: ``plan``, ``empty`` or ``fallback``.
        plan: The plan (one task for a fallback); ``None`` when empty.
        reason: Why it fell back; empty otherwise.
        notes: Every repair made, one sentence each.
        stripped: Hints removed by the sanitiser (emit ``tool_hint_stripped`` for each).
        verification_added: The verification task the sanitiser appended, or ``None``.
    """

    kind: DecompositionKind
    plan: TaskPlan | None
    reason: str = ""
    notes: tuple[str, ...] = ()
    stripped: tuple[StrippedHint, ...] = ()
    verification_added: Task | None = None


def read_decomposition(reply: Reply, known_hints: Collection[str], goal: str, configured: int) -> Decomposition:
    """Turn the decomposition call's reply into a plan for ``goal``, as :func:`parse_decomposition` does; a
    reply cut off at its ``max_tokens`` falls back, the reason naming ``provider.max_tokens`` (``configured``)."""
    if reply.cut:
        return fallback(goal, cut_reason(reply.max_tokens, configured))
    return parse_decomposition(reply.text, known_hints, goal, reply.prompt)


def cut_reason(limit: int, configured: int) -> str:
    """Why a decomposition reply cut off at ``limit`` tokens was not read, with ``provider.max_tokens`` at
    ``configured``."""
    if limit >= configured:
        bound = f"{LIMIT_KEY} ({limit:,} tokens)"
    else:
        bound = f"the {limit:,} tokens a planning reply may take ({LIMIT_KEY} is {configured:,})"
    return f"cut off at max_tokens: the model's reply reached {bound} before it held a whole plan"


def parse_decomposition(text: str, known_hints: Collection[str], goal: str,
                        prompt: Collection[str] = ()) -> Decomposition:
    """Turn the model's decomposition reply into a plan for ``goal``.

    Args:
        text: The raw reply.
        known_hints: Names of the tools and skills that exist.
        goal: The user's goal; the fallback task's description.
        prompt: The texts the model was sent; an object they hold is not its answer, nor a task.

    Returns:
        The outcome; never raises.
    """
    objects = PromptObjects(prompt)
    found = find_answer(text, TASKS_KEY, objects)
    if found.value is None:
        return fallback(goal, f"{found.error}: {found.detail}")
    raw = found.value[TASKS_KEY]
    if not isinstance(raw, list):
        return fallback(goal, f'wrong shape: "{TASKS_KEY}" is {type(raw).__name__}, not a list')
    if not raw:
        return Decomposition(DecompositionKind.EMPTY, None)
    own = [t for t in raw if not (isinstance(t, dict) and objects.holds(t))]
    if not own:
        return fallback(goal, f"{ECHOED}: every task in the reply is one its prompt already holds (an example)")
    checked = validate_tasks(own)
    if not checked.tasks:
        return fallback(goal, f"wrong shape: none of the {len(raw)} tasks is usable", checked.notes)
    notes = list(checked.notes)
    if len(own) < len(raw):
        notes.append(f"{len(raw) - len(own)} task(s) dropped: a copy of an example the prompt holds.")
    if len(checked.tasks) < MIN_TASKS:
        notes.append(f"{len(checked.tasks)} task(s) proposed, fewer than {MIN_TASKS}: kept as proposed.")
    clean = sanitise(checked.tasks, known_hints)
    if clean.verification_added is not None:
        notes.append(f"No task verifies the result: task {clean.verification_added.id} added to do so.")
    return Decomposition(DecompositionKind.PLAN, TaskPlan(clean.tasks, goal), "", tuple(notes),
                         clean.stripped, clean.verification_added)


def fallback(goal: str, reason: str, notes: tuple[str, ...] = ()) -> Decomposition:
    """The one-task plan for ``goal``, with the ``reason`` planning fell back."""
    plan = TaskPlan((Task(1, _goal(goal) or "Carry out the request."),), goal)
    return Decomposition(DecompositionKind.FALLBACK, plan, reason, notes)


def _goal(goal: str) -> str:
    return clean_text(goal, MAX_DESCRIPTION_CHARS)[0]
