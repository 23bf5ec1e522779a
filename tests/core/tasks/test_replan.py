"""Explicit replanning (TASK-5…7): kept tasks, new ids, the sanitiser, the soft cap, refusals."""

from __future__ import annotations

import pytest

from ljtui.core.tasks import SOFT_REPLAN_CAP, TaskStatus, apply_replan, with_status
from ljtui.core.tasks.sanitise import StrippedHint
from tests.core.tasks.helpers import KNOWN, plan, raw

P, R, D, F, S, RP = (TaskStatus.PENDING, TaskStatus.RUNNING, TaskStatus.DONE, TaskStatus.FAILED,
                     TaskStatus.SKIPPED, TaskStatus.REPLANNED)
CAP_TEXT = "You have now replanned 3 time(s). Please STOP replanning and EXECUTE the current plan step by step."
VERIFY = raw(99, "Run the tests", hint="bash")


def test_ids_continue_after_completed_tasks_and_the_caller_is_replanned() -> None:
    before = plan((1, D), (2, D), (3, R), (4, P, (3,)), (5, P, (4,)))
    result = apply_replan(before, [raw(4, "New A", [2]), raw(5, "Verify A", [4], "bash")], KNOWN, 3)
    assert result.ok
    assert [(t.id, t.status) for t in result.plan.tasks] == [(1, D), (2, D), (3, RP), (4, P), (5, P)]
    assert [(t.description, t.depends_on) for t in result.plan.tasks[3:]] == [("New A", (2,)), ("Verify A", (4,))]
    assert result.plan.replan_count == 1 and result.notes == ()


def test_an_id_the_model_gives_a_new_task_wins_over_a_kept_task_with_that_id() -> None:
    before = plan((1, D), (2, D), (3, R))
    result = apply_replan(before, [raw(1, "New A"), raw(2, "Verify A", [1], "bash")], KNOWN, 3)
    assert [(t.id, t.depends_on) for t in result.plan.tasks[3:]] == [(4, ()), (5, (4,))]


def test_new_dependencies_may_name_kept_tasks_that_did_not_fail() -> None:
    before = plan((1, D), (2, S), (3, F), (4, R), (5, P))
    result = apply_replan(before, [raw(7, "a", [1, 2, 3, 4]), VERIFY], KNOWN, 4)
    assert result.plan.task(5).description == "a" and result.plan.task(5).depends_on == (1, 2)
    assert "proposed task 7 depends on task 3, which failed: dependency dropped." in result.notes
    assert "proposed task 7 depends on task 4, which replanned: dependency dropped." in result.notes


def test_completed_tasks_keep_their_status_and_new_tasks_start_pending() -> None:
    before = plan((1, D), (2, F), (3, S), (4, R))
    items = [raw(1, "a") | {"status": "done", "completed": True}, VERIFY]
    result = apply_replan(before, items, KNOWN, 4)
    assert [t.status for t in result.plan.tasks] == [D, F, S, RP, P, P]


def test_tasks_running_beside_the_caller_are_kept_and_ids_continue_after_them() -> None:
    result = apply_replan(plan((1, D), (2, R), (3, R), (4, P)), [raw(1, "x"), VERIFY], KNOWN, 2)
    assert [(t.id, t.status) for t in result.plan.tasks] == [(1, D), (2, RP), (3, R), (4, P), (5, P)]


def test_the_replan_result_lists_the_new_plan_for_the_model() -> None:
    result = apply_replan(plan((1, D), (2, R)), [raw(1, "Write it", hint="edit_file"), VERIFY], KNOWN, 2)
    assert result.tool_result.startswith("Task plan updated (2 new task(s)). Continue with the new plan.")
    assert "- 3 [pending] Write it (tool: edit_file)" in result.tool_result
    assert "You have now replanned" not in result.tool_result


