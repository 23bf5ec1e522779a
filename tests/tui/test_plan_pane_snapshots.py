"""The Plan pane as a user sees it, at 80x24 and 120x40: approval, two tasks running, a replan, a failed task.

Review ``snapshot_report.html`` before running ``--snapshot-update``.
"""

from __future__ import annotations

import pytest

from ljtui.core.tasks.diff import TaskChange
from ljtui.core.tasks.events import ReplannerDecided, TaskFinished, TaskPlanApproved, TaskPlanUpdated
from ljtui.core.tasks.plan import Task, TaskStatus
from tests.tui.conftest import AppFactory, until
from tests.tui.plan_helpers import RUN, TASKS, answered, ask, pane, post, screen_text, started

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])

PARALLEL = (
    Task(1, "Read the word counter", "read_file"),
    Task(2, "Add a --top option to the CLI", "edit_file", (1,)),
    Task(3, "Document --top in the README", None, (1,)),
    Task(4, "Run the test suite", "bash", (2, 3)),
)


async def _running(pilot, task_id: int) -> None:
    await until(pilot, lambda: (pane(pilot.app).model.row(task_id) or {}).get("status") == "running",
                f"task {task_id} to run")


async def _approve(pilot, tasks=TASKS) -> None:
    from tests.tui.plan_helpers import plan_request

    asked = await ask(pilot, plan_request(tasks))
    await pilot.press("enter")
    await answered(pilot, asked)
    post(pilot.app, TaskPlanApproved(RUN))
    await pilot.press("f6")


async def _awaiting(pilot) -> None:
    await ask(pilot)
    await pilot.press("j")


async def _two_running(pilot) -> None:
    app = pilot.app
    await _approve(pilot, PARALLEL)
    await pilot.press("f3")  # the run is watched from the Plan pane, which the layout then gives the room
    post(app, started(PARALLEL[0]))
    await _running(pilot, 1)
    app.clock.advance(8)
    post(app, TaskFinished(RUN, 1, PARALLEL[0].description, TaskStatus.DONE), started(PARALLEL[1]))
    await _running(pilot, 2)
    app.clock.advance(5)
    post(app, started(PARALLEL[2]))
    await _running(pilot, 3)
    app.clock.advance(12)
    await until(pilot, lambda: "0:17" in screen_text(app) and "0:12" in screen_text(app), "the times to tick")


async def _replanned(pilot) -> None:
    app = pilot.app
    await _approve(pilot)
    post(app, started(TASKS[0]))
    await _running(pilot, 1)
    app.clock.advance(9)
    post(app, TaskFinished(RUN, 1, TASKS[0].description, TaskStatus.REPLANNED))
    new = Task(5, "Move counting into wordstats/top.py", "edit_file", (1,))
    changed = TaskChange(TASKS[2], Task(3, "Write tests for top.py", "edit_file", (5,)))
    post(app, TaskPlanUpdated(RUN, 1, "the CLI needs a module first", (new,), (TASKS[1],), (changed,)))
    await until(pilot, lambda: pane(app).replans == 1, "the replan")


async def _failed(pilot) -> None:
    app = pilot.app
    await _approve(pilot)
    post(app, started(TASKS[0]))
    await _running(pilot, 1)
    app.clock.advance(4)
    post(app, TaskFinished(RUN, 1, TASKS[0].description, TaskStatus.DONE), started(TASKS[1]))
    await _running(pilot, 2)
    app.clock.advance(31)
    post(app, TaskFinished(RUN, 2, TASKS[1].description, TaskStatus.FAILED),
         ReplannerDecided(RUN, 2, "replace", "argparse is not used; edit the click command instead"))
    await until(pilot, lambda: 2 in pane(app).model.decisions, "the replanner's decision")


@SIZES
def test_a_plan_awaiting_approval(snap_compare, make_app: AppFactory, size) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_awaiting)


@SIZES
def test_a_run_with_two_tasks_running(snap_compare, make_app: AppFactory, size) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_two_running)


@SIZES
def test_the_pane_after_a_replan(snap_compare, make_app: AppFactory, size) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_replanned)


@SIZES
def test_a_failed_task_with_the_replanner_s_decision(snap_compare, make_app: AppFactory, size) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_failed)


async def _editing(pilot) -> None:
    from ljtui.tui.widgets.plan_edit import TaskEditScreen

    await ask(pilot)
    await pilot.press("j", "e")
    await until(pilot, lambda: isinstance(pilot.app.screen, TaskEditScreen), "the edit to open")
    await pilot.press(*" and --json")


def test_a_task_edited_in_place(snap_compare, make_app: AppFactory) -> None:
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_editing)
