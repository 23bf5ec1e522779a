"""``/playbook`` in the app: the engine's playbook service answers, the Conversation shows it, promotion asks in a
dialog; snapshots of ``/playbook list`` and ``/playbook show``."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.playbooks.service import USAGE
from ljtui.tui.screens.dialog import ApprovalDialog
from ljtui.tui.slash import PLAYBOOK_USAGE, playbook_action
from ljtui.core.gates.model import Evidence, HistoryEntry
from ljtui.core.gates.store import GateStore
from tests.core.playbooks.helpers import repo_playbooks, write_fixture_library, write_playbook
from tests.tui.conftest import AppFactory, notices, settle, until
from tests.tui.test_gates_in_app import write_gate

SIZE = (100, 30)
SMALL = (80, 24)
LARGE = (120, 40)


@pytest.fixture(autouse=True)
def playbook_wiring(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry has ``/playbook``."""
    import ljtui.tui.app as app_module
    from ljtui.tui.actions import Registry

    if app_module.ACTIONS.slash("playbook") is None:
        monkeypatch.setattr(app_module, "ACTIONS", Registry((*app_module.ACTIONS.actions, playbook_action())))


async def send(pilot, text: str) -> None:
    from ljtui.tui.widgets.prompt_input import PromptInput

    await pilot.click(PromptInput)
    pilot.app.main_screen.query_one(PromptInput).value = text
    await pilot.press("enter")
    await settle(pilot)


def details(app) -> list[tuple[str, str]]:
    from textual.widgets import Collapsible, Static

    return [(str(c.title), "\n".join(str(w.render()) for w in c.query(Static)))
            for c in app.main_screen.query(Collapsible)]


def test_the_app_and_core_give_the_same_usage() -> None:
    assert PLAYBOOK_USAGE == USAGE


async def test_list_and_show_render_the_services_reply(make_app: AppFactory, git_repo: Path) -> None:
    write_fixture_library(repo_playbooks(git_repo))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await send(pilot, "/playbook list")
        await until(pilot, lambda: bool(details(app)), "the playbook list")
        title, body = details(app)[-1]
        assert title == "Playbooks (7)" and "active     windows-sandbox-build  2 ok · 1 fail" in body
        await send(pilot, "/playbook show windows-sandbox-build")
        await until(pilot, lambda: len(details(app)) == 2, "the playbook")
        title, body = details(app)[-1]
        assert title == "Playbook windows-sandbox-build" and "2. 运行 pnpm build" in body
        await send(pilot, "/playbook show nope")
        await until(pilot, lambda: notices(app)[-1].startswith("There is no playbook 'nope'"), "the error")
        await send(pilot, "/playbook fly")
        await until(pilot, lambda: notices(app)[-1] == f"Usage: {USAGE}", "the usage")


async def test_promote_asks_in_a_dialog_and_the_skill_is_offered_at_once(make_app: AppFactory, git_repo: Path,
                                                                         isolated_env: Path) -> None:
    write_playbook(isolated_env / "ljtui" / "playbooks", "deploy", "Deploy the site", status="draft", scope="user",
                   when="when deploying", sop=["Build", "Upload", "Check the site"])
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await send(pilot, "/playbook promote deploy")
        assert isinstance(app.screen, ApprovalDialog) and app.screen.request.kind == "playbook_promote"
        assert "  3. Check the site" in app.screen.request.lines
        await pilot.press("escape")
        await settle(pilot)
        assert notices(app)[-1] == "Playbook 'deploy' was not promoted; it stays draft."
        assert "playbook-deploy" not in app.skill_names
        await send(pilot, "/playbook promote deploy")
        assert isinstance(app.screen, ApprovalDialog)
        await pilot.press("enter")
        await settle(pilot)
        assert notices(app)[-1].startswith("Playbook 'deploy' is now active (was draft)")
        assert 'status: "active"' in (isolated_env / "ljtui" / "playbooks" / "deploy.md").read_text()
        assert "playbook-deploy" in app.skill_names
        await send(pilot, "/playbook deprecate deploy")
        assert notices(app)[-1] == "Playbook 'deploy' is now deprecated (was active)."
        assert "playbook-deploy" not in app.skill_names


