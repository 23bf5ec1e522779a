"""Properties: parsing never raises, and any repair leaves unique ids and acyclic dependencies."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ljtui.core.tasks import (
    MAX_DESCRIPTION_CHARS,
    MAX_TASKS,
    Task,
    TaskPlan,
    TaskStatus,
    apply_replan,
    parse_decision,
    parse_decomposition,
)
from tests.core.tasks.helpers import KNOWN

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 12) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
task_items = st.fixed_dictionaries(
    {"id": st.integers(-1, 12) | st.none() | st.text(max_size=3)},
    optional={
        "description": st.text(max_size=40) | st.integers(),
        "tool_hint": st.sampled_from(["bash", "nope", "READ_FILE", ""]) | st.none() | st.integers(),
        "depends_on": st.lists(st.integers(-1, 12) | st.text(max_size=2), max_size=5) | st.integers(),
    },
)
item_lists = st.lists(task_items | json_values, max_size=14)


def assert_well_formed(tasks: tuple[Task, ...]) -> None:
    ids = [t.id for t in tasks]
    assert len(ids) == len(set(ids)) and all(i >= 1 for i in ids)
    by_id = {t.id: t for t in tasks}
    for task in tasks:
        assert 0 < len(task.description) <= MAX_DESCRIPTION_CHARS and "\x00" not in task.description
        task.description.encode("utf-8")
        assert task.id not in task.depends_on and all(d in by_id for d in task.depends_on)
    visiting: set[int] = set()
    done: set[int] = set()

    def visit(task_id: int) -> None:
        assert task_id not in visiting, "dependency cycle"
        if task_id in done:
            return
        visiting.add(task_id)
        for dep in by_id[task_id].depends_on:
            visit(dep)
        visiting.discard(task_id)
        done.add(task_id)

    for task_id in by_id:
        visit(task_id)


@SETTINGS
@given(st.text(max_size=300))
def test_parsing_any_text_never_raises(text: str) -> None:
    parse_decomposition(text, KNOWN, "goal")
    parse_decision(text)


@SETTINGS
@given(json_values)
def test_parsing_any_json_never_raises(value: Any) -> None:
    result = parse_decomposition(json.dumps({"tasks": value}), KNOWN, "goal")
    if result.plan is not None:
        assert_well_formed(result.plan.tasks)


@SETTINGS
@given(item_lists)
def test_any_task_list_is_repaired_to_unique_ids_and_acyclic_dependencies(items: list[Any]) -> None:
    result = parse_decomposition(json.dumps({"tasks": items}), KNOWN, "goal")
    assert result.plan is not None or items == []
    if result.plan is not None:
        assert_well_formed(result.plan.tasks)
        assert len(result.plan.tasks) <= MAX_TASKS + 1


@SETTINGS
@given(item_lists, st.lists(st.sampled_from(list(TaskStatus)), min_size=1, max_size=6))
def test_any_replan_keeps_ids_unique_and_dependencies_acyclic(items: list[Any], statuses: list[TaskStatus]) -> None:
    before = TaskPlan(tuple(Task(i + 1, f"t{i + 1}", status=s) for i, s in enumerate(statuses)), "g")
    result = apply_replan(before, items, KNOWN, 1)
    if result.ok:
        assert_well_formed(result.plan.tasks)
        kept = [t for t in before.tasks if t.status is not TaskStatus.PENDING or t.id == 1]
        assert [t.id for t in result.plan.tasks[: len(kept)]] == [t.id for t in kept]
        assert all(t.status is TaskStatus.PENDING for t in result.plan.tasks[len(kept):])
    else:
        assert result.plan is before
