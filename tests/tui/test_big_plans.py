"""Plans of thousands of blocks: one list widget, one diff at a time, progress while checking."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.review.views import BlockView
from ljtui.tui.widgets.block_list import BlockList
from ljtui.tui.widgets.diff_view import DiffView
from tests.tui.conftest import AppFactory, settle, states, until
from tests.tui.review_plans import long_diff_plan, many_blocks_plan

SIZE = (120, 40)
BLOCKS = 1_000


async def test_thousands_of_blocks_are_one_virtual_list_and_one_diff(make_app: AppFactory, git_repo: Path) -> None:
    app = make_app(script=None, review_path=many_blocks_plan(git_repo, BLOCKS))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = app.main_screen.diff_pane
        assert states(app) == ["accepted"] * BLOCKS
        assert len(list(pane.query("*"))) < 10, "no widget per block"
        assert pane.query_one(BlockList).virtual_size.height == BLOCKS
        assert pane.border_subtitle == "1,000/1,000 accepted"
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


async def test_a_long_diff_comes_in_parts_paged_at_their_ends(make_app: AppFactory, git_repo: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from ljtui.core.review import service

    monkeypatch.setattr(service, "DIFF_PAGE_LINES", 20)
    app = make_app(script=None, review_path=long_diff_plan(git_repo))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        pane = app.main_screen.diff_pane
        view = pane.query_one(DiffView)
        assert pane.page.start == 0 and pane.page.total == 53
        assert str(view.border_title) == "long.py · lines 1–20 of 53"
        assert view.lines[-1].plain == "… 33 more line(s): PageDown at the end shows them"
        while not view.at_bottom:
            await pilot.press("pagedown")
        await pilot.press("pagedown")
        await until(pilot, lambda: pane.page.start == 20, "the next part of the diff")
        assert str(view.border_title) == "long.py · lines 21–40 of 53" and view.scroll_y == 0
        assert view.lines[0].plain == "… 20 line(s) above: PageUp at the top shows them"
        await pilot.press("pageup")
        await until(pilot, lambda: pane.page.start == 0, "the previous part of the diff")
        assert view.at_bottom


async def test_the_diff_is_fetched_again_only_when_the_review_changed(make_app: AppFactory, git_repo: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from ljtui.core.review import service

    monkeypatch.setattr(service, "FIRST_CHECK_BLOCKS", 10)
    monkeypatch.setattr(service, "CHECK_STEP_BLOCKS", 10)
    asked: list[int] = []
    real_diff = service.ReviewService.diff

    def counted(self, number: int, start: int = 0):
        asked.append(number)
        return real_diff(self, number, start)

    monkeypatch.setattr(service.ReviewService, "diff", counted)
    app = make_app(script=None, review_path=many_blocks_plan(git_repo, 100))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert asked == [1], "progress pictures of the check do not fetch the diff again"
        await pilot.press("f4", "j")
        await settle(pilot)
        assert asked == [1, 2]
        await pilot.press("R")
        await settle(pilot)
        assert asked == [1, 2, 2] and states(app) == ["rejected"] * 100


async def test_a_chained_block_shows_its_new_diff_after_a_choice(make_app: AppFactory, git_repo: Path) -> None:
    (git_repo / "chain.txt").write_text("a\n", encoding="utf-8")
    plan = git_repo / "plan.md"
    plan.write_text("".join(f"### EDIT {n}\n\n- file: `chain.txt`\n\n```old\n{old}\n```\n\n```new\n{new}\n```\n\n"
                            for n, old, new in ((1, "a", "b"), (2, "b", "c"))), encoding="utf-8")
    app = make_app(script=None, review_path=plan)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f4", "j")
        await settle(pilot)
        lines = lambda: [line.plain for line in app.main_screen.query_one(DiffView).lines]  # noqa: E731
        assert lines()[-2:] == ["- b", "+ c"]
        await pilot.press("R")
        await settle(pilot)
        assert lines()[-1] == "(no diff: this block does not apply to the current files)"
