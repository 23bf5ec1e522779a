"""A gate's lifecycle around a pass: an L1 run ends when it passes, the level the user confirmed stays the gate's
level, and what L1 blocks is said the same way by the dialog, the view, the pane and the status bar."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from ljtui.core.approval import ScriptedApprover
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.events import GateChanged, Notice
from ljtui.core.gates.commands import list_lines, show_lines
from ljtui.core.gates.runs import GateRun, RunOwners, list_runs, save_run
from ljtui.core.gates.status import prompt_section
from ljtui.core.ports import ListSink
from ljtui.tui.widgets.gates_render import GateStyles, gate_text, passed_count, status_segment
from tests.core.gates.scripted import (
    FRIENDLY, GATE, L2_FACTORS, TESTS_ITEM, call, propose, tool_results, with_tests,
)

L1_FACTORS = {"change_surface": 0.3, "chain_length": 0.3, "cognitive_density": 0.3,
              "objectively_verifiable": False, "irreversible": False}
"""D 0.3, P 0.5 before any run: R 0.4, L1; after one pass P is 1 and the formula gives L0 (R 0.15)."""
EDIT = call("edit_file", path="app.py", old="    return 'hello ' + name\n", new="    return f'hello, {name}!'\n")
LOUDER = "def greet(name):\n    return f'hello, {name}!'  # louder\n"
EDIT_LOUDER = call("edit_file", path="app.py", old="    return f'hello, {name}!'\n",
                   new="    return f'hello, {name}!'  # louder\n")
SECOND = "louder-greet"
PROPOSE_SECOND = call("gate_propose", title="Louder greet", items=[TESTS_ITEM], factors=L2_FACTORS)
START = [call("gate_confirm", gate_id=GATE), call("gate_start", gate_id=GATE)]
L1_PASSED = [propose(L1_FACTORS), *START, EDIT, call("gate_check", item="tests"), call("gate_finish", outcome="pass")]
L2_PASSED_AND_DELIVERED = [propose(), *START, EDIT, call("gate_check", item="tests"),
                           call("gate_finish", outcome="pass")]
YES = {"gate_confirm": ["yes", "yes"], "gate_start": ["yes", "yes"], "apply": ["yes"], "playbook_offer": ["no"]}


def make_engine(repo: Path, turns: list[dict[str, Any]], answers: dict[str, list[str]] | None = None
                ) -> tuple[Engine, ListSink, ScriptedApprover]:
    """An engine on ``repo`` whose model says ``turns`` and whose user answers ``answers``; writes go to the files
    directly (``agent.layer: off``), so an L1 run's edits are where its checks run."""
    script = repo.parent / "script.yaml"
    script.write_text(yaml.safe_dump({"turns": turns}), encoding="utf-8")
    config = Config()
    config.provider.name = "scripted"
    config.provider.script = str(script)
    config.agent.allow_tools = ["edit_file", "write_file", "bash"]
    config.agent.layer = "off"
    sink = ListSink()
    approver = ScriptedApprover({kind: list(queue) for kind, queue in (answers or {}).items()})
    return Engine(config, sink, repo_root=repo, approver=approver), sink, approver


def last_view(sink):
    return [e for e in sink.events if isinstance(e, GateChanged)][-1].gate


def pane(view) -> str:
    text = gate_text(view, width=100, styles=GateStyles(), selected=None, expanded=(), now=0.0)
    return "\n".join(line.plain for line in text.lines)


# -- 1. a passed L1 run ends -------------------------------------------------------------------------------


