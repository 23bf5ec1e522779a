"""A task-plan run's shared workspace (TASK-4): ``.agent/workspace/<run-id>/tasks.json``.

Once a plan is approved, the run keeps its record there — the goal, every
task with its status, each ended task's summary and the files its agent
wrote — rewritten whole as the run goes, so a task's agent (told the path)
can read what earlier tasks did.

The folder is shared with delivery gates, which keep ``run.json`` and
``tree/`` under their own 12-hex-digit run ids: a task run's id is 8 hex
digits and its file is ``tasks.json``, so neither ever reads the other's.
Everything goes through :mod:`ljtui.core.statedir` (no symbolic link is
followed) and ``.agent/.gitignore`` keeps the folder out of git.

:class:`WrittenFiles` learns the files from the tool-call events of each
task's agent (``write_file`` / ``edit_file`` with a ``path``, ``apply_patch``
with the files its patch names, finished ok).
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ljtui.core.events import Event, ToolCallFinished, ToolCallStarted
from ljtui.core.statedir import AGENT_DIR
from ljtui.core.tasks.plan import TaskPlan

WORKSPACE_DIR = "workspace"
"""The folder below ``.agent`` (the gates' staging trees live there too)."""
TASKS_FILE = "tasks.json"
"""A task run's record in its folder."""
FORMAT = "ljtui-task-run"
"""The record's ``format``, unlike a gate run's ``ljtui-gate-run``."""
VERSION = 1
TASK_AGENT_PREFIX = "task "
"""A task's agent is called ``task <id>``."""
FILE_TOOLS = frozenset({"write_file", "edit_file"})
"""The tools whose ``path`` a task wrote."""
PATCH_TOOL = "apply_patch"
"""The tool whose ``patch`` names the files a task wrote."""
MAX_FILES_PER_TASK = 200
"""Files kept per task (a later one beyond this is not listed)."""


def _written(tool: str, arguments: dict[str, Any]) -> list[str]:
    """The files a call of a writing ``tool`` writes, normalised."""
    if tool == PATCH_TOOL:
        from ljtui.core.edits.read_codex import patch_paths

        patch = arguments.get("patch")
        paths = patch_paths(patch) if isinstance(patch, str) else []
    else:
        path = arguments.get("path")
        paths = [path] if isinstance(path, str) else []
    return [posixpath.normpath(p.strip()) for p in paths if p.strip()]


def workspace_shown(run_id: str) -> str:
    """The run's folder as the agents and the user see it: ``.agent/workspace/<run-id>``."""
    return posixpath.join(AGENT_DIR, WORKSPACE_DIR, run_id)


def tasks_file_shown(run_id: str) -> str:
    """The run's record, repo-relative."""
    return posixpath.join(workspace_shown(run_id), TASKS_FILE)


@dataclass
class WrittenFiles:
    """The files each task's agent wrote, by task id, in the order first written."""

    by_task: dict[int, list[str]] = field(default_factory=dict)
    _pending: dict[str, tuple[int, list[str]]] = field(default_factory=dict)

    def see(self, event: Event) -> None:
        """Learn from one engine event (every other event is ignored)."""
        if isinstance(event, ToolCallStarted) and event.name in FILE_TOOLS | {PATCH_TOOL}:
            task_id = _task_id(event.agent)
            paths = _written(event.name, event.input)
            if task_id is not None and paths:
                self._pending[event.call_id] = (task_id, paths)
        elif isinstance(event, ToolCallFinished):
            found = self._pending.pop(event.call_id, None)
            if found is not None and event.ok:
                files = self.by_task.setdefault(found[0], [])
                for path in found[1]:
                    if path not in files and len(files) < MAX_FILES_PER_TASK:
                        files.append(path)

    def of(self, task_id: int) -> tuple[str, ...]:
        """The files task ``task_id`` wrote."""
        return tuple(self.by_task.get(task_id, ()))


def _task_id(agent: str) -> int | None:
    if not agent.startswith(TASK_AGENT_PREFIX):
        return None
    number = agent[len(TASK_AGENT_PREFIX):]
    return int(number) if number.isdigit() else None


def run_record(run_id: str, status: str, plan: TaskPlan, summaries: Mapping[int, str],
               files: WrittenFiles) -> dict[str, Any]:
    """The ``tasks.json`` object of a run at this moment."""
    tasks = []
    for task in plan.tasks:
        item: dict[str, Any] = {"id": task.id, "description": task.description, "tool_hint": task.tool_hint,
                                "depends_on": list(task.depends_on), "status": task.status.value}
        if task.id in summaries:
            item["summary"] = summaries[task.id]
        item["files"] = list(files.of(task.id))
        tasks.append(item)
    return {"format": FORMAT, "version": VERSION, "run_id": run_id, "goal": plan.goal, "status": status,
            "replans": plan.replan_count, "tasks": tasks}


def save_record(root: Path, run_id: str, record: dict[str, Any]) -> None:
    """Write ``.agent/workspace/<run_id>/tasks.json`` whole (disk work: call from a thread).

    Raises:
        StateDirUnsafe: ``.agent`` or a folder below it is a symbolic link or not a folder.
        OSError: it could not be written.
    """
    from ljtui.core.edits.journal import ensure_agent_gitignore
    from ljtui.core.statedir import replace_state_file

    ensure_agent_gitignore(root)
    data = (json.dumps(record, ensure_ascii=False, indent=1) + "\n").encode("utf-8")
    replace_state_file(root, WORKSPACE_DIR, run_id, TASKS_FILE, data=data, durable=False)


def record_problem(root: Path, run_id: str, record: dict[str, Any]) -> str | None:
    """Write the record (:func:`save_record`); the sentence a user reads when it cannot be, else ``None``."""
    from ljtui.core.statedir import StateDirUnsafe

    try:
        save_record(root, run_id, record)
    except (OSError, StateDirUnsafe) as exc:
        return (f"The run's record {tasks_file_shown(run_id)} could not be written: "
                f"{getattr(exc, 'message', None) or exc}")
    return None
