"""The ljtui application: wires config, themes, the engine and the screen."""

from __future__ import annotations

import asyncio
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from textual import events, on
from textual.app import App, SystemCommand
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.theme import Theme

from ljtui.core.clock import Clock, SystemClock
from ljtui.core.costs import CostLedger
from ljtui.core.startup import environment, prepare
from ljtui.tui.actions import APP
from ljtui.tui.approver import DialogApprover
from ljtui.tui.bridge import Bridge
from ljtui.tui.collector import StartupCollector
from ljtui.tui.commands import ACTIONS
from ljtui.tui.engine_holder import EngineHolder, recover_journal
from ljtui.tui.messages import EngineEventPosted
from ljtui.tui.screens.main import MainScreen, StartupInfo
from ljtui.tui.prompt_send import CHAT, EDIT, MESSAGE, PLAN, send_prompt
from ljtui.tui.stylesheet import IncrementalStylesheet
from ljtui.tui.notify import Attention
from ljtui.tui.themes import domain_variable_defaults, remember_theme, start_theme, themes_from
from ljtui.tui.user_commands import refresh as read_user_commands, shown as user_commands
from ljtui.tui.widgets.prompt_input import PromptInput

if TYPE_CHECKING:
    from ljtui.core.review.requests import ReviewRequest
    from ljtui.core.engine import ClientFactory, Engine


PLAN_APPROVAL_ACTIONS = frozenset({"plan.approve", "plan.approve_writes", "plan.reject", "plan.next", "plan.prev",
                                   "plan.edit", "plan.add", "plan.delete", "plan.move_down", "plan.move_up"})
"""The Plan pane's keys that only mean something while a proposed plan waits (``h`` always works)."""

NO_MODEL_LABEL = "no model"
"""The status bar's provider when none is configured."""


