"""The Plan pane: a proposed task plan approved and edited by keyboard, then the run, live.

Approval: :meth:`PlanPane.ask` shows the tasks of a ``task_plan`` request,
takes the focus (as if the user moved there) and waits for Enter (approve,
with the edited list or ``None``) or Escape (reject). The pane only edits;
core re-validates the list and decides. Live: the run's events set each
task's status, its elapsed time ticks once a second (a repaint, not a
layout), and each replan is kept as a history entry (``h`` shows them all).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import _time, events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.geometry import Region
from textual.timer import Timer
from textual.widgets import Static

from ljtui.tui.commands import ACTIONS, PLAN
from ljtui.tui.widgets.empty_pane import EmptyState
from ljtui.tui.widgets.plan_lines import PlanLines
from ljtui.tui.widgets.plan_render import HEAD_CELLS, PlanStyles, entry_lines, one_line, task_lines
from ljtui.tui.widgets.plan_rows import PlanRows, ReplanEntry, Row, task_row

if TYPE_CHECKING:
    from ljtui.core.approval import ApprovalRequest
    from ljtui.core.tasks import events as T

EMPTY_TEXT = "No task plan yet. Multi-step requests show their tasks here for approval before anything runs."
REJECTED_TEXT = "The plan was rejected; nothing ran."
TITLE = "Plan"
REPLAN_LIMIT = 3
"""Replans after which the model is asked to stop replanning (core's soft cap), shown as ``replans N/3``."""
TICK_SECONDS = 1.0
"""How often running tasks' elapsed times are redrawn."""
APPROVE_SUBTITLE = "Enter run · Esc reject"
APPROVE_WRITES_SUBTITLE = "Enter run · w allow writes · Esc reject"
EDIT_SUBTITLE = "Enter save the task · Esc cancel the edit"
"""The border's keys when the request also offers to run with file writes allowed."""
HISTORY_SUBTITLE = "replan history · h: tasks"
STYLE_NAMES = ("pending", "running", "done", "failed", "skipped", "replanned", "selected", "muted", "heading",
               "added", "removed", "changed")

KEY_HINTS = ((("plan.next", "plan.prev"), "select"), (("plan.edit",), "edit"), (("plan.add",), "add"),
             (("plan.delete",), "delete"), (("plan.move_down", "plan.move_up"), "move"))
"""The keys named inside the pane while a plan waits (Enter and Escape are in its border)."""

Answer = tuple[str, "list[Row] | None"]
"""The chosen id and the edited task list (``None``: as proposed)."""


class PlanPane(VerticalScroll, can_focus=True):
    """The tasks of a plan: proposed (editable), then running, with the replan history."""

    BORDER_TITLE = TITLE
    ALLOW_MAXIMIZE = True
    BINDINGS = ACTIONS.bindings(PLAN)

    COMPONENT_CLASSES = {f"plan-pane--{name}" for name in STYLE_NAMES}

    DEFAULT_CSS = """
    PlanPane EmptyState { display: none; }
    PlanPane PlanLines, PlanPane .plan-keys { padding: 0 1; }
    PlanPane.-empty EmptyState { display: block; }
    PlanPane.-empty PlanLines, PlanPane .plan-keys { display: none; }
    PlanPane.-approving .plan-keys { display: block; }
    PlanPane #plan-history { display: none; margin-top: 1; }
    PlanPane.-replanned #plan-history { display: block; }
    PlanPane.-history #plan-tasks { display: none; }
    PlanPane.-history #plan-history { margin-top: 0; }
    PlanPane .plan-keys { color: $text-muted; height: auto; }
    PlanPane > .plan-pane--pending { color: $task-pending; }
    PlanPane > .plan-pane--running { color: $task-running; text-style: bold; }
    PlanPane > .plan-pane--done { color: $task-done; }
    PlanPane > .plan-pane--failed { color: $task-failed; text-style: bold; }
    PlanPane > .plan-pane--skipped { color: $text-muted; }
    PlanPane > .plan-pane--replanned { color: $warning; }
    PlanPane > .plan-pane--selected { background: $primary-muted; text-style: bold; }
    PlanPane > .plan-pane--muted { color: $text-muted; }
    PlanPane > .plan-pane--heading { color: $text; text-style: bold; }
    PlanPane > .plan-pane--added { color: $diff-added; }
    PlanPane > .plan-pane--removed { color: $diff-removed; }
    PlanPane > .plan-pane--changed { color: $warning; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_class("-empty")
        self.model = PlanRows()
        self.run_id = ""
        self.replans = 0
        self._request: ApprovalRequest | None = None
        self._answer: asyncio.Future[Answer] | None = None
        self._asked_at = 0.0
        self._started: dict[int, float] = {}
        self._ended: dict[int, float] = {}
        self._ticker: Timer | None = None
        self._style_cache: PlanStyles | None = None

    def compose(self) -> ComposeResult:
        yield EmptyState(EMPTY_TEXT, id="plan-empty")
        yield Static(Content(""), classes="plan-keys")
        yield PlanLines(self._task_lines, id="plan-tasks")
        yield PlanLines(self._history_lines, id="plan-history")

    # --- approval -------------------------------------------------------------------

    @property
    def approving(self) -> bool:
        """True while a proposed plan waits for Enter or Escape."""
        return self._answer is not None and not self._answer.done()

    async def ask(self, request: ApprovalRequest) -> Answer:
        """Show a ``task_plan`` request's tasks, take the focus, and wait for the human's answer."""
        self._answer = asyncio.get_running_loop().create_future()
        self._request = request
        self.run_id = request.subject
        self._reset(request.tasks or ())
        self.set_class(True, "-approving")
        self.app.refresh_bindings()
        self.query_one(".plan-keys", Static).update(Content(self._key_hint()))
        self._asked_at = _time.get_time()
        screen: Any = self.screen
        if hasattr(screen, "content_changed"):
            screen.content_changed("plan")
            screen.action_focus_pane("plan")
        self._redraw()
        try:
            return await self._answer
        finally:
            self._answer = None
            self._request = None
            self.set_class(False, "-approving")
            self.app.refresh_bindings()
            self._redraw()
            if hasattr(screen, "action_focus_pane") and self.has_focus_within:
                screen.action_focus_pane("prompt")  # answered: the focus goes back to where text is typed

    def _answer_with(self, approve: bool, key: str = "enter") -> None:
        request, answer = self._request, self._answer
        if request is None or answer is None or answer.done():
            return
        if approve:
            offered = next((c.id for c in request.choices if c.key == key), None)
            if offered is None and key != "enter":
                return  # this request does not offer that answer
            chosen = offered or next((c.id for c in request.choices if c.id != request.safe), request.safe)
            answer.set_result((chosen, self.model.edited))
        else:
            answer.set_result((request.safe, None))

    def on_key(self, event: events.Key) -> None:
        """A key typed before the plan was shown is not an answer to it."""
        if self.approving and event.time < self._asked_at:
            event.stop()
            event.prevent_default()

    def on_unmount(self) -> None:
        """Quitting answers with the safe choice."""
        self._answer_with(False)

    def action_approve(self) -> None:
        self._answer_with(True)

    def action_approve_writes(self) -> None:
        """Run the plan and let its tasks write without asking, when the request offers that."""
        self._answer_with(True, "w")

    def action_reject(self) -> bool:
        """Reject the proposed plan; False when none is waiting (Escape then means what it means elsewhere)."""
        if not self.approving:
            return False
        self._answer_with(False)
        return True

    def action_select(self, step: int) -> None:
        self.model.select(step)
        self._redraw(layout=False)
        self._show_selected()

    def action_shift(self, step: int) -> None:
        if self.approving:
            self.model.shift(step)
            self._redraw()
            self._show_selected()

    def action_delete(self) -> None:
        if self.approving and self.model.rows:
            self.model.delete(self.model.selected)
            self._redraw()

    def action_add(self) -> None:
        if self.approving:
            index = self.model.add_after_selected()
            self._redraw()
            self.call_after_refresh(self._edit, index, True)

    def action_edit(self) -> None:
        if self.approving and self.model.rows:
            self._edit(self.model.selected, False)

    def _edit(self, index: int, new: bool) -> None:
        """Lay an input over task ``index``'s line; an emptied or cancelled new task is dropped."""
        from ljtui.tui.widgets.plan_edit import TaskEditScreen

        if not self.approving or not 0 <= index < len(self.model.rows):
            return
        row = self.model.rows[index]
        tasks = self.query_one("#plan-tasks", PlanLines).content_region
        top = tasks.y + self._line_of(index)
        start = tasks.x + HEAD_CELLS + len(f"{row['id']}. ")
        place = Region(start, top, max(1, tasks.right - start), 1)

        def done(text: str | None) -> None:
            self._update_titles()
            if not self.approving or row not in self.model.rows:
                return
            at = self.model.rows.index(row)
            if text is not None and text.strip():
                self.model.set_description(at, " ".join(text.split()))
            elif new and not row["description"]:
                self.model.delete(at)
            self._redraw()

        self.app.push_screen(TaskEditScreen(one_line(row["description"]), place), done)
        self.call_after_refresh(self._update_titles)

    def _line_of(self, index: int) -> int:
        """The line of task ``index`` in the task list."""
        lines = task_lines(self.model.rows[:index], width=1, styles=PlanStyles(), selected=None,
                           elapsed={}, decisions=self.model.decisions)
        return len(lines)

    def _show_selected(self) -> None:
        tasks = self.query_one("#plan-tasks", PlanLines)
        line = self._line_of(self.model.selected)
        self.call_after_refresh(lambda: self.scroll_to_region(
            Region(0, tasks.virtual_region.y + line, 1, 1), animate=False, immediate=True))

    def action_toggle_history(self) -> None:
        if self.model.history:
            self.toggle_class("-history")
            self._update_titles()

    # --- the run --------------------------------------------------------------------

    def show_event(self, event: Any) -> None:
        """Follow one task-plan event of the run."""
        from ljtui.core.tasks import events as T  # the first frame does not need the task model

        now = self._now()
        match event:
            case T.TaskPlanProposed(run_id=run_id, tasks=tasks) if not self.approving:
                self.run_id = run_id
                self._reset([task_row(t) for t in tasks])
            case T.TaskPlanApproved(run_id=run_id):
                self.run_id = run_id
            case T.TaskPlanRejected():
                self._reset(())
                self.query_one("#plan-empty", EmptyState).update(Content(REJECTED_TEXT))
            case T.TaskStarted(task_id=task_id, description=description):
                self.model.set_status(task_id, "running", description)
                self._started[task_id] = now
                self._ended.pop(task_id, None)
                self._start_ticking()
            case T.TaskFinished(task_id=task_id, description=description, status=status):
                self.model.set_status(task_id, str(getattr(status, "value", status)), description)
                if task_id in self._started:
                    self._ended[task_id] = now
                if not self.model.running:
                    self._stop_ticking()
            case T.TaskPlanUpdated():
                self._replanned(event)
            case T.ToolHintStripped(task_id=task_id, hint=hint):
                row = self.model.row(task_id)
                if row is not None and row.get("tool_hint") == hint:
                    row["tool_hint"] = None
            case T.ReplannerDecided(task_id=task_id, decision=decision, reason=reason):
                self.model.decisions[task_id] = f"replanner: {decision} — {reason}"
            case T.RunFinished():
                self._stop_ticking()
        self._redraw()

    def _replanned(self, event: T.TaskPlanUpdated) -> None:
        self.replans = event.replan_count
        self.model.replan(ReplanEntry(
            event.replan_count, event.reason,
            tuple(task_row(t) for t in event.added), tuple(task_row(t) for t in event.removed),
            tuple((task_row(c.before), task_row(c.after)) for c in event.changed),
        ))
        self.set_class(True, "-replanned")
        self.call_after_refresh(self.scroll_end, animate=False, immediate=True)  # the new diff in view

    @property
    def progress(self) -> tuple[int, int] | None:
        """``(finished, total)`` tasks of the run, or ``None`` when no run is shown."""
        return self.model.progress if self.model.rows and not self.approving else None

    def _reset(self, tasks: Any) -> None:
        self.model.load(tasks)
        self.replans = 0
        self._started.clear()
        self._ended.clear()
        self._stop_ticking()
        self.set_class(False, "-replanned", "-history")
        self.set_class(not self.model.rows, "-empty")

    def _now(self) -> float:
        clock = getattr(self.app, "clock", None)
        return clock.monotonic() if clock is not None else _time.get_time()

    def _start_ticking(self) -> None:
        if self._ticker is None:
            self._ticker = self.set_interval(TICK_SECONDS, self._tick, name="plan-clock")

    def _stop_ticking(self) -> None:
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    def _tick(self) -> None:
        """Repaint the task lines (their count is unchanged: no layout)."""
        self.query_one("#plan-tasks", PlanLines).refresh()
        if not self.model.running:
            self._stop_ticking()

    # --- drawing ----------------------------------------------------------------

    def _styles(self) -> PlanStyles:
        """The theme's styles, looked up once per style change (not on every tick)."""
        if self._style_cache is None:
            self._style_cache = PlanStyles({name: self.get_component_rich_style(f"plan-pane--{name}")
                                            for name in STYLE_NAMES})
        return self._style_cache

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._style_cache = None

    def _elapsed(self) -> dict[int, float]:
        now = self._now()
        return {task_id: self._ended.get(task_id, now) - start for task_id, start in self._started.items()}

    def _task_lines(self, width: int) -> list[Text]:
        return task_lines(self.model.rows, width=width, styles=self._styles(),
                          selected=self.model.selected if self.approving else None,
                          elapsed=self._elapsed(), decisions=self.model.decisions)

    def _history_lines(self, width: int) -> list[Text]:
        entries = self.model.history if self.has_class("-history") else self.model.history[-1:]
        lines: list[Text] = []
        for entry in reversed(entries):
            lines += entry_lines(entry, width=width, styles=self._styles(), limit=REPLAN_LIMIT)
        if not self.has_class("-history") and len(self.model.history) > 1:
            lines.append(Text(f"h: all {len(self.model.history)} replans", style=self._styles()["muted"]))
        return lines

    def _redraw(self, layout: bool = True) -> None:
        for lines in self.query(PlanLines):
            lines.refresh(layout=layout)
        self._update_titles()

    def _update_titles(self) -> None:
        action = ACTIONS.get("focus.plan")
        key = action.keys.split(",")[0].upper() if action is not None and action.keys else ""
        title = f"{TITLE} · {key}" if key else TITLE
        if self.replans:
            title += f" · replans {self.replans}/{REPLAN_LIMIT}"
        self.border_title = Content(title)
        if self.approving and type(self.app.screen).__name__ == "TaskEditScreen":  # its Enter and Escape
            subtitle = EDIT_SUBTITLE
        elif self.approving:
            offers_writes = self._request is not None and any(c.key == "w" for c in self._request.choices)
            subtitle = APPROVE_WRITES_SUBTITLE if offers_writes else APPROVE_SUBTITLE
        elif self.has_class("-history"):
            subtitle = HISTORY_SUBTITLE
        else:
            subtitle = "{}/{} finished".format(*self.model.progress) if self.model.rows else ""
        self.border_subtitle = Content(subtitle)

    def _key_hint(self) -> str:
        """The pane's keys during approval, after the user's keymap: ``j/k select · e edit …``."""
        config = getattr(self.app, "config", None)
        keymap = config.ui.keymap if config is not None else {}

        def key(action_id: str) -> str:
            action = ACTIONS.get(action_id)
            keys = keymap.get(action_id, action.keys if action is not None else "")
            return keys.split(",")[0].strip()

        return " · ".join(f"{'/'.join(key(a) for a in ids)} {word}" for ids, word in KEY_HINTS)
