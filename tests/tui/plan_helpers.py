"""Driving the Plan pane in tests: a task_plan request answered through the app's approver, and run events."""

from __future__ import annotations

from typing import Any

from ljtui.core.approval import ApprovalRequest, Choice, Decision
from ljtui.core.tasks.events import TaskStarted
from ljtui.core.tasks.plan import Task, task_to_dict
from ljtui.tui.messages import EngineEventPosted
from ljtui.tui.widgets.plan_pane import PlanPane
from tests.tui.conftest import until

RUN = "run-1"

TASKS = (
    Task(1, "Read the word counter", "read_file"),
    Task(2, "Add a --top option to the CLI", "edit_file", (1,)),
    Task(3, "Write tests for --top", "edit_file", (2,)),
    Task(4, "Run the test suite", "bash", (2, 3)),
)


def plan_request(tasks: tuple[Task, ...] = TASKS, run_id: str = RUN) -> ApprovalRequest:
    """The request core sends for a proposed plan."""
    return ApprovalRequest(
        kind="task_plan", title="Run this plan?",
        lines=tuple(f"{t.id}. {t.description}" for t in tasks),
        choices=(Choice("approve", "Run it", "enter"), Choice("reject", "Reject", "escape")),
        safe="reject", subject=run_id, tasks=tuple(task_to_dict(t) for t in tasks),
    )


def pane(app) -> PlanPane:
    return app.main_screen.query_one(PlanPane)


class Asked:
    """A task_plan request awaited in a worker, as the engine awaits it."""

    def __init__(self, app, request: ApprovalRequest) -> None:
        self.decision: Decision | None = None
        self.request = request

        async def decide() -> None:
            self.decision = await app.approver.decide(request)

        self.worker = app.run_worker(decide(), name="ask-plan", group="engine", exit_on_error=False)


async def ask(pilot, request: ApprovalRequest | None = None) -> Asked:
    """Send a plan for approval and wait until the pane shows it with the focus."""
    asked = Asked(pilot.app, request or plan_request())
    await until(pilot, lambda: pane(pilot.app).approving and pilot.app.focused is pane(pilot.app),
                "the Plan pane to ask")
    return asked


async def answered(pilot, asked: Asked) -> Decision:
    await until(pilot, lambda: asked.decision is not None, "the plan's decision")
    assert asked.decision is not None
    return asked.decision


def post(app, *events: Any) -> None:
    for event in events:
        app.post_message(EngineEventPosted(event))


def started(task: Task, run_id: str = RUN) -> TaskStarted:
    return TaskStarted(run_id, task.id, task.description)


def rows(app) -> list[tuple[int, str]]:
    """``(id, description)`` of each task in the pane."""
    return [(r["id"], r["description"]) for r in pane(app).model.rows]


def screen_text(app) -> str:
    """The screen as drawn now (widgets not repainted since show what they showed), as plain text."""
    import io

    from rich.console import Console

    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True, legacy_windows=False,
                      safe_box=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()