def test_three_replans_end_the_third_result_with_the_exact_soft_cap_text() -> None:
    current = plan((1, R))
    caller = 1
    results = []
    for _ in range(SOFT_REPLAN_CAP):
        result = apply_replan(current, [raw(1, "again"), VERIFY], KNOWN, caller)
        results.append(result)
        caller = result.plan.tasks[-2].id
        current = with_status(result.plan, caller, R)
    assert [r.plan.replan_count for r in results] == [1, 2, 3]
    assert not any("STOP" in r.tool_result for r in results[:2])
    assert results[2].tool_result.endswith("\n\n" + CAP_TEXT)
    fourth = apply_replan(current, [raw(1, "again"), VERIFY], KNOWN, caller)
    assert fourth.ok and fourth.tool_result.endswith(
        "You have now replanned 4 time(s). Please STOP replanning and EXECUTE the current plan step by step.")


@pytest.mark.parametrize("tasks, says", [
    ([], "the task list is empty"), (None, "must be a list"), ({"tasks": []}, "must be a list"),
    ("do it", "must be a list"), ([1, "x"], "none of the tasks is usable"),
])
def test_an_empty_or_invalid_list_is_refused_and_changes_nothing(tasks: object, says: str) -> None:
    before = plan((1, D), (2, R), (3, P))
    result = apply_replan(before, tasks, KNOWN, 2)
    assert not result.ok and result.plan is before and says in result.tool_result
    assert result.tool_result.startswith("update_task_plan refused:") and result.diff.empty


def test_an_unknown_caller_is_refused() -> None:
    result = apply_replan(plan((1, R)), [raw(1)], KNOWN, 9)
    assert not result.ok and "there is no task 9" in result.tool_result


def test_a_hallucinated_hint_on_a_replan_is_stripped_and_reported() -> None:
    result = apply_replan(plan((1, D), (2, R)), [raw(1, "x", hint="telepathy"), VERIFY], KNOWN, 2)
    assert result.plan.task(3).tool_hint is None and result.stripped == (StrippedHint(3, "telepathy"),)
    assert 'task 3: tool_hint "telepathy" names no tool or skill: removed.' in result.tool_result


def test_a_replan_without_verification_gets_a_verification_task_on_its_new_tasks() -> None:
    result = apply_replan(plan((1, D), (2, R)), [raw(1, "a"), raw(2, "b", [1])], KNOWN, 2)
    assert result.verification_added is not None and result.verification_added.id == 5
    assert result.verification_added.depends_on == (3, 4)


def test_replanned_tasks_are_validated_like_a_decomposition() -> None:
    items = [raw(i, deps=[i % 10 + 1]) for i in range(1, 11)]
    result = apply_replan(plan((1, R)), items, KNOWN, 1)
    new = result.plan.tasks[1:]
    assert len(new) == 9 and [t.id for t in new] == list(range(2, 11))
    assert "10 tasks proposed: kept the first 8." in result.notes


def test_the_diff_shows_replaced_pending_tasks_as_changed_or_removed() -> None:
    before = plan((1, D), (2, R), (3, P), (4, P))
    result = apply_replan(before, [raw(1, "x"), VERIFY], KNOWN, 2)
    assert [(c.before.description, c.after.description) for c in result.diff.changed] == [
        ("task 3", "x"), ("task 4", "Run the tests")]
    before = plan((1, D), (2, R), (3, P), (4, P), (5, P))
    result = apply_replan(before, [raw(1, "x"), VERIFY], KNOWN, 2)
    assert [t.id for t in result.diff.removed] == [5] and result.diff.added == ()
    result = apply_replan(plan((1, R)), [raw(1, "x"), VERIFY], KNOWN, 1)
    assert [t.id for t in result.diff.added] == [2, 3]


def test_a_replan_from_outside_any_task_keeps_every_non_pending_task() -> None:
    result = apply_replan(plan((1, D), (2, P)), [raw(1, "x"), VERIFY], KNOWN, None)
    assert result.ok and [(t.id, t.status) for t in result.plan.tasks] == [(1, D), (2, P), (3, P)]
