"""The layout follows the focus: the Conversation is wide while it or the input has the focus, a focused side
pane gets the room (a dozen diff lines at 80x24), F8 and F9 still work, and the footer keeps the focused
pane's essential keys, F1 Help and the palette key at 80 columns (the status bar its branch)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from ljtui.tui.commands import ACTIONS
from ljtui.tui.widgets.diff_view import DiffView
from ljtui.tui.widgets.key_footer import GLOBAL, HELP, MINOR, PANE, KeyFooter, Shown, fit
from ljtui.tui.widgets.status_bar import StatusBar
from tests.tui.conftest import AppFactory, settle, until
from tests.tui.plan_helpers import ask
from tests.tui.review_plans import long_diff_plan
from tests.tui.screen_check import drawn

SMALL = (80, 24)
LARGE = (120, 40)

ESSENTIAL = {
    "diff": ("review.apply", "review.toggle", "review.next", "review.prev", "review.undo"),
    "plan": ("plan.approve", "plan.reject", "plan.edit"),
    "gates": ("gates.expand", "gates.check", "gates.recheck"),
}
"""The keys each pane's footer must show at 80 columns, by action id."""


async def _opened(pilot) -> None:
    await settle(pilot)
    await settle(pilot)


async def _focus(pilot, key: str, pane: str) -> None:
    await pilot.press(key)
    await until(pilot, lambda: pilot.app.main_screen.chosen_pane == pane, f"the {pane} pane to have the focus")
    await pilot.pause()
    await pilot.pause()


def _width(app, pane_id: str) -> int:
    return app.main_screen.pane(pane_id).region.width


def _diff_rows(app) -> int:
    return app.main_screen.query_one(DiffView).scrollable_content_region.height


def _footer(app) -> str:
    footer = app.main_screen.query_one(KeyFooter)
    return drawn(app).lines[footer.region.y]


def _shown(action_id: str, app) -> str:
    """How the footer shows an action's key: its key, a space, its label."""
    action = ACTIONS.get(action_id)
    assert action is not None
    binding = action.binding()
    first = replace(binding, key=binding.key.split(",")[0].strip())
    return f"{app.get_key_display(first)} {action.label}"


async def test_the_conversation_is_wide_until_a_side_pane_has_the_focus(make_app: AppFactory, git_repo: Path) -> None:
    app = make_app(script=None, review_path=long_diff_plan(git_repo))
    async with app.run_test(size=LARGE) as pilot:
        await _opened(pilot)
        await _focus(pilot, "f6", "prompt")
        assert _width(app, "conversation") >= 70
        diff = app.main_screen.pane("diff").region
        rows = _diff_rows(app)
        await _focus(pilot, "f4", "diff")
        grown = app.main_screen.pane("diff").region
        assert grown.width > diff.width and grown.height > diff.height and _diff_rows(app) > rows
        assert _width(app, "conversation") < _width(app, "side")
        await _focus(pilot, "f2", "conversation")
        assert _width(app, "conversation") >= 70
        assert app.main_screen.pane("diff").region == diff


async def test_a_focused_diff_pane_shows_a_dozen_lines_at_80x24(make_app: AppFactory, git_repo: Path) -> None:
    app = make_app(script=None, review_path=long_diff_plan(git_repo))
    async with app.run_test(size=SMALL) as pilot:
        await _opened(pilot)
        await _focus(pilot, "f6", "prompt")
        before = _diff_rows(app)
        await _focus(pilot, "f4", "diff")
        assert _diff_rows(app) >= 12 > before
        text = drawn(app).text
        assert all(title in text for title in ("Conversation", "Plan · F3", "Diff · F4", "Gates · F5"))
        assert "+     return value * 4" in text