class LjtuiApp(App[int]):
    """The full-screen coding agent."""

    CSS_PATH = "screens/main.tcss"
    TITLE = "ljtui"
    BINDINGS = ACTIONS.bindings(APP)

    def __init__(
        self,
        repo_root: Path | None = None,
        *,
        overrides: Mapping[str, Any] | None = None,
        clock: Clock | None = None,
        env: Mapping[str, str] | None = None,
        client_factory: ClientFactory | None = None,
        cursor_blink: bool = True,
        watch: bool = True,
        review: ReviewRequest | None = None,
        recover: bool = False,
        resume: str | None = None,
    ) -> None:
        """
        Args:
            repo_root: the repository (default: the current directory); one ljtui does not work in raises.
            overrides: config keys from command-line flags.
            clock: time source (inject a fixed clock in tests).
            env: environment variables (default: ``os.environ``, with the provider keys ljtui withdrew from it).
            client_factory: builds the model client (default: from the config).
            cursor_blink: blink the input cursor (off for snapshots).
            watch: watch the repository for changes to files under review.
            review: a change to open for review at start (a file, standard input's text, a git range).
            recover: finish an apply a crash interrupted, after the first frame (reported as a notice).
            resume: a saved session to continue after the first frame (``""``: the newest).
        """
        self.repo_root = (repo_root or Path.cwd()).resolve()
        self.clock = clock or SystemClock()
        self._env = dict(environment(env))
        self._overrides = dict(overrides or {})
        self.startup = prepare(self.repo_root, self._env, self._overrides)
        self.config = self.startup.config
        self.startup_warnings = list(self.startup.warnings)
        self.theme_set = themes_from(self.startup.themes)
        self._initial_theme = start_theme(self.theme_set, self.config.ui.theme, self._overrides, self._env)
        self.startup_warnings += self.theme_set.warnings
        super().__init__()
        self.stylesheet = IncrementalStylesheet(variables=self.get_css_variables())
        self.bridge = Bridge(self)
        self._screen_ready = asyncio.Event()
        self.started = False
        """Whether the start-up work began: the engine is built and its first workers run."""
        self.prompt_held = False
        """Enter was pressed before the engine was built: the input's text is sent once it is."""
        self.attention = Attention(self, self.config.ui.notify, self._env)  # "waiting for you", notifications
        self.approver = DialogApprover(self, self._screen_ready, attention=self.attention)
        self.costs = CostLedger(self.clock.monotonic)  # what /cost lists
        self._collector = StartupCollector()
        self._css_refreshed: tuple[int, str] | None = None
        """The CSS update count and theme of the last CSS refresh."""
        self._watch = watch
        self._review = review
        self._recover = recover
        self._resume = resume
        self.cursor_blink = cursor_blink
        self._client_factory = client_factory
        self.engines = EngineHolder(lambda: self._new_engine())
        """The session's engine, built in a thread after the first frame."""
        self._calls: dict[str, str] = {}
        self.skill_names: tuple[str, ...] = ()
        """Skills ``/NAME`` starts as a task plan (read after the first frame)."""
        for theme in self.theme_set.themes.values():
            self.register_theme(theme)
        self.theme = self._initial_theme
        self._apply_keymap(self.config.ui.keymap)

    def get_default_screen(self) -> MainScreen:
        """The main screen, as the default screen rather than a mode: a mode's screen is composed inside
        the app's start-up batch, whose frames Textual drops, so the first frame sent held only what changed
        since, and the borders, input and status bar came a refresh tick (about 17 ms) later."""
        return MainScreen()

    def _apply_keymap(self, keymap: dict[str, str]) -> None:
        """The user's key overrides (``ui.keymap``: action id → keys); unknown ids are reported."""
        unknown = sorted(k for k in keymap if ACTIONS.get(k) is None)
        if unknown:
            self.startup_warnings.append(f"ui.keymap: unknown action id(s) {', '.join(unknown)}; ignored. "
                                         "F1 lists the actions.")
        self.set_keymap({k: v for k, v in keymap.items() if k not in unknown})

    def get_theme(self, theme_name: str) -> Theme | None:
        """A theme by name: a direct lookup first (Textual copies its theme table on every
        call, and renders ask for the current theme once per line)."""
        return self._registered_themes.get(theme_name) or super().get_theme(theme_name)

    def refresh_css(self, animate: bool = True) -> None:
        """Refresh CSS, unless nothing it depends on changed since the last refresh.

        Setting the theme at start queues a refresh, and showing the first
        screen asks for one with the same theme before it runs; each parses
        every stylesheet again, so the one that would change nothing is skipped.
        """
        key = (self._css_update_count, self.theme)
        if key == self._css_refreshed:
            return
        super().refresh_css(animate)
        self._css_refreshed = key

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return domain_variable_defaults(self.theme_set)

    @property
    def engine(self) -> Engine:
        """The session's engine (:mod:`ljtui.tui.engine_holder`)."""
        return self.engines.get()

    def _new_engine(self) -> Engine:
        from ljtui.core.engine import Engine

        return Engine(self.config, self.bridge, repo_root=self.repo_root, clock=self.clock,
                      client_factory=self._client_factory, approver=self.approver)

    def startup_info(self) -> StartupInfo:
        """What the main screen shows before the first message."""
        from ljtui.tui.result_view import startup_notices

        problem = self.startup.provider_problem
        notices = startup_notices(self.repo_root.name, self.startup_warnings, problem, self._review is not None)
        return StartupInfo(NO_MODEL_LABEL if problem else self.startup.provider, self.startup.branch, notices)

    @property
    def main_screen(self) -> MainScreen:
        """The main screen, at the bottom of the screen stack."""
        screen = self.screen_stack[0]
        assert isinstance(screen, MainScreen)
        return screen

    async def run_async(self, *args: Any, **kwargs: Any) -> int | None:
        """Run the app; the cyclic collector waits for the first frame (:mod:`ljtui.tui.collector`)."""
        self._collector.pause()
        try:
            return await super().run_async(*args, **kwargs)
        finally:
            self._collector.resume()

    async def on_unmount(self) -> None:
        """The app is closing: stop the session's MCP servers, close its log, remove the sandbox's temp dir."""
        engine = self.engines.made
        if engine is not None:
            await engine.aclose()

    def main_screen_ready(self) -> None:
        """The main screen is composed and its input has the focus: start the work that shows on it."""
        self._screen_ready.set()
        self.call_after_refresh(self._build_engine)

    def _build_engine(self) -> None:
        """After the first frame: build the engine in a thread, then start its work on the event loop."""
        self.engines.started()

        def build() -> None:
            self.engines.build(recover_journal if self._recover else None)
            try:
                self.call_from_thread(self._start_engine_work)
            except RuntimeError:  # the app closed meanwhile
                pass

        self.run_worker(build, name="engine", group="start", thread=True, exit_on_error=False)

    def _start_engine_work(self) -> None:
        """After the first frame: build the engine, ask about trust, open a plan given at start, watch."""
        self.main_screen.focus_diff_when_opened = self._review is not None
        engine = self.engine  # built by then: workers started together share it
        if self.startup.untrusted or self._resume is not None:
            self.bridge.run(self._trust_then_resume(), "start")
        else:  # a message sent meanwhile waits for the SessionStart hooks, without the app being busy
            self.run_worker(engine.start_hooks(), name="hooks", group="skills", exit_on_error=False)
        if self._review is not None:
            request = self._review
            self.bridge.thread(lambda: engine.review.open_request(request), "open_plan")
        if self._watch:
            self.bridge.watch(engine)
        self.run_worker(lambda: self._load_skill_names(engine), name="skills", group="skills", thread=True,
                        exit_on_error=False)
        read_user_commands(self)
        self.run_worker(engine.gates.restore, name="gates", group="skills", thread=True, exit_on_error=False)
        self.run_worker(engine.check_sandbox, name="sandbox", group="skills", thread=True, exit_on_error=False)
        self.run_worker(engine.start_mcp(), name="mcp", group="skills", exit_on_error=False)
        self._collector.resume(freeze=not self.is_headless)
        self.started = True
        if self.prompt_held:
            self.prompt_held = False
            prompt = self.main_screen.query_one(PromptInput)
            send_prompt(self, prompt, prompt.value)

    def _load_skill_names(self, engine: Engine) -> None:
        """In a worker: the skills ``/NAME`` can start (a repository's own only when it is trusted)."""
        names = engine.skill_names()
        self.call_from_thread(setattr, self, "skill_names", names)

    async def _trust_then_resume(self) -> None:
        """Ask about the repository's settings first: trusting it may allow resuming a session it brought, and
        running its hooks; then the ``SessionStart`` hooks, of the resumed session if there is one."""
        if self.startup.untrusted:
            reload = lambda: prepare(self.repo_root, self._env, self._overrides).config  # noqa: E731
            await self.engine.trust_repository(self.startup.untrusted, self._env, reload)
        if self._resume is not None:
            await asyncio.to_thread(self.engine.resume, self._resume)
        await self.engine.start_hooks("startup" if self._resume is None else "resume")

    def resume(self, session_id: str) -> None:
        """Continue saved session ``session_id`` (``""``: the newest) in place of this conversation."""
        if self.bridge.busy:
            self.main_screen.conversation.add_notice("Still working; resume when the request has finished.",
                                                     "warning")
            return
        self.bridge.thread(lambda: self.engine.resume(session_id), "resume")

    def list_sessions(self) -> None:
        """Show the saved sessions (disk work: runs in a worker thread)."""
        from ljtui.tui.result_view import show_sessions

        listing = self.engine.sessions()
        self.call_from_thread(show_sessions, self.main_screen.conversation, listing, self.engine.session_log.id)

    async def gates_command(self, text: str) -> None:
        """``/gates TEXT`` through the engine; a listing it returns is shown unfolded."""
        shown = await self.engine.gates_command(text)
        if shown is not None:
            self.show_lines(*shown)

    def on_gates_pane_check_requested(self, message: Any) -> None:
        """``c`` / ``r`` in the Gates pane: the engine runs the checks and reports them as events."""
        self.bridge.run(self.engine.check_gate(message.item_id, failed_only=message.failed_only), "gate_check")

    def show_lines(self, title: str, lines: list[str]) -> None:
        """Show ``lines`` unfolded under ``title`` in the Conversation pane."""
        self.main_screen.conversation.add_details(title, lines, collapsed=False)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and self._key_taken(event):
            return
        if isinstance(event, events.Paste) and not event.is_forwarded and self._paste_held(event):
            return
        await super().on_event(event)

    def _paste_held(self, event: events.Paste) -> bool:
        """Hold a paste that came before the main screen was ready, in order with the keys held beside it (an
        Enter typed after it sends it)."""
        top = self.screen_stack[-1] if self.screen_stack else None
        if isinstance(top, MainScreen) and not top.takes_keys:
            top.hold_key(event)
            return True
        return False

    def _key_taken(self, event: events.Key) -> bool:
        """Drop a key typed before the dialog on top opened; hold one typed before the main screen was
        ready; route text typed in a pane to the input."""
        top = self.screen_stack[-1] if self.screen_stack else None
        opened_at = getattr(top, "opened_at", None)
        if opened_at is not None:
            return event.time < opened_at
        if isinstance(top, MainScreen):
            if not top.takes_keys:
                top.hold_key(event)
                return True
            from ljtui.tui.key_routing import route_key

            return route_key(top, event, self._pane_keys)
        return False

    @cached_property
    def _pane_keys(self) -> dict[str, set[str]]:
        """The keys bound in each pane after the user's keymap, which is fixed for the session."""
        return ACTIONS.keys_by_pane(self.config.ui.keymap)

    def choose_theme(self, name: str) -> None:
        """Switch to theme ``name``, or list the themes when ``name`` is empty."""
        conv = self.main_screen.conversation
        available = ", ".join(self.theme_set.themes)
        if not name:
            conv.add_notice(f"Theme: {self.theme}. Available: {available}.")
        elif name in self.theme_set.themes:
            self.theme = name
            conv.add_notice(f"Theme: {name}")
            remember_theme(self, name, self._env, lambda why: conv.add_notice(why, "warning"))
        else:
            conv.add_notice(f"Unknown theme '{name}'. Available: {available}.", "error")

    def action_run_action(self, action_id: str) -> None:
        """Run a registry action (every key binding lands here)."""
        action = ACTIONS.get(action_id)
        if action is not None:
            action.run(self, "")

    def slash_names(self) -> tuple[str, ...]:
        """The names ``/NAME`` runs: the registry's commands, the skills and the user's own commands."""
        return (*(a.slash for a in ACTIONS.slash_commands()), *self.skill_names, *user_commands(self).names)

    @on(PromptInput.Submitted)
    def _on_prompt(self, event: PromptInput.Submitted) -> None:
        send_prompt(self, event.prompt, event.value)

    def ask(self, text: str, *, mode: str = CHAT, skill: str | None = None) -> None:
        """Send a message to the agent (``chat``), a request to the read-only EDIT planner (``edit``), or a
        goal to split into a task plan (``plan``), or a plain message the engine routes (``message``)."""
        prompt = self.main_screen.query_one(PromptInput)
        if self.bridge.busy:
            self.main_screen.conversation.add_notice(
                "Still working on the previous request; wait for it to finish.", "warning"
            )
            prompt.value = f"/{mode} {text}" if mode in (EDIT, PLAN, CHAT) else text
            return
        self.main_screen.conversation.add_user(text)
        engine = self.engine
        if mode == PLAN:
            self.bridge.run(engine.run_plan(text, skill=skill), mode)
            return
        work = {EDIT: engine.plan_and_review, MESSAGE: engine.handle_message}.get(mode, engine.run_turn)
        self.bridge.run(work(text), mode)

    async def on_engine_event_posted(self, message: EngineEventPosted) -> None:
        from ljtui.tui.event_view import show_event

        self.costs.observe(message.event)
        if self._exit or not self.screen_stack:
            return  # the app is closing: an event a worker sent on its way out has nowhere to go
        self.attention.observe(message.event)
        try:
            await show_event(self.main_screen, message.event, self._calls)
        except NoMatches:  # a pane missing while the app runs is a fault; while it closes, the event is late
            if not (self.main_screen._closing or not self.main_screen.is_attached):
                raise

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The Plan pane's approval keys act, and show in the footer, only while a plan waits for them."""
        if action == "run_action" and parameters and str(parameters[0]) in PLAN_APPROVAL_ACTIONS:
            from ljtui.tui.widgets.plan_pane import PlanPane

            panes = self.screen_stack[0].query(PlanPane) if self.screen_stack else []
            return any(pane.approving for pane in panes)
        return True

    def action_help(self) -> None:
        from ljtui.tui.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss(None)
            return
        self.push_screen(HelpScreen(ACTIONS, self.config.ui.keymap))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        from ljtui.tui.palette import system_commands

        yield from system_commands(self, screen)