async def test_a_passed_l1_run_ends_and_the_next_gates_run_stages_its_writes(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    turns = [*L1_PASSED, PROPOSE_SECOND, call("gate_confirm", gate_id=SECOND), call("gate_start", gate_id=SECOND),
             EDIT_LOUDER, {"text": "done"}]
    engine, sink, _ = make_engine(repo, turns, YES)
    await engine.run_turn("make greet friendlier, then louder")
    [finish] = tool_results(sink, "gate_finish")
    assert finish.ok and "pass" in finish.output and "no open gate run" not in finish.output
    [first_start, second_start] = tool_results(sink, "gate_start")
    assert first_start.ok and second_start.ok, second_start.output
    assert (repo / "app.py").read_text() == FRIENDLY  # the L2 gate's edit waits in its staging tree
    assert (engine.gates.staging_root() / "app.py").read_text() == LOUDER
    first = engine.gates.view(GATE)
    assert first is not None and not first.started and (first.outcome, first.delivered) == ("pass", False)
    assert "started, run" not in show_lines(engine.gates, GATE)[0]
    runs, _ = list_runs(repo)
    ended = next(r for r in runs if r.gate_id == GATE)
    assert (ended.outcome, ended.delivered, ended.staged) == ("pass", True, False)


async def test_a_passed_l1_run_stays_ended_after_a_restart(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    engine, _, _ = make_engine(repo, [*L1_PASSED, {"text": "done"}], YES)
    await engine.run_turn("make greet friendlier")
    again, _, _ = make_engine(repo, [{"text": "ok"}])
    again.gates.restore()
    assert again.gates.run is None
    view = again.gates.view(GATE)
    assert view is not None and not view.started and view.outcome == "pass"


async def test_a_failed_l1_run_ends_too_there_is_nothing_to_discard(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    turns = [propose(L1_FACTORS), *START, call("gate_check", item="tests"), call("gate_finish", outcome="fail"),
             {"text": "done"}]
    engine, sink, _ = make_engine(repo, turns, YES)
    await engine.run_turn("try")
    [finish] = tool_results(sink, "gate_finish")
    assert finish.ok and "staged work is kept" not in finish.output
    assert engine.gates.run is None and engine.gates.view(GATE).outcome == "fail"


async def test_an_l1_run_an_earlier_version_left_open_after_its_pass_is_closed_on_restore(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    engine, _, _ = make_engine(repo, [propose(L1_FACTORS), {"text": "ok"}])
    await engine.run_turn("propose")
    stuck = GateRun(GATE, "0123456789ab", 1.0, "chat", 1, False, outcome="pass")
    save_run(repo, stuck)
    RunOwners.for_env().record(repo, stuck.run_id)
    again, _, _ = make_engine(repo, [{"text": "ok"}])
    again.gates.restore()
    assert again.gates.run is None
    [run], _ = list_runs(repo)
    assert run.delivered


# -- 2. the confirmed level stays ---------------------------------------------------------------------------


async def test_after_a_delivered_pass_the_gate_stays_confirmed_at_its_level(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    engine, sink, _ = make_engine(repo, [*L2_PASSED_AND_DELIVERED, {"text": "delivered"}], YES)
    await engine.run_turn("make greet friendlier")
    assert (repo / "app.py").read_text() == FRIENDLY
    view = last_view(sink)
    assert (view.outcome, view.delivered, view.started) == ("pass", True, False)
    assert (view.level, view.confirmed, view.risk.level) == (2, True, 1)  # the record suggests L1; L2 stays
    assert passed_count(view) == (1, 1)
    assert "confirmed ✓" in pane(view) and "Checks · 1/1 passed" in pane(view)
    assert status_segment(view) == "gate passed · delivered"
    [moved] = [n.message for n in sink.events if isinstance(n, Notice) and "L1" in n.message]
    assert "stays L2" in moved and "confirm" in moved
    rows, _ = engine.gates.listing()
    assert [(r["level"], r["confirmed_by_user"], r["suggested"]) for r in rows] == [(2, True, 1)]
    assert f"{GATE} · L2 (suggests L1) · R 0.28 · confirmed" in list_lines(engine.gates)[0]


async def test_the_next_run_starts_at_the_confirmed_level_without_asking_again(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    engine, _, _ = make_engine(repo, [*L2_PASSED_AND_DELIVERED, {"text": "delivered"}], YES)
    await engine.run_turn("make greet friendlier")
    again, sink, approver = make_engine(repo, [call("gate_start", gate_id=GATE), EDIT_LOUDER, {"text": "ok"}],
                                        {"gate_start": ["yes"]})
    await again.run_turn("louder")
    [started] = tool_results(sink, "gate_start")
    assert started.ok, started.output
    assert again.gates.run is not None and (again.gates.run.level, again.gates.run.staged) == (2, True)
    assert (repo / "app.py").read_text() == FRIENDLY
    assert [r.kind for r in approver.asked] == ["gate_start"]


async def test_confirming_again_adopts_the_level_the_record_suggests(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    engine, _, _ = make_engine(repo, [*L2_PASSED_AND_DELIVERED, {"text": "delivered"}], YES)
    await engine.run_turn("make greet friendlier")
    again, _, approver = make_engine(repo, [call("gate_confirm", gate_id=GATE), {"text": "ok"}],
                                     {"gate_confirm": ["yes"]})
    await again.run_turn("confirm it again")
    [asked] = approver.asked
    assert asked.title == f"Confirm gate {GATE} (L1)?"
    view = again.gates.view(GATE)
    assert view is not None and (view.level, view.confirmed) == (1, True)


async def test_an_l1_gate_stays_l1_after_its_pass(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    engine, sink, _ = make_engine(repo, [*L1_PASSED, {"text": "done"}], YES)
    await engine.run_turn("make greet friendlier")
    view = last_view(sink)
    assert (view.level, view.confirmed, view.risk.level, view.outcome) == (1, True, 0, "pass")
    assert passed_count(view) == (1, 1)


# -- 3. what L1 blocks, said once ---------------------------------------------------------------------------


async def test_at_l1_the_dialog_the_view_the_pane_and_the_status_bar_agree_delivery_is_not_blocked(
        git_repo: Path) -> None:
    repo = with_tests(git_repo)
    engine, sink, approver = make_engine(repo, [propose(L1_FACTORS), *START, EDIT, {"text": "no checks yet"}], YES)
    await engine.run_turn("make greet friendlier")
    assert (repo / "app.py").read_text() == FRIENDLY  # what the engine enforces: nothing is staged at L1
    confirm, start = approver.asked[:2]
    assert any("delivery is not blocked" in line for line in confirm.lines)
    assert any("delivery is not blocked" in line for line in start.lines)
    view = last_view(sink)
    assert view.started and view.level == 1 and not view.blocks_delivery
    assert f"L1: a self-check list, a soft reminder; {view.delivery_rule}." in (*confirm.lines, *start.lines)
    assert view.blocked == () and any("tests" in line for line in view.unmet)
    assert status_segment(view) == "gate L1 · self-check due"
    text = pane(view)
    assert "blocked" not in text.replace("not blocked", "") and "delivery is not blocked" in text
    assert "files staged" not in text
    section = prompt_section(view)
    assert "Delivery is blocked" not in section and "tests" in section and "not blocked" in section
    assert "Delivery is blocked" not in "\n".join(show_lines(engine.gates, GATE))


async def test_at_l2_all_of_them_say_blocked(git_repo: Path) -> None:
    repo = with_tests(git_repo)
    engine, sink, approver = make_engine(repo, [propose(), *START, EDIT, {"text": "no checks yet"}], YES)
    await engine.run_turn("make greet friendlier")
    confirm, start = approver.asked[:2]
    assert any("delivery is blocked until the gate passes" in line for line in confirm.lines)
    assert any("delivery is blocked until the gate passes" in line for line in start.lines)
    view = last_view(sink)
    assert view.blocks_delivery and view.blocked == view.unmet != ()
    assert status_segment(view) == "gate L2 · blocked"
    assert "blocked: delivery is refused" in pane(view)


def test_one_rule_decides_which_levels_block_delivery() -> None:
    from ljtui.core.gates.model import GATED_LEVEL, blocks_delivery, delivery_rule

    assert [blocks_delivery(level) for level in (0, 1, 2, 3)] == [False, False, True, True]
    assert blocks_delivery(GATED_LEVEL) and not blocks_delivery(GATED_LEVEL - 1)
    assert delivery_rule(1).endswith("delivery is not blocked")
    assert delivery_rule(2).endswith("delivery is blocked until the gate passes")
