"""Gates in the app through the real engine: /gates lists and shows, the pane's c runs the check for real."""

from __future__ import annotations

import os
from pathlib import Path

from ljtui.core.gates.confirmations import ConfirmationStore
from ljtui.core.gates.model import CheckItem, Factors
from ljtui.core.gates.store import GateStore
from ljtui.tui.widgets.gates_pane import GatesPane
from tests.tui.conftest import AppFactory, notices, settle, until
from tests.tui.plan_helpers import screen_text

SIZE = (120, 40)
FACTORS = Factors(0.6, 0.5, 0.6, False, False)


def write_gate(repo: Path, command: str, *, confirmed: bool) -> str:
    """A gate on disk, confirmed by the user (in the user's state dir) when ``confirmed``."""
    gate = GateStore(repo).propose("Greeting works", [CheckItem("smoke", "the greeting prints", command)], FACTORS,
                                   1.0)
    if confirmed:
        ConfirmationStore.for_env(os.environ).confirm(repo, gate, 1.0)
    return gate.id


def pane(app) -> GatesPane:
    return app.main_screen.query_one(GatesPane)


async def test_slash_gates_lists_then_shows_and_c_runs_the_check(git_repo: Path, make_app: AppFactory) -> None:
    gate_id = write_gate(git_repo, "python3 -c \"print('hello')\"", confirmed=True)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for text in ("/gates", f"/gates {gate_id}"):
            await pilot.press(*text, "enter")
            await settle(pilot)
        assert f"{gate_id} · L2 · R 0.53 · confirmed · P 0.50" in screen_text(app)
        await until(pilot, lambda: pane(app).view is not None and pane(app).view.id == gate_id, "the gate shown")
        await pilot.press("f5")
        await until(pilot, lambda: app.focused is pane(app), "the Gates pane to have the focus")
        await pilot.press("c")
        await settle(pilot)
        await until(pilot, lambda: pane(app).view.items[0].status == "passed", "the check to pass")
        assert pane(app).view.items[0].exit_code == 0 and "hello" in pane(app).view.items[0].output


async def test_an_unconfirmed_gates_command_never_runs(git_repo: Path, make_app: AppFactory) -> None:
    gate_id = write_gate(git_repo, "touch ran.txt", confirmed=False)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*f"/gates {gate_id}", "enter")
        await until(pilot, lambda: pane(app).view is not None, "the gate shown")
        await pilot.press("f5", "c")
        await settle(pilot)
        assert any("is not confirmed by the user" in n for n in notices(app)), notices(app)
        assert not (git_repo / "ran.txt").exists() and pane(app).view.items[0].status == "pending"


async def test_a_malformed_gate_file_is_named_with_its_field(git_repo: Path, make_app: AppFactory) -> None:
    folder = git_repo / ".agent" / "gates"
    folder.mkdir(parents=True)
    (folder / "broken.md").write_text("---\nid: broken\ntitle: 3\n---\n", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"/gates", "enter")
        await settle(pilot)
        assert ".agent/gates/broken.md" in screen_text(app)


async def test_a_gate_edited_by_hand_reloads_through_the_watcher(git_repo: Path, make_app: AppFactory) -> None:
    gate_id = write_gate(git_repo, "true", confirmed=False)
    app = make_app(watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*f"/gates {gate_id}", "enter")
        await until(pilot, lambda: pane(app).view is not None, "the gate shown")
        path = git_repo / ".agent" / "gates" / f"{gate_id}.md"
        path.write_text(path.read_text(encoding="utf-8").replace("title: ", "title: Hand-edited ", 1)
                        .replace("Greeting works", "Greeting still works"), encoding="utf-8")
        await until(pilot, lambda: "still works" in pane(app).view.title, "the edited title to show")
        path.write_text("---\nid: broken\n", encoding="utf-8")
        await until(pilot, lambda: pane(app).view is None, "the malformed gate to leave the pane")
        await until(pilot, lambda: f".agent/gates/{gate_id}.md" in screen_text(app), "the error naming the file")


async def test_an_unknown_gate_is_a_notice_naming_the_gates_and_slash_gates(git_repo: Path,
                                                                             make_app: AppFactory) -> None:
    gate_id = write_gate(git_repo, "true", confirmed=False)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"/gates nosuch", "enter")
        said = f"there is no gate 'nosuch' (the gates here: {gate_id}); /gates lists them"
        await until(pilot, lambda: any(said in n for n in notices(app)), "the refusal")
        assert not any("gate_status" in n or "ljtui gates" in n for n in notices(app)), notices(app)
