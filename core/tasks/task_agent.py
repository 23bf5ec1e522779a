"""One task's agent (TASK-4, TASK-8): its own history, the session's tools plus two, to the task's end.

The agent is prompted with the goal, the plan and what finished tasks
reported, then loops like the conversation agent (quiet model calls, tool
calls through the session's tool runner) until it calls ``complete_task``, calls
``update_task_plan``, ends a turn without a tool call, or uses
``agent.max_iterations`` model calls. Tool results carry the nudges of
:mod:`ljtui.core.tasks.nudges` when they are due.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ljtui.core.providers.base import ChatRequest, Message, TextBlock, ToolResultBlock, ToolUseBlock
from ljtui.core.secrets import redact_message
from ljtui.core.tasks import prompts as P
from ljtui.core.tasks.nudges import ToolStreak, record_tool_call
from ljtui.core.tasks.plan import Task, TaskPlan, TaskStatus
from ljtui.core.tasks.prompts import RunResults
from ljtui.core.tasks.replan import ReplanResult
from ljtui.core.tasks.task_tools import task_tools
from ljtui.core.tools import ToolRegistry

if TYPE_CHECKING:
    from ljtui.core.agent.kit import AgentKit
    from ljtui.core.providers.base import ToolCall


class TaskRun(Protocol):
    """The run a task's agent belongs to (:class:`~ljtui.core.tasks.runner.TaskRunner`)."""

    kit: AgentKit
    plan: TaskPlan | None
    results: RunResults

    @property
    def turn(self) -> int: ...

    async def call(self, request: ChatRequest) -> tuple[str, list[ToolCall]]: ...

    async def replan(self, caller: int, raw: Any, reason: str) -> ReplanResult: ...


@dataclass
class TaskEnd:
    """How a task's agent ended, and its last words (or why it failed)."""

    status: TaskStatus
    summary: str


async def run_task_agent(runner: TaskRun, task: Task) -> TaskEnd:
    """Run the agent of ``task`` in ``runner``'s plan to its end."""
    assert runner.plan is not None
    kit = runner.kit
    config = kit.settings.config
    agent = f"task {task.id}"
    session = kit.tools.tools
    own = [tool for tool in (session.get(n) for n in session.names) if tool is not None]
    tools = ToolRegistry([*own, *task_tools(runner.replan, task.id)])
    system = kit.context.system + "\n\n" + P.TASK_TAIL.format(task_id=task.id)
    history = [Message.user(P.task_message(runner.plan, task, runner.results))]
    streak = ToolStreak(task.id)
    said = ""
    for _ in range(config.agent.max_iterations):
        request = ChatRequest(system, tuple(history), tools.specs, config.provider.max_tokens,
                              await kit.gate_tail(), agent=agent)
        text, calls = await runner.call(request)
        said = text.strip() or said
        blocks: list[Any] = [TextBlock(text)] if text else []
        blocks += [ToolUseBlock(c.id, c.name, c.input) for c in calls]
        history.append(redact_message(Message("assistant", tuple(blocks)), kit.settings.secrets))
        if not calls:
            return TaskEnd(TaskStatus.DONE, said)
        results, ended = [], None
        for call in calls:
            block = await kit.tools.run(runner.turn, call, tools, agent)
            ok = not block.is_error
            streak, nudge = record_tool_call(streak, ok)
            if nudge:
                block = ToolResultBlock(block.tool_use_id, f"{block.content}\n\n{nudge}", block.is_error)
            results.append(block)
            if ok and call.name == "complete_task":
                ended = ended or TaskStatus.DONE
            elif ok and call.name == "update_task_plan":
                ended = TaskStatus.REPLANNED
        history.append(Message("user", tuple(results)))
        if ended is not None:
            return TaskEnd(ended, said)
    return TaskEnd(TaskStatus.FAILED, f"used its {config.agent.max_iterations} model calls "
                                      "(agent.max_iterations) without finishing")
