"""Running a task plan (TASK-2…TASK-9): decompose, ask for approval, run the tasks, replan on request.

:class:`TaskRunner` drives the pure model of :mod:`ljtui.core.tasks` from the
session's agent kit (``self.kit``: the model calls, the session's system
prompt, the tools, the Approver port and the event sink):

1. One announced, quiet model call with no tools (agent ``decompose``) proposes the tasks;
   :func:`~ljtui.core.tasks.decompose.read_decomposition` checks, repairs and sanitises them (an unusable
   reply, an echo of its prompt or one cut off at its token limit falls back to one task).
2. The plan is a ``task_plan`` :class:`~ljtui.core.approval.ApprovalRequest`;
   nothing runs before it is approved. An edited list comes back in the
   decision and is checked again like a proposed one.
3. Tasks whose dependencies are done run concurrently (``agent.max_parallel_tasks``),
   each as its own agent (agent ``task <id>``) with its own history, the
   session's system prompt, the session's tools and two more:
   ``complete_task`` and ``update_task_plan``. Writes still go through the
   one write path and permissions through the one door, so dialogs of
   concurrent tasks queue and name the task.
4. ``update_task_plan`` takes effect once the tasks running beside the
   caller have finished; the caller ends ``replanned``.
5. A failed task goes to the replanner (agent ``replanner``): skip, retry or
   replace, at most :data:`~ljtui.core.tasks.decisions.MAX_DECISIONS_PER_RUN`
   times, then the run stops.

Every step is an event on the session's sink and a line of ``.agent/events.jsonl``.
Once the plan is approved, the run's record is kept in its workspace,
``.agent/workspace/<run-id>/tasks.json`` (:mod:`ljtui.core.tasks.workspace`),
and each task's agent is told the files the tasks before it wrote.
"""

from __future__ import annotations

import asyncio
import secrets as random_ids
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ljtui.core.approval import ApprovalRequest, Choice
from ljtui.core.events import Event, Notice, TurnFinished, TurnStarted
from ljtui.core.providers.base import ChatRequest, Message, ProviderError, ToolCall
from ljtui.core.secrets import redact
from ljtui.core.tasks import prompts as P
from ljtui.core.tasks.decisions import (
    MAX_DECISIONS_PER_RUN, DecisionError, apply_decision, read_decision, stop_message,
)
from ljtui.core.tasks.decompose import DecompositionKind, read_decomposition
from ljtui.core.tasks.events import (
    ReplannerDecided, RunFinished, TaskFinished, TaskPlanApproved, TaskPlanFallback, TaskPlanProposed,
    TaskPlanRejected, TaskPlanUpdated, TaskStarted, hints_stripped, plan_updated,
)
from ljtui.core.tasks.prompts import RunResults
from ljtui.core.tasks.quiet_call import ask
from ljtui.core.tasks.plan import Task, TaskPlan, TaskStatus, blocked, progress, ready, task_to_dict, with_status
from ljtui.core.tasks.replan import ReplanResult, apply_replan
from ljtui.core.tasks.sanitise import sanitise
from ljtui.core.tasks.task_agent import TaskEnd, run_task_agent
from ljtui.core.tasks.validate import validate_tasks
from ljtui.core.tasks.workspace import WrittenFiles, record_problem, run_record

if TYPE_CHECKING:
    from ljtui.core.agent.kit import AgentKit

APPROVE = "approve"
APPROVE_WRITES = "approve_writes"
"""Approve, and let the run's tasks write files without asking (commands still ask)."""
REJECT = "reject"
DECOMPOSE_AGENT = "decompose"
REPLANNER_AGENT = "replanner"
DECOMPOSE_MAX_TOKENS = 2048
"""Longest decomposition or replanner reply asked for (``provider.max_tokens`` when that is less)."""
SUMMARY_CHARS = 300
"""A task's final words kept in its ``task_finished`` event (and in the run's record)."""
RUN_ID_BYTES = 4
"""A run id is this many random bytes in hex: 8 digits, never a gate run's 12, so the gates' listings
skip a task run's workspace folder."""
RUNNING = "running"
"""The record's status while the run goes on (then the run's ending)."""
RECORDED_EVENTS = (TaskStarted, TaskFinished, TaskPlanUpdated, RunFinished)
"""Events after which the run's record is written again (it is first written at approval)."""


@dataclass(frozen=True)
class RunOutcome:
    """How a run ended: ``status`` is ``done``, ``failed``, ``stopped``, ``cancelled``, ``rejected`` or ``empty``."""

    run_id: str
    status: str
    plan: TaskPlan | None


