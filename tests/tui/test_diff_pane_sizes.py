"""The Diff pane on small terminals: a long diff is readable and scrolls by keys and wheel;
the footer keeps Apply and dialogs keep their key line at 60x15."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.events import MouseScrollDown

from ljtui.tui.widgets.diff_view import DiffView
from tests.tui.conftest import AppFactory, settle, until
from tests.tui.review_plans import binary_plan, long_diff_plan, many_blocks_plan

SMALL = (80, 24)
TINY = (60, 15)


async def _opened(pilot) -> None:
    await settle(pilot)
    await settle(pilot)


def _visible_diff(app) -> list[str]:
    """The diff lines on screen in the Diff pane."""
    view = app.main_screen.query_one(DiffView)
    top = int(view.scroll_y)
    return [line.plain for line in view.lines[top:top + view.scrollable_content_region.height]]


@pytest.mark.parametrize("size", [SMALL, TINY], ids=["80x24", "60x15"])
def test_long_diff_on_a_small_terminal(snap_compare, make_app: AppFactory, git_repo: Path, size) -> None:
    app = make_app(script=None, review_path=long_diff_plan(git_repo))
    assert snap_compare(app, terminal_size=size, run_before=_opened)


def test_long_diff_after_page_down_at_80x24(snap_compare, make_app: AppFactory, git_repo: Path) -> None:
    app = make_app(script=None, review_path=long_diff_plan(git_repo))

    async def run_before(pilot) -> None:
        await _opened(pilot)
        await pilot.press("pagedown")
        await _opened(pilot)

    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


def test_apply_dialog_keeps_its_keys_at_60x15(snap_compare, make_app: AppFactory, git_repo: Path) -> None:
    app = make_app(script=None, review_path=many_blocks_plan(git_repo, 40, files=20))

    async def run_before(pilot) -> None:
        await _opened(pilot)
        await pilot.press("a")
        await _opened(pilot)

    assert snap_compare(app, terminal_size=TINY, run_before=run_before)


async def test_the_diff_body_shows_and_scrolls_at_80x24(make_app: AppFactory, git_repo: Path) -> None:
    app = make_app(script=None, review_path=long_diff_plan(git_repo))
    async with app.run_test(size=SMALL) as pilot:
        await _opened(pilot)
        first = _visible_diff(app)
        assert len(first) >= 5 and first[0].startswith("@@ -3,35 +3,35 @@")
        assert any(line.startswith("- ") for line in first) or any(line.startswith("+ ") for line in first)
        await pilot.press("pagedown")
        await settle(pilot)
        lines = [line.plain for line in app.main_screen.query_one(DiffView).lines]
        assert _visible_diff(app) == lines[len(first):2 * len(first)]
        view = app.main_screen.query_one(DiffView)
        for _ in range(len(lines)):
            if view.at_bottom:
                break
            await pilot.press("pagedown")
        assert _visible_diff(app)[-1] == lines[-1] and "+     return value * 16" in _visible_diff(app)
        for _ in range(len(lines)):
            if view.at_top:
                break
            await pilot.press("pageup")
        assert _visible_diff(app) == first
        assert app.main_screen.diff_pane.current_number == 1


async def test_the_mouse_wheel_scrolls_the_diff(make_app: AppFactory, git_repo: Path) -> None:
    app = make_app(script=None, review_path=long_diff_plan(git_repo))
    async with app.run_test(size=SMALL) as pilot:
        await _opened(pilot)
        view = app.main_screen.query_one(DiffView)
        assert view.scroll_y == 0
        await pilot._post_mouse_events([MouseScrollDown], widget=view, offset=(4, 2))
        await until(pilot, lambda: view.scroll_y > 0, "the wheel to scroll the diff")


async def test_a_binary_diff_keeps_its_first_letter(make_app: AppFactory, git_repo: Path) -> None:
    app = make_app(script=None, review_path=binary_plan(git_repo))
    async with app.run_test(size=SMALL) as pilot:
        await _opened(pilot)
        lines = _visible_diff(app)
        assert lines[0].startswith("escaped: ")
        assert "  \\xff\\xfe header" in lines
        assert ["- keep", "+ changed"] == lines[-2:]


async def test_clicking_a_block_selects_it(make_app: AppFactory, git_repo: Path) -> None:
    from ljtui.tui.widgets.block_list import BlockList

    app = make_app(script=None, review_path=long_diff_plan(git_repo))
    async with app.run_test(size=SMALL) as pilot:
        await _opened(pilot)
        pane = app.main_screen.diff_pane
        await pilot.click(BlockList, offset=(4, 2))
        await until(pilot, lambda: pane.current_number == 3, "the clicked block to be selected")
        await settle(pilot)
        assert "small.py" in str(pane.query_one(DiffView).border_title)
