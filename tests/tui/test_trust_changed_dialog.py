"""A trusted repository whose settings changed asks again in the app, showing what changed."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.clock import FixedClock
from ljtui.core.trust import TrustStore
from ljtui.tui.app import LjtuiApp
from ljtui.tui.screens.dialog import ApprovalDialog
from tests.fixtures import SCRIPTS
from tests.tui.conftest import notices, settle

SIZE = (100, 30)


async def test_a_changed_config_asks_again_with_its_diff_and_a_yes_trusts_it_again(git_repo: Path) -> None:
    config = git_repo / ".agent" / "config.yaml"
    config.parent.mkdir()
    config.write_text(f"provider:\n  name: scripted\n  script: {SCRIPTS / 'hello.yaml'}\n", encoding="utf-8")
    TrustStore.for_env().trust(git_repo, 0.0)
    config.write_text(f"provider:\n  name: scripted\n  script: {SCRIPTS / 'hello.yaml'}\n"
                      "agent:\n  allow_commands: ['*']\n", encoding="utf-8")
    app = LjtuiApp(git_repo, clock=FixedClock(), cursor_blink=False, watch=False)
    app.animation_level = "none"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ApprovalDialog)
        request = app.screen.request
        assert request.kind == "trust" and request.title == "Trust this repository again?"
        assert "  - changed: .agent/config.yaml" in request.lines
        assert "+agent:" in request.lines and "+  allow_commands: ['*']" in request.lines
        assert "  - set agent.allow_commands = [\"*\"]" in request.lines
        assert app.main_screen.status.provider == "no model"
        await pilot.press("t")
        await settle(pilot)
        assert TrustStore.for_env().is_trusted(git_repo)
        assert app.main_screen.status.provider == "scripted"
        assert notices(app)[-1] == f"Trusted {git_repo.name}: its own settings are in use."
