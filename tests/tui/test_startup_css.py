"""The stylesheet is parsed again once at start, and once for each theme change."""

from __future__ import annotations

import pytest
from textual.css.stylesheet import Stylesheet

from tests.tui.conftest import AppFactory, until


async def test_start_reparses_the_stylesheet_once_and_a_theme_change_still_restyles(
        make_app: AppFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    reparses: list[str] = []
    reparse = Stylesheet.reparse

    def counted(self: Stylesheet) -> None:
        reparses.append("reparse")
        reparse(self)

    monkeypatch.setattr(Stylesheet, "reparse", counted)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert len(reparses) == 1
        before = app.main_screen.styles.background
        app.choose_theme("light")
        await until(pilot, lambda: app.main_screen.styles.background != before, "the light theme")
        assert len(reparses) == 2
