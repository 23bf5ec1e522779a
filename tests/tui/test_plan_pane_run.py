"""The Plan pane during a run: statuses from the run's events, the ticking clock, replans, notices, progress."""

from __future__ import annotations

from ljtui.core.tasks.diff import TaskChange
from ljtui.core.tasks.events import (
    ReplannerDecided, RunFinished, TaskFinished, TaskPlanApproved, TaskPlanFallback, TaskPlanProposed,
    TaskPlanRejected, TaskPlanUpdated, ToolHintStripped,
)
from ljtui.core.tasks.plan import Task, TaskStatus
from tests.tui.conftest import AppFactory, notices, until
from tests.tui.plan_helpers import RUN, TASKS, answered, ask, pane, post, rows, screen_text, started

SIZE = (120, 40)


async def approved(pilot) -> None:
    """Approve the standard plan unchanged, as the engine would see it."""
    asked = await ask(pilot)
    await pilot.press("enter")
    await answered(pilot, asked)
    post(pilot.app, TaskPlanApproved(RUN))


async def test_statuses_follow_the_run_and_the_status_bar_counts(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await approved(pilot)
        await until(pilot, lambda: app.main_screen.status.tasks == (0, 4), "the progress in the status bar")
        post(app, started(TASKS[0]), TaskFinished(RUN, 1, TASKS[0].description, TaskStatus.DONE),
             started(TASKS[1]), TaskFinished(RUN, 2, TASKS[1].description, TaskStatus.FAILED))
        await until(pilot, lambda: app.main_screen.status.tasks == (2, 4), "two tasks finished")
        statuses = [r["status"] for r in pane(app).model.rows]
        assert statuses == ["done", "failed", "pending", "pending"]
        assert "tasks 2/4" in str(app.main_screen.status.render())
        text = screen_text(app)
        assert "✓ 1. Read the word counter" in text and "✗ 2. Add a --top option" in text
        assert "    read_file" in text and "    bash · after 2, 3" in text  # details under their task
        post(app, RunFinished(RUN, "failed", 0, 1))
        await until(pilot, lambda: app.main_screen.status.tasks is None, "the progress to leave the status bar")
        assert notices(app)[-1] == "Task plan finished: it failed (2/4 tasks finished, 1 failed, 0 replan(s))."


async def test_a_running_task_s_time_ticks_with_the_app_clock(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await approved(pilot)
        post(app, started(TASKS[0]))
        await until(pilot, lambda: "● 1. Read the word counter" in screen_text(app), "the task to run")
        assert "0:00" in screen_text(app)
        app.clock.advance(75)
        await until(pilot, lambda: "1:15" in screen_text(app), "the clock to tick")
        post(app, TaskFinished(RUN, 1, TASKS[0].description, TaskStatus.DONE))
        await until(pilot, lambda: "✓ 1. Read" in screen_text(app), "the task to finish")
        app.clock.advance(30)
        await pilot.pause()
        assert "1:15" in screen_text(app)  # a finished task keeps its time
        assert pane(app)._ticker is None


async def test_a_tick_repaints_only_the_task_lines(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await approved(pilot)
        post(app, started(TASKS[0]))
        await until(pilot, lambda: pane(app).model.running, "the task to run")
        await pilot.pause()
        layouts = []
        app.main_screen._refresh_layout = _counting(app.main_screen._refresh_layout, layouts)
        app.clock.advance(5)
        await until(pilot, lambda: "0:05" in screen_text(app), "the clock to tick")
        assert layouts == []


def _counting(method, calls: list):
    def wrapper(*args, **kwargs):
        calls.append(args)
        return method(*args, **kwargs)
    return wrapper


async def test_a_replan_counts_in_the_title_and_keeps_its_diff(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await approved(pilot)
        post(app, started(TASKS[0]), TaskFinished(RUN, 1, TASKS[0].description, TaskStatus.REPLANNED))
        new = Task(5, "Split the counter into a module", "edit_file", (1,))
        changed = TaskChange(TASKS[2], Task(3, "Write tests for --top and --json", "edit_file", (5,)))
        post(app, TaskPlanUpdated(RUN, 1, "the CLI needs a module first", (new,), (TASKS[1],), (changed,)))
        await until(pilot, lambda: pane(app).replans == 1, "the replan")
        assert pane(app).border_title == "Plan · F3 · replans 1/3"
        assert [i for i, _ in rows(app)] == [1, 3, 4, 5]
        await pilot.press("f3")  # the focused pane gets the width
        text = screen_text(app)
        assert "Replan 1/3: the CLI needs a module first" in text
        assert "+ 5. Split the counter into a module" in text and "- 2. Add a --top option" in text
        assert "~ 3. Write tests for --top → Write tests for --top and --json" in text
        post(app, TaskPlanUpdated(RUN, 2, "tests first", (Task(6, "Write the tests first"),), (), ()))
        await until(pilot, lambda: pane(app).replans == 2, "the second replan")
        assert pane(app).border_title == "Plan · F3 · replans 2/3"
        assert "Replan 1/3" not in screen_text(app) and "h: all 2 replans" in screen_text(app)
        await pilot.press("f3", "h")
        text = screen_text(app)
        assert "Replan 2/3: tests first" in text and "Replan 1/3: the CLI needs a module first" in text
        assert "○ 6. Write the tests first" not in text  # the history replaces the tasks
        await pilot.press("h")
        assert "○ 6. Write the tests first" in screen_text(app)


async def test_notices_for_fallback_stripped_hint_decision_and_finish(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        post(app, TaskPlanFallback(RUN, "the reply was not JSON"),
             TaskPlanProposed(RUN, (Task(1, "Do the whole request", "summon"),)),
             ToolHintStripped(RUN, 1, "summon"))
        await until(pilot, lambda: len(notices(app)) >= 3, "two notices")
        assert notices(app)[-2:] == [
            "The request could not be split into tasks (the reply was not JSON); the plan is one task: "
            "the whole request.",
            "Task 1: tool hint 'summon' names no known tool or skill; removed.",
        ]
        assert pane(app).model.rows[0]["tool_hint"] is None
        post(app, TaskPlanApproved(RUN), started(Task(1, "Do the whole request")),
             TaskFinished(RUN, 1, "Do the whole request", TaskStatus.FAILED),
             ReplannerDecided(RUN, 1, "retry", "a flaky network call"),
             started(Task(1, "Do the whole request")),
             TaskFinished(RUN, 1, "Do the whole request", TaskStatus.DONE), RunFinished(RUN, "done", 0, 0))
        await until(pilot, lambda: notices(app)[-1].startswith("Task plan finished"), "the run's end")
        assert notices(app)[-2:] == [
            "Task 1 failed; the replanner chose retry: a flaky network call",
            "Task plan finished: every task is done (1/1 tasks finished, 0 failed, 0 replan(s)).",
        ]
        assert "replanner: retry — a flaky network call" in screen_text(app)


async def test_a_rejected_plan_leaves_an_honest_empty_pane(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        asked = await ask(pilot)
        await pilot.press("escape")
        await answered(pilot, asked)
        post(app, TaskPlanRejected(RUN))
        await until(pilot, lambda: rows(app) == [], "the pane to empty")
        assert "The plan was rejected; nothing ran." in screen_text(app)
        assert app.main_screen.status.tasks is None
