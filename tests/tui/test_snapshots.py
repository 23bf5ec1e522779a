"""Screens as a user sees them, at fixed sizes, with a scripted model.

Review ``snapshot_report.html`` before running ``--snapshot-update``.
"""

from __future__ import annotations

import pytest

from tests.tui.conftest import AppFactory

SMALL = (80, 24)
LARGE = (120, 40)


async def _reply(pilot) -> None:
    await pilot.press(*"add retries to greet", "enter")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
def test_empty_main_screen(snap_compare, make_app: AppFactory, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(), terminal_size=size)


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
def test_conversation_after_streamed_reply(snap_compare, make_app: AppFactory, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_reply)


def test_help_screen(snap_compare, make_app: AppFactory) -> None:
    assert snap_compare(make_app(), terminal_size=LARGE, press=["f1"])


@pytest.mark.parametrize("theme", ["light", "high-contrast"])
def test_themes(snap_compare, make_app: AppFactory, theme: str) -> None:
    assert snap_compare(make_app(theme=theme), terminal_size=LARGE, run_before=_reply)


def test_no_model_configured(snap_compare, make_app: AppFactory) -> None:
    assert snap_compare(make_app(script=None), terminal_size=SMALL)
