"""The sanitiser (TASK-6): unknown hints stripped, a verification task added when none exists."""

from __future__ import annotations

import pytest

from ljtui.core.tasks import DecompositionKind, Task, is_verification, parse_decomposition, sanitise
from ljtui.core.tasks.sanitise import VERIFICATION_DESCRIPTION, StrippedHint
from tests.core.tasks.helpers import KNOWN, raw, reply


def test_a_hallucinated_hint_on_an_initial_plan_is_stripped_and_reported() -> None:
    result = parse_decomposition(reply(raw(1, "Read", hint="read_file"), raw(2, "Fix", hint="magic_fixer"),
                                       raw(3, "Run the tests", hint="bash")), KNOWN, "g")
    assert [t.tool_hint for t in result.plan.tasks] == ["read_file", None, "bash"]
    assert result.stripped == (StrippedHint(2, "magic_fixer"),)


def test_a_skill_name_is_a_known_hint_and_case_is_corrected() -> None:
    result = sanitise((Task(1, "a", "run-tests"), Task(2, "Test it", "BASH")), KNOWN)
    assert [t.tool_hint for t in result.tasks] == ["run-tests", "bash"] and result.stripped == ()


@pytest.mark.parametrize("description, hint", [
    ("Verify the flag works", None), ("test the parser", "edit_file"), ("Check: lint passes", None),
    ("`validate` the config", None), ("Run the unit tests", "bash"), ("Make sure nothing broke; check with pytest", "bash"),
])
def test_tasks_that_look_like_verification(description: str, hint: str | None) -> None:
    assert is_verification(Task(1, description, hint))


@pytest.mark.parametrize("description, hint", [
    ("Run the unit tests", None), ("Write the tests module", "edit_file"), ("Read the checker", "read_file"),
    ("Contest the result", "bash"), ("Update testing docs", None),
])
def test_tasks_that_do_not_look_like_verification(description: str, hint: str | None) -> None:
    assert not is_verification(Task(1, description, hint))


def test_a_verification_task_is_appended_once_depending_on_all_others() -> None:
    tasks = (Task(1, "Read"), Task(2, "Edit", None, (1,)), Task(5, "Document"))
    result = sanitise(tasks, KNOWN)
    assert result.verification_added == Task(6, VERIFICATION_DESCRIPTION, "bash", (1, 2, 5))
    assert result.tasks[-1] == result.verification_added and len(result.tasks) == 4
    again = sanitise(result.tasks, KNOWN)
    assert again.verification_added is None and again.tasks == result.tasks


def test_no_verification_task_is_added_when_one_is_present() -> None:
    tasks = (Task(1, "Edit"), Task(2, "Verify the change"))
    assert sanitise(tasks, KNOWN).tasks == tasks


def test_the_verification_task_has_no_hint_when_bash_is_unknown() -> None:
    assert sanitise((Task(1, "Edit"),), {"edit_file"}).verification_added.tool_hint is None


def test_the_decomposition_reports_the_added_verification_task() -> None:
    result = parse_decomposition(reply(raw(1), raw(2), raw(3)), KNOWN, "g")
    assert result.kind is DecompositionKind.PLAN and result.verification_added.id == 4
    assert "No task verifies the result: task 4 added to do so." in result.notes


def test_the_fallback_plan_is_exactly_one_task() -> None:
    result = parse_decomposition("garbage", KNOWN, "g")
    assert len(result.plan.tasks) == 1 and result.verification_added is None
