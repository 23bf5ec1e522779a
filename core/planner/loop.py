"""The read-only planner's loop: read the source, then write a checked plan (PLN-1…12).

Each turn sends one user message — the request, the transcript (kept
under the prompt budget by eliding older tool results) and the
instructions again — to a plain chat client (each attempt announced by
``model_call_started``, its text not streamed), reads one action or a plan
from the reply, runs the action with :class:`ReadOnlyTools` and appends its
output under ``## Tool result``. A plan is checked with the patcher's
validator; failures go back to the model for at most
:data:`MAX_REPAIR_ROUNDS` repairs. Secret files are never read
(:mod:`ljtui.core.secret_files`), nor edited by a plan that passes its
check, and nothing the model writes into an action can crash the run.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Awaitable, Callable, Iterable

from ljtui.core.edits.plan_format import Declarations
from ljtui.core.events import (
    AGENT_PLANNER, Event, ModelCallRetried, ModelCallStarted, ToolCallFinished, ToolCallStarted, Usage, shown_output,
)
from ljtui.core.planner.aborts import AbortReason, abort_message
from ljtui.core.planner import prompts as P
from ljtui.core.planner.budget import DEFAULT_PROMPT_BUDGET_TOKENS, Entry
from ljtui.core.planner.check import PlanCheck, PlanChecker, check_plan
from ljtui.core.planner.events import (
    PlannerDeadlinePassed, PlannerFinished, PlannerPlanChecked, PlannerReplyRejected, PlannerTurnStarted,
)
from ljtui.core.planner.headings import CHECK_HEADING, NOTE_HEADING, REPLY_HEADING, TOOL_RESULT_HEADING
from ljtui.core.planner.protocol import (
    Reply, classify_reply, extract_plan, has_edit_blocks, run_action, safe_arguments, shown_name,
    summarize_args,
)
from ljtui.core.planner.tools import ReadOnlyTools
from ljtui.core.ports import EventSink
from ljtui.core.providers.base import ChatClient, ChatRequest, Message, ProviderError, TextDelta, UsageDelta
from ljtui.core.providers.retry import RetryPolicy, retry_call
from ljtui.core.secret_files import SecretFiles

DEFAULT_MAX_TURNS = 30
"""Model calls one planner run may make."""
FABRICATION_LIMIT = 3
"""Consecutive fabricated replies after which the run aborts."""
MAX_REPAIR_ROUNDS = 3
"""Times a failing plan goes back to the model before it is returned with its errors."""
DEFAULT_SOFT_DEADLINE = 120.0
"""Seconds after which a run starts no new repair round (EDIT-14)."""
DEFAULT_HARD_DEADLINE = 150.0
"""Seconds after which a run is stopped and reported as aborted (EDIT-14)."""
DEFAULT_MAX_TOKENS = 8192
"""Tokens the model may write in one reply."""
NO_RETRIES = RetryPolicy(max_retries=0, base_delay=0.0, max_delay=0.0)
"""The default: a reply that fails mid-stream fails the run."""
Sleep = Callable[[float], Awaitable[None]]



@dataclass(frozen=True)
class PlannerResult:
    """What a planner run produced.

    Attributes:
        plan: the plan's Markdown; empty when the run aborted.
        declarations: the plan's ``will_modify``/``will_add``/``will_remove``,
            when the plan parses.
        turns: model calls made.
        trace: one line per tool call.
        aborted: ``None``, ``"fabrication"``, ``"turn-limit"`` or ``"no-plan"``.
        errors: why the returned plan fails its check (empty when it passes).
        repair_rounds: times the plan went back to the model for repair.
        fence_repaired: a dangling final fence was closed.
        usage: tokens used by every model call together.
    """

    plan: str
    declarations: Declarations | None
    turns: int
    trace: tuple[str, ...]
    aborted: AbortReason | None
    errors: tuple[str, ...] = ()
    repair_rounds: int = 0
    fence_repaired: bool = False
    usage: Usage = Usage()

    @property
    def ok(self) -> bool:
        """True only for a plan that passed its check."""
        return self.aborted is None and not self.errors and bool(self.plan)

    @property
    def abort_message(self) -> str | None:
        """Why the run gave up, in a sentence; ``None`` when it did not."""
        return abort_message(self.aborted) if self.aborted else None


async def run_planner(
    client: ChatClient,
    source_root: str | os.PathLike[str],
    request: str,
    *,
    handbook_dir: str | os.PathLike[str] | None = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    prompt_vars: P.PlannerPromptVars = P.DEFAULT_PROMPT_VARS,
    sink: EventSink | None = None,
    checker: PlanChecker = check_plan,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    grep_engine: str = "auto",
    retry: RetryPolicy = NO_RETRIES,
    sleep: Sleep = asyncio.sleep,
    allow_secret_files: Iterable[str] = (),
    prompt_budget_tokens: int = DEFAULT_PROMPT_BUDGET_TOKENS,
    soft_deadline: float | None = DEFAULT_SOFT_DEADLINE,
    hard_deadline: float | None = DEFAULT_HARD_DEADLINE,
    monotonic: Callable[[], float] = time.monotonic,
) -> PlannerResult:
    """Plan ``request`` against the repository at ``source_root``, reading only.

    Args:
        client: any chat client; used as a plain text-in, text-out model.
        source_root: the repository the plan is for.
        request: the change wanted, in plain language.
        handbook_dir: a handbook mounted read-only at ``__handbook__/``.
        max_turns: model calls allowed (at least 1).
        prompt_vars: how the prompt names this codebase's paths and symbols.
        sink: receives :mod:`ljtui.core.planner.events` as the run goes, and
            :class:`~ljtui.core.events.ModelCallStarted` before each model call.
        checker: validates a plan text against the root, under the run's
            secret-file policy (the one its tools read with).
        max_tokens: tokens the model may write per reply.
        grep_engine: ``auto``, ``rg`` or ``re2``.
        retry: how a reply that fails mid-stream with a retryable error (an
            ``overloaded_error``) is asked for again; each retry is announced
            as a :class:`~ljtui.core.events.ModelCallRetried` event.
        sleep: waits between retries (inject a fake in tests).
        allow_secret_files: the user's ``security.allow_secret_files`` globs;
            every other secret file stays unreadable.
        prompt_budget_tokens: estimated tokens one prompt (system prompt
            included) may reach; older tool results are elided above it.
        soft_deadline: seconds after which no new repair round starts: the
            latest plan is reported as it stands (``None``: no limit).
        hard_deadline: seconds after which the run is stopped, even inside a
            model call, and reported as aborted (``deadline``).
        monotonic: the clock the soft deadline is read on (the hard one runs on the event loop's).

    Returns:
        The result; callers must treat any ``aborted`` or ``errors`` as failure.

    Raises:
        ValueError: ``max_turns`` below 1 or a source root that is not a directory.
        ProviderError: the model could not be reached.
    """
    if max_turns < 1:
        raise ValueError(f"max_turns must be at least 1, got {max_turns}")
    if not Path(source_root).is_dir():
        raise ValueError(f"source root {os.fspath(source_root)!r} is not a directory")
    tools = ReadOnlyTools(source_root, handbook_dir, grep_engine=grep_engine,
                          secrets=SecretFiles.allowing(allow_secret_files))
    run = _Run(client, tools, request, max_turns, sink, checker, max_tokens,
               P.build_planner_system_prompt(prompt_vars, handbook=handbook_dir is not None))
    run.retry, run.sleep, run.budget_tokens = retry, sleep, prompt_budget_tokens
    run.soft_deadline, run.monotonic, run.started = soft_deadline, monotonic, monotonic()
    try:
        async with asyncio.timeout(hard_deadline):
            result = await run.play()
    except TimeoutError:
        result = run._aborted("deadline")
    run.emit(PlannerFinished(result.turns, result.ok, result.aborted, result.errors, _finished_message(result)))
    return result


MAX_ERRORS_SHOWN = 5
"""Plan-check errors named in the message of a failed run."""


def _finished_message(result: PlannerResult) -> str:
    if result.ok:
        return f"Plan ready after {result.turns} turn(s)."
    if result.abort_message:
        return result.abort_message
    shown = "; ".join(result.errors[:MAX_ERRORS_SHOWN])
    return f"Planner failed: the plan still does not apply after repairs ({shown}). No plan was produced."


class _Run:
    """The state of one planner run."""

    def __init__(self, client: ChatClient, tools: ReadOnlyTools, request: str, max_turns: int,
                 sink: EventSink | None, checker: PlanChecker, max_tokens: int, system: str) -> None:
        self.client, self.tools, self.request = client, tools, request
        self.max_turns, self.sink, self.checker = max_turns, sink, checker
        self.max_tokens, self.system = max_tokens, system
        self.root = tools.mounts.source.root
        self.transcript: list[Entry] = []
        self.trace: list[str] = []
        self.usage = Usage()
        self.turn = 0
        self.fabricated_streak = 0
        self.repair_rounds = 0
        self.failing: tuple[str, PlanCheck, bool] | None = None
        """The latest plan that failed its check: text, verdict, fence repaired."""
        self.retry: RetryPolicy = NO_RETRIES
        self.sleep: Sleep = asyncio.sleep
        self.budget_tokens = DEFAULT_PROMPT_BUDGET_TOKENS
        self.soft_deadline: float | None = None
        self.monotonic: Callable[[], float] = time.monotonic
        self.started = 0.0

    def emit(self, event: Event) -> None:
        if self.sink is not None:
            self.sink.emit(event)

    async def play(self) -> PlannerResult:
        while self.turn < self.max_turns:
            self.turn += 1
            self.emit(PlannerTurnStarted(self.turn, self.max_turns))
            reply_text = await self._ask(P.build_turn_prompt(
                self.request, self.transcript, self.turn, self.max_turns,
                system_chars=len(self.system), budget_tokens=self.budget_tokens))
            done = await self._handle(reply_text, classify_reply(reply_text))
            if done is not None:
                return done
        return self._failing_result() or self._aborted("turn-limit")

    async def _ask(self, prompt: str) -> str:
        request = ChatRequest(system=self.system, messages=(Message.user(prompt),), max_tokens=self.max_tokens)

        async def attempt() -> tuple[str, Usage]:
            self.emit(ModelCallStarted(self.turn, self.client.provider, self.client.model))
            parts: list[str] = []
            usage = Usage()
            async for delta in self.client.stream(request):
                if isinstance(delta, TextDelta):
                    parts.append(delta.text)
                elif isinstance(delta, UsageDelta):
                    usage = usage + delta.usage
            return "".join(parts), usage

        def announce(retry: int, exc: ProviderError, delay: float) -> None:
            self.emit(ModelCallRetried(self.turn, retry, self.retry.max_retries, exc.kind, exc.message, delay))

        text, usage = await retry_call(attempt, self.retry, on_retry=announce, sleep=self.sleep)
        self.usage = self.usage + usage
        return _valid_text(text)

    async def _handle(self, text: str, reply: Reply) -> PlannerResult | None:
        if reply.kind == "fabricated":
            self.fabricated_streak += 1
            self._reject("fabrication", P.FABRICATION_NOTE, keep_reply=None)
            return self._aborted("fabrication") if self.fabricated_streak >= FABRICATION_LIMIT else None
        self.fabricated_streak = 0
        if reply.kind == "plan":
            return self._check(text)
        if reply.kind == "malformed":
            self._reject("malformed-action", P.MALFORMED_NOTE.format(error=reply.error), keep_reply=text)
            return None
        if reply.kind == "none":
            self._reject("no-action", P.NO_ACTION_NOTE, keep_reply=text)
            return None
        if reply.action.get("action") == "finish":
            return self._finish(text, reply)
        await self._tool(text, reply)
        return None

    def _reply_entry(self, text: str) -> Entry:
        return Entry(REPLY_HEADING.format(turn=self.turn), text, rank=1, what=f"your reply of turn {self.turn}",
                     how="what it led to follows")

    def _reject(self, reason: str, note: str, keep_reply: str | None) -> None:
        if keep_reply is not None:
            self.transcript.append(self._reply_entry(keep_reply))
        self.transcript.append(Entry(NOTE_HEADING, note))
        self.emit(PlannerReplyRejected(self.turn, reason, note))

    async def _tool(self, text: str, reply: Reply) -> None:
        action = reply.action
        name = shown_name(action)
        args = summarize_args(action)
        call_id = f"planner-{self.turn}"
        self.emit(ToolCallStarted(self.turn, call_id, name, safe_arguments(action), AGENT_PLANNER))
        result = await asyncio.to_thread(run_action, self.tools, action)
        self.trace.append(" ".join(filter(None, (f"turn {self.turn}:", name, args, "->", result.summary))))
        self.emit(ToolCallFinished(self.turn, call_id, name, result.ok, result.summary, AGENT_PLANNER,
                                   shown_output(result.content)))
        body = result.content if result.ok else f"{name} {args}\n{result.content}"
        if reply.extra_actions:
            body += "\n\n" + P.EXTRA_ACTIONS_NOTE.format(count=reply.extra_actions)
        self.transcript.append(self._reply_entry(text))
        self.transcript.append(Entry(TOOL_RESULT_HEADING, body, rank=0, what=f"{name} {result.summary}",
                                     how="call it again if you need it"))

    def _finish(self, text: str, reply: Reply) -> PlannerResult | None:
        plan = reply.action.get("plan")
        if isinstance(plan, str) and has_edit_blocks(plan):
            return self._check(plan)
        return self._failing_result() or self._aborted("no-plan")

    def _check(self, text: str) -> PlannerResult | None:
        plan, repaired = extract_plan(text)
        verdict = self.checker(plan, self.root, self.tools.secrets)
        self.emit(PlannerPlanChecked(self.turn, verdict.ok, verdict.errors, self.repair_rounds, repaired))
        if verdict.ok:
            return self._result(plan, verdict, repaired)
        self.failing = (plan, verdict, repaired)
        if self.repair_rounds >= MAX_REPAIR_ROUNDS or self._past_soft_deadline():
            return self._failing_result()
        self.repair_rounds += 1
        self.transcript.append(self._reply_entry(text))
        note = P.build_repair_note(verdict.feedback or "\n".join(verdict.errors), self.repair_rounds,
                                   MAX_REPAIR_ROUNDS)
        self.transcript.append(Entry(CHECK_HEADING, note, rank=1, what=f"the check of your plan of turn {self.turn}",
                                     how="your latest plan and its check come later"))
        return None

    def _past_soft_deadline(self) -> bool:
        """True (and said once) when the run is past its soft deadline: no new repair starts."""
        elapsed = self.monotonic() - self.started
        if self.soft_deadline is None or elapsed < self.soft_deadline:
            return False
        self.emit(PlannerDeadlinePassed(elapsed, self.soft_deadline,
                                        f"The planner passed its soft deadline ({self.soft_deadline:g} s, "
                                        "planner.soft_deadline): no more repairs; the plan is reported as it stands."))
        return True

    def _result(self, plan: str, verdict: PlanCheck, repaired: bool) -> PlannerResult:
        return PlannerResult(plan, verdict.declarations, self.turn, tuple(self.trace), None, verdict.errors,
                             self.repair_rounds, repaired, self.usage)

    def _failing_result(self) -> PlannerResult | None:
        return self._result(*self.failing) if self.failing is not None else None

    def _aborted(self, reason: AbortReason) -> PlannerResult:
        return PlannerResult("", None, self.turn, tuple(self.trace), reason, (), self.repair_rounds, False,
                             self.usage)


def _valid_text(text: str) -> str:
    """``text`` with unpaired surrogates (from a server's JSON escapes) replaced, so it can be sent on."""
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
