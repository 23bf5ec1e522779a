"""Failed-task decisions (TASK-9): parsing, applying, and the cap per run."""

from __future__ import annotations

import pytest

from ljtui.core.tasks import (
    MAX_DECISIONS_PER_RUN,
    Decision,
    DecisionError,
    DecisionKind,
    TaskStatus,
    apply_decision,
    parse_decision,
    ready,
    with_status,
)
from tests.core.tasks.helpers import plan

P, R, D, F, S = TaskStatus.PENDING, TaskStatus.RUNNING, TaskStatus.DONE, TaskStatus.FAILED, TaskStatus.SKIPPED


@pytest.mark.parametrize("text, expected", [
    ('{"decision": "skip", "reason": "not needed"}', Decision(DecisionKind.SKIP, "not needed")),
    ('```json\n{"decision": "RETRY", "reason": "flaky"}\n```', Decision(DecisionKind.RETRY, "flaky")),
    ('I would {"action": "replace", "reason": "wrong file", "description": "Edit b.py instead"} now',
     Decision(DecisionKind.REPLACE, "wrong file", "Edit b.py instead")),
    ('{"decision": "skip"}', Decision(DecisionKind.SKIP, "")),
])
def test_a_decision_is_read_from_the_reply(text: str, expected: Decision) -> None:
    assert parse_decision(text) == expected


@pytest.mark.parametrize("text, says", [
    ("skip it", "no decision"), ('{"decision": "give up"}', "must be one of skip, retry, replace"),
    ('{"decision": 3}', "must be one of"), ('{"decision": "replace", "reason": "x"}', "needs a non-empty"),
    ('{"decision": "replace", "description": " \\u0000 "}', "needs a non-empty"), ('{"decision": "skip",}', "no decision"),
])
def test_an_unusable_reply_is_an_error_value(text: str, says: str) -> None:
    result = parse_decision(text)
    assert isinstance(result, DecisionError) and says in result.message


def test_skip_lets_dependents_run() -> None:
    outcome = apply_decision(plan((1, F), (2, P, (1,))), 1, Decision(DecisionKind.SKIP, "optional"))
    assert outcome.applied and not outcome.stop and outcome.plan.task(1).status is S
    assert [t.id for t in ready(outcome.plan)] == [2] and outcome.plan.decision_count == 1
    assert outcome.message == "task 1: skip (optional)"


def test_retry_makes_the_task_pending_again() -> None:
    outcome = apply_decision(plan((1, F)), 1, Decision(DecisionKind.RETRY, ""))
    assert outcome.plan.task(1).status is P and outcome.plan.task(1).description == "task 1"


def test_replace_gives_the_task_its_new_description_and_retries_it() -> None:
    outcome = apply_decision(plan((1, D), (2, F, (1,))), 2, Decision(DecisionKind.REPLACE, "r", "Edit b.py"))
    task = outcome.plan.task(2)
    assert (task.description, task.status, task.depends_on) == ("Edit b.py", P, (1,))


def test_a_task_that_did_not_fail_gets_no_decision() -> None:
    before = plan((1, D))
    outcome = apply_decision(before, 1, Decision(DecisionKind.RETRY, ""))
    assert not outcome.applied and outcome.plan is before and "not failed" in outcome.message
    assert "not in the plan" in apply_decision(before, 4, Decision(DecisionKind.RETRY, "")).message


def test_after_three_decisions_the_next_failure_stops_the_run() -> None:
    current = plan((1, F))
    for _ in range(MAX_DECISIONS_PER_RUN):
        outcome = apply_decision(current, 1, Decision(DecisionKind.RETRY, ""))
        assert outcome.applied and not outcome.stop
        current = with_status(outcome.plan, 1, F)
    assert current.decision_count == 3
    outcome = apply_decision(current, 1, Decision(DecisionKind.SKIP, ""))
    assert outcome.stop and not outcome.applied and outcome.plan is current
    assert outcome.message == ("The run stops: task 1 failed and the replanner has already decided 3 time(s) "
                               "in this run (at most 3).")
