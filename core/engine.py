"""The engine façade: one object the UI and the CLI drive.

:meth:`Engine.run_turn` sends the user's message, streams the reply as
events, executes the tool calls the model asks for, and loops until the
model ends its turn (AGENT-1). Failures become a :class:`TurnFailed` event;
the conversation before the failed turn is kept so the user can retry.

An error that arrives in the middle of a reply and is worth retrying (the
provider marks it ``retryable``, e.g. ``overloaded_error`` mid-stream) is
retried here with backoff, announced by :class:`ModelCallRetried` so the UI
drops the partial reply. Retries the SDK makes before the reply starts
(429, 529, 5xx) arrive as ``RetryScheduled`` deltas and are announced the
same way. Every event passes through a redacting sink, so a
configured API key never reaches the UI, logs or JSON output.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Awaitable, Callable, Mapping

from ljtui.core.agent.chat import ChatLoop, _TurnTally
from ljtui.core.agent.context import SessionContext
from ljtui.core.agent.session_replay import transcript
from ljtui.core.gates.facade import GateFacade
from ljtui.core.playbooks.access import PlaybookAccess
from ljtui.core.tasks.facade import TaskFacade
from ljtui.core.approval import ApprovalRequest, Approver, Decision, DenyAll
from ljtui.core.config import Config, ProviderConfig
from ljtui.core.events import (
    AGENT_CHAT, ApprovalDecided, ApprovalRequested, ConfigChanged, ConversationCleared, Notice, ToolCallFinished,
    SessionResumed, ToolCallStarted, shown_output, TurnFailed, TurnStarted, Usage,
)
from ljtui.core.ports import Clock, EventSink, SystemClock
from ljtui.core.providers import make_client, provider_label
from ljtui.core.providers.base import (
    ChatClient, Message, ProviderError, ToolCall, ToolResultBlock,
)
from ljtui.core.providers.retry import RetryPolicy
from ljtui.core.secrets import RedactingSink, known_secrets, redact_message
from ljtui.core.tools import ToolContext, ToolRegistry, ToolServices, require

if TYPE_CHECKING:
    from ljtui.core.agent.session_list import SessionListing
    from ljtui.core.confine.session import CommandSandbox
    from ljtui.core.confine.status import SandboxStatus
    from ljtui.core.planner.loop import PlannerResult
    from ljtui.core.edits.service import EditService
    from ljtui.core.review.service import ReviewService

ClientFactory = Callable[[ProviderConfig], ChatClient]
Sleep = Callable[[float], Awaitable[None]]

RETRY_HINT = "Your conversation is intact: send the message again to retry."
"""Appended to every failed model call's message."""

CANCELLED = ("Cancelled: the running command was stopped and the message forgotten. Files the agent already "
             "wrote stay written; /undo reverts them.")
"""What the user reads when they cancel a running turn."""

GATE_FILES = ".agent/gates/"
"""Changes below this folder are gates edited by hand: the Gates pane is redrawn from the file."""

NO_RETRY_HINT_KINDS = frozenset({"config", "script"})
"""Failure kinds whose message already says what to do instead of retrying."""


@dataclass(frozen=True)
class TurnResult:
    """The outcome of a finished turn."""

    text: str
    stop_reason: str
    usage: Usage
    cost_usd: float | None = None