async def test_a_malformed_playbook_is_a_warning_and_the_list_still_shows(make_app: AppFactory,
                                                                          git_repo: Path) -> None:
    write_playbook(repo_playbooks(git_repo), "good", "Good")
    (repo_playbooks(git_repo) / "bad.md").write_text("---\nid: bad\ntitle: x\nstatus: gold\n---\n", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await send(pilot, "/playbook")
        await until(pilot, lambda: bool(details(app)), "the list")
        assert details(app)[-1][0] == "Playbooks (1)"
        assert any(n.endswith("bad.md: status: 'gold' is not one of draft, active, deprecated; skipped")
                   for n in notices(app))


def _library_app(make_app: AppFactory, git_repo: Path):
    write_fixture_library(repo_playbooks(git_repo))
    return make_app()


def _typed(text: str):
    async def run_before(pilot) -> None:
        await settle(pilot)
        await send(pilot, text)
        await until(pilot, lambda: bool(details(pilot.app)), "the reply")
        await settle(pilot)
    return run_before


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
def test_playbook_list_snapshot(snap_compare, make_app: AppFactory, git_repo: Path, size: tuple[int, int]) -> None:
    assert snap_compare(_library_app(make_app, git_repo), terminal_size=size, run_before=_typed("/playbook list"))


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
def test_playbook_show_snapshot(snap_compare, make_app: AppFactory, git_repo: Path, size: tuple[int, int]) -> None:
    assert snap_compare(_library_app(make_app, git_repo), terminal_size=size,
                        run_before=_typed("/playbook show dsh-host"))


async def test_playbook_gates_lists_the_gates_and_shows_one_with_its_items_and_history(make_app: AppFactory,
                                                                                     git_repo: Path) -> None:
    gate_id = write_gate(git_repo, "touch ran.txt", confirmed=True)
    passed = Evidence("smoke", "touch ran.txt", 0, 12, "", "", "user", at=1_800_000_060.0)
    GateStore(git_repo).record_outcome(gate_id, HistoryEntry("20270115-0801-a1b2", "pass", 1_800_000_060.0,
                                                             (passed,)))
    app = make_app()
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        await send(pilot, "/playbook gates")
        await until(pilot, lambda: bool(details(app)), "the gates listed")
        title, body = details(app)[-1]
        assert title == "Delivery gates"  # a pass made P 1 and R fall: L1 is suggested, the confirmed L2 holds
        assert body.splitlines()[1:] == [f"{gate_id} · L2 (suggests L1) · R 0.28 · confirmed · P 1.00 (1 run(s): "
                                         "1 passed, 0 failed, 0 rework(s)) · Greeting works"]
        await send(pilot, f"/playbook gates {gate_id}")
        await until(pilot, lambda: len(details(app)) == 2, "the gate shown")
        title, body = details(app)[-1]
        assert title == f"Gate {gate_id}"
        assert body.splitlines()[1] == f"Delivery gate {gate_id} (L2, R 0.28): confirmed, not started"
        for line in ("- smoke (required): pending — the greeting prints", "  smoke: $ touch ran.txt",
                     "history: 1 run(s), 1 passed, 0 failed, 0 rework(s)",
                     "  20270115-0801-a1b2  pass  2027-01-15T08:01:00.000Z  (smoke 0)"):
            assert line in body.splitlines(), body
        await send(pilot, "/playbook gates check")  # an id, never the /gates verb: nothing runs
        said = f"there is no gate 'check' (the gates here: {gate_id}); /playbook gates lists them"
        await until(pilot, lambda: any(said in n for n in notices(app)), "the unknown id's error")
        await send(pilot, "/playbook gates one two")
        await until(pilot, lambda: notices(app)[-1] == f"Usage: {USAGE}", "the usage")
        assert len(details(app)) == 2 and not (git_repo / "ran.txt").exists()
