"""The engine façade: one object the UI and the CLI drive, composed of the session's services.

:class:`Engine` builds each service with its collaborators passed in, typed,
and hands the front ends one door: :meth:`Engine.handle_message` routes a
message to the conversation (:class:`~ljtui.core.agent.chat.Conversation`) or
to a task plan (:class:`~ljtui.core.tasks.facade.SessionTasks`); gates,
playbooks, the review and the sessions are reached from here too. No service
holds the engine; they talk through the ports they are given: the session's
sink (which redacts every configured API key), ``ask`` (the Approver port),
the clock, the settings in force and the tools' root.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping

from ljtui.core import engine_checks, engine_resume
from ljtui.core.agent.chat import CANCELLED, Conversation, TurnResult
from ljtui.core.agent.context import PromptContext
from ljtui.core.agent.kit import AgentKit
from ljtui.core.agent.model_calls import ClientFactory, ModelCalls, Sleep
from ljtui.core.session_state import SessionSettings, SessionSink, TurnCounter
from ljtui.core.agent.tool_root import ToolRoot
from ljtui.core.agent.tool_runner import ToolRunner
from ljtui.core.approval import ApprovalRequest, Approver, Decision, DenyAll
from ljtui.core.asking import ask_through
from ljtui.core.config import Config
from ljtui.core.events import AGENT_CHAT, ConfigChanged, Notice, Usage
from ljtui.core.engine_gates import GateOperations
from ljtui.core.engine_hooks import HookEvents, HookTap, vet_apply
from ljtui.core.hooks.service import SessionHooks
from ljtui.core.layer.session import SessionLayer
from ljtui.core.gates.facade import SessionGates
from ljtui.core.gitguard.guard import GitSettingsGuard
from ljtui.core.mcp.session import SessionMcp
from ljtui.core.playbooks.service import PlaybookService
from ljtui.core.ports import Clock, EventSink, SystemClock
from ljtui.core.providers.base import Message
from ljtui.core.tasks.facade import SessionTasks
from ljtui.core.tools import ToolContext, ToolRegistry, ToolServices, require

if TYPE_CHECKING:
    from ljtui.core.agent.session_list import SessionListing
    from ljtui.core.confine.session import CommandSandbox
    from ljtui.core.confine.status import SandboxStatus
    from ljtui.core.edits.service import EditService
    from ljtui.core.gates.service import GateService
    from ljtui.core.planner.loop import PlannerResult
    from ljtui.core.review.service import ReviewService
    from ljtui.core.tasks.runner import RunOutcome
    from ljtui.core.user_commands import CommandSet

__all__ = ["CANCELLED", "Engine", "TurnResult"]

GATE_FILES = ".agent/gates/"
"""Changes below this folder are gates edited by hand: the Gates pane is redrawn from the file."""


class Engine(GateOperations):
    """One session in one repository: its services, and the operations the front ends call.

    Raises:
        UnsafeRoot: ``repo_root`` is ``/``, a home folder, or holds or lies inside one of ljtui's own folders
            (:mod:`ljtui.core.session_root`); nothing was read or written there.
    """

    def __init__(self, config: Config, sink: EventSink, *, repo_root: Path, clock: Clock | None = None,
                 client_factory: ClientFactory | None = None, tools: ToolRegistry | None = None,
                 sleep: Sleep | None = None, approver: Approver | None = None) -> None:
        from ljtui.core.agent.session_notices import NoticeRecorder
        from ljtui.core.agent.session_services import session_sandbox, session_services
        from ljtui.core.agent.sessions import SessionLog
        from ljtui.core.mentions_send import UserContext
        from ljtui.core.providers import make_client
        from ljtui.core.runlog import RunLog
        from ljtui.core.session_root import check_root

        check_root(repo_root)  # before anything is read or written there: raises UnsafeRoot
        self.repo_root = repo_root
        self.clock = clock or SystemClock()
        self.approver: Approver = approver or DenyAll()
        self.settings = SessionSettings(config)
        tap = HookTap(NoticeRecorder(sink, lambda: self.session_log))  # notices kept in the session's log
        self.sink = SessionSink(tap, self.settings)
        """Every event of the session, redacted of the configured secrets."""
        self.session_log = SessionLog(repo_root, clock=self.clock,
                                      on_problem=lambda m: self.sink.emit(Notice(m, "warning")))
        """The session appended to ``.agent/sessions/`` as it happens (AGENT-7)."""
        self.run_log: RunLog | None = RunLog(repo_root, clock=self.clock)
        """Task-plan events appended to ``.agent/events.jsonl`` (TASK-12)."""
        self.turn_counter = TurnCounter()
        self._review: ReviewService | None = None
        self._edits: EditService | None = None
        session_id = lambda: self.session_log.id  # noqa: E731  (resuming replaces the log)
        self.playbooks = PlaybookService(repo_root, self.sink.emit, self.ask, self.clock, session_id=session_id)
        sandbox = session_sandbox(config, repo_root)
        self.git_guard = GitSettingsGuard(repo_root, self.ask, self.sink.emit)
        """Watches git's executable settings around every command, check and MCP call of the session."""
        self.hooks = SessionHooks(self.settings, repo_root, sandbox, self.sink.emit, session_id=session_id,
                                  transcript=lambda: self.session_log.path, git_guard=self.git_guard)
        """The user's hooks (and a trusted repository's), fired by the services on the session's events."""
        self.hook_events = tap.events = HookEvents(self.hooks, self.sink)
        self.layer_review = SessionLayer(sandbox.layer, lambda: self.review, self.sink,
                                         guard=lambda: self.session_gates.layer_blocker(), ask=self.ask)
        """The layer's net change under review at the end of each turn (held back while a gate's run waits), and
        what the model is told of it."""
        self.session_gates = SessionGates(
            repo_root, self.sink, self.ask, self.clock, sandbox=sandbox, settings=self.settings,
            run_log=self.run_log, playbooks=self.playbooks, review=lambda: self.review, verify=self._verify,
            git_guard=self.git_guard, open_layer=lambda: self.layer_review.open(delivering=True))
        self.services: ToolServices = session_services(
            config, repo_root, self.clock, self.ask, self.sink.emit, sandbox=sandbox, playbooks=self.playbooks,
            gates=self.session_gates, session_id=session_id, git_guard=self.git_guard,
            commit=self.layer_review.commit)
        """What tools reach through their context (permissions, writer, reader …)."""
        self.tools = tools if tools is not None else _agent_tools()
        self.mcp = SessionMcp(self.settings, repo_root, sandbox, self.sink.emit, git_guard=self.git_guard)
        """The session's MCP servers; :meth:`start_mcp` starts them and adds their tools."""
        self.model = ModelCalls(self.settings, self.sink, client_factory=client_factory or make_client,
                                sleep=sleep or asyncio.sleep, log=lambda: self.session_log,
                                permissions=self.services.permissions)
        self.context = PromptContext(repo_root, self.settings, self.sink, outline=self.services.outline,
                                     memory=self.services.memory, after_build=self.session_gates.restore,
                                     layered=lambda: sandbox.layered)
        root = ToolRoot(repo_root, self.services, settings=self.settings, clock=self.clock,
                        staging=self.session_gates.staging_root, layer=sandbox.layer)
        self.tool_runner = ToolRunner(self.settings, self.sink, self.tools, root, self.hooks)
        self.kit = AgentKit(repo_root, self.settings, self.sink, self.turn_counter, self.model, self.tool_runner,
                            self.context, self.session_gates.tail, self.ask, self.services.permissions,
                            self.run_log, self.hooks)
        self.chat = Conversation(self.kit, log=lambda: self.session_log, writer=self.services.writer)
        self.tasks = SessionTasks(self.kit, chat=self.chat, playbooks=self.playbooks)
        self.user_context = UserContext(repo_root, self.settings, self.sink)
        """``@`` mentions and the user's ``!`` commands (:mod:`ljtui.core.mentions_send`)."""
        from ljtui.core.rewind import SessionRewind

        self.rewinds = SessionRewind(repo_root, self.sink, self.ask, self.clock, self.chat, lambda: self.session_log)
        """Rewind of the code and the conversation to an earlier message (``/rewind``, Esc Esc)."""

    # --- state the front ends read ------------------------------------------------------------

    @property
    def config(self) -> Config:
        """The configuration in force."""
        return self.settings.config

    @property
    def history(self) -> list[Message]:
        """The conversation's messages."""
        return self.chat.history

    @history.setter
    def history(self, messages: list[Message]) -> None:
        self.chat.history = messages

    @property
    def summary(self) -> str:
        """The running summary of the messages compression removed."""
        return self.chat.summary

    @property
    def turns(self) -> int:
        """How many turns the session has had."""
        return self.turn_counter.value

    @property
    def session_usage(self) -> Usage:
        return self.model.usage

    @property
    def session_cost_usd(self) -> float | None:
        return self.model.cost_usd

    @property
    def provider_label(self) -> str:
        """``provider/model`` for the status bar."""
        from ljtui.core.providers import provider_label

        return provider_label(self.config.provider)

    @property
    def sandbox(self) -> CommandSandbox:
        """The sandbox every command of this session runs in."""
        return require(self.services.sandbox, "sandbox")

    @property
    def gates(self) -> GateService:
        """The repository's gates and the run in progress (built on first use)."""
        return self.session_gates.gates

    @property
    def review(self) -> ReviewService:
        """The plan under review and every operation on it (built on first use)."""
        if self._review is None:
            from ljtui.core.review.service import ReviewService
            from ljtui.core.secret_files import SecretFiles

            self._review = ReviewService(self.repo_root, self.sink, self.ask, self.clock,
                                         SecretFiles.allowing(self.config.security.allow_secret_files),
                                         vet=lambda blocks: vet_apply(self.hooks, blocks))
        return self._review

    @property
    def edits(self) -> EditService:
        """Plan files and the journal, for headless commands (built on first use)."""
        if self._edits is None:
            from ljtui.core.edits.service import EditService

            self._edits = EditService(self.repo_root, self.sink, self.ask, self.clock)
        return self._edits

    # --- configuration ------------------------------------------------------------------------

    def set_model(self, model: str) -> None:
        """Use ``model`` from the next model call on (``/model NAME``)."""
        self.reconfigure(dataclasses.replace(self.config, provider=dataclasses.replace(self.config.provider,
                                                                                     model=model)))

    def reconfigure(self, config: Config) -> None:
        """Use ``config`` from the next model call on (e.g. once the repository is trusted)."""
        self.settings.use(config)
        self.model.forget_client()
        self.sink.emit(ConfigChanged(self.provider_label))

    def allow_headless(self, tools: frozenset[str]) -> None:
        """Let ``tools`` act without asking in this headless run (``--allow``); dangerous commands still ask."""
        require(self.services.permissions, "permissions").policy.headless = tools

    def check_sandbox(self) -> SandboxStatus:
        """Find the sandbox (a self-test: call from a thread) and report it as a ``SandboxChecked`` event."""
        return engine_checks.check_sandbox(self.sandbox, self.repo_root, self.settings, self.sink)

    async def trust_repository(self, enables: list[str], env: Mapping[str, str],
                               reload: Callable[[], Config]) -> bool:
        """Ask whether to trust this repository, whose own settings would do ``enables``; a yes reads the
        configuration again (``reload``) and uses it from the next model call on (:mod:`ljtui.core.engine_checks`)."""
        return await engine_checks.trust_repository(self, enables, env, reload)

    def edit_externally(self, text: str, name: str = "") -> tuple[str | None, str]:
        """Run the user's editor (``$VISUAL``/``$EDITOR``) on ``text``, a passage of the file ``name``; what it
        saved, or ``None`` and why not (:mod:`ljtui.core.external_editor`). The caller hands over the terminal."""
        from ljtui.core.external_editor import edit_text

        return edit_text(text, name)

    async def ask(self, request: ApprovalRequest) -> Decision:
        """Ask a human through the Approver port (the ``Notification`` hooks fire beside it); an answer the request
        does not offer counts as its safe one."""
        self.hook_events.notify(request)
        return await ask_through(self.approver, self.sink, request)

    # --- messages, plans and the conversation --------------------------------------------------

    async def handle_message(self, text: str) -> TurnResult | RunOutcome | None:
        """A plain message: routed, then run as a chat turn or a task plan (:class:`SessionTasks`); the layer's net
        change is then put under review."""
        try:
            told = await self.hook_events.prompt(self._told(text))
            if told is None:
                return None
            told, images = await self.user_context.prepared(told, self.chat)
            return await (self.chat.run_turn(told) if images else self.tasks.handle_message(told))
        finally:
            await self.review_layer(quiet=True)

    async def run_turn(self, text: str) -> TurnResult | None:
        """Run one user message to the end of the model's turn; ``None`` when it failed (``TurnFailed`` says
        why); the layer's net change is then put under review."""
        try:
            told = await self.hook_events.prompt(self._told(text))
            return await self.chat.run_turn((await self.user_context.prepared(told, self.chat))[0]) \
                if told is not None else None
        finally:
            await self.review_layer(quiet=True)

    def _told(self, text: str) -> str:
        """``text`` after what the model must hear first: what the user applied and rejected of the layer."""
        return self.rewinds.told(self.layer_review.told(text))

    async def review_layer(self, *, quiet: bool = False) -> bool:
        """Put the layer's net change under review (F4, ``/diff``, and the end of each turn, ``quiet``)."""
        return await self.layer_review.open(quiet=quiet)

    async def take_layer_binary(self) -> bool:
        """Write the layer's binary files into the user's files, asking first (``/diff binary``)."""
        return await self.layer_review.take_binary(self.ask)

    async def run_plan(self, goal: str, *, skill: str | None = None) -> RunOutcome:
        """Run ``goal`` as a task plan (or skill ``skill``'s steps), approved before anything runs."""
        return await self.tasks.run_plan(goal, skill=skill)

    def skill_names(self) -> tuple[str, ...]:
        """The skills ``/NAME`` can start (disk work: call from a thread)."""
        return self.tasks.skill_names()

    def user_commands(self, reserved: frozenset[str]) -> CommandSet:
        """The user's own slash commands, none taking a name in ``reserved`` (disk work: call from a thread)."""
        from ljtui.core.user_commands import load_commands

        return load_commands(self.repo_root, reserved=reserved)

    async def compact(self) -> bool:
        """Summarise the older messages now (``/compact``); False when there is nothing to summarise."""
        return await self.chat.compact()

    def clear(self) -> None:
        """Forget the conversation (the session's token totals stay)."""
        self.chat.clear()

    async def clear_asked(self) -> bool:
        """Ask, then forget the conversation; False when the user kept it (or it was empty)."""
        return await self.chat.clear_asked()

    async def prepare_context(self) -> str:
        """Build the session's system prompt once (AGENT-4)."""
        return await self.context.prepare()

    def memory_view(self) -> list[str]:
        """What ``/memory`` shows (disk work: call from a thread)."""
        return self.context.memory_view()

    def tool_context(self, turn: int, call_id: str, agent: str = AGENT_CHAT) -> ToolContext:
        """What a tool call of ``agent`` in ``turn`` can reach."""
        return self.tool_runner.context(turn, call_id, agent)

    async def plan(self, request: str, *, handbook_dir: Path | None = None,
                   max_turns: int | None = None) -> PlannerResult | None:
        """Run the read-only planner on ``request`` in this repository (:func:`planner_turn`): ``None`` when the
        model could not be reached; callers treat a result's ``aborted`` or ``errors`` as failure."""
        from ljtui.core.planner.turn import planner_turn

        return await planner_turn(request, self.repo_root, settings=self.settings, sink=self.sink,
                                  turns=self.turn_counter, model=self.model, monotonic=self.clock.monotonic,
                                  handbook_dir=handbook_dir, max_turns=max_turns)

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

    # --- sessions and files on disk -------------------------------------------------------------

    def resume(self, session_id: str = "") -> bool:
        """Continue an earlier session: its history, summary, token totals and plan under review; ``""`` resumes
        the newest other one (disk work: call from a thread; :func:`ljtui.core.engine_resume.resume`)."""
        return engine_resume.resume(self, session_id)

    def sessions(self) -> SessionListing:
        """The repository's saved sessions, newest first (disk work: call from a thread)."""
        from ljtui.core.agent.sessions import list_sessions

        return list_sessions(self.repo_root)

    async def watch(self, stop: asyncio.Event) -> None:
        """Re-check the plan under review, redraw a gate and read the skills again when edited by hand, whenever
        files change on disk, until ``stop`` is set (:mod:`ljtui.core.session_watch`)."""
        from ljtui.core.session_watch import watch_session

        await watch_session(self.repo_root, self.sink.emit, refresh_review=lambda keys: self.review.refresh(keys),
                            publish_gates=self.session_gates.publish, gate_files=GATE_FILES, stop=stop)

    async def start_mcp(self) -> None:
        """Start the session's MCP servers and add their tools (once; a front end calls it as the session starts)."""
        await self.mcp.start(self.tools)

    async def start_hooks(self, source: str = "startup") -> None:
        """Fire the ``SessionStart`` hooks once (``source``: ``startup``, or ``resume`` after a resume): a front end
        calls it once trust is settled and a session resumed; ``SessionEnd`` fires at :meth:`aclose` after it."""
        if not self.hook_events.started:
            await self.hook_events.session_start(source)

    async def aclose(self) -> None:
        """Fire ``SessionEnd``; stop the MCP servers; close the session log, the sandbox's temp dir and the provider's
        connections."""
        await self.hook_events.session_end("exit")
        await self.mcp.stop()
        await asyncio.to_thread(self.tool_runner.root.close)
        await asyncio.to_thread(self.session_log.close)
        await asyncio.to_thread(self.sandbox.close)
        await self.model.aclose()


def _agent_tools() -> ToolRegistry:
    from ljtui.core.agent.tools import agent_tools

    return agent_tools()
