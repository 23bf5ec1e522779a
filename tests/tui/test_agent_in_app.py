"""The agent in the app: permission dialogs with the diff, tool calls that unfold, compression shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.tui.screens.dialog import ApprovalDialog
from ljtui.tui.widgets.conversation import ToolCallLine
from tests.conftest import git
from tests.tui.conftest import AppFactory, notices, settle, until

SMALL = (80, 24)
LARGE = (120, 40)
FRIENDLIER = "def greet(name):\n    return f'hello, {name}!'\n"
ORIGINAL = "def greet(name):\n    return 'hello ' + name\n"


async def ask(pilot, text: str) -> None:
    await pilot.press(*text, "enter")
    await settle(pilot)


async def test_a_write_asks_with_the_diff_and_allow_once_writes_through_the_transaction(
        make_app: AppFactory, git_repo: Path) -> None:
    app = make_app("agent_edit.yaml")
    async with app.run_test(size=LARGE) as pilot:
        await ask(pilot, "make greet friendlier")
        dialog = app.screen
        assert isinstance(dialog, ApprovalDialog) and dialog.request.title == "Edit app.py?"
        assert dialog.request.diff_path == "app.py"
        assert "+    return f'hello, {name}!'" in dialog.request.lines
        assert "s: allow edit_file for this session" in dialog.key_line()
        await pilot.press("enter")
        await settle(pilot)
        assert (git_repo / "app.py").read_text() == FRIENDLIER
        lines = [line.text for line in app.main_screen.query(ToolCallLine)]
        assert lines == ["▸ read_file app.py ✓", "▸ edit_file app.py ✓"]
        await pilot.press(*"/undo", "enter")
        await settle(pilot)
        await pilot.press("enter")  # the undo confirmation
        await settle(pilot)
        assert (git_repo / "app.py").read_text() == ORIGINAL and git(git_repo, "status", "--porcelain") == ""


async def test_deny_leaves_the_file_and_the_model_is_told(make_app: AppFactory, git_repo: Path) -> None:
    app = make_app("agent_edit.yaml")
    async with app.run_test(size=LARGE) as pilot:
        await ask(pilot, "make greet friendlier")
        assert isinstance(app.screen, ApprovalDialog)
        await pilot.press("escape")
        await settle(pilot)
        assert (git_repo / "app.py").read_text() == ORIGINAL
        [_, edit] = app.main_screen.query(ToolCallLine)
        assert edit.has_class("-failed") and "the user denied this edit_file call" in edit.text
        edit.query_one("CollapsibleTitle").focus()
        await pilot.press("enter")
        await pilot.pause()
        assert not edit.collapsed
        assert "the user denied this edit_file call" in str(edit.query_one("ToolOutputText").render())


async def test_a_tool_call_unfolds_to_what_the_tool_returned(make_app: AppFactory) -> None:
    app = make_app("tool_then_text.yaml")
    async with app.run_test(size=LARGE) as pilot:
        await ask(pilot, "look at app.py")
        [line] = app.main_screen.query(ToolCallLine)
        assert line.collapsed and line.text == "▸ read_file app.py ✓"
        await pilot.click(line.query_one("CollapsibleTitle"))
        await pilot.pause()
        assert line.text == "▾ read_file app.py ✓"
        assert "def greet(name):" in str(line.query_one("ToolOutputText").render())


async def test_compression_is_shown_and_the_conversation_goes_on(make_app: AppFactory) -> None:
    app = make_app("compress.yaml", **{"agent.compress_at_tokens": 2_000})
    async with app.run_test(size=LARGE) as pilot:
        for text in ("How do retries work?", "And the waits?", "Summarise."):
            await ask(pilot, text)
        await until(pilot, lambda: any(n.startswith("Context compressed") for n in notices(app)), "the notice")
        assert app.engine.summary.startswith("The user asked about retries twice")


async def _permission(pilot) -> None:
    await pilot.press(*"make greet friendlier", "enter")
    await settle(pilot)


async def _compressed(pilot) -> None:
    for text in ("How do retries work?", "And the waits?", "Summarise."):
        await pilot.press(*text, "enter")
        await settle(pilot)


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
def test_permission_dialog_with_a_diff(snap_compare, make_app: AppFactory, size) -> None:
    assert snap_compare(make_app("agent_edit.yaml"), terminal_size=size, run_before=_permission)


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
def test_compression_notice(snap_compare, make_app: AppFactory, size) -> None:
    app = make_app("compress.yaml", **{"agent.compress_at_tokens": 2_000})
    assert snap_compare(app, terminal_size=size, run_before=_compressed)
