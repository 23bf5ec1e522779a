"""One task's agent (TASK-4, TASK-8): its own history, the session's tools plus two, to the task's end.

The agent is prompted with the goal, the plan, the run's replans and what
finished tasks reported, then loops like the conversation agent (quiet model
calls, tool calls through the session's tool runner) until:

* it calls ``complete_task`` (done);
* it calls ``update_task_plan`` and the replan is applied: it reads the result
  (the soft-cap sentence from the third replan on) in one more model call,
  then ends replanned;
* it answers twice in a row without a tool call (done): the first time it is
  nudged toward its two ways out;
* the runaway guard stops it (:mod:`ljtui.core.agent.runaway`), or it used
  ``agent.max_iterations`` model calls (failed). The depth-limit nudge comes
  at :data:`~ljtui.core.tasks.nudges.TOOL_CALL_BUDGET` tool calls, or earlier
  so that :data:`~ljtui.core.tasks.nudges.NUDGE_ROOM` model calls are left to
  act on it.

Tool results carry the nudges of :mod:`ljtui.core.tasks.nudges` when they are
due. Above ``agent.compress_at_tokens`` (or its share of the model's context
window) the task's history is compressed like a long chat request: its first
message stays, with the last exchanges.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ljtui.core.agent import compression as C
from ljtui.core.agent import runaway as R
from ljtui.core.agent.offer import Offer, offer_now
from ljtui.core.providers.base import ChatRequest, Message, TextBlock, ToolResultBlock, ToolUseBlock
from ljtui.core.secrets import redact_message
from ljtui.core.tasks import prompts as P
from ljtui.core.tasks.nudges import (
    ToolStreak, depth_limit_nudge, depth_nudge_due, no_tool_call_nudge, record_tool_call,
)
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
    return await TaskAgent(runner, task).run()


class TaskAgent:
    """The loop of one task's agent; see the module docstring for how it ends."""

    def __init__(self, runner: TaskRun, task: Task) -> None:
        assert runner.plan is not None
        self.runner = runner
        self.task = task
        self.kit = runner.kit
        self.name = f"task {task.id}"
        session = self.kit.tools.tools
        own = [tool for tool in (session.get(n) for n in session.names) if tool is not None]
        self.tools = ToolRegistry([*own, *task_tools(runner.replan, task.id)])
        self.system = self.kit.context.system + "\n\n" + P.TASK_TAIL.format(task_id=task.id)
        self.history = [Message.user(P.task_message(runner.plan, task, runner.results))]
        self.summary = ""
        self.streak = ToolStreak(task.id)
        self.guard = R.RepeatGuard()
        self.depth_nudged = False
        self.said = ""
        self.offer = Offer()

    async def run(self) -> TaskEnd:
        limit = self.kit.settings.config.agent.max_iterations
        quiet_turns = 0
        for used in range(1, limit + 1):
            calls = await self._reply()
            if not calls:
                quiet_turns += 1
                if quiet_turns >= 2:
                    return TaskEnd(TaskStatus.DONE, self.said)
                self.history.append(Message.user(no_tool_call_nudge(self.task.id)))
                continue
            quiet_turns = 0
            results, ended, stopped = await self._run_calls(calls)
            if not self.depth_nudged and depth_nudge_due(self.streak.calls, used, limit) and ended is None:
                self.depth_nudged = True
                results[-1] = _with_note(results[-1], depth_limit_nudge(self.task.id, self.streak.calls))
            self.history.append(Message("user", tuple(results)))
            if ended is TaskStatus.REPLANNED:
                await self._reply()  # the agent reads its replan's result (and the soft cap) before it ends
                return TaskEnd(TaskStatus.REPLANNED, self.said)
            if stopped is not None:
                return TaskEnd(TaskStatus.FAILED, stopped)
            if ended is not None:
                return TaskEnd(ended, self.said)
        return TaskEnd(TaskStatus.FAILED, f"used its {limit} model calls (agent.max_iterations) without finishing")

    async def _reply(self) -> list[ToolCall]:
        """One model call on the task's history (compressed first when over the budget); its calls."""
        kit = self.kit
        config = kit.settings.config
        self.offer = await offer_now(kit)
        if self._tokens() > await kit.model.budget.compress_at():
            await self._compress()
        tail = "\n\n".join(filter(None, (C.summary_section(self.summary), await kit.gate_tail())))
        request = ChatRequest(self.system, tuple(self.history), self.offer.specs(self.tools.specs, config),
                              config.provider.max_tokens,
                              tail, agent=self.name)
        text, calls = await self.runner.call(request)
        self.said = text.strip() or self.said
        blocks: list[Any] = [TextBlock(text)] if text else []
        blocks += [ToolUseBlock(c.id, c.name, c.input) for c in calls]
        self.history.append(redact_message(Message("assistant", tuple(blocks)), kit.settings.secrets))
        return calls

    async def _run_calls(self, calls: list[ToolCall]
                         ) -> tuple[list[ToolResultBlock], TaskStatus | None, str | None]:
        """Run the reply's calls in order; the runaway guard asks before a repeat runs, and a stop leaves the
        rest unrun (each still answered, so the history stays valid) and says why."""
        results: list[ToolResultBlock] = []
        ended: TaskStatus | None = None
        for index, call in enumerate(calls):
            repeating = self.guard.before(calls, index)
            if repeating is not None and (await self.kit.ask(R.question(repeating, self.name))).choice != R.GO_ON:
                why = R.stopped(repeating)
                results += [ToolResultBlock(c.id, f"not run: {why}", True) for c in calls[index:]]
                return results, ended, why
            block = await self.kit.tools.run(self.runner.turn, call, self.tools, self.name)
            ok = not block.is_error
            repeats = self.guard.see(call.name, call.input, block.content)
            self.streak, nudge = record_tool_call(self.streak, ok)
            if self.guard.nudged(repeats):
                nudge = "\n\n".join(filter(None, (nudge, R.nudge(call.name, repeats))))
            results.append(_with_note(block, nudge) if nudge else block)
            if ok and call.name == "complete_task":
                ended = ended or TaskStatus.DONE
            elif ok and call.name == "update_task_plan":
                ended = TaskStatus.REPLANNED
        return results, ended, None

    def _tokens(self) -> int:
        return C.estimate_tokens(self.system + C.summary_section(self.summary), self.history,
                                 self.offer.specs(self.tools.specs, self.kit.settings.config))

    async def _compress(self) -> None:
        parts = C.cut_inside(self.history, start=0)
        if not parts.older:
            return
        request = ChatRequest(C.SUMMARY_SYSTEM, (Message.user(C.summary_request(parts.older, self.summary)),),
                              (), C.SUMMARY_MAX_TOKENS, agent=self.name)
        self.summary = (await self.kit.model.text(self.runner.turn, request)).strip()
        self.history = list(parts.kept)


def _with_note(block: ToolResultBlock, note: str) -> ToolResultBlock:
    return ToolResultBlock(block.tool_use_id, f"{block.content}\n\n{note}", block.is_error)
