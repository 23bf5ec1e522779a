"""The prompt is a multi-line editor: a paste keeps every line, Ctrl+J breaks the line, Up and Down walk the
messages sent, Tab completes a command, and the box grows to a few rows."""

from __future__ import annotations

import subprocess
from pathlib import Path

from textual import events

from ljtui.tui.pasted import FOLD_CHARS, Pastes
from ljtui.tui.screens.help import HelpScreen
from ljtui.tui.slash import SlashCommand, complete_slash, parse_slash
from ljtui.tui.widgets.conversation import UserMessage
from ljtui.tui.widgets.prompt_input import MAX_ROWS, PLACEHOLDER
from tests.tui.conftest import AppFactory, notices, settle, toasts

SIZE = (80, 24)
TRACEBACK = "\n".join(["Traceback (most recent call last):",
                       *(f'  File "app.py", line {n}, in step_{n}' for n in range(1, 61)),
                       "ValueError: [bold]not markup[/bold]"])
"""A 62-line paste (its last line looks like markup and must stay text)."""


def sent(app) -> list[str]:  # type: ignore[no-untyped-def]
    """The user messages the engine received, oldest first."""
    return [m.text for m in app.engine.history if m.role == "user"]


def shown(app) -> list[str]:  # type: ignore[no-untyped-def]
    """The user messages the Conversation pane shows."""
    return [str(u.render()) for u in app.main_screen.conversation.query(UserMessage)]


