"""The ljtui application: wires config, themes, the engine and the screen."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from textual import on
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input

from ljtui.core.config import load_config, user_config_dir
from ljtui.core.ports import Clock, SystemClock
from ljtui.core.providers import provider_label, provider_problem
from ljtui.core.repo import current_branch
from ljtui.tui.bridge import Bridge
from ljtui.tui.messages import (
    ApplyFinished, ApplyProgressed, EngineEventPosted, PlanExported, ReviewChanged, ReviewFailed, UndoFinished,
    UndoPreviewed,
)
from ljtui.tui.review_actions import ReviewActions
from ljtui.tui.screens.main import PANES, MainScreen, StartupInfo
from ljtui.tui.slash import SlashCommand, UnknownSlashCommand, parse_slash, unescape_message
from ljtui.tui.themes import DEFAULT_THEME, domain_variable_defaults, load_themes
from ljtui.tui.widgets.diff_pane import DIFF_ACTIONS, DiffPane
from ljtui.tui.widgets.prompt_input import PromptInput

if TYPE_CHECKING:
    from ljtui.core.engine import ClientFactory, Engine


class LjtuiApp(App[int]):
    """The full-screen coding agent."""

    CSS_PATH = "app.tcss"
    TITLE = "ljtui"
    MODES = {"main": MainScreen}
    DEFAULT_MODE = "main"

    BINDINGS = [
        Binding("f1", "help", "Help", id="app.help", tooltip="Show keys and commands"),
        Binding("question_mark", "help", "Help", show=False, id="app.help_alt",
                tooltip="Show keys and commands (when the input is not focused)"),
        Binding("ctrl+l", "clear", "Clear", id="app.clear", tooltip="Forget the conversation", show=False),
        Binding("ctrl+q", "quit", "Quit", id="app.quit", tooltip="Quit ljtui", priority=True),
    ]

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
        review_path: Path | None = None,
    ) -> None:
        """
        Args:
            repo_root: the repository to work in (default: the current directory).
            overrides: config keys from command-line flags.
            clock: time source (inject a fixed clock in tests).
            env: environment variables (default: ``os.environ``).
            client_factory: builds the model client (default: from the config).
            cursor_blink: blink the input cursor (off for snapshots).
            watch: watch the repository for changes to files under review.
            review_path: an EDIT plan to open for review at start.
        """
        self.repo_root = (repo_root or Path.cwd()).resolve()
        self.clock = clock or SystemClock()
        self._env = dict(os.environ if env is None else env)
        loaded = load_config(self.repo_root, self._env, overrides)
        self.config = loaded.config
        self.startup_warnings = list(loaded.warnings)
        self.theme_set = load_themes(user_config_dir(self._env) / "themes")
        self.startup_warnings += self.theme_set.warnings
        self._initial_theme = self._resolve_theme(self.config.ui.theme)
        super().__init__()
        self.bridge = Bridge(self, lambda: self.engine, self.repo_root, self.clock)
        self.reviews = ReviewActions(self, watch=watch)
        self._review_path = review_path
        self.cursor_blink = cursor_blink
        self._client_factory = client_factory
        self._engine: Engine | None = None
        self._calls: dict[str, str] = {}
        for theme in self.theme_set.themes.values():
            self.register_theme(theme)
        self.theme = self._initial_theme

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return domain_variable_defaults(self.theme_set)

    @property
    def engine(self) -> Engine:
        """The session's engine, built (and imported) on first use so the
        first frame does not wait for it."""
        if self._engine is None:
            from ljtui.core.engine import Engine

            self._engine = Engine(
                self.config, self.bridge, repo_root=self.repo_root, clock=self.clock,
                client_factory=self._client_factory,
            )
        return self._engine

    def startup_info(self) -> StartupInfo:
        """What the main screen shows before the first message."""
        notices = [(
            f"ljtui in {self.repo_root.name}. Type a request and press Enter; "
            "/help lists commands, F1 shows keys.", "info",
        )]
        notices += [(w, "warning") for w in self.startup_warnings]
        problem = None if self._review_path else provider_problem(self.config.provider, self._env)
        if problem:
            notices.append((problem[0].upper() + problem[1:] + ".", "warning"))
        return StartupInfo(provider_label(self.config.provider), current_branch(self.repo_root), notices)

    @property
    def main_screen(self) -> MainScreen:
        """The main screen, at the bottom of the screen stack."""
        screen = self.screen_stack[0]
        assert isinstance(screen, MainScreen)
        return screen

    def on_mount(self) -> None:
        if self._review_path is not None:
            self.bridge.open_plan(self._review_path)

    def _resolve_theme(self, name: str) -> str:
        if name in self.theme_set.themes:
            return name
        self.startup_warnings.append(
            f"Unknown theme '{name}' (ui.theme). Available: {', '.join(self.theme_set.themes)}. "
            f"Using {DEFAULT_THEME}."
        )
        return DEFAULT_THEME

    def apply_theme(self, name: str) -> bool:
        """Switch to theme ``name``; an unknown name is an error notice."""
        if name in self.theme_set.themes:
            self.theme = name
            return True
        self.main_screen.conversation.add_notice(
            f"Unknown theme '{name}'. Available: {', '.join(self.theme_set.themes)}.", "error"
        )
        return False

    @on(Input.Submitted, "PromptInput")
    async def _on_prompt(self, event: Input.Submitted) -> None:
        text = event.value
        prompt = self.main_screen.query_one(PromptInput)
        if not text.strip():
            return
        try:
            command = parse_slash(text)
        except UnknownSlashCommand as exc:
            self.main_screen.conversation.add_notice(str(exc), "error")
            return
        prompt.clear()
        if command is not None:
            await self.run_slash(command)
            return
        self.ask(unescape_message(text), plan=True)

    def ask(self, text: str, *, plan: bool) -> None:
        """Send a request to the planner (``plan``) or a message to the chat."""
        prompt = self.main_screen.query_one(PromptInput)
        if self.bridge.busy:
            self.main_screen.conversation.add_notice(
                "Still working on the previous request; wait for it to finish.", "warning"
            )
            prompt.value = text if plan else f"/chat {text}"
            return
        self.main_screen.conversation.add_user(text)
        if plan:
            self.bridge.request_plan(text)
        else:
            self.bridge.send(text)

    async def run_slash(self, command: SlashCommand) -> None:
        conv = self.main_screen.conversation
        if command.name == "chat":
            if command.args:
                self.ask(command.args, plan=False)
            else:
                conv.add_notice("Usage: /chat MESSAGE", "error")
        elif command.name == "open":
            if command.args:
                path = Path(command.args).expanduser()
                self.bridge.open_plan(path if path.is_absolute() else self.repo_root / path)
            else:
                conv.add_notice("Usage: /open PLAN.md", "error")
        elif command.name in ("apply", "undo"):
            self.reviews.request(command.name)
        elif command.name == "help":
            self.action_help()
        elif command.name == "clear":
            self.action_clear()
        elif command.name == "theme":
            if command.args:
                if self.apply_theme(command.args):
                    conv.add_notice(f"Theme: {command.args}")
            else:
                conv.add_notice(f"Theme: {self.theme}. Available: {', '.join(self.theme_set.themes)}.")

    async def on_engine_event_posted(self, message: EngineEventPosted) -> None:
        from ljtui.tui.event_view import show_event

        await show_event(self.main_screen, message.event, self._calls)

    def on_diff_pane_action_requested(self, message: DiffPane.ActionRequested) -> None:
        self.reviews.request(message.action, message.number)

    def on_review_changed(self, message: ReviewChanged) -> None:
        self.reviews.review_changed(message)

    def on_review_failed(self, message: ReviewFailed) -> None:
        self.reviews.review_failed(message)

    def on_apply_progressed(self, message: ApplyProgressed) -> None:
        self.reviews.apply_progressed(message)

    def on_apply_finished(self, message: ApplyFinished) -> None:
        self.reviews.apply_finished(message)

    def on_undo_previewed(self, message: UndoPreviewed) -> None:
        self.reviews.undo_previewed(message)

    def on_undo_finished(self, message: UndoFinished) -> None:
        self.reviews.undo_finished(message)

    def on_plan_exported(self, message: PlanExported) -> None:
        self.reviews.plan_exported(message)

    def action_help(self) -> None:
        from ljtui.tui.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            return
        bindings = [*self.BINDINGS, *MainScreen.BINDINGS, *DiffPane.BINDINGS]
        self.push_screen(HelpScreen([b for b in bindings if isinstance(b, Binding)]))

    def action_clear(self) -> None:
        self.engine.clear()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):
            if command.title != "Theme":
                yield command
        yield SystemCommand("Help", "Show keys and commands", self.action_help)
        yield SystemCommand("Clear conversation", "Forget the conversation", self.action_clear)
        main = self.main_screen
        for pane_id, title in PANES.items():
            yield SystemCommand(f"Focus {title}", f"Move focus to the {title} pane",
                                lambda p=pane_id: main.action_focus_pane(p))
        yield SystemCommand("Maximise or restore pane", "Toggle the focused pane full screen",
                            main.action_toggle_maximize)
        yield SystemCommand("Hide or show side panes", "Toggle Plan, Diff and Gates", main.action_toggle_side)
        for binding in DiffPane.BINDINGS:
            action = binding.action.removeprefix("request('").removesuffix("')")
            if action in DIFF_ACTIONS:
                yield SystemCommand(binding.tooltip, f"Key {binding.key} in the Diff pane",
                                    lambda a=action: self.reviews.request(a, main.diff_pane.current_number))
        for name in self.theme_set.themes:
            yield SystemCommand(f"Theme: {name}", f"Switch to the {name} theme",
                                lambda n=name: self.apply_theme(n))
