"""The sandbox in the app: the command dialog shows what it allows and its extra answers; without a sandbox
the status bar, a notice and every command dialog say "unsandboxed"."""

from __future__ import annotations

from ljtui.tui.screens.dialog import ApprovalDialog
from tests.tui.conftest import AppFactory, notices, settle, until

LARGE = (120, 40)
UNSANDBOXED = {"agent.sandbox": {"backend": "none"}}


async def ask(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    await until(pilot, lambda: pilot.app.started, "the start-up work")
    await pilot.press(*text, "enter")
    await until(pilot, lambda: isinstance(pilot.app.screen, ApprovalDialog), "the dialog")


async def test_the_command_dialog_says_what_the_sandbox_allows(make_app: AppFactory) -> None:
    app = make_app("bash_quick.yaml")
    async with app.run_test(size=LARGE) as pilot:
        await ask(pilot, "what is here?")
        dialog = app.screen
        assert isinstance(dialog, ApprovalDialog) and dialog.request.title == "Run this command?"
        assert dialog.request.lines[-1].endswith("writes: this repository, a private temp dir; network: off"
                                                 " · changes are written to your files directly")
        keys = dialog.key_line()
        assert "n: once with network" in keys and "N: network for the session" in keys
        assert "u: once without the sandbox" in keys
        assert "unsandboxed" not in str(app.main_screen.status.render())


async def test_unsandboxed_the_status_bar_a_notice_and_every_dialog_say_so(make_app: AppFactory) -> None:
    app = make_app("bash_quick.yaml", **UNSANDBOXED)
    async with app.run_test(size=LARGE) as pilot:
        await until(pilot, lambda: "unsandboxed" in str(app.main_screen.status.render()), "the status bar")
        assert any(n.startswith("Unsandboxed: agent.sandbox.backend is 'none'") for n in notices(app))
        await ask(pilot, "what is here?")
        dialog = app.screen
        assert isinstance(dialog, ApprovalDialog) and dialog.request.title == "Run this command unsandboxed?"
        assert [c.key for c in dialog.request.choices] == ["enter", "escape"]
        assert dialog.request.lines[0].startswith("Unsandboxed:")
        await pilot.press("enter")
        await settle(pilot)
