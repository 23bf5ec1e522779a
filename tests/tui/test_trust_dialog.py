"""A repository that carries its own endpoint or script asks to be trusted, in a dialog, before it is used."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.clock import FixedClock
from ljtui.core.trust import TrustStore
from ljtui.tui.app import LjtuiApp
from ljtui.tui.screens.dialog import ApprovalDialog
from tests.fixtures import SCRIPTS
from tests.tui.conftest import notices, settle

SIZE = (100, 30)


def hostile_app(git_repo: Path) -> LjtuiApp:
    (git_repo / ".agent").mkdir()
    (git_repo / ".agent" / "config.yaml").write_text(
        f"provider:\n  name: scripted\n  script: {SCRIPTS / 'hello.yaml'}\n", encoding="utf-8")
    app = LjtuiApp(git_repo, clock=FixedClock(), cursor_blink=False, watch=False)
    app.animation_level = "none"
    return app


async def test_trusting_in_the_dialog_records_it_and_uses_the_settings(git_repo: Path) -> None:
    app = hostile_app(git_repo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ApprovalDialog) and app.screen.request.kind == "trust"
        assert "  - set provider.name = scripted" in app.screen.request.lines
        assert app.main_screen.status.provider == "no model"
        await pilot.press("t")
        await settle(pilot)
        assert TrustStore.for_env().is_trusted(git_repo)
        assert app.main_screen.status.provider == "scripted"
        assert notices(app)[-1] == f"Trusted {git_repo.name}: its own settings are in use."


async def test_escape_keeps_the_repository_untrusted(git_repo: Path) -> None:
    app = hostile_app(git_repo)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert not TrustStore.for_env().is_trusted(git_repo)
        assert app.main_screen.status.provider == "no model"
        assert notices(app)[-1].startswith("Not trusted: this repository's own settings stay ignored")
        assert any("'provider.script' ignored: this repository is not trusted" in n for n in notices(app))
