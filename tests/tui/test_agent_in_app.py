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


def compress_after_two_exchanges(app) -> None:
    """Compress once the history holds more than the two long exchanges of compress.yaml's first turns
    (the system prompt and the tool schemas come on top)."""
    from ljtui.core.agent.compression import estimate_tokens
    from ljtui.core.agent.offer import Offer

    engine = app.engine
    fixed = estimate_tokens(engine.context.build(), [], Offer(gate=False, playbooks=False).specs(engine.tools.specs,
                                                                                               engine.config))
    engine.config.agent.compress_at_tokens = fixed + 900


async def test_compression_is_shown_and_the_conversation_goes_on(make_app: AppFactory) -> None:
    app = make_app("compress.yaml")
    async with app.run_test(size=LARGE) as pilot:
        compress_after_two_exchanges(app)
        for text in ("How do retries work?", "And the waits?", "Summarise."):
            await ask(pilot, text)
        await until(pilot, lambda: any(n.startswith("Context compressed") for n in notices(app)), "the notice")
        assert app.engine.summary.startswith("The user asked about retries twice")


async def _permission(pilot) -> None:
    await pilot.press(*"make greet friendlier", "enter")
    await settle(pilot)


async def _compressed(pilot) -> None:
    compress_after_two_exchanges(pilot.app)
    for text in ("How do retries work?", "And the waits?", "Summarise."):
        await pilot.press(*text, "enter")
        await settle(pilot)
    conversation = pilot.app.main_screen.conversation
    await until(pilot, lambda: conversation.scroll_y >= conversation.max_scroll_y, "the last reply scrolled into view")
    await pilot.pause()


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
def test_permission_dialog_with_a_diff(snap_compare, make_app: AppFactory, size) -> None:
    assert snap_compare(make_app("agent_edit.yaml"), terminal_size=size, run_before=_permission)


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
def test_compression_notice(snap_compare, make_app: AppFactory, size) -> None:
    assert snap_compare(make_app("compress.yaml"), terminal_size=size, run_before=_compressed)


def live_output(app) -> str:
    lines = list(app.main_screen.query(ToolCallLine))
    return str(lines[-1].query_one("ToolOutputText").render()) if lines else ""


async def test_a_command_asks_streams_its_output_and_folds_when_done(make_app: AppFactory) -> None:
    app = make_app("bash_quick.yaml")
    async with app.run_test(size=LARGE) as pilot:
        await ask(pilot, "what is here?")
        dialog = app.screen
        assert isinstance(dialog, ApprovalDialog) and dialog.request.title.startswith("Run")
        assert "ls; echo done >&2" in "\n".join(dialog.request.lines)
        await pilot.press("enter")
        await settle(pilot)
        [line] = app.main_screen.query(ToolCallLine)
        assert line.collapsed and line.text == "▸ bash ls; echo done >&2 ✓"
        shown = live_output(app)
        assert "exit code 0" in shown and "README.md" in shown and "done" in shown


async def test_a_long_command_shows_its_last_lines_while_it_runs_and_escape_stops_it(make_app: AppFactory) -> None:
    app = make_app("bash_stream.yaml")
    async with app.run_test(size=LARGE) as pilot:
        await ask(pilot, "run the tests")
        await pilot.press("enter")  # allow once
        await until(pilot, lambda: "test_12 passed" in live_output(app), "the output to stream")
        [line] = app.main_screen.query(ToolCallLine)
        assert not line.collapsed and "test_2 passed" not in live_output(app)  # the last 10 lines
        assert app.bridge.busy
        await pilot.press("escape")
        await until(pilot, lambda: not app.bridge.busy, "the command to be stopped")
        assert notices(app)[-1].startswith("Cancelled: the running command was stopped")


async def _streaming(pilot) -> None:
    await pilot.press(*"run the tests", "enter")
    await settle(pilot)
    await pilot.press("enter")
    await until(pilot, lambda: "test_12 passed" in live_output(pilot.app), "the output to stream")
    await pilot.pause()


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
def test_bash_output_streaming(snap_compare, make_app: AppFactory, size) -> None:
    assert snap_compare(make_app("bash_stream.yaml"), terminal_size=size, run_before=_streaming)
