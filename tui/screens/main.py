"""The main screen: four panes, the prompt, the status bar and the footer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widget import Widget

from ljtui.core.clock import Clock
from ljtui.tui.commands import ACTIONS, MAIN
from ljtui.tui.widgets.conversation import Conversation
from ljtui.tui.widgets.diff_pane import DiffPane
from ljtui.tui.widgets.gates_pane import GatesPane
from ljtui.tui.widgets.key_footer import KeyFooter
from ljtui.tui.widgets.plan_pane import PlanPane
from ljtui.tui.widgets.prompt_input import PromptInput
from ljtui.tui.widgets.status_bar import StatusBar

PANES: dict[str, str] = {
    "conversation": "Conversation",
    "plan": "Plan",
    "diff": "Diff",
    "gates": "Gates",
    "prompt": "Prompt",
}
"""Focus targets by widget id, with their names for titles and commands."""
PANE_KEYS: dict[str, str] = {"conversation": "F2", "plan": "F3", "diff": "F4", "gates": "F5", "prompt": "F6"}
"""The key that moves to each pane on purpose."""
SIDE_PANES = ("plan", "diff", "gates")
"""The panes of the side column; the one with the focus gets most of its room."""
CONVERSATION_MIN_WIDTH = 42
"""Columns the Conversation keeps beside a focused side pane, its border included (``main.tcss``): 40 for its
text, on any terminal from 80 columns wide (under 80 a focused side pane takes the whole width)."""
HINT_INTERVAL = 3.0
"""Seconds the same typing hint waits before it is shown again (a word typed in a pane shows it once)."""


@dataclass(frozen=True)
class StartupInfo:
    """What the main screen shows before the first message."""

    provider: str = ""
    branch: str | None = None
    notices: list[tuple[str, str]] = field(default_factory=list)
    """``(message, level)`` pairs for the Conversation pane."""


class ScreenHost(Protocol):
    """What the main screen needs from its app."""

    cursor_blink: bool
    clock: Clock

    def startup_info(self) -> StartupInfo: ...

    def slash_names(self) -> tuple[str, ...]: ...

    def main_screen_ready(self) -> None: ...


class MainScreen(Screen):
    """One screen, four panes (UI-1).

    The layout follows the focus: the Conversation is wide while it or the
    input has the focus; a side pane with the focus widens the side column
    and takes most of its height, the other side panes keeping their title
    and a line; the Conversation keeps :data:`CONVERSATION_MIN_WIDTH` columns,
    or, under 80 columns (``-tiny``), gives the focused side pane the whole
    width. ``-tiny``, ``-narrow`` and ``-short`` (the terminal's width and
    height, by breakpoint) choose how far: see ``main.tcss``.
    """

    AUTO_FOCUS = "#prompt"

    HORIZONTAL_BREAKPOINTS = [(0, "-tiny"), (80, "-narrow"), (100, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]

    BINDINGS = ACTIONS.bindings(MAIN)

    focus_diff_when_opened = False
    """Move to the Diff pane when the next plan opens (``ljtui review`` asked for it)."""

    def __init__(self) -> None:
        super().__init__()
        self.chosen_pane: str | None = None
        """The pane the user moved to on purpose; its single-letter keys are actions."""
        self._shown_at: dict[str, float] = {}
        self.takes_keys = False
        """Whether the panes are composed and the input focused (keys typed before are held)."""
        self._held_keys: list[events.Key | events.Paste] = []
        self._last_hint: tuple[str, float] = ("", 0.0)

    def hold_key(self, event: events.Key | events.Paste) -> None:
        """Keep a key typed (or text pasted) before the screen was ready; it is sent again, in the order it came,
        once the input has the focus.

        A held Ctrl+J is sent as Enter: keys typed while ljtui starts reach the terminal before it is in raw
        mode, and the terminal turns their Enter into a line feed (what Ctrl+J sends), so the message typed
        with it would become a line break in the box instead of being sent."""
        if isinstance(event, events.Paste):
            held: events.Key | events.Paste = events.Paste(event.text)
        elif event.key == "ctrl+j":
            held = events.Key("enter", "\r")
        else:
            held = events.Key(event.key, event.character)
        self._held_keys.append(held)

    def on_screen_resume(self) -> None:
        if not self.takes_keys:
            self.takes_keys = True
            for key in self._held_keys:
                self.app.post_message(key)
            self._held_keys.clear()
            host: ScreenHost = self.app  # type: ignore[assignment]
            host.main_screen_ready()

    def hint(self, text: str) -> None:
        """Show a one-line hint for a key that did nothing; the same hint at most once every
        :data:`HINT_INTERVAL` seconds, so a word typed in a pane shows it once."""
        from textual import _time

        now = _time.get_time()
        if text == self._last_hint[0] and now - self._last_hint[1] < HINT_INTERVAL:
            return
        self._last_hint = (text, now)
        self.notify(text, timeout=HINT_INTERVAL, markup=False)

    def shown_at(self, pane: str) -> float:
        """When ``pane`` last started showing new content (keys pressed before are not for it)."""
        return self._shown_at.get(pane, 0.0)

    def content_changed(self, pane: str) -> None:
        """Record that ``pane`` now shows something new."""
        from textual import _time

        self._shown_at[pane] = _time.get_time()

    def watch_focused(self, focused: Widget | None) -> None:
        """Give the pane with the focus the room; with no focus the layout stays as it is."""
        from ljtui.tui.key_routing import pane_of

        if focused is None:
            return
        pane = pane_of(self)
        self.set_class(pane in SIDE_PANES, "-focus-side")
        for side_pane in SIDE_PANES:
            self.set_class(pane == side_pane, f"-focus-{side_pane}")

    @property
    def side_focus(self) -> str | None:
        """The side pane the layout gives the room to, if one."""
        return next((p for p in SIDE_PANES if self.has_class(f"-focus-{p}")), None)

    def on_descendant_focus(self) -> None:
        from ljtui.tui.key_routing import pane_of

        if pane_of(self) != self.chosen_pane:
            self.chosen_pane = None

    def on_click(self, event) -> None:  # type: ignore[no-untyped-def]
        """A click on a pane is a choice to work there."""
        from ljtui.tui.key_routing import pane_of

        self.call_after_refresh(lambda: setattr(self, "chosen_pane", pane_of(self)))

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    def compose(self) -> ComposeResult:
        host: ScreenHost = self.app  # type: ignore[assignment]
        self._startup = host.startup_info()
        with Horizontal(id="body"):
            yield Conversation(host.clock.monotonic, self._startup.notices, id="conversation")
            with Vertical(id="side"):
                yield PlanPane(id="plan")
                yield DiffPane(id="diff")
                yield GatesPane(id="gates")
        yield PromptInput(id="prompt", blink=host.cursor_blink, commands=host.slash_names)
        yield StatusBar(id="status")
        yield KeyFooter()

    def on_mount(self) -> None:
        for pane_id, title in PANES.items():
            if pane_id == "prompt":
                continue
            action = ACTIONS.get(f"focus.{pane_id}")
            key = action.keys if action is not None else ""
            self.query_one(f"#{pane_id}").border_title = f"{title} · {key.upper()}"
        self.status.provider = self._startup.provider
        self.status.branch = self._startup.branch

    @property
    def conversation(self) -> Conversation:
        return self.query_one(Conversation)

    @property
    def diff_pane(self) -> DiffPane:
        return self.query_one(DiffPane)

    @property
    def status(self) -> StatusBar:
        return self.query_one(StatusBar)

    def pane(self, pane_id: str) -> Widget:
        return self.query_one(f"#{pane_id}")

    @property
    def maximized_pane(self) -> str | None:
        """The id of the pane that fills the body, if one does."""
        return next((p for p in PANES if self.has_class(f"-max-{p}")), None)

    def action_focus_pane(self, pane_id: str) -> None:
        """Focus a pane; if another pane fills the body, restore the layout first."""
        if pane_id not in PANES:
            return
        target = self.pane(pane_id)
        if self.maximized_pane not in (None, pane_id, "prompt") and pane_id != "prompt":
            self._set_maximized(None)
        if pane_id != "conversation" and pane_id != "prompt":
            self.query_one("#side").remove_class("-hidden")
        self.set_focus(target)  # now, so keys read with F6 in one batch already go to the target
        self.chosen_pane = pane_id

    def action_toggle_maximize(self) -> None:
        """Let the focused pane fill the body (the input stays), or restore the layout."""
        if self.maximized_pane is not None:
            self._set_maximized(None)
            return
        focused = self.focused
        pane = next((p for p in PANES if p != "prompt" and focused is not None
                     and (focused.id == p or any(a.id == p for a in focused.ancestors))), "conversation")
        self._set_maximized(pane)

    def _set_maximized(self, pane: str | None) -> None:
        for p in PANES:
            self.set_class(p == pane, f"-max-{p}")

    def action_toggle_side(self) -> None:
        side = self.query_one("#side")
        side.toggle_class("-hidden")
        if side.has_class("-hidden") and self.focused is not None and side in self.focused.ancestors:
            self.query_one(PromptInput).focus()