class Engine(ChatLoop, SessionContext, TaskFacade, GateFacade, PlaybookAccess):
    """Holds one session's conversation and runs its turns."""

    def __init__(
        self,
        config: Config,
        sink: EventSink,
        *,
        repo_root: Path,
        clock: Clock | None = None,
        client_factory: ClientFactory | None = None,
        tools: ToolRegistry | None = None,
        sleep: Sleep | None = None,
        approver: Approver | None = None,
    ) -> None:
        self.config = config
        self._secrets = known_secrets(config.provider)
        self.sink: EventSink = RedactingSink(sink, self._secrets) if self._secrets else sink
        self.repo_root = repo_root
        self.clock = clock or SystemClock()
        self.tools = tools if tools is not None else _agent_tools()
        self.history: list[Message] = []
        self.session_usage = Usage()
        self.session_cost_usd: float | None = None
        self.turns = 0
        self._sleep = sleep or asyncio.sleep
        self._client_factory = client_factory or make_client
        self._client: ChatClient | None = None
        self._system_prompt: str | None = None
        self.approver: Approver = approver or DenyAll()
        self._review: ReviewService | None = None
        from ljtui.core.agent.sessions import SessionLog

        self.session_log = SessionLog(repo_root, clock=self.clock,
                                      on_problem=lambda m: self.sink.emit(Notice(m, "warning")))
        """The session appended to ``.agent/sessions/`` as it happens (AGENT-7)."""
        from ljtui.core.runlog import RunLog

        self.run_log: RunLog | None = RunLog(repo_root, clock=self.clock)
        """Task-plan events appended to ``.agent/events.jsonl`` (TASK-12)."""
        self._edits: EditService | None = None
        from ljtui.core.agent.session_services import session_services

        self.services: ToolServices = session_services(  # the playbook service is built first, for its tools
            config, repo_root, self.clock, self.ask, lambda event: self.sink.emit(event), playbooks=self.playbooks,
            gates=self, session_id=lambda: self.session_log.id)
        """What tools reach through their context (permissions, writer, reader …)."""

    def set_model(self, model: str) -> None:
        """Use ``model`` from the next model call on (``/model NAME``)."""
        import dataclasses

        self.reconfigure(dataclasses.replace(self.config, provider=dataclasses.replace(self.config.provider,
                                                                                     model=model)))

    @property
    def sandbox(self) -> CommandSandbox:
        """The sandbox every command of this session runs in."""
        return require(self.services.sandbox, "sandbox")

    def check_sandbox(self) -> SandboxStatus:
        """Find the sandbox (a self-test: call from a thread) and report it as a ``SandboxChecked`` event."""
        from ljtui.core.events import SandboxChecked

        sandbox = self.sandbox
        status = sandbox.status
        allows = sandbox.rules(self.repo_root).describe() if status.confined else "everything you may do"
        self.sink.emit(SandboxChecked(status.backend, status.confined, status.why, allows))
        return status

    def allow_headless(self, tools: frozenset[str]) -> None:
        """Let ``tools`` act without asking in this headless run (``--allow``); dangerous commands still ask."""
        require(self.services.permissions, "permissions").policy.headless = tools

    @property
    def review(self) -> ReviewService:
        """The plan under review and every operation on it (built on first use)."""
        if self._review is None:
            from ljtui.core.review.service import ReviewService

            from ljtui.core.secret_files import SecretFiles

            self._review = ReviewService(self.repo_root, self.sink, self.ask, self.clock,
                                         SecretFiles.allowing(self.config.security.allow_secret_files))
        return self._review

    @property
    def edits(self) -> EditService:
        """Plan files and the journal, for headless commands (built on first use)."""
        if self._edits is None:
            from ljtui.core.edits.service import EditService

            self._edits = EditService(self.repo_root, self.sink, self.ask, self.clock)
        return self._edits

    def reconfigure(self, config: Config) -> None:
        """Use ``config`` from the next model call on (e.g. once the repository is trusted)."""
        self.config = config
        self._secrets = known_secrets(config.provider)
        inner = self.sink.inner if isinstance(self.sink, RedactingSink) else self.sink
        self.sink = RedactingSink(inner, self._secrets) if self._secrets else inner
        self._client = None
        self.sink.emit(ConfigChanged(self.provider_label))

    async def trust_repository(self, enables: list[str], env: Mapping[str, str],
                               reload: Callable[[], Config]) -> bool:
        """Ask whether to trust this repository, whose own settings would do ``enables`` (and what changed since
        the user last trusted it). A yes records the settings as asked about, and the configuration is read again
        (``reload``) and used from the next model call on; settings that cannot be recorded are not asked about.
        """
        from ljtui.core.trust import TrustStore, trust_request, unbound_notice

        store = TrustStore.for_env(env)
        check = await asyncio.to_thread(store.check, self.repo_root)
        if check.seen.problems:
            self.sink.emit(Notice(unbound_notice(check.seen.problems), "warning"))
            return False
        decision = await self.ask(trust_request(self.repo_root, enables, check.changes))
        if decision.choice != "yes":
            self.sink.emit(Notice("Not trusted: this repository's own settings stay ignored "
                                  "(`ljtui trust` asks again).", "warning"))
            return False
        await asyncio.to_thread(lambda: store.trust(self.repo_root, self.clock.now(), check.seen))
        self.reconfigure(await asyncio.to_thread(reload))
        self.sink.emit(Notice(f"Trusted {self.repo_root.name}: its own settings are in use."))
        return True

    async def watch(self, stop: asyncio.Event) -> None:
        """Re-check the plan under review (and redraw a gate edited by hand) whenever files change on disk, until
        ``stop`` is set."""
        from ljtui.core.watch import WatchStopped, watch_repo

        try:
            async for keys in watch_repo(self.repo_root, stop):
                await asyncio.to_thread(self.review.refresh, keys)
                if self._gates is not None and any(k.startswith(GATE_FILES) for k in keys):
                    await asyncio.to_thread(self._gates.publish)  # a gate edited by hand shows as it now reads
        except WatchStopped as exc:
            self.sink.emit(Notice(f"Changes on disk are not noticed ({exc}); a plan under review is "
                                  "checked again when it is applied.", "warning"))

    async def ask(self, request: ApprovalRequest) -> Decision:
        """Ask a human through the Approver port; an answer the request does not offer counts as its safe one."""
        self.sink.emit(ApprovalRequested(request.kind, request.title, request.subject))
        decision = await self.approver.decide(request)
        if request.choice(decision.choice) is None:
            decision = Decision(request.safe)
        self.sink.emit(ApprovalDecided(request.kind, decision.choice, request.subject))
        return decision

    @property
    def provider_label(self) -> str:
        """``provider/model`` for the status bar."""
        return provider_label(self.config.provider)

    def clear(self) -> None:
        """Forget the conversation (the session's token totals stay)."""
        self.history.clear()
        self.summary = ""
        self.session_log.cleared()
        self.sink.emit(ConversationCleared())

    async def run_turn(self, text: str) -> TurnResult | None:
        """Run one user message to the end of the model's turn.

        Returns:
            The result, or ``None`` when the turn failed (a ``TurnFailed``
            event says why).
        """
        self.turns += 1
        turn = self.turns
        self.sink.emit(TurnStarted(turn, text))
        writer = self.services.writer
        if writer is not None:
            writer.new_message()
        saved = len(self.history)
        self.history.append(redact_message(Message.user(text), self._secrets))
        self.session_log.message(self.history[-1])
        try:
            return await self._loop(turn)
        except ProviderError as exc:
            del self.history[saved:]
            self.session_log.rewound(len(self.history))
            self._turn_failed(turn, exc)
            return None
        except asyncio.CancelledError:
            del self.history[saved:]
            self.session_log.rewound(len(self.history))
            self.sink.emit(TurnFailed(turn, "cancelled", CANCELLED))
            raise

    def _turn_failed(self, turn: int, exc: ProviderError) -> None:
        """Report a failed model call: what failed and, when it helps, that a retry is possible."""
        message = exc.message if exc.kind in NO_RETRY_HINT_KINDS else f"{exc.message}. {RETRY_HINT}"
        self.sink.emit(TurnFailed(turn, exc.kind, message, exc.status))

    async def plan(self, request: str, *, handbook_dir: Path | None = None,
                   max_turns: int | None = None) -> PlannerResult | None:
        """Run the read-only planner on ``request`` in this repository.

        Progress arrives as planner events on the sink. Returns the result
        (callers must treat any ``aborted`` or ``errors`` as failure), or
        ``None`` when the model could not be reached (a ``TurnFailed``
        event says why).
        """
        from ljtui.core.planner.loop import DEFAULT_MAX_TURNS, run_planner

        self.turns += 1
        turn = self.turns
        self.sink.emit(TurnStarted(turn, request))
        try:
            client = self._get_client()
            result = await run_planner(
                client, self.repo_root, request, handbook_dir=handbook_dir, sink=self.sink,
                max_turns=max_turns or DEFAULT_MAX_TURNS, max_tokens=self.config.provider.max_tokens,
                retry=RetryPolicy.from_config(self.config.provider), sleep=self._sleep,
                allow_secret_files=self.config.security.allow_secret_files,
                prompt_budget_tokens=self.config.planner.prompt_budget_tokens,
                soft_deadline=self.config.planner.soft_deadline, hard_deadline=self.config.planner.hard_deadline,
                monotonic=self.clock.monotonic,
            )
        except ValueError as exc:
            self.sink.emit(TurnFailed(turn, "config", str(exc), None))
            return None
        except ProviderError as exc:
            self._turn_failed(turn, exc)
            return None
        self._record_usage(turn, client, result.usage, _TurnTally())
        return result

    async def plan_and_review(self, request: str) -> bool:
        """Run the read-only planner; a plan that passes its check opens for review.

        Returns:
            Whether a plan is now under review.
        """
        result = await self.plan(request)
        if result is None or not result.ok:
            return False
        opened = await asyncio.to_thread(self.review.open_text, result.plan, "planner")
        if opened:
            self.session_log.plan(result.plan, "planner")
        return opened

    def resume(self, session_id: str = "") -> bool:
        """Continue an earlier session: its history, summary, token totals and plan under review.

        Disk work: call from a thread. ``""`` resumes the newest session that
        may be resumed, other than this one. A session another user or a
        cloned repository left is refused unless the repository is trusted.
        """
        from ljtui.core.agent.sessions import SessionRefused, list_sessions, resume_session

        if not session_id:
            listing = list_sessions(self.repo_root)
            newest = next((s.id for s in listing.sessions if s.resumable and s.id != self.session_log.id), None)
            if newest is None:
                self.sink.emit(Notice(listing.problem or "There is no earlier session to resume here.", "error"))
                return False
            session_id = newest
        if session_id == self.session_log.id:
            self.sink.emit(Notice(f"Session {session_id} is the one running.", "warning"))
            return False
        outcome = resume_session(self.repo_root, session_id, clock=self.clock)
        if isinstance(outcome, SessionRefused):
            self.sink.emit(Notice(outcome.message, "error"))
            return False
        self.session_log.close()
        self.session_log, state = outcome.log, outcome.session
        self.history = list(state.history)
        self.summary = state.summary or ""
        self.session_usage, self.session_cost_usd = state.usage, state.cost_usd
        if state.plan is not None:
            self.review.open_text(state.plan.text, state.plan.origin)
        self.sink.emit(SessionResumed(session_id, len(self.history), self.session_usage,
                                      transcript(self.history), self.summary))
        return True

    def sessions(self) -> SessionListing:
        """The repository's saved sessions, newest first (disk work: call from a thread)."""
        from ljtui.core.agent.sessions import list_sessions

        return list_sessions(self.repo_root)

    def tool_context(self, turn: int, call_id: str, agent: str = AGENT_CHAT) -> ToolContext:
        """What a tool call of ``agent`` in ``turn`` can reach."""
        root, services = self.tool_root()
        return ToolContext(root, turn, call_id, agent, self.sink.emit, self.config, services)

    async def _run_tool(self, turn: int, call: ToolCall, tools: ToolRegistry | None = None,
                        agent: str = AGENT_CHAT) -> ToolResultBlock:
        """Run one tool call of ``agent`` (from ``tools``, default the session's), reported as events."""
        self.sink.emit(ToolCallStarted(turn, call.id, call.name, dict(call.input), agent))
        outcome = await (tools or self.tools).call(call.name, call.input, self.tool_context(turn, call.id, agent))
        self.sink.emit(ToolCallFinished(turn, call.id, call.name, outcome.ok, outcome.summary, agent,
                                        shown_output(outcome.content)))
        return ToolResultBlock(call.id, outcome.content, is_error=not outcome.ok)

    def _get_client(self) -> ChatClient:
        if self._client is None:
            self._client = self._client_factory(self.config.provider)
        return self._client

    async def aclose(self) -> None:
        """Close the session log, the sandbox's temp dir and the provider's connections."""
        await asyncio.to_thread(self.session_log.close)
        await asyncio.to_thread(self.sandbox.close)
        if self._client is not None:
            await self._client.aclose()


def _agent_tools() -> ToolRegistry:
    from ljtui.core.agent.tools import agent_tools

    return agent_tools()
