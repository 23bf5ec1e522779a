"""Running task plans through the engine: scripted agents, real tools on a real git repository."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import yaml

from ljtui.core.approval import Decision, ScriptedApprover
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.events import Event, ToolCallFinished
from ljtui.core.ports import ListSink
from ljtui.core.runlog import read_run_log
from ljtui.core.tasks import events as T
from ljtui.core.tasks.plan import TaskStatus
from ljtui.core.tasks.replan import soft_cap_text
from tests.core.agent.helpers import outer_pid, running, until
from tests.core.tasks.helpers import said


def plan_reply(*tasks: tuple[int, str, str | None, list[int]]) -> dict[str, Any]:
    body = [{"id": i, "description": d, "tool_hint": h, "depends_on": deps} for i, d, h, deps in tasks]
    return {"text": json.dumps({"tasks": body})}


def make_engine(repo: Path, agents: dict[str, list[dict[str, Any]]], approver: ScriptedApprover | None = None,
                **agent: object) -> tuple[Engine, ListSink]:
    script = repo.parent / "script.yaml"
    script.write_text(yaml.safe_dump({"agents": agents}), encoding="utf-8")
    config = Config()
    config.provider.name = "scripted"
    config.provider.script = str(script)
    config.agent.allow_tools = ["edit_file", "write_file", "bash"]
    for key, value in agent.items():
        setattr(config.agent, key, value)
    sink = ListSink()
    approver = approver or ScriptedApprover({"task_plan": ["approve"]})
    return Engine(config, sink, repo_root=repo, approver=approver), sink


def task_events(sink: ListSink) -> list[Event]:
    return [e for e in sink.events if type(e).__module__ == T.__name__]


def kinds(sink: ListSink) -> list[str]:
    return [e.kind for e in task_events(sink)]


THREE = plan_reply((1, "Read app.py", "read_file", []), (2, "Read README.md", "read_file", []),
                   (3, "Run the tests", "bash", [1, 2]))


async def test_independent_tasks_run_together_and_a_dependent_one_waits(git_repo: Path) -> None:
    engine, sink = make_engine(git_repo, {
        "decompose": [THREE],
        "task 1": [{"tool_calls": [{"name": "read_file", "input": {"path": "app.py"}}]}, said("greet adds.", 1)],
        "task 2": [{"tool_calls": [{"name": "read_file", "input": {"path": "README.md"}}]}, said("a title.", 2)],
        "task 3": [{"tool_calls": [{"name": "bash", "input": {"command": "echo ok"}}]}, said("ok", 3)],
    })
    outcome = await engine.run_plan("check the sample")
    assert outcome.status == "done"
    order = [(e.kind, getattr(e, "task_id", None)) for e in task_events(sink)]
    assert order.index(("task_started", 2)) < order.index(("task_finished", 1)), "1 and 2 overlap"
    assert order.index(("task_started", 3)) > max(order.index(("task_finished", 1)),
                                                  order.index(("task_finished", 2))), "3 waits for both"
    finished = {e.task_id: e for e in task_events(sink) if isinstance(e, T.TaskFinished)}
    assert finished[1].summary == "greet adds." and finished[3].status is TaskStatus.DONE
    calls = [e for e in sink.events if isinstance(e, ToolCallFinished)]
    assert {c.agent for c in calls} == {"task 1", "task 2", "task 3"}
    assert kinds(sink)[-1] == "run_finished" and task_events(sink)[-1].status == "done"


async def test_a_permission_question_names_the_task_that_asks(git_repo: Path) -> None:
    approver = ScriptedApprover({"task_plan": ["approve"], "permission": ["once"]})
    engine, sink = make_engine(git_repo, {
        "decompose": [plan_reply((1, "Run the tests", "bash", []))],
        "task 1": [{"tool_calls": [{"name": "bash", "input": {"command": "echo ok"}}]}, said("ok", 1)],
    }, approver, allow_tools=[], layer="off")
    assert (await engine.run_plan("test")).status == "done"
    assert [r.title for r in approver.asked if r.kind == "permission"] == ["Task 1: Run this command?"]


async def test_nothing_runs_before_approval_and_a_rejected_plan_runs_nothing(git_repo: Path) -> None:
    approver = ScriptedApprover()  # the safe answer: reject
    engine, sink = make_engine(git_repo, {"decompose": [THREE]}, approver)
    outcome = await engine.run_plan("check the sample")
    assert outcome.status == "rejected"
    [asked] = approver.asked
    assert asked.kind == "task_plan" and [t["description"] for t in asked.tasks or ()] == [
        "Read app.py", "Read README.md", "Run the tests"]
    assert asked.lines[2] == "3. Run the tests  (tool: bash; after 1, 2)"
    assert kinds(sink) == ["task_plan_proposed", "task_plan_rejected", "run_finished"]


async def test_an_edited_plan_is_checked_again_and_runs_as_edited(git_repo: Path) -> None:
    edited = ({"id": 1, "description": "Say hello", "tool_hint": "nonsense", "depends_on": [7]},)
    approver = ScriptedApprover({"task_plan": [Decision("approve", tasks=edited)]})
    engine, sink = make_engine(git_repo, {"decompose": [THREE], "task 1": [said("hello", 1)],
                                          "task 2": [said("checked", 2)]}, approver)
    outcome = await engine.run_plan("say hello")
    assert outcome.status == "done" and outcome.plan is not None
    descriptions = [t.description for t in outcome.plan.tasks]
    assert descriptions[0] == "Say hello" and len(descriptions) == 2, "a verification task is added"
    assert any(isinstance(e, T.ToolHintStripped) and e.hint == "nonsense" for e in sink.events)
    proposed = [e for e in task_events(sink) if isinstance(e, T.TaskPlanProposed)]
    assert len(proposed) == 2 and proposed[1].tasks[0].depends_on == ()


async def test_a_replan_keeps_finished_tasks_continues_the_ids_and_strips_a_made_up_hint(git_repo: Path) -> None:
    new_tasks = [{"id": 9, "description": "Run the tests", "tool_hint": "bash"},
                 {"id": 10, "description": "Tidy up", "tool_hint": "frobnicate", "depends_on": [9]}]
    engine, sink = make_engine(git_repo, {
        "decompose": [THREE],
        "task 1": [said("read", 1)],
        "task 2": [said("read", 2)],
        "task 3": [{"tool_calls": [{"name": "update_task_plan",
                                    "input": {"reason": "tests first", "tasks": new_tasks}}]},
                   {"text": "replanned"}],
        "task 4": [said("tests pass", 4)],
        "task 5": [said("tidy", 5)],
    })
    outcome = await engine.run_plan("check")
    assert outcome.status == "done" and outcome.plan is not None
    assert [(t.id, t.status) for t in outcome.plan.tasks] == [
        (1, TaskStatus.DONE), (2, TaskStatus.DONE), (3, TaskStatus.REPLANNED), (4, TaskStatus.DONE),
        (5, TaskStatus.DONE)]
    [updated] = [e for e in sink.events if isinstance(e, T.TaskPlanUpdated)]
    assert updated.replan_count == 1 and updated.reason == "tests first"
    assert [e.hint for e in sink.events if isinstance(e, T.ToolHintStripped)] == ["frobnicate"]
    assert outcome.plan.replan_count == 1


async def test_the_third_replan_ends_with_the_soft_cap_text(git_repo: Path) -> None:
    def replan_to(description: str) -> list[dict[str, Any]]:
        return [{"tool_calls": [{"name": "update_task_plan", "input": {
            "reason": "again", "tasks": [{"id": 1, "description": description, "tool_hint": "bash"}]}}]},
                {"text": "replanned"}]

    engine, sink = make_engine(git_repo, {
        "decompose": [plan_reply((1, "Run the tests", "bash", []))],
        "task 1": replan_to("Run the tests, first try"),
        "task 2": replan_to("Run the tests, second try"),
        "task 3": replan_to("Run the tests, third try"),
        "task 4": [said("done", 4)],
    })
    outcome = await engine.run_plan("run the tests")
    assert outcome.status == "done" and outcome.plan is not None and outcome.plan.replan_count == 3
    results = [e.output for e in sink.events if isinstance(e, ToolCallFinished) and e.name == "update_task_plan"]
    assert len(results) == 3
    assert soft_cap_text(3) not in results[1] and results[2].endswith(soft_cap_text(3))
    assert results[2].endswith("You have now replanned 3 time(s). Please STOP replanning and EXECUTE the "
                               "current plan step by step.")


async def test_a_failed_task_is_replaced_and_then_succeeds(git_repo: Path) -> None:
    looping = [{"tool_calls": [{"name": "read_file", "input": {"path": "app.py"}}]}] * 2
    engine, sink = make_engine(git_repo, {
        "decompose": [plan_reply((1, "Fix it the hard way", None, []), (2, "Run the tests", "bash", [1]))],
        "task 1": [*looping, said("fixed the easy way", 1)],
        "replanner": [{"text": json.dumps({"decision": "replace", "reason": "too broad",
                                           "description": "Fix it the easy way"})}],
        "task 2": [said("tests pass", 2)],
    }, max_iterations=2)
    outcome = await engine.run_plan("fix it")
    assert outcome.status == "done" and outcome.plan is not None
    assert outcome.plan.tasks[0].description == "Fix it the easy way"
    finished = [(e.task_id, e.status) for e in sink.events if isinstance(e, T.TaskFinished)]
    assert finished == [(1, TaskStatus.FAILED), (1, TaskStatus.DONE), (2, TaskStatus.DONE)]
    [decided] = [e for e in sink.events if isinstance(e, T.ReplannerDecided)]
    assert (decided.task_id, decided.decision, decided.reason) == (1, "replace", "too broad")


async def test_an_unusable_replanner_answer_stops_the_run_and_skips_what_depended_on_it(git_repo: Path) -> None:
    engine, sink = make_engine(git_repo, {
        "decompose": [plan_reply((1, "Loop", None, []), (2, "Run the tests", "bash", [1]))],
        "task 1": [{"tool_calls": [{"name": "read_file", "input": {"path": "app.py"}}]}],
        "replanner": [{"text": "I am not sure."}],
    }, max_iterations=1)
    outcome = await engine.run_plan("loop")
    assert outcome.status == "stopped" and outcome.plan is not None
    assert [t.status for t in outcome.plan.tasks] == [TaskStatus.FAILED, TaskStatus.SKIPPED]
    assert task_events(sink)[-1] == T.RunFinished(outcome.run_id, "stopped", 0, 1)


async def test_an_unparsable_plan_falls_back_to_one_task(git_repo: Path) -> None:
    engine, sink = make_engine(git_repo, {"decompose": [{"text": "Sure! Step one, then step two."}],
                                          "task 1": [said("done", 1)]})
    outcome = await engine.run_plan("tidy the readme")
    assert outcome.status == "done" and outcome.plan is not None
    assert [t.description for t in outcome.plan.tasks] == ["tidy the readme"]
    assert kinds(sink)[0] == "task_plan_fallback"


async def test_an_empty_plan_ends_planning_early(git_repo: Path) -> None:
    engine, sink = make_engine(git_repo, {"decompose": [{"text": '{"tasks": []}'}]})
    outcome = await engine.run_plan("nothing")
    assert outcome.status == "empty" and kinds(sink) == []


async def test_cancelling_a_run_kills_the_running_command_and_reports_it(git_repo: Path) -> None:
    command = "sleep 60 & echo $! > child.pid; wait"
    engine, sink = make_engine(git_repo, {
        "decompose": [plan_reply((1, "Wait a long time", "bash", []))],
        "task 1": [{"tool_calls": [{"name": "bash", "input": {"command": command}}]}],
    }, ScriptedApprover({"task_plan": ["approve"], "permission": ["once"]}),  # a background job: always asked
        layer="off")  # the command writes child.pid in the tree
    run = asyncio.create_task(engine.run_plan("wait"))
    pid_file = git_repo / "child.pid"
    await until(lambda: pid_file.exists() and pid_file.read_text().strip() != "", "the command to start")
    child = outer_pid(pid_file)
    run.cancel()
    try:
        await run
    except asyncio.CancelledError:
        pass
    assert not running(child)
    assert task_events(sink)[-1] == T.RunFinished(task_events(sink)[-1].run_id, "cancelled", 0, 1)


async def test_allowing_writes_for_the_run_skips_their_questions_but_not_commands_and_ends_with_it(
        git_repo: Path) -> None:
    from ljtui.core.events import PermissionDecided

    approver = ScriptedApprover({"task_plan": ["approve_writes"], "permission": ["once", "once"]})
    engine, sink = make_engine(git_repo, {
        "decompose": [plan_reply((1, "Make greet friendlier", "edit_file", []), (2, "Run the tests", "bash", [1]))],
        "task 1": [{"tool_calls": [{"name": "edit_file", "input": {
            "path": "app.py", "old": "return 'hello ' + name", "new": "return f'hello, {name}!'"}}]},
                   said("done", 1)],
        "task 2": [{"tool_calls": [{"name": "bash", "input": {"command": "echo ok"}}]}, said("ok", 2)],
    }, approver, allow_tools=[], layer="off")
    assert (await engine.run_plan("friendlier")).status == "done"
    asked = [r for r in approver.asked if r.kind == "permission"]
    assert [r.title for r in asked] == ["Task 2: Run this command?"], "the edit did not ask; the command did"
    scopes = [(e.tool, e.scope) for e in sink.events if isinstance(e, PermissionDecided)]
    assert scopes == [("edit_file", "run"), ("bash", "once")]
    assert engine.services.permissions is not None and not engine.services.permissions.run_grants


async def test_a_skill_is_the_plan_without_a_decomposition_call_and_is_still_approved(git_repo: Path) -> None:
    approver = ScriptedApprover({"task_plan": ["approve"]})
    engine, sink = make_engine(git_repo, {f"task {n}": [said(f"step {n} done", n)] for n in range(1, 5)}, approver)
    outcome = await engine.run_plan("greet in French", skill="fix-with-test")
    assert outcome.status == "done" and outcome.plan is not None
    [asked] = approver.asked
    assert asked.kind == "task_plan" and asked.tasks is not None and asked.tasks[0]["tool_hint"] == "grep_files"
    assert [t.depends_on for t in outcome.plan.tasks] == [(), (1,), (2,), (3,)]
    assert outcome.plan.goal == "greet in French"


async def test_an_unknown_skill_runs_nothing(git_repo: Path) -> None:
    engine, sink = make_engine(git_repo, {})
    outcome = await engine.run_plan("x", skill="no-such-skill")
    assert outcome.status == "failed" and outcome.plan is None
    assert any(getattr(e, "message", "") == "There is no skill named 'no-such-skill'." for e in sink.events)


async def test_complete_task_names_only_its_own_task(git_repo: Path) -> None:
    engine, sink = make_engine(git_repo, {
        "decompose": [plan_reply((1, "Say hi", None, []))],
        "task 1": [{"tool_calls": [{"name": "complete_task", "input": {"task_id": 2}}]},
                   {"tool_calls": [{"name": "complete_task", "input": {"task_id": 1}}]}],
        "task 2": [said("verified", 2)],
    })
    outcome = await engine.run_plan("hi")
    assert outcome.status == "done"
    results = [(e.ok, e.summary) for e in sink.events if isinstance(e, ToolCallFinished)]
    assert results[0] == (False, "complete_task: you are the agent of task 1; you cannot complete task 2")
    assert results[1] == (True, "task 1 done")


async def test_every_task_event_is_in_the_run_log(git_repo: Path) -> None:
    engine, sink = make_engine(git_repo, {"decompose": [plan_reply((1, "Say hi", "bash", []))],
                                          "task 1": [said("hi", 1)]})
    await engine.run_plan("hi")
    logged = read_run_log(git_repo)
    assert [e["kind"] for e in logged.events] == kinds(sink)
    assert os.path.exists(git_repo / ".agent" / "events.jsonl")
