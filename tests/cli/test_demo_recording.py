"""The demo's recorded session after the chat step, played by the real engine on a real copy, every question
answered as the guide says: the task plan's draft playbook is promoted and recalled for a similar goal, then a
gated change is refused before its check, really checked in the staging tree, and delivered."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ljtui.core.approval import ScriptedApprover
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.events import Notice, TurnFinished
from ljtui.core.gates import events as G
from ljtui.core.ports import ListSink
from ljtui.core.tasks.events import RunFinished
from ljtui.demo.repo import SCRIPT_PATH, DemoRepo, create_demo_repo
from ljtui.demo.steps import GATE_MESSAGE, PLAN_GOAL, RECALL_GOAL, REQUEST

PLAYBOOK = "add-longest-word"
GATE = "top-words-ignores-punctuation"
COUNTING = "wordstats/counting.py"
TESTS = "tests/test_counting.py"
ANSWERS = {"apply": ["yes", "yes"], "permission": ["once"] * 9, "task_plan": ["approve", "approve"],
           "playbook_offer": ["yes", "no"], "playbook_promote": ["yes"], "gate_confirm": ["yes"],
           "gate_start": ["yes"]}
"""Enter in every dialog the guide names, and Escape for the gate's playbook offer."""


def engine_on(demo: DemoRepo) -> tuple[Engine, ListSink, ScriptedApprover]:
    config = Config()
    config.provider.name = "scripted"
    config.provider.script = str(SCRIPT_PATH)
    config.agent.layer = "off"  # as the demo runs (demo_settings)
    sink = ListSink()
    approver = ScriptedApprover({kind: list(answers) for kind, answers in ANSWERS.items()})
    return Engine(config, sink, repo_root=demo.root, approver=approver), sink, approver


def files(demo: DemoRepo) -> dict[str, bytes]:
    return {name: (demo.root / name).read_bytes() for name in (COUNTING, TESTS)}


async def test_the_recording_saves_promotes_recalls_then_delivers_a_gated_change(tmp_path: Path) -> None:
    demo = create_demo_repo(tmp_path)
    assert isinstance(demo, DemoRepo)
    engine, sink, approver = engine_on(demo)
    assert await engine.plan_and_review(REQUEST)
    await engine.review.apply()
    await engine.run_turn("do the tests pass?")

    first = await engine.run_plan(PLAN_GOAL)
    assert first.status == "done" and first.plan is not None
    draft = (demo.root / ".agent" / "playbooks" / f"{PLAYBOOK}.md").read_text(encoding="utf-8")
    assert 'status: "draft"' in draft
    assert all(task.description in draft for task in first.plan.tasks)
    promoted = await engine.playbooks.promote(PLAYBOOK)
    assert promoted.ok, promoted.message

    recalled = await engine.run_plan(RECALL_GOAL)
    assert recalled.status == "done" and recalled.plan is not None
    assert [t.description for t in recalled.plan.tasks] == [t.description for t in first.plan.tasks]
    assert any(isinstance(e, Notice) and e.message.startswith(f"Plan for '{RECALL_GOAL}', from playbook {PLAYBOOK} (")
               for e in sink.events)
    record = engine.playbooks.record_of(PLAYBOOK)
    assert record is not None and (record.uses, record.ok, record.fail) == (1, 1, 0)
    assert b"def shortest_word(text: str) -> str:" in (demo.root / COUNTING).read_bytes()

    before = files(demo)
    start = len(sink.events)
    await engine.run_turn(GATE_MESSAGE)
    gated = sink.events[start:]
    [blocked] = [e for e in gated if isinstance(e, G.DeliveryBlocked)]
    assert (blocked.gate, blocked.missing) == (GATE, ("tests",))
    [check] = [e for e in gated if isinstance(e, G.GateCheckRecorded)]
    assert (check.item, check.exit_code) == ("tests", 0)
    assert gated.index(blocked) < gated.index(check)
    [delivered] = [e for e in gated if isinstance(e, G.GateDelivered)]
    assert delivered.applied and set(delivered.files) == {COUNTING, TESTS}
    after = files(demo)
    assert after != before and b"word.strip(PUNCTUATION)" in after[COUNTING]
    assert b"test_punctuation_around_a_word_is_not_part_of_it" in after[TESTS]
    assert engine.gates.gate(GATE).history[-1].outcome == "pass"
    assert [r.kind for r in approver.asked if r.kind in ("gate_confirm", "gate_start", "apply", "playbook_offer")][-4:] \
        == ["gate_confirm", "gate_start", "apply", "playbook_offer"]
    assert not any(isinstance(e, RunFinished) for e in gated)
    tests = subprocess.run([sys.executable, "-B", "-m", "unittest"], cwd=demo.root, capture_output=True, text=True,
                           timeout=60)
    assert tests.returncode == 0 and "Ran 9 tests" in tests.stderr


async def test_a_cancelled_delivery_is_kept_and_gates_deliver_opens_it_again(tmp_path: Path) -> None:
    from ljtui.core.review.service import APPLY_CANCELLED
    from ljtui.demo.steps import STEPS

    demo = create_demo_repo(tmp_path)
    assert isinstance(demo, DemoRepo)
    engine, sink, approver = engine_on(demo)
    approver.answers["apply"] = ["no", "yes"]
    assert await engine.plan_and_review(REQUEST)
    await engine.run_turn("do the tests pass?")
    before = files(demo)
    await engine.run_turn(GATE_MESSAGE)
    assert files(demo) == before
    assert any(isinstance(e, Notice) and e.message == APPLY_CANCELLED for e in sink.events)
    [delivery] = [step for step in STEPS if step.name == "delivery"]
    assert delivery.again == "Type /gates deliver and press Enter to try again."
    [*_, last] = [e for e in sink.events if isinstance(e, TurnFinished)]
    assert "not applied" in last.text and "Delivered" not in last.text
    await engine.gates_command("deliver")
    [_, delivered] = [e for e in sink.events if isinstance(e, G.GateDelivered)]
    assert delivered.applied and b"word.strip(PUNCTUATION)" in files(demo)[COUNTING]


async def test_a_denied_command_is_answered_with_nothing_ran(tmp_path: Path) -> None:
    demo = create_demo_repo(tmp_path)
    assert isinstance(demo, DemoRepo)
    engine, sink, approver = engine_on(demo)
    approver.answers["permission"] = ["deny"]
    assert await engine.plan_and_review(REQUEST)
    await engine.run_turn("do the tests pass?")
    [*_, last] = [e for e in sink.events if isinstance(e, TurnFinished)]
    assert "You denied the command, so nothing ran" in last.text and "real run" not in last.text
