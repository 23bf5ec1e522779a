"""A task run's workspace: ``.agent/workspace/<run-id>/tasks.json`` kept as the run goes, and the files
earlier tasks wrote named to later ones."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import yaml

from ljtui.core.approval import ScriptedApprover
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.events import Notice, ToolCallFinished, ToolCallStarted
from ljtui.core.gates.runs import list_runs, valid_run_id
from ljtui.core.gates.workspace import Workspace
from ljtui.core.ports import ListSink
from ljtui.core.providers import make_client
from ljtui.core.providers.base import ChatRequest
from ljtui.core.tasks.runner import TaskRunner
from ljtui.core.tasks.workspace import FORMAT, TASKS_FILE, WrittenFiles
from tests.conftest import git
from tests.core.tasks.test_runner import plan_reply
from tests.core.tasks.helpers import said

AGENTS: dict[str, list[dict[str, Any]]] = {
    "decompose": [plan_reply((1, "Write the notes and fix greet", "write_file", []),
                             (2, "Check what task 1 did", "read_file", [1]))],
    "task 1": [{"tool_calls": [
        {"name": "write_file", "input": {"path": "notes/plan.txt", "content": "greet gets a comma\n"}},
        {"name": "edit_file", "input": {"path": "app.py", "old": "'hello ' + name", "new": "'hello, ' + name"}},
        {"name": "write_file", "input": {"path": "../outside.txt", "content": "refused\n"}}]},
        said("notes written, greet fixed", 1)],
    "task 2": [{"tool_calls": [{"name": "read_file", "input": {"path": "RECORD"}}]}, said("checked", 2)],
}
"""Task 1 writes two files (a third write is refused); task 2 reads the run's record."""


ONE_TASK: dict[str, list[dict[str, Any]]] = {
    "decompose": [plan_reply((1, "Say hi", None, []))], "task 1": [said("hi", 1)], "task 2": [said("ok", 2)]}
"""One task, and the verification task the sanitiser adds."""


def recording_engine(repo: Path, agents: dict[str, list[dict[str, Any]]]) -> tuple[Engine, ListSink,
                                                                                   list[ChatRequest]]:
    """An engine on a scripted model whose every request is kept, in order."""
    script = repo.parent / "script.yaml"
    script.write_text(yaml.safe_dump({"agents": agents}), encoding="utf-8")
    config = Config()
    config.provider.name, config.provider.script = "scripted", str(script)
    config.agent.allow_tools = ["edit_file", "write_file", "bash"]
    requests: list[ChatRequest] = []

    def factory(provider: Any) -> Any:
        client = make_client(provider)
        stream = client.stream

        async def recorded(request: ChatRequest) -> Any:
            requests.append(request)
            async for delta in stream(request):
                yield delta

        client.stream = recorded  # type: ignore[method-assign]
        return client

    sink = ListSink()
    engine = Engine(config, sink, repo_root=repo, client_factory=factory,
                    approver=ScriptedApprover({"task_plan": ["approve"]}))
    return engine, sink, requests


def with_record_path(agents: dict[str, list[dict[str, Any]]], path: str) -> dict[str, list[dict[str, Any]]]:
    return json.loads(json.dumps(agents).replace("RECORD", path))


