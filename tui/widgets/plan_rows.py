"""What the Plan pane holds: the task rows, the edits a human makes before approval, and replans.

Plain data, no Textual: the rows are the task dicts of the approval request
(``{id, description, tool_hint, depends_on, status}``), updated from the run's
events. Nothing here decides anything — core re-validates an edited list.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Iterable

Row = dict[str, Any]
"""One task: ``{id, description, tool_hint, depends_on, status}``."""

FINISHED = frozenset({"done", "failed", "skipped", "replanned"})
"""Statuses a task never leaves on its own (they count as progress)."""


@dataclass(frozen=True)
class ReplanEntry:
    """One applied replan, kept so it can be looked at after the run moved on.

    Attributes:
        count: which replan of the run it was.
        reason: why the task's agent replanned.
        added: new tasks.
        removed: tasks dropped.
        changed: ``(before, after)`` pairs of tasks kept under the same id.
    """

    count: int
    reason: str
    added: tuple[Row, ...] = ()
    removed: tuple[Row, ...] = ()
    changed: tuple[tuple[Row, Row], ...] = ()


def task_row(task: Any) -> Row:
    """A row from a task object of an event (its fields, statuses as plain strings)."""
    return {
        "id": int(task.id),
        "description": str(task.description),
        "tool_hint": task.tool_hint,
        "depends_on": [int(d) for d in task.depends_on],
        "status": str(getattr(task.status, "value", task.status)),
    }


@dataclass
class PlanRows:
    """The tasks shown, the selection, and the history of the run."""

    rows: list[Row] = field(default_factory=list)
    selected: int = 0
    proposed: list[Row] = field(default_factory=list)
    """The list as proposed, to tell whether the human changed it."""
    history: list[ReplanEntry] = field(default_factory=list)
    decisions: dict[int, str] = field(default_factory=dict)
    """The replanner's latest decision on each failed task, as a line."""

    def load(self, tasks: Iterable[Row]) -> None:
        """Show ``tasks`` (a proposed plan): everything else is forgotten."""
        self.rows = [copy.deepcopy(dict(t)) for t in tasks]
        for row in self.rows:
            row["depends_on"] = list(row.get("depends_on") or ())
            row.setdefault("tool_hint", None)
            row.setdefault("status", "pending")
        self.proposed = copy.deepcopy(self.rows)
        self.selected = 0
        self.history.clear()
        self.decisions.clear()

    @property
    def edited(self) -> list[Row] | None:
        """The list as the human left it, or ``None`` when it is as proposed."""
        return None if self.rows == self.proposed else copy.deepcopy(self.rows)

    @property
    def current(self) -> Row | None:
        return self.rows[self.selected] if self.rows else None

    def select(self, step: int) -> None:
        if self.rows:
            self.selected = max(0, min(len(self.rows) - 1, self.selected + step))

    def set_description(self, index: int, text: str) -> None:
        self.rows[index]["description"] = text

    def add_after_selected(self) -> int:
        """Insert an empty task after the selected one (id: highest + 1, no dependencies); its index."""
        new_id = max((int(r["id"]) for r in self.rows), default=0) + 1
        index = self.selected + 1 if self.rows else 0
        self.rows.insert(index, {"id": new_id, "description": "", "tool_hint": None, "depends_on": [],
                                 "status": "pending"})
        self.selected = index
        return index

    def delete(self, index: int) -> None:
        """Remove the task at ``index`` and its id from every other task's dependencies."""
        if not 0 <= index < len(self.rows):
            return
        gone = self.rows.pop(index)["id"]
        for row in self.rows:
            row["depends_on"] = [d for d in row["depends_on"] if d != gone]
        self.selected = max(0, min(self.selected, len(self.rows) - 1))

    def shift(self, step: int) -> None:
        """Move the selected task ``step`` places (the selection follows it)."""
        target = self.selected + step
        if not self.rows or not 0 <= target < len(self.rows):
            return
        rows = self.rows
        rows[self.selected], rows[target] = rows[target], rows[self.selected]
        self.selected = target

    # --- the run ------------------------------------------------------------------

    def row(self, task_id: int) -> Row | None:
        return next((r for r in self.rows if r["id"] == task_id), None)

    def set_status(self, task_id: int, status: str, description: str | None = None) -> None:
        """Task ``task_id`` is now ``status`` (added when the pane did not know it)."""
        row = self.row(task_id)
        if row is None:
            row = {"id": task_id, "description": description or "", "tool_hint": None, "depends_on": [],
                   "status": status}
            self.rows.append(row)
        row["status"] = status
        if description:
            row["description"] = description

    def replan(self, entry: ReplanEntry) -> None:
        """Apply a replan's diff to the rows and keep it in the history."""
        removed = {r["id"] for r in entry.removed}
        self.rows = [r for r in self.rows if r["id"] not in removed]
        for _before, after in entry.changed:
            row = self.row(after["id"])
            if row is not None:
                row.update({k: after[k] for k in ("description", "tool_hint", "depends_on")})
        known = {r["id"] for r in self.rows}
        self.rows += [dict(a) for a in entry.added if a["id"] not in known]
        self.selected = max(0, min(self.selected, len(self.rows) - 1))
        self.history.append(entry)

    @property
    def progress(self) -> tuple[int, int]:
        """``(finished, total)`` tasks."""
        return sum(r["status"] in FINISHED for r in self.rows), len(self.rows)

    @property
    def running(self) -> bool:
        return any(r["status"] == "running" for r in self.rows)
