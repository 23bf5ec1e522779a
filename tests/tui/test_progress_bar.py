"""Long work shows a progress bar in the status bar: a gate's checks and an apply, with counts and elapsed time
redrawn while it runs, and gone once it ends (UI-6)."""

from __future__ import annotations

import os
from pathlib import Path

from ljtui.core.gates.confirmations import ConfirmationStore
from ljtui.core.gates.model import CheckItem, Factors
from ljtui.core.gates.store import GateStore
from ljtui.core.review.events import ApplyFinished, ApplyProgressed
from ljtui.tui.widgets.status_bar import Progress, format_elapsed, progress_text
from tests.tui.conftest import AppFactory, settle, until
from tests.tui.plan_helpers import post
from tests.tui.review_plans import many_blocks_plan

SIZE = (160, 30)
RELEASE = "release-the-check"
"""The file the slow check waits for; the test creates it to let the check end."""
WAIT_FOR_RELEASE = f"until [ -e {RELEASE} ]; do sleep 0.02; done"


def status_text(app) -> str:  # type: ignore[no-untyped-def]
    return str(app.main_screen.status.render())


def three_checks(repo: Path) -> str:
    """A confirmed gate whose second check runs until the test creates :data:`RELEASE`."""
    items = [CheckItem("first", "a quick check", "true"), CheckItem("slow", "waits for the test", WAIT_FOR_RELEASE),
             CheckItem("last", "another quick check", "true")]
    gate = GateStore(repo).propose("Three checks", items, Factors(0.6, 0.5, 0.6, False, False), 1.0)
    ConfirmationStore.for_env(os.environ).confirm(repo, gate, 1.0)
    return gate.id


def test_the_bar_fills_with_the_counts_and_says_the_time_so_far() -> None:
    assert progress_text(Progress("checks", 1, 3, 10.0), 75.0) == "checks ▕███░░░░░░░▏ 1/3 · 1m 05s"
    assert progress_text(Progress("apply", 0, 0, 0.0), 3.0) == "apply ▕░░░░░░░░░░▏ 0/0 · 3s"
    assert (format_elapsed(-1), format_elapsed(59.9), format_elapsed(7384)) == ("0s", "59s", "2h 03m")


async def test_a_gate_run_shows_its_checks_progress_until_they_end(git_repo: Path, make_app: AppFactory) -> None:
    gate_id = three_checks(git_repo)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        status = app.main_screen.status
        await pilot.press(*f"/gates {gate_id}", "enter")
        await settle(pilot)
        await pilot.press(*"/gates check", "enter")
        await until(pilot, lambda: "checks ▕███░░░░░░░▏ 1/3 · 0s" in status_text(app), "the slow check's bar")
        assert status.ticking, "the elapsed time is redrawn while the checks run"
        app.clock.advance(65)
        await until(pilot, lambda: "1/3 · 1m 05s" in status_text(app), "the timer to redraw the elapsed time")
        (git_repo / RELEASE).touch()
        await settle(pilot)
        assert "checks" not in status_text(app) and status.progress is None and not status.ticking
        assert "gate" in status_text(app), "the rest of the bar stays"


async def test_an_apply_shows_its_steps_then_clears(git_repo: Path, make_app: AppFactory) -> None:
    app = make_app(script=None, review_path=many_blocks_plan(git_repo, 12, files=12))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        status = app.main_screen.status
        shown: list[Progress | None] = []
        app.watch(status, "progress", lambda value: shown.append(value), init=False)
        await pilot.press("f4", "a")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert (git_repo / "mod_0.py").read_text(encoding="utf-8") == "VALUE_0_0 = 1\n"
        counts = [(p.label, p.done, p.total) for p in shown if p is not None]
        assert counts and counts == sorted(counts) and counts[-1][1] == counts[-1][2], "counts rise to the total"
        assert shown[-1] is None and status.progress is None and not status.ticking
        assert "apply ▕" not in status_text(app)


async def test_a_step_shows_the_bar_and_a_failed_apply_clears_it(make_app: AppFactory) -> None:
    app = make_app(script=None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        started = app.clock.monotonic()
        post(app, ApplyProgressed("applying chunk 2/4 (3 entries, 3 files)", 3, 6, started))
        await until(pilot, lambda: "apply ▕█████░░░░░▏ 3/6 · 0s" in status_text(app), "the apply's bar")
        post(app, ApplyProgressed("a line about the apply"))
        await pilot.pause()
        assert "3/6" in status_text(app), "a line with no count leaves the bar as it was"
        post(app, ApplyProgressed("", 3, 6, started, ended=True))
        await until(pilot, lambda: "apply ▕" not in status_text(app), "the bar to go when the apply stops")
        assert not app.main_screen.status.ticking
        post(app, ApplyProgressed("writing 3 files", 1, 3, started), ApplyFinished({"status": "error"}))
        await until(pilot, lambda: app.main_screen.status.progress is None, "a finished apply to clear its bar")
