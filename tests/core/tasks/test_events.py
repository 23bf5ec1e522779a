"""Task-plan events: kinds and JSON through the engine's ``event_to_dict``."""

from __future__ import annotations

import json

from ljtui.core.events import event_to_dict
from ljtui.core.tasks import Task, TaskStatus, apply_replan, parse_decomposition
from ljtui.core.tasks.events import (
    ReplannerDecided,
    RunFinished,
    TaskFinished,
    TaskPlanApproved,
    TaskPlanFallback,
    TaskPlanProposed,
    TaskPlanRejected,
    TaskStarted,
    ToolHintStripped,
    hints_stripped,
    plan_updated,
)
from tests.core.tasks.helpers import KNOWN, plan, raw, reply


def as_json(event: object) -> dict:
    return json.loads(json.dumps(event_to_dict(event), ensure_ascii=False))


def test_every_event_has_its_snake_case_kind_and_fields() -> None:
    events = {
        TaskPlanApproved("r1"): {"kind": "task_plan_approved", "run_id": "r1"},
        TaskPlanRejected("r1"): {"kind": "task_plan_rejected", "run_id": "r1"},
        TaskPlanFallback("r1", "unparsable JSON"): {"kind": "task_plan_fallback", "run_id": "r1",
                                                    "reason": "unparsable JSON"},
        TaskStarted("r1", 2, "Edit"): {"kind": "task_started", "run_id": "r1", "task_id": 2, "description": "Edit"},
        TaskFinished("r1", 2, "Edit", TaskStatus.FAILED, "no turn left"): {
            "kind": "task_finished", "run_id": "r1", "task_id": 2, "description": "Edit", "status": "failed",
            "summary": "no turn left"},
        ToolHintStripped("r1", 2, "magic"): {"kind": "tool_hint_stripped", "run_id": "r1", "task_id": 2,
                                             "hint": "magic"},
        ReplannerDecided("r1", 2, "skip", "optional"): {"kind": "replanner_decided", "run_id": "r1", "task_id": 2,
                                                       "decision": "skip", "reason": "optional"},
        RunFinished("r1", "done", 1, 0): {"kind": "run_finished", "run_id": "r1", "status": "done", "replans": 1,
                                          "failed": 0},
    }
    for event, expected in events.items():
        assert as_json(event) == expected


def test_a_proposed_plan_carries_its_tasks_as_the_five_keys() -> None:
    result = parse_decomposition(reply(raw(1, "Read", hint="read_file"), raw(2, "Test it", [1], "bash")), KNOWN, "g")
    data = as_json(TaskPlanProposed("r1", result.plan.tasks))
    assert data == {"kind": "task_plan_proposed", "run_id": "r1", "tasks": [
        {"id": 1, "description": "Read", "tool_hint": "read_file", "depends_on": [], "status": "pending"},
        {"id": 2, "description": "Test it", "tool_hint": "bash", "depends_on": [1], "status": "pending"}]}


def test_a_replan_becomes_an_update_event_with_its_diff_and_stripped_hints() -> None:
    before = plan((1, TaskStatus.DONE), (2, TaskStatus.RUNNING), (3, TaskStatus.PENDING))
    result = apply_replan(before, [raw(1, "x", hint="nope"), raw(2, "Run the tests", [1], "bash")], KNOWN, 2)
    data = as_json(plan_updated("r1", result, "the file moved"))
    assert data["kind"] == "task_plan_updated" and data["replan_count"] == 1 and data["reason"] == "the file moved"
    assert data["added"] == [{"id": 4, "description": "Run the tests", "tool_hint": "bash", "depends_on": [3],
                              "status": "pending"}]
    assert data["removed"] == []
    assert data["changed"] == [{
        "before": {"id": 3, "description": "task 3", "tool_hint": None, "depends_on": [], "status": "pending"},
        "after": {"id": 3, "description": "x", "tool_hint": None, "depends_on": [], "status": "pending"}}]
    assert [as_json(e) for e in hints_stripped("r1", result.stripped)] == [
        {"kind": "tool_hint_stripped", "run_id": "r1", "task_id": 3, "hint": "nope"}]


def test_a_task_status_is_a_plain_string_in_the_dict() -> None:
    data = event_to_dict(TaskPlanProposed("r", (Task(1, "a", status=TaskStatus.DONE),)))
    assert data["tasks"][0]["status"] == "done" and isinstance(data["tasks"][0]["status"], str)
