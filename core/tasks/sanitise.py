"""The sanitiser every proposed task list passes, initial plan and replan alike.

Two rules:

* A ``tool_hint`` that names neither a known tool nor a known skill is
  stripped and reported; one that differs from a known name only in letter
  case is corrected to it.
* When no task looks like verification, a verification task is appended that
  depends on all the others. A task looks like verification when its
  description starts with one of :data:`VERIFY_WORDS`, or when its hint is
  ``bash`` and one of those words appears anywhere in its description.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection
from dataclasses import dataclass

from ljtui.core.tasks.plan import Task

VERIFY_WORDS = ("verify", "verification", "test", "tests", "testing", "check", "checks", "validate")
"""Words that make a task a verification task (see the module's rule)."""
VERIFY_HINT = "bash"
"""The hint of a verification task, and the one that makes a mention of a verify word count."""
VERIFICATION_DESCRIPTION = "Verify the result: run the project's tests and checks and confirm the goal is met."
"""The description of the verification task the sanitiser appends."""

_VERIFY_START = re.compile(r"^\W*(?:%s)\b" % "|".join(VERIFY_WORDS), re.IGNORECASE)
_VERIFY_ANYWHERE = re.compile(r"\b(?:%s)\b" % "|".join(VERIFY_WORDS), re.IGNORECASE)


@dataclass(frozen=True)
class StrippedHint:
    """A hint that named no known tool or skill, removed from task ``task_id``."""

    task_id: int
    hint: str


@dataclass(frozen=True)
class Sanitised:
    """The tasks after sanitising.

    Attributes:
        tasks: The tasks, hints checked, a verification task appended when needed.
        stripped: One entry per hint removed (the caller emits ``tool_hint_stripped``).
        verification_added: The appended task, or ``None``.
    """

    tasks: tuple[Task, ...]
    stripped: tuple[StrippedHint, ...] = ()
    verification_added: Task | None = None


def is_verification(task: Task) -> bool:
    """Whether ``task`` looks like verification (see the module's rule)."""
    if _VERIFY_START.match(task.description):
        return True
    return (task.tool_hint or "").lower() == VERIFY_HINT and bool(_VERIFY_ANYWHERE.search(task.description))


def sanitise(tasks: tuple[Task, ...], known_hints: Collection[str], *, next_id: int | None = None) -> Sanitised:
    """Check the hints of ``tasks`` and add a verification task when none exists.

    Args:
        tasks: Tasks with unique ids.
        known_hints: Names of the tools and skills that exist.
        next_id: Id of an appended task; by default one more than the highest in ``tasks``.

    Returns:
        The sanitised tasks and what was changed.
    """
    canonical = {name.lower(): name for name in known_hints}
    checked: list[Task] = []
    stripped: list[StrippedHint] = []
    for task in tasks:
        if task.tool_hint is None:
            checked.append(task)
            continue
        name = canonical.get(task.tool_hint.lower())
        if name is None:
            stripped.append(StrippedHint(task.id, task.tool_hint))
        checked.append(dataclasses.replace(task, tool_hint=name))
    if not checked or any(is_verification(t) for t in checked):
        return Sanitised(tuple(checked), tuple(stripped))
    task_id = next_id if next_id is not None else max(t.id for t in checked) + 1
    hint = canonical.get(VERIFY_HINT)
    added = Task(task_id, VERIFICATION_DESCRIPTION, hint, tuple(t.id for t in checked))
    return Sanitised((*checked, added), tuple(stripped), added)
