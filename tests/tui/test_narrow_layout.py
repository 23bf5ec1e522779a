"""At 80x24 with a side pane focused the Conversation keeps 40 columns of text and wraps between words; the reply
is set apart from the message it answers; text cut to fit (a tool line, a pane title, a dialog's keys) ends with
"…" and a dialog's keys break between keys, never inside one."""

from __future__ import annotations

import pytest

from ljtui.core.approval import ApprovalRequest, Choice
from ljtui.tui.screens.dialog import ApprovalDialog, KeyLine, key_rows
from ljtui.tui.screens.main import CONVERSATION_MIN_WIDTH, SIDE_PANES
from ljtui.tui.widgets.conversation import UserMessage
from ljtui.tui.widgets.tool_line import ToolCallLine
from tests.tui.conftest import AppFactory, settle, until
from tests.tui.screen_check import drawn

SMALL = (80, 24)
PANE_KEYS = {"plan": "f3", "diff": "f4", "gates": "f5"}
REQUEST = "add retries to greet"
REPLY = "I read the repository. Here is the plan: Add a retry helper to app.py. Wrap the request in it."
"""The scripted reply's words (hello.yaml), as drawn."""
LONG_CALL = "bash pytest -q tests/test_greeting.py::test_a_warm_greeting_for_every_name --maxfail=1 -x"


async def _replied(pilot) -> None:  # type: ignore[no-untyped-def]
    await settle(pilot)
    await pilot.press(*f"/chat {REQUEST}", "enter")
    await settle(pilot)


async def _focus(pilot, pane: str) -> None:  # type: ignore[no-untyped-def]
    await pilot.press(PANE_KEYS[pane])
    await until(pilot, lambda: pilot.app.main_screen.side_focus == pane, f"the {pane} pane to have the room")
    await pilot.pause()
    await pilot.pause()


def _conversation_rows(app) -> list[str]:  # type: ignore[no-untyped-def]
    """The text drawn inside the Conversation's border, row by row."""
    region = app.main_screen.pane("conversation").region
    lines = drawn(app).lines
    return [lines[y][region.x + 1:region.right - 1] for y in range(region.y + 1, region.bottom - 1)]


@pytest.mark.parametrize("pane", SIDE_PANES)
async def test_beside_a_focused_side_pane_the_conversation_keeps_40_columns_at_80x24(make_app: AppFactory,
                                                                                    pane: str) -> None:
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await _replied(pilot)
        await _focus(pilot, pane)
        screen = app.main_screen
        conversation, side = screen.pane("conversation").region, screen.pane("side").region
        assert conversation.width >= CONVERSATION_MIN_WIDTH == 42, "40 columns inside the border"
        assert conversation.width + side.width == SMALL[0], "the focused side pane takes the rest"
        assert screen.pane(pane).region.width == side.width
        words = " ".join(_conversation_rows(app)).split()
        assert all(word in words for word in (*REQUEST.split(), *REPLY.split())), words


async def test_under_80_columns_a_focused_side_pane_takes_the_whole_width(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(60, 20)) as pilot:
        await _replied(pilot)
        await _focus(pilot, "diff")
        screen = app.main_screen
        assert not screen.pane("conversation").display and screen.pane("side").region.width == 60
        await pilot.press("f2")
        await until(pilot, lambda: screen.side_focus is None, "the Conversation to have the focus")
        await pilot.pause()
        assert screen.pane("conversation").display and screen.pane("conversation").region.width == 36


async def test_a_reply_is_set_apart_from_the_message_it_answers(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await _replied(pilot)
        rows = [row.strip() for row in _conversation_rows(app)]
        asked = next(i for i, row in enumerate(rows) if row == f"› {REQUEST}")
        assert rows[asked + 1] == "" and rows[asked + 2].startswith("I read the repository."), rows
        message = app.main_screen.conversation.query_one(UserMessage)
        assert message.styles.margin.top == 1, "the message is set apart from what comes before it in the same way"


async def test_a_tool_line_too_long_for_the_pane_ends_with_an_ellipsis(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await _replied(pilot)
        conversation = app.main_screen.conversation
        await conversation.tool_started("call-1", LONG_CALL)
        conversation.tool_finished("call-1", LONG_CALL, True, "1 passed")
        await _focus(pilot, "diff")
        await settle(pilot)
        line = app.main_screen.query_one(ToolCallLine)
        row = next(row.rstrip() for row in _conversation_rows(app) if "▸ bash pytest" in row)
        assert row.endswith("…") and line.region.width <= CONVERSATION_MIN_WIDTH - 2, row
        assert line.text == f"▸ {LONG_CALL} ✓", "the whole line is kept (Enter unfolds the output)"


async def test_a_pane_title_too_long_for_its_pane_ends_with_an_ellipsis(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(30, 15)) as pilot:
        await _replied(pilot)
        conversation, plan = drawn(app).lines[0].split("╮")[:2]
        assert conversation.startswith("╭─ Conversa") and "…" in conversation, conversation
        assert plan.startswith("╭─ Pl") and "…" in plan, plan


def test_key_rows_break_between_keys_and_cut_a_key_wider_than_a_row() -> None:
    keys = ["Enter: allow once", "s: allow edit_file for this session", "Esc: deny (the model is told)"]
    assert key_rows(keys, 200) == ["    ".join(keys)]
    assert key_rows(keys, 60) == ["Enter: allow once    s: allow edit_file for this session", keys[2]]
    assert key_rows(keys, 20) == [keys[0], "s: allow edit_file…", "Esc: deny (the mode…"]
    assert key_rows([], 20) == [] and key_rows(["Enter: apply"], 1) == ["…"]


def _request(*labels: str) -> ApprovalRequest:
    keys = ["enter", "s", "escape"]
    choices = tuple(Choice(f"c{i}", label, keys[i]) for i, label in enumerate(labels))
    return ApprovalRequest(kind="permission", title="Run this command?", lines=["echo marker"], choices=choices,
                           safe="c2")


async def test_a_dialog_s_keys_wrap_between_keys_and_a_long_one_is_cut_with_an_ellipsis(make_app: AppFactory) -> None:
    request = _request("allow once", "allow every command of this session without asking again",
                       "deny (the model is told)")
    app = make_app()
    async with app.run_test(size=(50, 16)) as pilot:
        await settle(pilot)
        app.push_screen(ApprovalDialog(request))
        await until(pilot, lambda: isinstance(app.screen, ApprovalDialog), "the dialog")
        await pilot.pause()
        await pilot.pause()
        keys = app.screen.query_one(KeyLine)
        lines = drawn(app).lines
        rows = [lines[y][keys.content_region.x:keys.content_region.right].rstrip()
                for y in range(keys.region.y, keys.region.bottom)]
        assert rows == ["Enter: allow once", "s: allow every command of this session w…",
                        "Esc: deny (the model is told)"]


@pytest.mark.parametrize("pane", SIDE_PANES)
def test_a_focused_side_pane_beside_the_conversation_at_80x24(snap_compare, make_app: AppFactory, pane: str) -> None:
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await _replied(pilot)
        await _focus(pilot, pane)

    assert snap_compare(make_app(), terminal_size=SMALL, run_before=run_before)
