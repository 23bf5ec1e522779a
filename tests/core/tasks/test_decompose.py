"""Reading a decomposition reply (TASK-2, TASK-10): outcomes, validation and repairs."""

from __future__ import annotations

import json

import pytest

from ljtui.core.tasks import MAX_DESCRIPTION_CHARS, DecompositionKind, TaskStatus, parse_decomposition
from ljtui.core.tasks.jsonreply import MAX_DECODE_ATTEMPTS, MAX_REPLY_CHARS
from tests.core.tasks.helpers import KNOWN, raw, reply

GOAL = "Add a --verbose flag"
VERIFY = raw(9, "Run the tests", hint="bash")


def parse(text: str) -> object:
    return parse_decomposition(text, KNOWN, GOAL)


def three(*extra: dict) -> str:
    return reply(raw(1), raw(2, deps=[1]), raw(3, deps=[2]), *extra)


def test_a_bare_reply_becomes_a_plan_of_pending_tasks() -> None:
    result = parse(reply(raw(1, "Read", hint="read_file"), raw(2, "Edit", [1], "edit_file"), VERIFY | {"id": 3}))
    assert result.kind is DecompositionKind.PLAN and result.reason == ""
    assert [(t.id, t.description, t.tool_hint, t.depends_on) for t in result.plan.tasks] == [
        (1, "Read", "read_file", ()), (2, "Edit", "edit_file", (1,)), (3, "Run the tests", "bash", ())]
    assert all(t.status is TaskStatus.PENDING for t in result.plan.tasks)
    assert result.plan.goal == GOAL and result.plan.replan_count == 0 and result.notes == ()


@pytest.mark.parametrize("wrap", [
    "```json\n{}\n```", "Here is the plan:\n```json\n{}\n```\nGood luck.", "```\n{}\n```",
    "Sure! {} Hope that helps.", "I think {} is right",
])
def test_fenced_json_and_prose_around_it_are_read(wrap: str) -> None:
    result = parse(wrap.replace("{}", three(VERIFY)))
    assert result.kind is DecompositionKind.PLAN and len(result.plan.tasks) == 4


def test_an_object_nested_in_another_is_found() -> None:
    assert parse(json.dumps({"plan": json.loads(three(VERIFY))})).kind is DecompositionKind.PLAN


@pytest.mark.parametrize("text", [
    '{"tasks": [{"id": 1, "description": "a"},]}', '{"tasks": [', "no json at all", "", "```json\n{tasks: []}\n```",
])
def test_unparsable_json_falls_back_to_one_task_the_goal(text: str) -> None:
    result = parse(text)
    assert result.kind is DecompositionKind.FALLBACK
    assert [(t.id, t.description) for t in result.plan.tasks] == [(1, GOAL)]
    assert result.reason.startswith("unparsable JSON")


@pytest.mark.parametrize("text, says", [
    ('{"steps": []}', "wrong shape"), ('[1, 2]', "wrong shape"), ('{"tasks": {"id": 1}}', "not a list"),
    ('{"tasks": "do it"}', "not a list"), ('{"tasks": [1, "x", null]}', "none of the 3 tasks"),
    ('{"tasks": [{"id": 1}]}', "none of the 1 tasks"),
])
def test_a_wrong_shape_falls_back_with_the_reason(text: str, says: str) -> None:
    result = parse(text)
    assert result.kind is DecompositionKind.FALLBACK and says in result.reason
    assert len(result.plan.tasks) == 1


def test_an_empty_task_list_ends_planning_early() -> None:
    result = parse('```json\n{"tasks": []}\n```')
    assert result.kind is DecompositionKind.EMPTY and result.plan is None


def test_twelve_tasks_keep_the_first_eight_and_say_so() -> None:
    result = parse(reply(*(raw(i) for i in range(1, 12)), raw(12, "Verify it all")))
    kept = [t for t in result.plan.tasks if t is not result.verification_added]
    assert [t.description for t in kept] == [f"step {i}" for i in range(1, 9)]
    assert "12 tasks proposed: kept the first 8." in result.notes


def test_fewer_than_three_tasks_are_kept_with_a_note() -> None:
    result = parse(reply(raw(1, "Check the config")))
    assert result.kind is DecompositionKind.PLAN and len(result.plan.tasks) == 1
    assert any("fewer than 3" in note for note in result.notes)


@pytest.mark.parametrize("deps", [[[2], [1]], [[3], [1], [2]]], ids=["2-cycle", "3-cycle"])
def test_a_cycle_is_broken_by_dropping_the_edge_to_a_later_task(deps: list[list[int]]) -> None:
    items = [raw(i + 1, deps=d) for i, d in enumerate(deps)]
    result = parse(reply(*items, VERIFY))
    got = {t.id: t.depends_on for t in result.plan.tasks if t is not result.verification_added}
    if len(deps) == 2:
        assert got == {1: (), 2: (1,), 3: ()}
    else:
        assert got == {1: (), 2: (1,), 3: (2,), 4: ()}
    assert any("closes a cycle" in note for note in result.notes)


