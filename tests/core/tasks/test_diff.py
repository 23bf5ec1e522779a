"""The diff of two task lists."""

from __future__ import annotations

from ljtui.core.tasks import PlanDiff, Task, TaskChange, TaskStatus, diff_tasks, diff_to_dict


def test_added_removed_and_changed_are_matched_by_id() -> None:
    old = (Task(1, "a"), Task(2, "b"), Task(3, "c", "bash"), Task(4, "d", None, (1,)), Task(5, "e"))
    new = (Task(1, "a"), Task(3, "c", None), Task(4, "d", None, (1, 3)), Task(5, "E"), Task(6, "f"))
    diff = diff_tasks(old, new)
    assert diff.added == (Task(6, "f"),) and diff.removed == (Task(2, "b"),)
    assert [c.after.id for c in diff.changed] == [3, 4, 5]
    assert diff.changed[0] == TaskChange(Task(3, "c", "bash"), Task(3, "c", None))


def test_a_change_of_status_alone_is_no_change() -> None:
    diff = diff_tasks((Task(1, "a"),), (Task(1, "a", status=TaskStatus.DONE),))
    assert diff == PlanDiff() and diff.empty


def test_the_diff_serialises_as_plain_data() -> None:
    diff = diff_tasks((Task(1, "a"), Task(2, "b")), (Task(1, "A"), Task(3, "c")))
    assert diff_to_dict(diff) == {
        "added": [{"id": 3, "description": "c", "tool_hint": None, "depends_on": [], "status": "pending"}],
        "removed": [{"id": 2, "description": "b", "tool_hint": None, "depends_on": [], "status": "pending"}],
        "changed": [{"before": {"id": 1, "description": "a", "tool_hint": None, "depends_on": [], "status": "pending"},
                     "after": {"id": 1, "description": "A", "tool_hint": None, "depends_on": [], "status": "pending"}}],
    }
