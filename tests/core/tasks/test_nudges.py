"""Nudges (TASK-8): exact texts naming the task, and when they are due."""

from __future__ import annotations

from ljtui.core.tasks.nudges import NUDGE_ROOM, depth_nudge_due
from ljtui.core.tasks import (
    TOOL_CALL_BUDGET,
    ToolStreak,
    depth_limit_nudge,
    failures_nudge,
    no_tool_call_nudge,
    record_tool_call,
)

EXITS = ("Call `complete_task(task_id=4)` to record completion. If the current approach is clearly wrong, "
         "you may call `update_task_plan` with a revised task list instead.")


def test_the_depth_limit_text_names_the_budget_and_the_task() -> None:
    assert TOOL_CALL_BUDGET == 25
    assert depth_limit_nudge(4) == "You have used 25 tool calls for the current task. " + EXITS


def test_the_failure_and_no_tool_texts_offer_the_same_two_exits() -> None:
    assert failures_nudge(4) == "Your last 3 tool calls for the current task failed. " + EXITS
    assert no_tool_call_nudge(4) == "Your last turn called no tool. " + EXITS


def test_the_depth_nudge_is_due_at_the_budget_or_with_room_left_before_the_hard_stop() -> None:
    assert [depth_nudge_due(calls, 1, 1000) for calls in (24, 25, 26)] == [False, True, True]
    assert [depth_nudge_due(1, used, 10) for used in range(1, 11)] == [False] * 7 + [True] * 3
    assert 10 - NUDGE_ROOM == 8, "after the 8th of 10 model calls, two are left to act on the nudge"
    assert depth_nudge_due(1, 1, 2) and depth_nudge_due(1, 1, 1), "a tiny limit nudges at once"


def test_three_failures_in_a_row_bring_the_failure_nudge_and_a_success_resets_the_count() -> None:
    streak = ToolStreak(4)
    outcomes = [False, False, True, False, False, False, False]
    nudges = []
    for ok in outcomes:
        streak, nudge = record_tool_call(streak, ok)
        nudges.append(nudge)
    assert nudges == [None, None, None, None, None, failures_nudge(4), None]
    assert streak.failures_in_a_row == 1
