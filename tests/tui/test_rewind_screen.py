"""Rewind in the app: Escape twice (or /rewind) opens the list of the session's messages; a choice is confirmed in
a dialog, the files and the conversation go back, and the message returns to the input box."""

from __future__ import annotations

from pathlib import Path

from ljtui.tui.screens.dialog import ApprovalDialog
from ljtui.tui.screens.rewind import RewindScreen
from tests.conftest import git
from tests.tui.conftest import AppFactory, notices, settle, until

LARGE = (120, 40)
ORIGINAL = "def greet(name):\n    return 'hello ' + name\n"


async def two_messages(pilot) -> None:
    """Message 1 writes notes.md, message 2 rewrites app.py (each write allowed once in its dialog)."""
    for text in ("add notes", "say hi"):
        await pilot.press(*text, "enter")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ApprovalDialog)
        await pilot.press("enter")
        await settle(pilot)


async def test_escape_twice_opens_the_rewind_screen_and_both_go_back(make_app: AppFactory, git_repo: Path) -> None:
    app = make_app("rewind.yaml")
    async with app.run_test(size=LARGE) as pilot:
        await two_messages(pilot)
        assert (git_repo / "notes.md").exists() and "hi" in (git_repo / "app.py").read_text()
        await pilot.press("escape", "escape")
        await until(pilot, lambda: isinstance(app.screen, RewindScreen), "the rewind screen")
        screen = app.screen
        assert [p.text for p in screen.points] == ["add notes", "say hi"]
        assert [len(p.files or ()) for p in screen.points] == [2, 1]
        await pilot.press("up", "b")
        await until(pilot, lambda: isinstance(app.screen, ApprovalDialog), "the confirmation")
        request = app.screen.request
        assert request.title == "Rewind the code and the conversation to message 1?"
        assert "  delete notes.md (created by the apply)" in request.lines and "  restore app.py" in request.lines
        await pilot.press("enter")
        await settle(pilot)
        assert (git_repo / "app.py").read_text() == ORIGINAL and not (git_repo / "notes.md").exists()
        assert git(git_repo, "status", "--porcelain") == ""
        assert app.engine.history == [] and app.main_screen.prompt.value == "add notes"
        assert any(text.startswith("Rewound to message 1: restored app.py; deleted notes.md") for text in notices(app))


async def test_slash_rewind_code_only_keeps_the_conversation(make_app: AppFactory, git_repo: Path) -> None:
    app = make_app("rewind.yaml")
    async with app.run_test(size=LARGE) as pilot:
        await two_messages(pilot)
        history = list(app.engine.history)
        await pilot.press(*"/rewind", "enter")
        await until(pilot, lambda: isinstance(app.screen, RewindScreen), "the rewind screen")
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, ApprovalDialog), "the confirmation")
        await pilot.press("enter")
        await settle(pilot)
        assert (git_repo / "app.py").read_text() == ORIGINAL and (git_repo / "notes.md").exists()
        assert app.engine.history == history and app.main_screen.prompt.value == ""


async def test_undo_goes_back_one_message_at_a_time_and_says_how_many_steps_remain(
        make_app: AppFactory, git_repo: Path) -> None:
    app = make_app("rewind.yaml")
    async with app.run_test(size=LARGE) as pilot:
        await two_messages(pilot)
        for _ in range(2):
            await pilot.press(*"/undo", "enter")
            await until(pilot, lambda: isinstance(app.screen, ApprovalDialog), "the undo question")
            lines = app.screen.request.lines
            await pilot.press("enter")
            await settle(pilot)
        assert "  delete notes.md (created by the apply)" in lines
        said = [n for n in notices(app) if n.startswith("Undone:")]
        assert said == ["Undone: restored app.py. 1 more step can be undone.",
                        "Undone: deleted notes.md (created by the apply). No earlier apply is kept to undo."]
        assert git(git_repo, "status", "--porcelain") == ""


async def test_escape_twice_with_text_in_the_input_box_does_not_open_it(make_app: AppFactory) -> None:
    app = make_app("rewind.yaml")
    async with app.run_test(size=LARGE) as pilot:
        await until(pilot, lambda: app.started, "the start-up work")
        await pilot.press(*"draft", "escape", "escape")
        await settle(pilot)
        assert not isinstance(app.screen, RewindScreen) and app.main_screen.prompt.value == "draft"


async def test_nothing_to_rewind_is_said(make_app: AppFactory) -> None:
    app = make_app("rewind.yaml")
    async with app.run_test(size=LARGE) as pilot:
        await until(pilot, lambda: app.started, "the start-up work")
        await pilot.press(*"/rewind", "enter")
        await settle(pilot)
        assert "Nothing to rewind: no message was sent in this conversation yet." in notices(app)


def test_snapshot_of_the_rewind_screen(snap_compare, make_app: AppFactory) -> None:
    async def open_it(pilot) -> None:
        await two_messages(pilot)
        await pilot.press("escape", "escape")
        await until(pilot, lambda: isinstance(pilot.app.screen, RewindScreen), "the rewind screen")
        await settle(pilot)

    assert snap_compare(make_app("rewind.yaml"), terminal_size=LARGE, run_before=open_it)
