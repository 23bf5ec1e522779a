"""A task's agent meets the same bounds on one reply as the conversation: the cap on calls, one denial."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.approval import ScriptedApprover
from ljtui.core.events import PermissionDecided, ToolCallFinished
from ljtui.core.tasks.plan import TaskStatus
from tests.core.tasks.test_runner import make_engine, plan_reply
from tests.core.tasks.helpers import said


async def test_a_task_reply_is_capped_and_one_denial_answers_its_other_commands(git_repo: Path) -> None:
    commands = [{"name": "bash", "input": {"command": f"echo {n} > out{n}.txt"}} for n in range(3)]
    reads = [{"name": "read_file", "input": {"path": "app.py"}}] * 30
    approver = ScriptedApprover({"task_plan": ["approve"], "permission": ["deny"]})
    engine, sink = make_engine(git_repo, {
        "decompose": [plan_reply((1, "Run the tests", "bash", []))],
        "task 1": [{"tool_calls": commands + reads}, said("done", 1)],
    }, approver, allow_tools=[], max_tool_calls_per_reply=5, layer="off")

    outcome = await engine.run_plan("test")

    assert outcome.status == "done" and outcome.plan is not None
    assert outcome.plan.tasks[0].status is TaskStatus.DONE
    assert [r.kind for r in approver.asked] == ["task_plan", "permission"]
    finished = [e for e in sink.events if isinstance(e, ToolCallFinished) and e.agent == "task 1"
                and e.name != "complete_task"]
    assert len(finished) == 33
    assert [e.ok for e in finished[:5]] == [False, False, False, True, True]
    assert all(not e.ok and "the last 28 were refused" in e.summary + e.output for e in finished[5:])
    assert [d.scope for d in sink.events if isinstance(d, PermissionDecided)] == ["once", "reply", "reply"]
    assert list(git_repo.glob("out*.txt")) == []
