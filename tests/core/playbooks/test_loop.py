"""The whole loop with the scripted model: a run saves a draft, the user promotes it, a similar request recalls it
as a skill whose SOP is the plan (recalled by a similar goal), the run's outcome is its feedback, and failures
demote it."""

from __future__ import annotations

from pathlib import Path

import yaml

from ljtui.core.approval import ScriptedApprover
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.events import Notice
from ljtui.core.playbooks.events import PlaybookDemoted
from ljtui.core.playbooks.service import PROMOTE_KIND, PlaybookService
from ljtui.core.ports import ListSink
from ljtui.core.skills import load_skills
from ljtui.core.trust import TrustStore
from tests.core.tasks.helpers import said

PID = "add-retries-to-greet"
SAVE = {"title": "Add retries to greet", "when_to_use": "when a flaky call must be retried", "tags": ["retry"],
        "sop": ["Read app.py", "Wrap the call in a retry loop", "Test that the call retries"],
        "pitfalls": ["Retrying forever hides the failure"]}
SCRIPT = {
    "turns": [
        {"tool_calls": [{"name": "playbook_save", "input": SAVE}]},
        {"text": "Saved the procedure as a draft playbook."},
        {"tool_calls": [{"name": "playbook_feedback", "input": {"id": PID, "outcome": "fail"}}]},
        {"tool_calls": [{"name": "playbook_feedback", "input": {"id": PID, "outcome": "fail"}}]},
        {"text": "It did not work twice."},
    ],
    "agents": {
        "task 1": [{"tool_calls": [{"name": "read_file", "input": {"path": "app.py"}}]}, said("read", 1)],
        "task 2": [said("wrapped", 2)],
        "task 3": [said("tests pass", 3)],
    },
}


def _engine(repo: Path, approver: ScriptedApprover) -> tuple[Engine, ListSink]:
    script = repo.parent / "loop.yaml"
    script.write_text(yaml.safe_dump(SCRIPT, allow_unicode=True), encoding="utf-8")
    config = Config()
    config.provider.name = "scripted"
    config.provider.script = str(script)
    sink = ListSink()
    return Engine(config, sink, repo_root=repo, approver=approver), sink


async def test_save_promote_recall_feedback_demote(git_repo: Path) -> None:
    TrustStore.for_env().trust(git_repo, 0.0)
    approver = ScriptedApprover({"task_plan": ["approve"], PROMOTE_KIND: ["yes"]})
    engine, sink = _engine(git_repo, approver)
    playbooks = PlaybookService(git_repo, sink.emit, engine.ask)

    await engine.run_turn("make greet retry")
    assert playbooks.find(PID, for_model=False).playbook.status == "draft"  # type: ignore[union-attr]
    assert f"playbook-{PID}" not in load_skills(git_repo).names

    assert (await playbooks.promote(PID)).ok
    assert [r.kind for r in approver.asked] == [PROMOTE_KIND]
    skill = load_skills(git_repo).get(f"playbook-{PID}")
    assert skill is not None and skill.description == "when a flaky call must be retried"
    hit = playbooks.recall("retry the flaky call in send")
    assert hit is not None and hit.playbook.id == PID

    outcome = await engine.run_plan("retry the flaky call in send")
    assert Notice(f"Plan for 'retry the flaky call in send', from playbook {PID} (Add retries to greet): its SOP "
                  "is proposed as the task plan, to approve like any other.") in sink.events
    assert outcome.status == "done" and outcome.plan is not None
    assert [t.description for t in outcome.plan.tasks] == SAVE["sop"]
    assert Notice(f"Task plan from the skill 'playbook-{PID}' (playbook): when a flaky call must be retried") \
        in sink.events
    assert playbooks.record_of(PID).ok == 1  # type: ignore[union-attr]  (the run's outcome, recorded by the engine)

    await engine.run_turn("try it again")
    record = playbooks.record_of(PID)
    assert record is not None and (record.uses, record.ok, record.fail) == (3, 1, 2)
    assert [e for e in sink.events if isinstance(e, PlaybookDemoted)] == [PlaybookDemoted(PID, "active", "draft", 1, 2)]
    assert f"playbook-{PID}" not in load_skills(git_repo).names
