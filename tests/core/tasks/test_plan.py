"""The plan model: readiness, blocking, finishing, progress and serialisation."""

from __future__ import annotations

import dataclasses
import json

import pytest

from ljtui.core.tasks import Task, TaskPlan, TaskStatus, blocked, is_finished, progress, ready, task_to_dict, with_status
from tests.core.tasks.helpers import plan

P, R, D, F, S, RP = (TaskStatus.PENDING, TaskStatus.RUNNING, TaskStatus.DONE, TaskStatus.FAILED,
                     TaskStatus.SKIPPED, TaskStatus.REPLANNED)


def test_tasks_and_plans_are_frozen() -> None:
    task = Task(1, "a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        task.status = R  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        TaskPlan((task,), "g").replan_count = 2  # type: ignore[misc]


def test_ready_lists_pending_tasks_whose_dependencies_are_done_or_skipped_in_order() -> None:
    p = plan((1, D), (2, S), (3, P, (1, 2)), (4, P, (3,)), (5, P), (6, R))
    assert [t.id for t in ready(p)] == [3, 5]


def test_a_dependency_that_is_running_failed_or_replanned_is_not_satisfied() -> None:
    p = plan((1, R), (2, F), (3, RP), (4, P, (1,)), (5, P, (2,)), (6, P, (3,)))
    assert ready(p) == ()


def test_blocked_names_pending_tasks_behind_a_failed_or_replanned_task_directly_or_not() -> None:
    p = plan((1, F), (2, RP), (3, P, (1,)), (4, P, (3,)), (5, P, (2,)), (6, P), (7, P, (6,)))
    assert [t.id for t in blocked(p)] == [3, 4, 5]


def test_finished_when_nothing_runs_and_nothing_is_ready() -> None:
    assert not is_finished(plan((1, D), (2, P, (1,))))
    assert not is_finished(plan((1, R), (2, P, (1,))))
    assert is_finished(plan((1, D), (2, S), (3, F)))
    assert is_finished(plan((1, F), (2, P, (1,)))), "a task that can never run does not keep the run going"
    assert is_finished(TaskPlan((), "g"))


def test_progress_counts_every_status() -> None:
    counts = progress(plan((1, D), (2, D), (3, R), (4, P)))
    assert counts[D] == 2 and counts[R] == 1 and counts[P] == 1 and counts[F] == 0
    assert set(counts) == set(TaskStatus)


def test_with_status_changes_one_task_and_leaves_the_old_plan_alone() -> None:
    before = plan((1, P), (2, P))
    after = with_status(before, 2, R)
    assert [t.status for t in after.tasks] == [P, R]
    assert [t.status for t in before.tasks] == [P, P]


def test_a_task_serialises_to_the_five_keys_with_plain_values() -> None:
    data = task_to_dict(Task(3, "do", "bash", (1, 2), D))
    assert data == {"id": 3, "description": "do", "tool_hint": "bash", "depends_on": [1, 2], "status": "done"}
    assert json.loads(json.dumps(data)) == data


def test_a_task_takes_its_status_as_text_and_refuses_an_id_below_one() -> None:
    task = Task(1, "a", depends_on=[2], status="done")  # type: ignore[arg-type]
    assert task.status is TaskStatus.DONE and task.depends_on == (2,)
    assert ready(TaskPlan((Task(2, "b", status="skipped"), Task(3, "c", None, (2,))), "g"))[0].id == 3  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="positive integer"):
        Task(0, "a")
    with pytest.raises(ValueError):
        Task(1, "a", status="finished")  # type: ignore[arg-type]