async def paste(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    """A bracketed paste, as the terminal driver posts it."""
    pilot.app.main_screen.prompt.post_message(events.Paste(text))
    await pilot.pause()


async def test_a_62_line_paste_shows_folded_and_is_sent_whole(make_app: AppFactory) -> None:
    assert TRACEBACK.count("\n") == 61
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        prompt = app.main_screen.prompt
        await pilot.press(*"/chat ")
        await paste(pilot, TRACEBACK.replace("\n", "\r\n"))
        assert prompt.text == "/chat [pasted 62 lines]"
        assert prompt.value == f"/chat {TRACEBACK}"
        assert prompt.region.height == 3, "folded, the paste takes one row"
        await pilot.press("enter")
        await settle(pilot)
        assert sent(app) == [TRACEBACK]
        assert shown(app) == [f"› {TRACEBACK}"], "the conversation shows every line, as text"
        assert prompt.text == "" and not prompt.pastes.texts


async def test_a_small_paste_is_inserted_as_it_is(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        prompt = app.main_screen.prompt
        await pilot.press(*"/chat see: ")
        await paste(pilot, "one\r\ntwo\rthree")
        assert prompt.text == prompt.value == "/chat see: one\ntwo\nthree"
        await pilot.press("enter")
        await settle(pilot)
        assert sent(app) == ["see: one\ntwo\nthree"]


async def test_a_long_line_folds_and_two_pastes_keep_their_own_labels(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        prompt = app.main_screen.prompt
        long_line = "x" * (FOLD_CHARS + 500)
        await paste(pilot, long_line)
        await pilot.press("space")
        await paste(pilot, long_line.upper())
        assert prompt.text == "[pasted 1,500 characters] [pasted 1,500 characters #2]"
        assert prompt.value == f"{long_line} {long_line.upper()}"


async def test_backspace_after_a_folded_paste_deletes_it_whole(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        prompt = app.main_screen.prompt
        await pilot.press(*"see ")
        await paste(pilot, TRACEBACK)
        await pilot.press("backspace")
        assert prompt.text == prompt.value == "see "
        assert not prompt.pastes.texts, "the paste went with its label"
        await paste(pilot, TRACEBACK)
        await pilot.press("home", "right", "right", "right", "right", "delete")
        assert prompt.text == "see "


async def test_ctrl_j_shift_enter_and_alt_enter_break_the_line_and_enter_sends_it_all(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        prompt = app.main_screen.prompt
        await pilot.press(*"/chat first", "ctrl+j", *"second", "shift+enter", *"third", "alt+enter", *"fourth")
        assert prompt.value == "/chat first\nsecond\nthird\nfourth"
        await pilot.press("enter")
        await settle(pilot)
        assert sent(app) == ["first\nsecond\nthird\nfourth"]
        assert prompt.text == ""


async def test_up_walks_the_sent_messages_and_down_restores_the_draft(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        prompt = app.main_screen.prompt
        for command in ("/theme", "/theme nope"):  # answered by the app: no model turn needed
            await pilot.press(*command, "enter")
        await pilot.press(*"my", "ctrl+j", *"draft")
        await pilot.press("up")
        assert prompt.text == "my\ndraft" and prompt.cursor_location == (0, 2), "off the first row, Up moves"
        await pilot.press("up")
        assert prompt.text == "/theme nope", "newest first"
        await pilot.press("up", "up")
        assert prompt.text == "/theme", "the oldest stays"
        await pilot.press("down")
        assert prompt.text == "/theme nope"
        await pilot.press("down")
        assert prompt.text == "my\ndraft"
        await pilot.press("down")
        assert prompt.text == "my\ndraft"


async def test_a_recalled_paste_is_folded_and_sent_whole_again(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        prompt = app.main_screen.prompt
        await pilot.press(*"/theme ")
        await paste(pilot, TRACEBACK)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("up")
        assert prompt.text == "/theme [pasted 62 lines]" and prompt.value == f"/theme {TRACEBACK}"


async def test_the_box_grows_with_its_text_and_then_scrolls(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        prompt = app.main_screen.prompt
        assert prompt.region.height == 3
        await pilot.press("a", "ctrl+j", "b", "ctrl+j", "c")
        await pilot.pause()
        assert prompt.region.height == 5
        prompt.value = "\n".join(str(n) for n in range(20))
        await pilot.pause()
        assert prompt.region.height == MAX_ROWS + 2, "capped: the border and six rows"
        assert prompt.scroll_offset.y > 0, "the end, where the cursor is, is shown"
        assert app.main_screen.conversation.region.height >= SIZE[1] // 2


async def test_tab_completes_a_slash_command_or_a_skill(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        prompt = app.main_screen.prompt
        await pilot.press(*"/the", "tab")
        assert prompt.text == "/theme " and prompt.cursor_location == (0, 7)
        prompt.clear()
        app.skill_names = ("deploy-docs",)
        await pilot.press(*"/DEP", "tab")
        assert prompt.text == "/deploy-docs "
        prompt.clear()
        await pilot.press(*"/c", "tab")
        listed = "  ".join(f"/{name}" for name in sorted(app.slash_names()) if name.startswith("c"))
        assert prompt.text == "/c" and toasts(app)[-1] == listed and "/chat  /clear" in listed, "several: listed"
        prompt.clear()
        await pilot.press(*"hi", "tab")
        assert prompt.text == "hi" and not prompt.has_focus, "in a message Tab moves the focus, as before"


async def test_a_question_mark_in_an_empty_box_opens_help_and_is_text_after_a_word(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape", "w", "ctrl+j", "question_mark")
        assert not isinstance(app.screen, HelpScreen)
        assert app.main_screen.prompt.text == "w\n?"


async def test_an_empty_or_blank_prompt_sends_nothing(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter", "space", "ctrl+j", "space", "enter")
        await settle(pilot)
        assert sent(app) == [] and shown(app) == []
        assert not any(n.startswith("Unknown") for n in notices(app))


def test_completion_and_parsing_of_a_command_on_several_lines() -> None:
    names = ("help", "chat", "clear", "compact")
    assert complete_slash("/he", names) == ("/help ", ["help"])
    assert complete_slash("/co", names) == ("/compact ", ["compact"])
    assert complete_slash("/c", names) == ("/c", ["chat", "clear", "compact"])
    assert complete_slash("/cl", ("clear", "clean")) == ("/clea", ["clean", "clear"])
    assert complete_slash("/zz", names) == ("/zz", [])
    assert complete_slash("/chat now", names) == ("/chat now", []), "past the name, Tab does not complete"
    assert complete_slash("//he", names) == ("//he", []), "a message starting with /"
    assert parse_slash("/chat\nfirst\nsecond", names) == SlashCommand("chat", "first\nsecond")


def test_a_paste_that_holds_a_label_is_expanded_once() -> None:
    pastes = Pastes()
    first = pastes.fold("a\n" * 20)
    second = pastes.fold(f"quoting {first}\n" * 20)
    assert pastes.expand(f"{second}") == f"quoting {first}\n" * 20


def test_a_bracketed_paste_in_a_real_terminal_arrives_whole(tmp_path: Path) -> None:
    from tests.cli.terminal import scripted_ljtui
    from tests.fixtures import SCRIPTS

    term, repo = scripted_ljtui(tmp_path, SCRIPTS / "hello.yaml")
    try:
        term.wait_for(term.shows(PLACEHOLDER), "the input box")
        term.press(b"\x1b[200~/chat alpha line\r\nbeta line\r\ngamma line\x1b[201~")
        term.wait_for(term.shows("gamma line"), "the pasted lines in the input box")
        term.press(b"\n" + b"delta line\r")  # Ctrl+J as a terminal sends it, then Enter
        sent = ("› alpha line", "beta line", "gamma line", "delta line", PLACEHOLDER)
        term.wait_for(lambda: all(term.on_screen(text) for text in sent),  # a frame may arrive in several reads
                      "the message sent whole and the box empty again")
        term.press(b"\x11")
        assert term.finish() == 0
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    assert subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout == ""


def test_a_message_typed_with_enter_while_ljtui_starts_is_sent(tmp_path: Path) -> None:
    """Typed before the app puts the terminal in raw mode, the Enter reaches it as a line feed (the terminal's
    own translation, as for Ctrl+J); it still sends the message."""
    from tests.cli.terminal import scripted_ljtui
    from tests.fixtures import SCRIPTS

    term, repo = scripted_ljtui(tmp_path, SCRIPTS / "hello.yaml")
    try:
        term.press(b"/chat typed early\r")  # at once: the app is still importing, the terminal still cooked
        replied = ("› typed early", "Add a retry helper", PLACEHOLDER)
        term.wait_for(lambda: all(term.on_screen(text) for text in replied), "the early message sent and answered")
        term.press(b"\x11")
        assert term.finish() == 0
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
