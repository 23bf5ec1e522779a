"""The command palette lists every action that makes sense there, each with its keys or slash command."""

from __future__ import annotations

import pytest
from textual.command import CommandPalette
from textual.content import Content

from ljtui.tui.actions import MOVES_IN_PANE
from ljtui.tui.app import LjtuiApp
from ljtui.tui.commands import ACTIONS
from ljtui.tui.palette import help_line, system_commands
from ljtui.tui.screens.help import key_label
from tests.tui.conftest import AppFactory, until
from tests.tui.test_help_snapshots import SMALL, _open_at_page, _words, drawn_text


@pytest.fixture
def wired(monkeypatch: pytest.MonkeyPatch) -> None:
    """The app's palette made of :func:`system_commands`."""
    monkeypatch.setattr(LjtuiApp, "get_system_commands", lambda self, screen: system_commands(self, screen))


def _plain(markup: str) -> str:
    return Content.from_markup(markup).plain


async def test_every_action_is_in_the_palette_or_says_why_not_and_every_key_is_in_the_help(
        make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: app.started, "the start-up work")
        listed = {_plain(c.title): _plain(c.help) for c in system_commands(app, app.screen)}
        await _open_at_page(0)(pilot)
        help_text = drawn_text(app)
        left_out = []
        for action in ACTIONS.actions:
            if action.title in listed:
                assert listed[action.title] == help_line(action, {}) != action.title, action.id
                assert not action.palette_reason
            else:
                assert action.palette_reason, f"{action.id} is neither in the palette nor says why not"
                left_out.append(action.id)
            if action.keys:
                assert _words(key_label(action.keys)) in help_text, action.id
        assert all(ACTIONS.get(i).palette_reason == MOVES_IN_PANE for i in left_out if i != "turn.interrupt")


def test_a_help_line_names_the_keys_and_the_command_as_typed() -> None:
    assert help_line(ACTIONS.get("app.help"), {}) == "F1, ? · /help"
    assert help_line(ACTIONS.get("review.toggle"), {}) == "Space"
    assert help_line(ACTIONS.get("review.export"), {"review.export": "ctrl+e"}) == "Ctrl+E · /export [PATH]"
    assert help_line(ACTIONS.get("gates.command"), {}).startswith("/gates [ID | check [ITEM]")


async def _palette_lines(pilot, query: str) -> list[str]:
    await pilot.press("ctrl+p")
    await until(pilot, lambda: isinstance(pilot.app.screen, CommandPalette), "the palette")
    await pilot.press(*query)
    palette = pilot.app.screen
    await until(pilot, lambda: palette.query_one("CommandList").option_count > 0, "the palette's matches")
    await pilot.pause(0.3)
    return [str(option.prompt) if not hasattr(option.prompt, "plain") else option.prompt.plain
            for option in palette.query_one("CommandList").options]


async def test_the_palette_shows_a_slash_command_as_typed(make_app: AppFactory, wired: None) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.started, "the start-up work")
        lines = await _palette_lines(pilot, "Delivery gates")
        assert any("/gates [ID | check [ITEM] | deliver [ID] | discard [ID] | rework ID]" in line for line in lines)


async def test_a_command_that_needs_text_is_put_in_the_input_box(make_app: AppFactory, wired: None) -> None:
    from ljtui.tui.widgets.prompt_input import PromptInput

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.started, "the start-up work")
        await _palette_lines(pilot, "Open an EDIT plan")
        await pilot.press("enter")
        prompt = app.main_screen.query_one(PromptInput)
        await until(pilot, lambda: prompt.value == "/open ", "the command in the input box")
        assert app.focused is prompt