def test_an_edge_to_a_later_task_outside_any_cycle_is_kept() -> None:
    result = parse(reply(raw(1, deps=[2]), raw(2), VERIFY))
    assert result.plan.tasks[0].depends_on == (2,) and result.notes == ()


def test_self_and_dangling_dependencies_are_dropped_with_reasons() -> None:
    result = parse(reply(raw(1, deps=[1]), raw(2, deps=[1, 7]), VERIFY))
    assert [t.depends_on for t in result.plan.tasks] == [(), (1,), ()]
    assert "proposed task 1 depends on itself: dependency dropped." in result.notes
    assert "proposed task 2 depends on 7, which is not in the plan: dependency dropped." in result.notes


def test_ids_are_renumbered_in_list_order_and_dependencies_follow() -> None:
    result = parse(reply(raw(10, "a"), raw(30, "b", [10]), raw(20, "c", [30, 10]), VERIFY))
    assert [(t.id, t.description, t.depends_on) for t in result.plan.tasks] == [
        (1, "a", ()), (2, "b", (1,)), (3, "c", (1, 2)), (4, "Run the tests", ())]


def test_a_repeated_id_refers_to_its_first_task() -> None:
    result = parse(reply(raw(1, "a"), raw(1, "b"), raw(2, "c", [1]), VERIFY))
    assert [(t.id, t.description, t.depends_on) for t in result.plan.tasks][:3] == [
        (1, "a", ()), (2, "b", ()), (3, "c", (1,))]
    assert any("id 1 repeats" in note for note in result.notes)


@pytest.mark.parametrize("item, note", [
    ({"id": "1", "description": "a"}, "not a positive integer"),
    ({"id": 0, "description": "a"}, "not a positive integer"),
    ({"id": True, "description": "a"}, "not a positive integer"),
    ({"id": 1, "description": 5}, "no description text"),
    ({"id": 1, "description": "   \n\t "}, "empty description"),
    ({"id": 1, "description": "a", "tool_hint": 3}, "tool_hint 3 is not text"),
    ({"id": 1, "description": "a", "depends_on": "2"}, "is not a list"),
    ({"id": 1, "description": "a", "depends_on": [2.0, "x", None]}, "is not a task id"),
    ({"id": 1, "description": "a", "depends_on": [2, 2]}, "repeats: kept once"),
])
def test_wrong_types_are_repaired_or_dropped_with_a_note(item: dict, note: str) -> None:
    result = parse(reply(item, raw(2, "b"), VERIFY))
    assert result.kind is DecompositionKind.PLAN
    assert any(note in n for n in result.notes), result.notes


def test_an_over_long_description_is_cut_to_the_limit() -> None:
    result = parse(reply(raw(1, "x" * 5000), VERIFY))
    description = result.plan.tasks[0].description
    assert len(description) == MAX_DESCRIPTION_CHARS and description.endswith("…")
    assert any("cut to 500" in note for note in result.notes)


def test_nul_controls_newlines_and_lone_surrogates_are_cleaned() -> None:
    text = '{"tasks": [{"id": 1, "description": "a\\u0000b\\u001b[31m\\nc \\ud800 d\\u202e", "tool_hint": "ba\\u0000sh"}]}'
    result = parse(text)
    task = result.plan.tasks[0]
    assert task.description == "ab[31m c \ufffd d" and task.tool_hint == "bash"
    task.description.encode("utf-8")


def test_a_huge_reply_falls_back_without_being_searched() -> None:
    result = parse(three() + " " * MAX_REPLY_CHARS)
    assert result.kind is DecompositionKind.FALLBACK and "too long" in result.reason


def test_a_reply_full_of_braces_and_deep_nesting_falls_back() -> None:
    assert parse("{" * 50_000).kind is DecompositionKind.FALLBACK
    assert parse("[" * 50_000 + "]" * 50_000).kind is DecompositionKind.FALLBACK


def test_an_over_long_goal_is_cut_in_the_fallback_task_and_kept_whole_as_the_goal() -> None:
    result = parse_decomposition("nope", KNOWN, "g" * 900)
    assert len(result.plan.tasks[0].description) == MAX_DESCRIPTION_CHARS and len(result.plan.goal) == 900


def test_only_a_bounded_number_of_candidates_is_tried() -> None:
    assert parse("{} " * 10 + three()).kind is DecompositionKind.PLAN
    assert parse("{} " * MAX_DECODE_ATTEMPTS + three()).kind is DecompositionKind.FALLBACK
    assert parse("```\nx\n```\n" * MAX_DECODE_ATTEMPTS + three()).kind is DecompositionKind.PLAN
