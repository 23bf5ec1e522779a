"""Keys never surprise: typing goes to the input only from the input, maximise works for every pane, stale keys
never act."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.tui.screens.dialog import ApprovalDialog
from ljtui.tui.widgets.prompt_input import PromptInput
from tests.tui.conftest import AppFactory, notices, settle, states, toasts, until
from tests.tui.test_review_loop import ORIGINAL, plan_request

SIZE = (100, 30)


@pytest.mark.parametrize(("key", "pane"), [("f2", "conversation"), ("f3", "plan"), ("f4", "diff"), ("f5", "gates")])
async def test_every_pane_maximises_within_the_screen_and_keeps_the_input(make_app: AppFactory, key: str,
                                                                           pane: str) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(key, "f8")
        screen = app.main_screen
        shown = {w.id: w.region for w in screen.query("#conversation, #plan, #diff, #gates") if w.region.width}
        assert list(shown) == [pane]
        assert shown[pane].width == SIZE[0] and shown[pane].right <= SIZE[0]
        assert screen.query_one(PromptInput).region.height > 0
        await pilot.press("f8")
        assert screen.maximized_pane is None and screen.pane("conversation").region.width < SIZE[0]


async def test_after_an_apply_the_focus_stays_in_the_diff_pane_and_u_asks_before_undoing(make_app: AppFactory,
                                                                                        git_repo: Path) -> None:
    app = make_app("plan_three_blocks.yaml")
    async with app.run_test(size=SIZE) as pilot:
        await plan_request(pilot)
        await pilot.press("f4", "a")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        applied = (git_repo / "app.py").read_text(encoding="utf-8")
        assert applied != ORIGINAL
        assert app.focused is app.main_screen.diff_pane, "u is one key away, never a chat message"
        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, ApprovalDialog), "the undo dialog")
        await pilot.press("escape")
        await settle(pilot)
        assert (git_repo / "app.py").read_text(encoding="utf-8") == applied, "declined: nothing written"
        assert app.main_screen.query_one(PromptInput).value == ""
        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, ApprovalDialog), "the undo dialog")
        await pilot.press("enter")
        await until(pilot, lambda: (git_repo / "app.py").read_text(encoding="utf-8") == ORIGINAL, "the undo")


async def test_keys_of_a_pane_act_only_when_the_user_moved_there(make_app: AppFactory, git_repo: Path) -> None:
    app = make_app("plan_three_blocks.yaml")
    async with app.run_test(size=SIZE) as pilot:
        await plan_request(pilot)
        assert isinstance(app.focused, PromptInput)
        app.main_screen.diff_pane.focus()  # focus that arrived without the user choosing the pane
        await pilot.press("a", "R")
        await settle(pilot)
        assert states(app) == ["accepted"] * 3 and not isinstance(app.screen, ApprovalDialog)
        assert app.main_screen.query_one(PromptInput).value == "", "nor are they text"
        assert toasts(app) == ["Press F4 to use the Diff pane's keys; F6 types a message."], "said once"
        await pilot.press("f4", "R")
        await settle(pilot)
        assert states(app) == ["rejected"] * 3


async def test_keys_pressed_before_a_plan_was_shown_are_not_replayed_as_actions(make_app: AppFactory,
                                                                                 git_repo: Path) -> None:
    from textual import _time, events

    app = make_app("plan_three_blocks.yaml")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f4")
        early = events.Key("R", "R")  # typed in the Diff pane while the plan was still being made
        await pilot.press("f6")
        await plan_request(pilot)
        await pilot.press("f4")
        assert early.time < _time.get_time()
        app.post_message(early)
        await settle(pilot)
        assert states(app) == ["accepted"] * 3
        assert app.main_screen.query_one(PromptInput).value == ""


async def test_question_mark_opens_help_from_a_pane_and_an_empty_input_but_types_in_text(
        make_app: AppFactory) -> None:
    from ljtui.tui.screens.help import HelpScreen

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape", *"why", "question_mark")
        assert not isinstance(app.screen, HelpScreen)
        assert app.main_screen.query_one(PromptInput).value == "why?"


async def test_a_question_typed_in_one_burst_stays_text(make_app: AppFactory) -> None:
    """Keys that arrive together (fast typing, a paste, a busy machine) reach the app before the input has
    taken the earlier ones; the ``?`` after them is still text, and the Enter still sends it."""
    from textual import events

    from ljtui.tui.screens.help import HelpScreen

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        for character in "why?":
            app.post_message(events.Key("question_mark" if character == "?" else character, character))
        await settle(pilot)
        assert not isinstance(app.screen, HelpScreen)
        assert app.main_screen.query_one(PromptInput).value == "why?"


async def test_an_unknown_command_is_selected_so_the_next_one_replaces_it(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/frobnicate", "enter")
        assert notices(app)[-1].startswith("Unknown command /frobnicate.")
        await pilot.press(*"/help")
        assert app.main_screen.query_one(PromptInput).value == "/help"


async def test_recovery_at_start_is_one_notice_inside_the_app(git_repo: Path) -> None:
    from ljtui.core.clock import FixedClock
    from ljtui.core.edits.validate import FileChange
    from ljtui.tui.app import LjtuiApp
    from tests.core.edits.helpers import interrupted_transaction

    created = [FileChange(f"gen/f{n}.txt", git_repo / "gen" / f"f{n}.txt", None, b"x\n") for n in range(30)]
    (git_repo / "gen").mkdir()
    interrupted_transaction(git_repo, created)
    app = LjtuiApp(git_repo, clock=FixedClock(), cursor_blink=False, watch=False, recover=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        recovered = [n for n in notices(app) if "recovered unfinished apply" in n]
        assert len(recovered) == 1
        assert recovered[0].count("removed: gen/") == 5 and "… and 25 more" in recovered[0]
        assert not any((git_repo / "gen").iterdir())


async def test_a_message_sent_as_the_app_starts_is_answered_after_the_recovery_not_refused(git_repo: Path,
                                                                                           monkeypatch) -> None:
    import threading

    from ljtui.core.clock import FixedClock
    from ljtui.core.edits.service import EditService
    from ljtui.core.edits.validate import FileChange
    from ljtui.tui.app import LjtuiApp
    from tests.core.edits.helpers import interrupted_transaction
    from tests.fixtures import SCRIPTS

    created = [FileChange(f"gen/f{n}.txt", git_repo / "gen" / f"f{n}.txt", None, b"x\n") for n in range(3)]
    (git_repo / "gen").mkdir()
    interrupted_transaction(git_repo, created)
    release = threading.Event()
    recover = EditService.recover

    def slow_recover(self, max_files=None):  # type: ignore[no-untyped-def]
        release.wait(10)  # a journal that takes a while to roll back
        return recover(self, max_files)

    monkeypatch.setattr(EditService, "recover", slow_recover)
    app = LjtuiApp(git_repo, overrides={"provider.name": "scripted", "provider.script": str(SCRIPTS / "hello.yaml")},
                   clock=FixedClock(), cursor_blink=False, watch=False, recover=True)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.engines.building is not None, "the engine's thread")
        threading.Timer(1.0, release.set).start()
        await until(pilot, lambda: app.started, "the start-up work")
        app.main_screen.query_one(PromptInput).value = "hello"
        await pilot.press("enter")
        await settle(pilot)
        assert not any("Still working" in n for n in notices(app)), notices(app)
        assert [m.role for m in app.engine.history][:1] == ["user"], "the message was sent"
        assert not any((git_repo / "gen").iterdir()), "the crash's files were rolled back first"


async def test_enter_pressed_while_the_engine_is_built_never_blocks_the_screen_and_sends_once_it_is(
        git_repo: Path, monkeypatch) -> None:
    import threading

    from ljtui.core.clock import FixedClock
    from ljtui.core.edits.service import EditService
    from ljtui.tui.app import LjtuiApp
    from tests.fixtures import SCRIPTS

    release, recovered = threading.Event(), threading.Event()
    recover = EditService.recover

    def slow_recover(self, max_files=None):  # type: ignore[no-untyped-def]
        release.wait(10)  # the engine's thread is still busy when Enter is pressed
        recovered.set()
        return recover(self, max_files)

    monkeypatch.setattr(EditService, "recover", slow_recover)
    app = LjtuiApp(git_repo, overrides={"provider.name": "scripted", "provider.script": str(SCRIPTS / "hello.yaml")},
                   clock=FixedClock(), cursor_blink=False, watch=False, recover=True)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.engines.building is not None, "the engine's thread")
        prompt = app.main_screen.query_one(PromptInput)
        prompt.value = "hello"
        await pilot.press("enter")
        await pilot.press("!")
        assert not recovered.is_set(), "the screen waited for the engine"
        assert prompt.value == "hello!" and app.prompt_held and not app.started
        release.set()
        await until(pilot, lambda: app.started, "the start-up work")
        await settle(pilot)
        assert [(m.role, m.content[0].text) for m in app.engine.history][:1] == [("user", "hello!")]
        assert prompt.value == "" and not app.prompt_held
        assert not any("Still working" in n for n in notices(app)), notices(app)


async def test_a_fault_in_the_start_up_recovery_is_one_error_notice_and_the_session_starts(git_repo: Path,
                                                                                            monkeypatch) -> None:
    from ljtui.core.clock import FixedClock
    from ljtui.core.edits.service import EditService
    from ljtui.tui.app import LjtuiApp

    def broken(self, max_files=None):  # type: ignore[no-untyped-def]
        raise RuntimeError("the journal folder vanished")

    monkeypatch.setattr(EditService, "recover", broken)
    app = LjtuiApp(git_repo, clock=FixedClock(), cursor_blink=False, watch=False, recover=True)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.started, "the start-up work")
        await settle(pilot)
        assert "Recovering the journal failed: RuntimeError: the journal folder vanished" in notices(app)
        assert app.main_screen.takes_keys


async def test_a_word_typed_in_a_pane_sends_nothing_and_says_once_where_typing_goes(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f2", *"la", "enter")
        await settle(pilot)
        assert app.main_screen.query_one(PromptInput).value == ""
        assert not any(n.startswith("›") for n in notices(app)) and app.engine.history == [], "no message was sent"
        assert toasts(app) == ["Typing does nothing in the Conversation pane: F6 types a message, F1 lists the keys."]
        await pilot.press("f6", *"la")
        assert app.main_screen.query_one(PromptInput).value == "la", "from the input, typing is text"


async def test_ctrl_c_with_nothing_running_says_how_to_cancel_and_quit_once(make_app: AppFactory) -> None:
    from ljtui.tui.commands import NOTHING_RUNNING

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+c", "ctrl+c", "escape")
        await settle(pilot)
        assert app.is_running, "Ctrl+C does not quit"
        assert notices(app).count(NOTHING_RUNNING) == 1, "said once, however often it is pressed"
