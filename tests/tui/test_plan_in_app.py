"""/plan in the app: the engine proposes, the Plan pane approves by keyboard, the run is watched to its end."""

from __future__ import annotations

from pathlib import Path

from ljtui.tui.widgets.plan_pane import PlanPane
from ljtui.tui.screens.dialog import ApprovalDialog
from tests.tui.conftest import AppFactory, notices, until

SIZE = (120, 40)


async def test_a_plan_is_approved_in_the_pane_then_runs_with_its_questions_naming_the_task(
        make_app: AppFactory, git_repo: Path) -> None:
    app = make_app("plan_run.yaml")
    async with app.run_test(size=SIZE) as pilot:
        assert app.check_action("run_action", ("plan.edit",)) is False, "no plan waits: its keys are off"
        await pilot.press(*"/plan make greet friendlier", "enter")
        pane = app.main_screen.query_one(PlanPane)
        await until(pilot, lambda: pane.approving, "the plan in the Plan pane")
        assert app.check_action("run_action", ("plan.edit",)) is True
        assert app.check_action("run_action", ("plan.history",)) is True
        assert (git_repo / "app.py").read_text() == "def greet(name):\n    return 'hello ' + name\n", \
            "nothing runs before approval"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ApprovalDialog), "task 3 asking to edit")
        assert app.screen.request.title == "Task 3: Edit app.py?"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ApprovalDialog), "task 4 asking to run its command")
        assert app.screen.request.title.startswith("Task 4: ")
        await pilot.press("enter")
        await until(pilot, lambda: any(n.startswith("Task plan finished") for n in notices(app)), "the run's end")
        assert (git_repo / "app.py").read_text() == "def greet(name):\n    return f'hello, {name}!'\n"
        assert not pane.approving and app.check_action("run_action", ("plan.approve",)) is False


async def test_escape_in_the_pane_rejects_the_plan_and_nothing_runs(make_app: AppFactory, git_repo: Path) -> None:
    app = make_app("plan_run.yaml")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/plan make greet friendlier", "enter")
        pane = app.main_screen.query_one(PlanPane)
        await until(pilot, lambda: pane.approving, "the plan in the Plan pane")
        await pilot.press("escape")
        await until(pilot, lambda: not app.bridge.busy, "the run to end")
        assert (git_repo / "app.py").read_text() == "def greet(name):\n    return 'hello ' + name\n"
        assert not (git_repo / ".agent" / "journal").exists() or not any((git_repo / ".agent" / "journal").iterdir())


async def test_a_skill_typed_as_a_command_proposes_its_steps_as_the_plan(make_app: AppFactory) -> None:
    app = make_app("plan_run.yaml")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "fix-with-test" in app.skill_names, "the skills to be read")
        await pilot.press(*"/fix-with-test greet is rude", "enter")
        pane = app.main_screen.query_one(PlanPane)
        await until(pilot, lambda: pane.approving, "the skill's plan in the Plan pane")
        assert any(n.startswith("Task plan from the skill 'fix-with-test' (bundled)") for n in notices(app))
        await pilot.press("escape")
        await until(pilot, lambda: not app.bridge.busy, "the rejected run to end")
