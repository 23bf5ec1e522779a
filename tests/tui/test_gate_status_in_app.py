"""The status bar tells how a gate run ended: a gate run, checked, passed and delivered in the app by keys."""

from __future__ import annotations

from pathlib import Path

import yaml

from ljtui.tui.screens.dialog import ApprovalDialog
from ljtui.tui.widgets.gates_pane import GatesPane
from tests.core.gates.scripted import FRIENDLY, GATE, call, propose, with_tests
from tests.tui.conftest import AppFactory, notices, settle, until
from tests.tui.plan_helpers import screen_text

SIZE = (160, 40)
EDIT = call("edit_file", path="app.py", old="    return 'hello ' + name\n", new="    return f'hello, {name}!'\n")
TURNS = [propose(), call("gate_confirm", gate_id=GATE), call("gate_start", gate_id=GATE), EDIT,
         call("gate_check", item="tests"), call("gate_finish", outcome="pass"), {"text": "Delivered."}]


async def answer_every_dialog(pilot) -> list[str]:
    """Say yes to each dialog the turn opens (no to keeping a playbook) until the turn ends; their kinds."""
    app, asked = pilot.app, []
    while True:
        await settle(pilot)
        if not isinstance(app.screen, ApprovalDialog):
            return asked
        asked.append(app.screen.request.kind)
        await pilot.press("escape" if asked[-1] == "playbook_offer" else "enter")


def gated_app(git_repo: Path, make_app: AppFactory):
    """The app on ``git_repo`` with tests, its model scripted to work under a gate (:data:`TURNS`)."""
    repo = with_tests(git_repo)
    script = repo.parent / "gate.yaml"
    script.write_text(yaml.safe_dump({"turns": TURNS}), encoding="utf-8")
    return make_app(str(script))


async def test_a_passed_delivered_gate_says_so_and_the_level_change_is_told(git_repo: Path,
                                                                           make_app: AppFactory) -> None:
    app = gated_app(git_repo, make_app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"make greet friendlier", "enter")
        asked = await answer_every_dialog(pilot)
        assert asked[:2] == ["gate_confirm", "gate_start"] and "apply" in asked
        assert (git_repo / "app.py").read_text() == FRIENDLY
        status = app.main_screen.status
        await until(pilot, lambda: status.gate == "gate passed · delivered", "the gate's ending in the status bar")
        assert "unconfirmed" not in str(status.render())
        [moved] = [n for n in notices(app) if "suggests L" in n]
        assert f"Gate {GATE}'s record now suggests L1 (was L2)" in moved and "pass rate P rose from 0.50 to 1.00" in moved
        assert "It stays L2, the level you confirmed" in moved
        view = app.main_screen.query_one(GatesPane).view
        assert (view.level, view.confirmed, view.risk.level, view.outcome) == (2, True, 1, "pass")
        assert "last run passed · delivered" in screen_text(app)


def test_the_segment_says_how_the_run_ended_before_any_confirmation() -> None:
    from tests.tui.gate_helpers import gate_view, proposed_view
    from ljtui.tui.widgets.gates_render import status_segment

    assert status_segment(proposed_view(outcome="pass", delivered=True)) == "gate passed · delivered"
    assert status_segment(gate_view(blocked=(), outcome="pass")) == "gate passed · not delivered"
    assert status_segment(proposed_view(outcome="rework")) == "gate sent back"
    assert status_segment(gate_view(outcome="fail")) == "gate L2 · blocked"
    assert status_segment(proposed_view()) == "gate L2 · unconfirmed"
