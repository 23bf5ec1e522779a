"""How a gate run ended is the gate's state afterwards, and a level its record moved is told where it moves."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.events import GateChanged, Notice
from tests.core.gates.scripted import FRIENDLY, GATE, call, make_engine, propose, with_tests

EDIT = call("edit_file", path="app.py", old="    return 'hello ' + name\n", new="    return f'hello, {name}!'\n")
PASSED_AND_DELIVERED = [propose(), call("gate_confirm", gate_id=GATE), call("gate_start", gate_id=GATE), EDIT,
                        call("gate_check", item="tests"), call("gate_finish", outcome="pass"), {"text": "Delivered."}]
USER_SAYS_YES = {"gate_confirm": ["yes"], "gate_start": ["yes"], "apply": ["yes"], "playbook_offer": ["no"]}


def last_view(sink):
    return [e for e in sink.events if isinstance(e, GateChanged)][-1].gate


def notices(sink) -> list[str]:
    return [e.message for e in sink.events if isinstance(e, Notice)]


async def test_a_passed_delivered_run_is_the_gates_state_though_its_level_fell(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    engine, sink, _ = make_engine(repo, PASSED_AND_DELIVERED, USER_SAYS_YES)
    await engine.run_turn("make greet friendlier")
    assert (repo / "app.py").read_text() == FRIENDLY
    view = last_view(sink)
    assert (view.outcome, view.delivered, view.started) == ("pass", True, False)
    assert (view.level, view.confirmed, view.risk.level) == (2, True, 1)  # the record moved P: L1 is only suggested
    [moved] = [n for n in notices(sink) if "suggests L" in n]
    assert moved.startswith(f"Gate {GATE}'s record now suggests L1 (was L2): run ") and " passed, so its pass " \
        "rate P rose from 0.50 to 1.00 and R went from 0.53 to 0.28" in moved
    assert "It stays L2, the level you confirmed, until you confirm it again (at L1)" in moved


async def test_the_ending_survives_a_restart_and_goes_when_the_gate_is_set_up_again(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    engine, sink, _ = make_engine(repo, PASSED_AND_DELIVERED, USER_SAYS_YES)
    await engine.run_turn("make greet friendlier")
    again, _, _ = make_engine(repo, [call("gate_confirm", gate_id=GATE), {"text": "ok"}], {"gate_confirm": ["yes"]})
    again.gates.restore()
    view = again.gates.view(GATE)
    assert view is not None and (view.outcome, view.delivered) == ("pass", True)
    await again.run_turn("confirm it again")
    view = again.gates.view(GATE)
    assert view is not None and view.confirmed and (view.outcome, view.delivered) == ("", False)


async def test_no_notice_when_the_level_stays(git_repo: Path) -> None:
    from ljtui.core.gates.endings import level_change_text
    from ljtui.core.gates.model import Stats

    repo = with_tests(git_repo)
    engine, _, _ = make_engine(repo, [propose(), {"text": "ok"}])
    await engine.run_turn("propose")
    gate = engine.gates.gate(GATE)
    assert level_change_text(gate, gate, "nothing happened") is None
    import dataclasses

    worse = dataclasses.replace(gate, stats=Stats(runs=1, failed=1))
    text = level_change_text(gate, worse, "run x failed")
    assert text is not None and "is now L3 (was L2): run x failed, so its pass rate P fell from 0.50 to 0.00" in text