async def test_a_plan_to_approve_gets_the_side_column(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await ask(pilot)
        await pilot.pause()
        screen = app.main_screen
        assert screen.side_focus == "plan"
        assert screen.pane("diff").region.height == screen.pane("gates").region.height == 1
        assert "4. Run the test suite" in drawn(app).text


@pytest.mark.parametrize("pane", ["diff", "gates", "prompt", "conversation"])
async def test_the_footer_keeps_the_pane_s_essential_keys_at_80x24(make_app: AppFactory, git_repo: Path,
                                                                  pane: str) -> None:
    app = make_app(script=None, review_path=long_diff_plan(git_repo))
    async with app.run_test(size=SMALL) as pilot:
        await _opened(pilot)
        await _focus(pilot, {"diff": "f4", "gates": "f5", "prompt": "f6", "conversation": "f2"}[pane], pane)
        footer = _footer(app)
        for action_id in ESSENTIAL.get(pane, ()):
            assert _shown(action_id, app) in footer, footer
        _assert_no_key_is_cut(app)


async def test_the_plan_pane_s_footer_at_80x24(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await ask(pilot)
        await pilot.pause()
        await pilot.pause()
        footer = _footer(app)
        for action_id in ESSENTIAL["plan"]:
            assert _shown(action_id, app) in footer, footer
        _assert_no_key_is_cut(app)


def _assert_no_key_is_cut(app) -> None:
    """Every key drawn whole, F1 Help and the palette key among them; the status bar keeps the branch."""
    from textual.widgets._footer import FooterKey

    footer = app.main_screen.query_one(KeyFooter)
    keys = list(footer.query(FooterKey))
    assert keys
    for key in keys:
        assert footer.region.contains_region(key.region), key.description
    palette = [k for k in keys if k.has_class("-command-palette")]
    assert palette and all(k.region.right <= palette[0].region.x for k in keys if k not in palette)
    assert _shown("app.help", app) in _footer(app) and "^p palette" in _footer(app), _footer(app)
    status = app.main_screen.query_one(StatusBar)
    assert "branch main" in drawn(app).lines[status.region.y]


async def test_f8_fills_the_body_with_the_diff_pane_and_restores(make_app: AppFactory, git_repo: Path) -> None:
    app = make_app(script=None, review_path=long_diff_plan(git_repo))
    async with app.run_test(size=SMALL) as pilot:
        await _opened(pilot)
        await _focus(pilot, "f4", "diff")
        screen = app.main_screen
        focused = screen.pane("diff").region
        await pilot.press("f8")
        await pilot.pause()
        assert screen.maximized_pane == "diff"
        assert screen.pane("diff").region.width == SMALL[0] and screen.pane("diff").region.height > focused.height
        assert not screen.pane("conversation").display and not screen.pane("plan").display
        assert _diff_rows(app) >= 12
        await pilot.press("f8")
        await pilot.pause()
        assert screen.maximized_pane is None and screen.pane("diff").region == focused


async def test_hiding_the_side_gives_the_conversation_the_width(make_app: AppFactory, git_repo: Path) -> None:
    app = make_app(script=None, review_path=long_diff_plan(git_repo))
    async with app.run_test(size=LARGE) as pilot:
        await _opened(pilot)
        await _focus(pilot, "f4", "diff")
        await pilot.press("f9")
        await pilot.pause()
        screen = app.main_screen
        assert screen.pane("prompt").has_focus and screen.side_focus is None
        assert _width(app, "conversation") == LARGE[0]
        await _focus(pilot, "f4", "diff")
        assert screen.side_focus == "diff" and _width(app, "side") > _width(app, "conversation")


def _key(label: str, rank: int = PANE) -> Shown:
    return Shown(label[0], label[0], label, f"do_{label}", True, "", rank)


def test_fit_draws_the_keys_closer_before_leaving_any_out() -> None:
    keys = [_key("Apply"), _key("Next"), _key("Help", HELP)]
    wide = sum(k.width(False) for k in keys)
    narrow = sum(k.width(True) for k in keys)
    assert fit(keys, wide + 12, (12, 11)) == (keys, False, True)
    assert fit(keys, narrow + 11, (12, 11)) == (keys, True, True)
    assert fit(keys, wide, None) == (keys, False, False)
    assert fit(keys, narrow, None) == (keys, True, False)


def test_fit_leaves_out_the_global_keys_then_the_minor_ones_then_the_pane_s_last_then_the_palette() -> None:
    pane = [_key("Apply"), _key("Toggle"), _key("All", MINOR), _key("Undo"), _key("Wrap", MINOR)]
    quit_key, help_key = _key("Quit", GLOBAL), _key("Help", HELP)
    keys = [*pane, quit_key, help_key]
    compact = {k.description: k.width(True) for k in keys}
    palette = (12, 11)
    everything = sum(compact.values()) + palette[1]
    assert fit(keys, everything, palette) == (keys, True, True)
    assert fit(keys, everything - 1, palette) == ([*pane, help_key], True, True)
    without_minor = [pane[0], pane[1], pane[3], help_key]
    assert fit(keys, everything - compact["Quit"] - 1, palette) == ([*pane[:4], help_key], True, True)
    base = sum(compact[k.description] for k in without_minor) + palette[1]
    assert fit(keys, base, palette) == (without_minor, True, True)
    assert fit(keys, base - 1, palette) == ([pane[0], pane[1], help_key], True, True)
    assert fit(keys, compact["Help"] + palette[1], palette) == ([help_key], True, True)
    assert fit(keys, compact["Help"] + palette[1] - 1, palette) == ([help_key], True, False)
    assert fit(keys, 0, palette) == ([], True, False)


def test_a_focused_diff_pane_at_80x24(snap_compare, make_app: AppFactory, git_repo: Path) -> None:
    app = make_app(script=None, review_path=long_diff_plan(git_repo))
    assert snap_compare(app, terminal_size=SMALL, run_before=_opened)


def test_a_focused_diff_pane_at_120x40(snap_compare, make_app: AppFactory, git_repo: Path) -> None:
    app = make_app(script=None, review_path=long_diff_plan(git_repo))
    assert snap_compare(app, terminal_size=LARGE, run_before=_opened)
