"""``/cost`` after real scripted sessions: a task plan's tasks and a gate run, each with its calls' tokens, cost
(when the model has a price) and time; the status bar's session cost."""

from __future__ import annotations

from pathlib import Path


from ljtui.tui.screens.dialog import ApprovalDialog
from ljtui.tui.widgets.plan_pane import PlanPane
from tests.core.gates.scripted import GATE
from tests.tui.conftest import AppFactory, notices, settle, until
from tests.tui.test_gate_status_in_app import TURNS, answer_every_dialog, gated_app

SIZE = (160, 50)
PRICED = {"provider.prices": {"scripted": {"input": 3.0, "output": 15.0}}}
"""The scripted model priced as the user's config would price it."""
TITLE = "Tokens, cost and time since ljtui started"


def _listings(app):  # type: ignore[no-untyped-def]
    """The ``/cost`` listings in the Conversation pane, oldest first."""
    from ljtui.tui.widgets.plain_collapsible import PlainCollapsible

    return [c for c in app.main_screen.conversation.query(PlainCollapsible) if c.title == TITLE]


async def _cost(pilot) -> list[str]:  # type: ignore[no-untyped-def]
    """Type ``/cost``; the lines of the listing it shows."""
    from textual.widgets import Static

    await pilot.press(*"/cost", "enter")
    await until(pilot, lambda: bool(_listings(pilot.app)), "the /cost listing")
    [body] = [str(s.render()) for s in _listings(pilot.app)[-1].query(Static) if "model call" in str(s.render())]
    return body.splitlines()


async def test_cost_lists_each_call_and_each_task_of_a_plan_run(make_app: AppFactory, git_repo: Path) -> None:
    app = make_app("plan_run.yaml", **PRICED)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/plan make greet friendlier", "enter")
        pane = app.main_screen.query_one(PlanPane)
        await until(pilot, lambda: pane.approving, "the plan in the Plan pane")
        await pilot.press("enter")
        for _ in range(2):  # task 3's edit, task 4's command
            await until(pilot, lambda: isinstance(app.screen, ApprovalDialog), "a task asking")
            await pilot.press("enter")
        await until(pilot, lambda: any(n.startswith("Task plan finished") for n in notices(app)), "the run's end")
        assert await answer_every_dialog(pilot) in ([], ["playbook_offer"])
        lines = await _cost(pilot)
        assert lines[0].startswith("9 model calls: ") and "cost $" in lines[0], lines
        calls = lines[lines.index("Model calls:") + 2:lines.index("Tasks:") - 1]
        assert sorted(line.split()[0] for line in calls) == ["decompose", *["task"] * 8]
        assert all(line.split()[-2].startswith("$") for line in calls), "every call priced"
        tasks = lines[lines.index("Tasks:") + 2:]
        for number, name in enumerate(("Read app.py", "Read README.md", "Make greet friendlier", "Run the tests"), 1):
            [row] = [line for line in tasks if line.startswith(f"{number}. {name}")]
            assert row.split()[-1] == "done" and row.split()[-6] == "2", row  # two model calls each
        assert "$" in str(app.main_screen.status.render()), "the session's cost in the status bar"


async def test_cost_lists_the_gate_run_and_says_when_the_model_has_no_price(git_repo: Path,
                                                                          make_app: AppFactory) -> None:
    app = gated_app(git_repo, make_app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"make greet friendlier", "enter")
        await answer_every_dialog(pilot)
        await settle(pilot)
        lines = await _cost(pilot)
        assert lines[0].startswith(f"{len(TURNS)} model calls: ") and "cost —" in lines[0], lines
        runs = lines[lines.index("Gate runs:") + 1:]
        [row] = [line for line in runs if line.startswith(f"{GATE} L2")]
        calls = int(row.split()[2])
        assert 0 < calls < len(TURNS) and row.split()[-1] == "pass", "the calls made while the run was open"
        assert "— " in row and lines[-1].startswith("—: no known price"), "no price: no cost, never a guess"
        assert "$" not in str(app.main_screen.status.render())
