"""Plans of thousands of blocks: one list widget, one diff at a time, progress while checking."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.review.views import BlockView
from ljtui.tui.widgets.block_list import BlockList
from ljtui.tui.widgets.diff_view import DiffView
from tests.tui.conftest import AppFactory, settle, states, until
from tests.tui.review_plans import many_blocks_plan

SIZE = (120, 40)
BLOCKS = 2_000


async def test_thousands_of_blocks_are_one_virtual_list_and_one_diff(make_app: AppFactory, git_repo: Path) -> None:
    app = make_app(script=None, review_path=many_blocks_plan(git_repo, BLOCKS))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = app.main_screen.diff_pane
        assert states(app) == ["accepted"] * BLOCKS
        assert len(list(pane.query("*"))) < 10, "no widget per block"
        assert pane.query_one(BlockList).virtual_size.height == BLOCKS
        assert pane.border_subtitle == f"{BLOCKS}/{BLOCKS} accepted"
        diff = [line.plain for line in pane.query_one(DiffView).lines]
        assert "- VALUE_0_0 = 0" in diff and "+ VALUE_0_0 = 1" in diff
        await pilot.press("f4", "j", "j", "j", "space")
        await settle(pilot)
        assert pane.current_number == 4 and states(app)[3] == "rejected"
        assert "+ VALUE_3_0 = 1" in [line.plain for line in pane.query_one(DiffView).lines]


async def test_a_plan_being_checked_shows_progress_and_waits_for_its_block(make_app: AppFactory) -> None:
    app = make_app(script=None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = app.main_screen.diff_pane
        views = tuple(BlockView(n, "app.py", None, "accepted" if n <= 3 else "checking", None) for n in range(1, 11))
        pane.show(views, 1)
        await pilot.pause()
        assert pane.border_subtitle == "validating 3/10"
        await pilot.press("f4", *"jjj")
        await until(pilot, lambda: pane.current_number == 4, "the selection to move")
        assert [line.plain for line in pane.query_one(DiffView).lines] == ["Checking this block against the files…"]
