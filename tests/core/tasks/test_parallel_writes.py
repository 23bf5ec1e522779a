"""Tasks of one plan that write at the same time: each waits its turn on the transaction, none is refused (on the
tree itself: no layer)."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.approval import ScriptedApprover
from ljtui.core.events import ToolCallFinished
from tests.core.tasks.test_runner import make_engine, plan_reply

RUNS = 20
NAMES = ("alpha", "beta", "delta", "epsilon")


def write(path: str, content: str) -> dict[str, object]:
    return {"tool_calls": [{"name": "write_file", "input": {"path": path, "content": content}}]}


def edit(path: str, old: str, new: str) -> dict[str, object]:
    return {"tool_calls": [{"name": "edit_file", "input": {"path": path, "old": old, "new": new}}]}


def finish(task_id: int) -> dict[str, object]:
    return {"tool_calls": [{"name": "complete_task", "input": {"task_id": task_id}}]}


def with_check(agents: dict[str, list[dict[str, object]]], task_id: int) -> dict[str, list[dict[str, object]]]:
    """The task the decomposition adds to verify the result, finishing at once."""
    return {**agents, f"task {task_id}": [finish(task_id)]}


async def test_four_parallel_tasks_each_write_their_file_in_every_run(git_repo: Path) -> None:
    for run in range(RUNS):
        agents: dict[str, list[dict[str, object]]] = {
            "decompose": [plan_reply(*((i + 1, f"Write {name}.txt", "write_file", []) for i, name in enumerate(NAMES)))],
        }
        for i, name in enumerate(NAMES):
            agents[f"task {i + 1}"] = [write(f"out/{name}.txt", f"{name} {run}\n"), finish(i + 1)]
        approver = ScriptedApprover({"task_plan": ["approve_writes"]})
        engine, sink = make_engine(git_repo, with_check(agents, 5), approver, max_parallel_tasks=4, layer="off")
        outcome = await engine.run_plan("write four files")
        failed = [e.output for e in sink.events if isinstance(e, ToolCallFinished) and not e.ok]
        assert failed == [], f"run {run}"
        assert outcome.status == "done", f"run {run}"
        for name in NAMES:
            assert (git_repo / "out" / f"{name}.txt").read_text() == f"{name} {run}\n", f"run {run}"


async def test_two_parallel_tasks_editing_one_file_both_land_one_after_the_other(git_repo: Path) -> None:
    shared = git_repo / "shared.txt"
    for run in range(RUNS):
        shared.write_text("first = 0\nsecond = 0\n")
        agents = {
            "decompose": [plan_reply((1, "Set first", "edit_file", []), (2, "Set second", "edit_file", []))],
            "task 1": [edit("shared.txt", "first = 0", f"first = {run}"), finish(1)],
            "task 2": [edit("shared.txt", "second = 0", f"second = {run}"), finish(2)],
        }
        approver = ScriptedApprover({"task_plan": ["approve_writes"]})
        engine, sink = make_engine(git_repo, with_check(agents, 3), approver, max_parallel_tasks=2, layer="off")
        outcome = await engine.run_plan("set both")
        assert outcome.status == "done", f"run {run}"
        assert shared.read_text() == f"first = {run}\nsecond = {run}\n", f"run {run}: an edit was lost"
        edits = [e for e in sink.events if isinstance(e, ToolCallFinished) and e.name == "edit_file"]
        assert [e.ok for e in edits] == [True, True], f"run {run}"


async def test_two_parallel_whole_file_writes_never_mix_and_the_later_is_told_to_read_again(
        git_repo: Path) -> None:
    shared = git_repo / "whole.txt"
    for run in range(RUNS):
        shared.write_text("original\n")
        agents = {
            "decompose": [plan_reply((1, "Write it one way", "write_file", []),
                                     (2, "Write it another way", "write_file", []))],
            "task 1": [write("whole.txt", "one\n" * 1000), finish(1)],
            "task 2": [write("whole.txt", "two\n" * 1000), finish(2)],
        }
        approver = ScriptedApprover({"task_plan": ["approve_writes"]})
        engine, sink = make_engine(git_repo, with_check(agents, 3), approver, max_parallel_tasks=2, layer="off")
        await engine.run_plan("write it")
        assert shared.read_text() in ("one\n" * 1000, "two\n" * 1000), f"run {run}: bytes of both writes"
        writes = [e for e in sink.events if isinstance(e, ToolCallFinished) and e.name == "write_file"]
        refused = [e.output for e in writes if not e.ok]
        assert len(writes) == 2 and len(refused) <= 1, f"run {run}"
        for output in refused:
            assert "StalePlan: whole.txt changed on disk after this write was worked out" in output
