"""Screens as a user sees them, at fixed sizes, with a scripted model.

Review ``snapshot_report.html`` before running ``--snapshot-update``.
"""

from __future__ import annotations

import pytest

from tests.tui.conftest import AppFactory, settle

SMALL = (80, 24)
LARGE = (120, 40)


async def _reply(pilot) -> None:
    await pilot.press(*"/chat add retries to greet", "enter")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
def test_empty_main_screen(snap_compare, make_app: AppFactory, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(), terminal_size=size)


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
def test_conversation_after_streamed_reply(snap_compare, make_app: AppFactory, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_reply)


@pytest.mark.parametrize("theme", ["light", "high-contrast"])
def test_themes(snap_compare, make_app: AppFactory, theme: str) -> None:
    assert snap_compare(make_app(theme=theme), terminal_size=LARGE, run_before=_reply)


def test_no_model_configured(snap_compare, make_app: AppFactory) -> None:
    assert snap_compare(make_app(script=None), terminal_size=SMALL)


PLAN_SCRIPT = "plan_three_blocks.yaml"


def _plan_file(repo) -> object:
    from tests.tui.test_review_loop import _plan_text

    path = repo / "plan.md"
    path.write_text(_plan_text(), encoding="utf-8")
    return path


async def _settle(pilot) -> None:
    await settle(pilot)
    await settle(pilot)


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
def test_review_opened_from_the_command_line(snap_compare, make_app: AppFactory, git_repo, size) -> None:
    app = make_app(script=None, review_path=_plan_file(git_repo))
    assert snap_compare(app, terminal_size=size, run_before=_settle)


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
def test_diff_pane_accepted_rejected_stale(snap_compare, make_app: AppFactory, git_repo, size) -> None:
    import asyncio

    app = make_app(script=None, review_path=_plan_file(git_repo))

    async def run_before(pilot) -> None:
        await _settle(pilot)
        await pilot.press("j", "space")
        await _settle(pilot)
        (git_repo / "app.py").write_text("def greet(name):\n    return 'hello ' + name\n# edited\n", encoding="utf-8")
        await asyncio.to_thread(pilot.app.engine.review.refresh, {"app.py"})
        await _settle(pilot)
        await pilot.press("k")

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
def test_apply_confirmation(snap_compare, make_app: AppFactory, size) -> None:
    async def run_before(pilot) -> None:
        await pilot.press(*"/edit add a farewell", "enter")
        await _settle(pilot)
        await pilot.press("f4", "j", "space")
        await _settle(pilot)
        await pilot.press("a")
        await _settle(pilot)

    assert snap_compare(make_app(PLAN_SCRIPT), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
def test_result_after_apply(snap_compare, make_app: AppFactory, size) -> None:
    async def run_before(pilot) -> None:
        await pilot.press(*"/edit add a farewell", "enter")
        await _settle(pilot)
        await pilot.press("f4", "a")
        await _settle(pilot)
        await pilot.press("enter")
        await _settle(pilot)

    assert snap_compare(make_app(PLAN_SCRIPT), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
def test_planner_abort(snap_compare, make_app: AppFactory, size) -> None:
    async def run_before(pilot) -> None:
        await pilot.press(*"/edit add a farewell", "enter")
        await _settle(pilot)

    assert snap_compare(make_app("plan_fabricates.yaml"), terminal_size=size, run_before=run_before)
