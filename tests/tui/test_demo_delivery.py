"""``ljtui --demo``'s delivery step follows what really happened: a cancelled delivery is said so and offered again."""

from __future__ import annotations

from textual.message import Message

from ljtui.core.events import TurnFinished
from ljtui.demo.repo import DemoRepo
from ljtui.demo.steps import DELIVERY_CANCELLED, GATE_MESSAGE, PLAN_GOAL, RECALL_GOAL
from ljtui.tui.messages import EngineEventPosted
from tests.tui.conftest import notices, settle, until
from tests.tui.test_demo import (  # noqa: F401 - the demo fixture
    COUNTING, LARGE, PLAYBOOK, PUNCTUATION_FIX, demo, demo_app, dialog, on_disk, plan_under_review, step_begun,
    step_text,
)

TASK_QUESTIONS = ("Task 3: Edit wordstats/counting.py?", "Task 4: Edit tests/test_counting.py?",
                  "Task 5: Run this command?")


async def to_the_delivery_dialog(pilot) -> None:
    """Every step up to the delivery's apply dialog, each dialog answered as the guide says."""
    await plan_under_review(pilot)
    await pilot.press("a")
    await dialog(pilot, "apply")
    await pilot.press("enter")
    await step_begun(pilot, "result")
    await pilot.press("f4", "u")
    await dialog(pilot, "undo")
    await pilot.press("enter")
    await step_begun(pilot, "undone")
    await pilot.press("f6", *"do the tests pass?", "enter")
    await dialog(pilot, "permission")
    await pilot.press("enter")
    await step_begun(pilot, "ran")
    for goal in (PLAN_GOAL, RECALL_GOAL):
        await pilot.press(*f"/plan {goal}", "enter")
        await step_begun(pilot, "proposed" if goal == PLAN_GOAL else "recalled")
        await pilot.press("enter")
        for asking in TASK_QUESTIONS:
            await dialog(pilot, "permission", asking)
            await pilot.press("enter")
        if goal == PLAN_GOAL:
            await dialog(pilot, "playbook_offer")
            await pilot.press("enter")
            await step_begun(pilot, "saved")
            await pilot.press(*f"/playbook promote {PLAYBOOK}", "enter")
            await dialog(pilot, "playbook_promote")
            await pilot.press("enter")
            await step_begun(pilot, "promoted")
    await step_begun(pilot, "gated")
    await pilot.press(*GATE_MESSAGE, "enter")
    for kind in ("gate_confirm", "gate_start"):
        await dialog(pilot, kind)
        await pilot.press("enter")
    for asking in ("Edit wordstats/counting.py in the staging tree?", "Edit tests/test_counting.py in the staging tree?"):
        await dialog(pilot, "permission", asking)
        await pilot.press("enter")
    await dialog(pilot, "apply")
    await step_begun(pilot, "delivery")


async def test_a_cancelled_delivery_is_said_so_then_retried_and_the_demo_ends(demo: DemoRepo) -> None:
    app = demo_app(demo, watch=False)
    replies: list[str] = []

    def hook(message: Message) -> None:
        if isinstance(message, EngineEventPosted) and isinstance(message.event, TurnFinished):
            replies.append(message.event.text)

    async with app.run_test(size=LARGE, message_hook=hook) as pilot:
        await to_the_delivery_dialog(pilot)
        before = on_disk(demo)
        await pilot.press("escape")
        await until(pilot, lambda: not app.tour.turn_running, "the gate turn's end")
        await settle(pilot)
        assert on_disk(demo) == before and PUNCTUATION_FIX not in before[COUNTING]
        said = [n for n in notices(app) if n.startswith(DELIVERY_CANCELLED)]
        assert said == [f"{DELIVERY_CANCELLED} Type /gates deliver and press Enter to try again."]
        last = replies[-1]
        assert "not applied" in last and "/gates deliver" in last
        assert not any("Delivered" in reply for reply in replies)
        assert app.tour.current.name == "delivery"

        await pilot.press(*"/gates deliver", "enter")
        await dialog(pilot, "apply")
        await pilot.press("enter")
        await dialog(pilot, "playbook_offer")
        assert notices(app)[-1] == step_text(app, "delivered")
        assert PUNCTUATION_FIX in (demo.root / COUNTING).read_bytes()
        await pilot.press("escape")
        await step_begun(pilot, "end")
        assert app.tour.finished and step_text(app, "end") in notices(app)
