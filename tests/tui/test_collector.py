"""The cyclic collector is paused while the TUI starts and back on from the first frame."""

from __future__ import annotations

import gc

from ljtui.tui.collector import StartupCollector
from tests.tui.conftest import AppFactory, until


def test_a_pause_is_undone_once_and_keeps_a_collector_that_was_off_off() -> None:
    assert gc.isenabled()
    collector = StartupCollector()
    collector.pause()
    collector.pause()
    assert not gc.isenabled() and collector.paused
    collector.resume()
    assert gc.isenabled() and not collector.paused
    gc.disable()
    try:
        collector.pause()
        collector.resume()
        assert not gc.isenabled(), "a collector someone else turned off stays off"
    finally:
        gc.enable()


async def test_the_app_starts_with_the_collector_paused_and_turns_it_on_after_the_first_frame(
        make_app: AppFactory) -> None:
    app = make_app()
    seen: dict[str, bool] = {}

    async def pilot(pilot) -> None:  # type: ignore[no-untyped-def]
        seen["starting"] = not gc.isenabled()
        await until(pilot, gc.isenabled, "the collector back on")
        seen["after first frame"] = gc.isenabled()
        app.exit()

    assert gc.isenabled()
    await app.run_async(headless=True, size=(80, 24), auto_pilot=pilot)
    assert seen == {"starting": True, "after first frame": True}
    assert gc.isenabled()