@dataclass
class TaskRunner:
    """One run of a task plan for ``goal``; call :meth:`run` once."""

    kit: AgentKit
    goal: str
    skill: str | None = None
    """A skill whose steps are the plan (no decomposition call); ``None``: the model proposes the tasks."""
    run_id: str = field(default_factory=lambda: random_ids.token_hex(RUN_ID_BYTES))
    plan: TaskPlan | None = None
    results: RunResults = field(default_factory=RunResults)
    """What done tasks said and wrote, passed on to the tasks after them."""
    _turn: int = 0
    _hints: frozenset[str] = frozenset()
    _running: dict[int, asyncio.Task[TaskEnd]] = field(default_factory=dict)
    _waiting_to_replan: set[int] = field(default_factory=set)
    _changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    _replan_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _log: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(1, "ljtui-runlog"))
    _skills: Any = None
    _files: WrittenFiles = field(default_factory=WrittenFiles)
    _summaries: dict[int, str] = field(default_factory=dict)
    _record_problem: str = ""
    _last_record: Future[None] | None = None

    async def run(self) -> RunOutcome:
        """Decompose, ask, execute; the outcome (a cancelled run raises ``CancelledError`` after reporting)."""
        sink = self.kit.sink
        self._turn = self.kit.turns.next()
        sink.emit(TurnStarted(self._turn, self.goal))
        try:
            with sink.tapped(self._files.see):
                outcome = await self._run()
        except asyncio.CancelledError:
            await self._stop_running()
            self._finish("cancelled")
            raise
        except ProviderError as exc:
            await self._stop_running()
            sink.emit(Notice(f"The task plan stopped: {exc.message}", "error"))
            outcome = self._finish("failed")
        finally:
            self._allow_writes(False)
            await asyncio.to_thread(self._log.shutdown, True)
            if self._record_problem:
                sink.emit(Notice(self._record_problem, "warning"))
        sink.emit(TurnFinished(self._turn, f"task plan {outcome.status}", "end_turn"))
        return outcome

    async def _run(self) -> RunOutcome:
        await self.kit.context.prepare()
        self._hints = frozenset(await asyncio.to_thread(self._known_hints))
        plan = await self._from_skill(self.skill) if self.skill else await self._decompose()
        if plan is None and self.skill:
            return self._finish("failed")
        if plan is None:
            self._emit(Notice("The planner found nothing to do for this request."))
            return RunOutcome(self.run_id, "empty", None)
        plan = await self._approve(plan)
        if plan is None:
            return self._finish("rejected")
        self.plan = plan
        self._record(RUNNING)
        return await self._execute()

    # --- planning and approval ---------------------------------------------------

    def _known_hints(self) -> set[str]:
        from ljtui.core.skills import load_skills

        self._skills = load_skills(self.kit.root)
        return set(self.kit.tools.tools.names) | set(self._skills.names)

    async def _from_skill(self, name: str) -> TaskPlan | None:
        """Skill ``name``'s steps as the plan, checked like a proposed one (still approved by the user)."""
        skill = self._skills.get(name)
        if skill is None:
            self._emit(Notice(f"There is no skill named {name!r}.", "error"))
            return None
        checked = validate_tasks(skill.task_specs())
        clean = sanitise(checked.tasks, self._hints)
        for event in hints_stripped(self.run_id, clean.stripped):
            self._emit(event)
        self._emit(Notice(f"Task plan from the skill {name!r} ({skill.source}): {skill.description}"))
        return TaskPlan(clean.tasks, self.goal) if clean.tasks else None

    async def _decompose(self) -> TaskPlan | None:
        configured = self.kit.settings.config.provider.max_tokens
        request = ChatRequest(P.decompose_system(self._hints), (Message.user(self.goal),), (),
                              min(DECOMPOSE_MAX_TOKENS, configured), agent=DECOMPOSE_AGENT)
        found = read_decomposition(await ask(self.kit, self._turn, request), self._hints, self.goal, configured)
        if found.kind is DecompositionKind.EMPTY or found.plan is None:
            return None
        if found.kind is DecompositionKind.FALLBACK:
            self._emit(TaskPlanFallback(self.run_id, found.reason))
        for note in found.notes:
            self._emit(Notice(f"Task plan: {note}"))
        for event in hints_stripped(self.run_id, found.stripped):
            self._emit(event)
        return found.plan

    async def _approve(self, plan: TaskPlan) -> TaskPlan | None:
        self._emit(TaskPlanProposed(self.run_id, plan.tasks))
        request = ApprovalRequest(
            "task_plan", "Run this plan?", P.plan_lines(plan.tasks),
            (Choice(APPROVE, "Run it", "enter"), Choice(APPROVE_WRITES, "Run it, allowing its file writes", "w"),
             Choice(REJECT, "Reject", "escape")), REJECT, self.run_id,
            tasks=tuple(task_to_dict(t) for t in plan.tasks))
        decision = await self.kit.ask(request)
        if decision.choice == APPROVE_WRITES:
            self._allow_writes()
        elif decision.choice != APPROVE:
            self._emit(TaskPlanRejected(self.run_id))
            return None
        if decision.tasks is not None:
            edited = self._edited(plan, decision.tasks)
            if edited is None:
                self._emit(TaskPlanRejected(self.run_id))
                return None
            plan = edited
            self._emit(TaskPlanProposed(self.run_id, plan.tasks))
        self._emit(TaskPlanApproved(self.run_id))
        return plan

    def _allow_writes(self, allow: bool = True) -> None:
        """Let this run's tasks write without asking, or end that (commands always ask)."""
        from ljtui.core.agent.permissions import WRITE_TOOLS

        permissions = self.kit.permissions
        if permissions is not None:
            permissions.run_grants = set(WRITE_TOOLS) if allow else set()

    def _edited(self, plan: TaskPlan, tasks: tuple[dict[str, Any], ...]) -> TaskPlan | None:
        """The user's edited list, checked like a proposed one; ``None`` (and why) when nothing is usable."""
        checked = validate_tasks(list(tasks))
        if not checked.tasks:
            self._emit(Notice("The edited plan has no usable task; nothing was run.", "error"))
            return None
        clean = sanitise(checked.tasks, self._hints)
        for note in checked.notes:
            self._emit(Notice(f"Task plan: {note}"))
        for event in hints_stripped(self.run_id, clean.stripped):
            self._emit(event)
        return TaskPlan(clean.tasks, plan.goal)

    # --- execution ---------------------------------------------------------------

    async def _execute(self) -> RunOutcome:
        limit = self.kit.settings.config.agent.max_parallel_tasks
        stopped = False
        while True:
            assert self.plan is not None
            await self._record_written()  # the record on disk holds every ended task before the next starts
            if not self._waiting_to_replan and not stopped:
                for task in ready(self.plan):
                    if len(self._running) >= limit:
                        break
                    self._start(task)
            if not self._running:
                break
            done, _ = await asyncio.wait(self._running.values(), return_when=asyncio.FIRST_COMPLETED)
            for finished in done:
                task_id = next(i for i, t in self._running.items() if t is finished)
                del self._running[task_id]
                end = self._task_end(finished)
                self._record_end(task_id, end)
                if end.status is TaskStatus.FAILED and not stopped:
                    stopped = await self._decide(task_id, end.summary)
            async with self._changed:
                self._changed.notify_all()
        assert self.plan is not None
        for task in blocked(self.plan):
            self.plan = with_status(self.plan, task.id, TaskStatus.SKIPPED)
            self._emit(TaskFinished(self.run_id, task.id, task.description, TaskStatus.SKIPPED,
                                    "not run: a task it depends on failed"))
        failed = progress(self.plan)[TaskStatus.FAILED]
        return self._finish("stopped" if stopped else ("failed" if failed else "done"))

    def _start(self, task: Task) -> None:
        assert self.plan is not None
        self.plan = with_status(self.plan, task.id, TaskStatus.RUNNING)
        self._emit(TaskStarted(self.run_id, task.id, task.description))
        self._running[task.id] = asyncio.create_task(run_task_agent(self, self.plan.task(task.id)))

    @staticmethod
    def _task_end(finished: asyncio.Task[TaskEnd]) -> TaskEnd:
        if finished.cancelled():
            return TaskEnd(TaskStatus.FAILED, "cancelled")
        error = finished.exception()
        if isinstance(error, ProviderError):
            return TaskEnd(TaskStatus.FAILED, error.message)
        if error is not None:
            return TaskEnd(TaskStatus.FAILED, f"{type(error).__name__}: {error}")
        return finished.result()

    def _record_end(self, task_id: int, end: TaskEnd) -> None:
        assert self.plan is not None
        task = self.plan.task(task_id)
        if task is None:
            return
        self.plan = with_status(self.plan, task_id, end.status)
        if end.status is TaskStatus.DONE:
            self.results.summaries[task_id] = end.summary
        self.results.files[task_id] = self._files.of(task_id)
        self._summaries[task_id] = end.summary[:SUMMARY_CHARS]
        self._emit(TaskFinished(self.run_id, task_id, task.description, end.status, end.summary[:SUMMARY_CHARS]))

    async def _stop_running(self) -> None:
        tasks = list(self._running.values())
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for task_id in list(self._running):
            self._record_end(task_id, TaskEnd(TaskStatus.FAILED, "cancelled"))
        self._running.clear()

    def _finish(self, status: str) -> RunOutcome:
        plan = self.plan
        replans = plan.replan_count if plan else 0
        failed = progress(plan)[TaskStatus.FAILED] if plan else 0
        self._emit(RunFinished(self.run_id, status, replans, failed))
        return RunOutcome(self.run_id, status, plan)

    # --- replans (called by update_task_plan) -------------------------------------

    async def replan(self, caller: int, raw: Any, reason: str) -> ReplanResult:
        """Apply a replan once the tasks running beside ``caller`` have finished (or wait to replan too)."""
        self._waiting_to_replan.add(caller)
        try:
            async with self._changed:
                self._changed.notify_all()  # a task already waiting may be waiting only for this one
                await self._changed.wait_for(
                    lambda: all(t == caller or t in self._waiting_to_replan for t in self._running))
            async with self._replan_lock:
                assert self.plan is not None
                result = apply_replan(self.plan, raw, self._hints, caller)
                if result.ok:
                    self.plan = result.plan
                    self._emit(plan_updated(self.run_id, result, reason))
                    for event in hints_stripped(self.run_id, result.stripped):
                        self._emit(event)
                return result
        finally:
            self._waiting_to_replan.discard(caller)

    # --- failed tasks -------------------------------------------------------------

    async def _decide(self, task_id: int, error: str) -> bool:
        """Ask the replanner about failed ``task_id``; True when the run must stop."""
        assert self.plan is not None
        task = self.plan.task(task_id)
        assert task is not None
        if self.plan.decision_count >= MAX_DECISIONS_PER_RUN:  # no decision could be applied: do not ask for one
            self._emit(Notice(stop_message(task_id, self.plan.decision_count), "error"))
            return True
        request = ChatRequest(P.REPLANNER_SYSTEM, (Message.user(P.replanner_message(self.plan, task, error)),), (),
                              min(DECOMPOSE_MAX_TOKENS, self.kit.settings.config.provider.max_tokens),
                              agent=REPLANNER_AGENT)
        decision = read_decision(await ask(self.kit, self._turn, request))
        if isinstance(decision, DecisionError):
            self._emit(Notice(f"Task {task_id} failed and the replanner's answer was unusable "
                              f"({decision.message}); the run stops.", "error"))
            return True
        outcome = apply_decision(self.plan, task_id, decision)
        self._emit(ReplannerDecided(self.run_id, task_id, decision.kind.value, decision.reason))
        if outcome.stop:
            self._emit(Notice(stop_message(task_id, self.plan.decision_count), "error"))
            return True
        self.plan = outcome.plan
        return False

    # --- model calls and events ----------------------------------------------------

    async def call(self, request: ChatRequest) -> tuple[str, list[ToolCall]]:
        """One quiet model call of this run (no streamed text: concurrent agents would interleave), with retries."""
        from ljtui.core.agent.model_calls import TurnTally

        text, calls, _ = await self.kit.model.call(self._turn, request, TurnTally(), quiet=True)
        return redact(text, self.kit.settings.secrets), calls

    @property
    def turn(self) -> int:
        """The session turn this run is."""
        return self._turn

    def _emit(self, event: Event) -> None:
        """Report ``event``; task-plan events are also appended to the run log, in order, off this thread."""
        self.kit.sink.emit(event)
        log = self.kit.run_log
        if log is not None:
            self._log.submit(log.emit, event)
        if isinstance(event, RECORDED_EVENTS) and self.plan is not None:
            self._record(event.status if isinstance(event, RunFinished) else RUNNING)

    def _record(self, status: str) -> None:
        """Write the run's record in its workspace, in order, off this thread (the first failure is kept)."""
        assert self.plan is not None
        record = run_record(self.run_id, status, self.plan, dict(self._summaries), self._files)
        self._last_record = self._log.submit(self._save_record, record)

    async def _record_written(self) -> None:
        """Wait until the last record written so far is on disk."""
        if self._last_record is not None:
            await asyncio.wrap_future(self._last_record)

    def _save_record(self, record: dict[str, Any]) -> None:
        problem = record_problem(self.kit.root, self.run_id, record)
        if problem and not self._record_problem:
            self._record_problem = problem