async def test_the_record_follows_the_run_and_a_later_task_is_told_the_files_an_earlier_one_wrote(
        git_repo: Path) -> None:
    run_id = "0123abcd"
    record_path = f".agent/workspace/{run_id}/{TASKS_FILE}"
    engine, sink, requests = recording_engine(git_repo, with_record_path(AGENTS, record_path))
    outcome = await TaskRunner(engine.kit, "tidy greet", run_id=run_id).run()
    assert outcome.status == "done", [getattr(e, "message", "") for e in sink.events if isinstance(e, Notice)]

    [task_2] = [r for r in requests if r.agent == "task 2"][:1]
    prompt = task_2.messages[0].text
    assert "  task 1: notes written, greet fixed\n    files it wrote: notes/plan.txt, app.py" in prompt
    assert ".agent" not in prompt  # what the record holds is in the prompt: the tools never read .agent/
    [task_1] = [r for r in requests if r.agent == "task 1"][:1]
    assert "files it wrote" not in task_1.messages[0].text

    [read] = [e for e in sink.events if isinstance(e, ToolCallFinished) and e.agent == "task 2"
              and e.name == "read_file"]
    assert not read.ok and "inside .agent/" in read.output, "the run's record is ljtui's state, not the model's"

    record = json.loads((git_repo / record_path).read_text(encoding="utf-8"))
    assert (record["format"], record["run_id"], record["goal"], record["status"]) == (
        FORMAT, run_id, "tidy greet", "done")
    first, second = record["tasks"]
    assert (first["status"], first["summary"], first["files"]) == (
        "done", "notes written, greet fixed", ["notes/plan.txt", "app.py"])
    assert (second["status"], second["summary"], second["files"], second["depends_on"]) == (
        "done", "checked", [], [1])
    assert git(git_repo, "status", "--porcelain", "--untracked-files=all").count(".agent") == 0


async def test_a_task_run_folder_is_never_taken_for_a_gate_run(git_repo: Path) -> None:
    engine, sink, _ = recording_engine(git_repo, ONE_TASK)
    outcome = await engine.run_plan("say hi")
    assert outcome.status == "done" and not valid_run_id(outcome.run_id)
    assert (git_repo / ".agent" / "workspace" / outcome.run_id / TASKS_FILE).is_file()
    assert list_runs(git_repo) == ([], []) and Workspace.list(git_repo) == []


async def test_a_record_that_cannot_be_written_is_one_warning_and_the_run_goes_on(
        git_repo: Path, tmp_path: Path) -> None:
    (git_repo / ".agent").mkdir(exist_ok=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, git_repo / ".agent" / "workspace")
    engine, sink, _ = recording_engine(git_repo, ONE_TASK)
    outcome = await engine.run_plan("say hi")
    assert outcome.status == "done"
    warnings = [e.message for e in sink.events if isinstance(e, Notice) and "could not be written" in e.message]
    assert len(warnings) == 1 and "is a symbolic link" in warnings[0]
    assert list(elsewhere.iterdir()) == [], "nothing written through the link"


def test_only_successful_writes_of_a_task_agent_count() -> None:
    files = WrittenFiles()
    for call_id, agent, name, path, ok in [("a", "task 3", "write_file", "./src/x.py", True),
                                           ("b", "task 3", "edit_file", "src/x.py", True),
                                           ("c", "task 3", "write_file", "y.py", False),
                                           ("d", "chat", "write_file", "z.py", True),
                                           ("e", "task 3", "read_file", "r.py", True)]:
        files.see(ToolCallStarted(1, call_id, name, {"path": path}, agent))
        files.see(ToolCallFinished(1, call_id, name, ok, "", agent))
    assert files.of(3) == ("src/x.py",) and files.by_task.keys() == {3}


def test_a_task_agents_patch_counts_every_file_it_names() -> None:
    files = WrittenFiles()
    patch = ("*** Begin Patch\n*** Update File: src/a.py\n*** Move to: src/b.py\n@@\n-x\n+y\n"
             "*** Add File: ./docs/new.md\n+hi\n*** Delete File: old.txt\n*** End Patch\n")
    files.see(ToolCallStarted(1, "p", "apply_patch", {"patch": patch}, "task 2"))
    files.see(ToolCallFinished(1, "p", "apply_patch", True, "", "task 2"))
    files.see(ToolCallStarted(1, "q", "apply_patch", {"patch": "*** Begin Patch\n*** Add File: z.py\n"}, "task 2"))
    files.see(ToolCallFinished(1, "q", "apply_patch", False, "", "task 2"))
    assert files.of(2) == ("src/a.py", "src/b.py", "docs/new.md", "old.txt")
