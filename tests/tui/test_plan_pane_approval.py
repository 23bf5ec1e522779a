"""Approving a task plan by keyboard in the Plan pane: every edit, and only Enter or Escape answers."""

from __future__ import annotations

from textual import _time, events

from ljtui.tui.widgets.plan_edit import TaskEditScreen
from ljtui.tui.widgets.prompt_input import PromptInput
from ljtui.tui.commands import NOTHING_RUNNING
from tests.tui.conftest import AppFactory, notices, toasts, until
from tests.tui.plan_helpers import TASKS, answered, ask, pane, plan_request, rows

SIZE = (100, 30)


async def _edit_screen(pilot) -> TaskEditScreen:
    await until(pilot, lambda: isinstance(pilot.app.screen, TaskEditScreen), "the task edit to open")
    screen = pilot.app.screen
    assert isinstance(screen, TaskEditScreen)
    return screen


async def test_enter_approves_an_unchanged_plan_without_a_task_list(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        asked = await ask(pilot)
        assert app.main_screen.chosen_pane == "plan"
        assert pane(app).border_subtitle == "Enter run · Esc reject"
        await pilot.press("j", "k")
        await pilot.press("enter")
        decision = await answered(pilot, asked)
        assert decision.choice == "approve" and decision.tasks is None
        assert not pane(app).approving


async def test_w_runs_allowing_writes_when_offered_and_does_nothing_otherwise(make_app: AppFactory) -> None:
    import dataclasses

    from ljtui.core.approval import Choice

    offering = plan_request()
    offering = dataclasses.replace(offering, choices=(
        Choice("approve", "Run it", "enter"), Choice("approve_writes", "Run it, allowing its file writes", "w"),
        Choice("reject", "Reject", "escape")))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        asked = await ask(pilot)
        await pilot.press("w")
        assert pane(app).approving, "w answers only a request that offers it"
        await pilot.press("escape")
        assert (await answered(pilot, asked)).choice == "reject"
        asked = await ask(pilot, offering)
        assert pane(app).border_subtitle == "Enter run · w allow writes · Esc reject"
        await pilot.press("w")
        decision = await answered(pilot, asked)
        assert decision.choice == "approve_writes" and decision.tasks is None


async def test_escape_rejects(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        asked = await ask(pilot)
        await pilot.press("d", "escape")
        decision = await answered(pilot, asked)
        assert decision.choice == "reject" and decision.tasks is None


async def test_e_edits_the_selected_description_in_place(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        asked = await ask(pilot)
        await pilot.press("j", "e")
        edit = await _edit_screen(pilot)
        field = edit.query_one("#task-edit")
        assert field.value == TASKS[1].description
        line = pane(app).query_one("#plan-tasks").content_region
        assert line.y < field.region.y < line.bottom  # over the second task's line, inside the pane
        footer = edit.query_one("#task-edit-keys")
        assert str(footer.render()) == "⏎ save the task  esc cancel the edit", "not the plan's Run and Reject"
        assert footer.region.bottom == SIZE[1], "over the app's footer line"
        assert str(pane(app).border_subtitle) == "Enter save the task · Esc cancel the edit"
        await pilot.press("ctrl+u", *"Add --top and --json", "enter")
        await until(pilot, lambda: app.screen is app.main_screen, "the edit to close")
        assert rows(app)[1] == (2, "Add --top and --json")
        await pilot.press("enter")
        decision = await answered(pilot, asked)
        assert decision.choice == "approve" and decision.tasks is not None
        assert [t["description"] for t in decision.tasks][1] == "Add --top and --json"
        assert decision.tasks[1]["depends_on"] == [1]


async def test_escape_in_an_edit_cancels_the_edit_only(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        asked = await ask(pilot)
        await pilot.press("e")
        await _edit_screen(pilot)
        await pilot.press(*"xyz?", "escape")
        await until(pilot, lambda: app.screen is app.main_screen, "the edit to close")
        assert pane(app).approving and rows(app)[0] == (1, TASKS[0].description)
        assert app.focused is pane(app)
        await pilot.press("enter")
        assert (await answered(pilot, asked)).tasks is None


async def test_n_adds_a_task_after_the_selected_one_and_edits_it(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        asked = await ask(pilot)
        await pilot.press("down", "n")
        await _edit_screen(pilot)
        await pilot.press(*"Update the README", "enter")
        await until(pilot, lambda: app.screen is app.main_screen, "the edit to close")
        await pilot.press("enter")
        decision = await answered(pilot, asked)
        assert decision.tasks is not None
        assert [(t["id"], t["description"], t["depends_on"]) for t in decision.tasks][2] == (
            5, "Update the README", [])
        assert [t["id"] for t in decision.tasks] == [1, 2, 5, 3, 4]


async def test_a_new_task_whose_edit_is_cancelled_is_dropped(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        asked = await ask(pilot)
        await pilot.press("n")
        await _edit_screen(pilot)
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.main_screen, "the edit to close")
        assert [i for i, _ in rows(app)] == [1, 2, 3, 4]
        await pilot.press("enter")
        assert (await answered(pilot, asked)).tasks is None


async def test_d_deletes_the_selected_task_and_its_id_from_the_dependencies(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        asked = await ask(pilot)
        await pilot.press("j", "d", "enter")
        decision = await answered(pilot, asked)
        assert decision.tasks is not None
        assert [(t["id"], t["depends_on"]) for t in decision.tasks] == [(1, []), (3, []), (4, [3])]


async def test_shift_j_and_k_reorder(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        asked = await ask(pilot)
        await pilot.press("J", "J")
        assert [i for i, _ in rows(app)] == [2, 3, 1, 4] and pane(app).model.selected == 2
        await pilot.press("K", "j", "J")
        assert [i for i, _ in rows(app)] == [2, 1, 4, 3]
        await pilot.press("J", "k", "k", "k", "K")  # past either end: nothing moves
        assert [i for i, _ in rows(app)] == [2, 1, 4, 3]
        await pilot.press("enter")
        decision = await answered(pilot, asked)
        assert decision.tasks is not None and [t["id"] for t in decision.tasks] == [2, 1, 4, 3]


async def test_an_enter_typed_before_the_plan_arrived_does_not_approve(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        early = events.Key("enter", None)  # typed while the plan was still being made
        asked = await ask(pilot)
        assert early.time < _time.get_time()
        app.post_message(early)
        await pilot.pause()
        await pilot.pause()
        assert asked.decision is None and pane(app).approving
        await pilot.press("enter")
        assert (await answered(pilot, asked)).choice == "approve"


async def test_a_letter_typed_before_the_plan_arrived_is_neither_an_edit_nor_text(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        early = events.Key("d", "d")
        asked = await ask(pilot)
        app.post_message(early)
        await until(pilot, lambda: bool(toasts(app)), "a hint")
        assert toasts(app) == ["Press F3 to use the Plan pane's keys; F6 types a message."]
        assert app.main_screen.query_one(PromptInput).value == ""
        assert [i for i, _ in rows(app)] == [1, 2, 3, 4] and pane(app).approving
        await pilot.press("f3", "enter")
        assert (await answered(pilot, asked)).tasks is None


async def test_the_plan_keys_follow_the_user_s_keymap(make_app: AppFactory, isolated_env) -> None:
    (isolated_env / "ljtui").mkdir(parents=True, exist_ok=True)
    (isolated_env / "ljtui" / "config.yaml").write_text("ui:\n  keymap:\n    plan.delete: x\n", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        asked = await ask(pilot)
        assert "x delete" in str(pane(app).query_one(".plan-keys").render())
        await pilot.press("d", "f3", "x", "enter")
        decision = await answered(pilot, asked)
        assert decision.tasks is not None and [t["id"] for t in decision.tasks] == [2, 3, 4]
        assert app.main_screen.query_one(PromptInput).value == "", "the d before F3 did nothing"


async def test_keys_while_no_plan_waits_change_nothing(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3", "e", "n", "d", "J", "K", "j", "h", "enter", "escape")
        await pilot.pause()
        assert app.screen is app.main_screen and rows(app) == []
        assert notices(app)[-1] == NOTHING_RUNNING  # Escape means what it means elsewhere
        asked = await ask(pilot)
        await pilot.press("enter")
        await answered(pilot, asked)
        await pilot.press("f3", "d", "J", "e", "n", "enter")
        await pilot.pause()
        assert app.screen is app.main_screen
        assert [i for i, _ in rows(app)] == [1, 2, 3, 4]
        assert app.main_screen.query_one(PromptInput).value == ""


async def test_a_second_plan_waits_for_the_first(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        first = await ask(pilot)
        from tests.tui.plan_helpers import Asked

        second = Asked(app, plan_request(TASKS[:2], "run-2"))
        await pilot.pause()
        assert pane(app).run_id == "run-1"
        await pilot.press("escape")
        assert (await answered(pilot, first)).choice == "reject"
        await until(pilot, lambda: pane(app).approving and pane(app).run_id == "run-2", "the second plan")
        assert [i for i, _ in rows(app)] == [1, 2]
        await pilot.press("enter")
        assert (await answered(pilot, second)).choice == "approve"


async def test_quitting_rejects_a_waiting_plan(make_app: AppFactory) -> None:
    """An answer awaited outside the app's workers gets the safe choice; the engine's worker is cancelled."""
    import asyncio

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        outside = asyncio.create_task(app.approver.decide(plan_request()))
        await until(pilot, lambda: pane(app).approving, "the Plan pane to ask")
        await pilot.press("ctrl+q")
    decision = await asyncio.wait_for(outside, timeout=20)
    assert decision.choice == "reject" and decision.tasks is None


async def test_quitting_while_the_engine_waits_runs_nothing(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        asked = await ask(pilot)
        await pilot.press("ctrl+q")
    assert asked.worker.is_cancelled and asked.decision is None
