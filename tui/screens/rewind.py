"""The rewind screen: pick an earlier message of the session, then restore the code, the conversation or both.

``/rewind``, or Escape twice within :data:`DOUBLE_ESCAPE_SECONDS` while the
input box is empty and no dialog is open, asks the engine for the points
(:class:`~ljtui.core.rewind_events.RewindListed`); this screen lists them,
the user's messages as plain text (never markup), newest last, each with the
files a code rewind restores. A choice goes back to the engine, which asks
for confirmation through the Approver port and does the work; the outcome
(:class:`~ljtui.core.rewind_events.RewindFinished`) is said in the
Conversation and, when the conversation went back, the message returns to
the input box.
"""

from __future__ import annotations

import time
import weakref
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ljtui.core.display import shown_line
from ljtui.core.rewind_events import BOTH, CODE, CONVERSATION, RewindFinished, RewindListed, RewindPoint
from ljtui.tui.screens.dialog import Dialog, KeyLine

if TYPE_CHECKING:
    from ljtui.core.events import Event
    from ljtui.tui.app import LjtuiApp
    from ljtui.tui.screens.main import MainScreen

DOUBLE_ESCAPE_SECONDS = 0.5
"""Two Escapes at most this far apart open the rewind screen."""
TEXT_CELLS = 72
"""A message is shown on one line of at most this many characters."""
NOTHING_TO_REWIND = "Nothing to rewind: no message was sent in this conversation yet."
Choice = tuple[int, str]
"""The message number and what to rewind (``code``, ``conversation`` or ``both``)."""

_last_escape: weakref.WeakKeyDictionary[object, float] = weakref.WeakKeyDictionary()


def point_label(point: RewindPoint) -> str:
    """One row of the list: the number, the message on one line, and what a code rewind restores."""
    text = shown_line(" ".join(point.text.split()))
    if len(text) > TEXT_CELLS:
        text = text[:TEXT_CELLS - 1] + "…"
    if point.files is None:
        files = "files not recorded"
    else:
        files = f"{len(point.files)} file{'s' if len(point.files) != 1 else ''} to restore"
    return f"{point.number:>3}  {text}  · {files}"


class RewindScreen(Dialog["Choice | None"]):
    """The session's messages, newest last; Enter or b rewinds both, c the code, v the conversation."""

    DEFAULT_CSS = """
    RewindScreen OptionList, RewindScreen OptionList:focus { height: auto; max-height: 20; border: none;
        padding: 0; }
    """

    BINDINGS = [
        Binding("enter,b", f"choose('{BOTH}')", "code and conversation", show=False),
        Binding("c", f"choose('{CODE}')", "code only", show=False),
        Binding("v", f"choose('{CONVERSATION}')", "conversation only", show=False),
        Binding("escape", "close", "close", show=False),
        Binding("j", "move(1)", show=False),
        Binding("k", "move(-1)", show=False),
    ]

    def __init__(self, points: tuple[RewindPoint, ...]) -> None:
        super().__init__()
        self.points = points

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog-box") as box:
            box.border_title = Content("Rewind to a message")
            yield Static(Content("Go back to before one of your messages. The files as they were before it "
                                 "(every apply and agent write since), the conversation, or both."),
                         classes="dialog-lines")
            yield OptionList(*(Option(Content(point_label(p)), id=str(p.number)) for p in self.points),
                             id="rewind-points")
            yield KeyLine(self.key_list(), classes="dialog-keys")

    def on_mount(self) -> None:
        super().on_mount()
        options = self.query_one(OptionList)
        options.highlighted = len(self.points) - 1
        options.focus()

    def key_list(self) -> list[str]:
        return ["Enter/b: code and conversation", "c: code only", "v: conversation only", "↑↓: choose",
                "Esc: close"]

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_choose(BOTH)

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        options.action_cursor_down() if step > 0 else options.action_cursor_up()

    def action_choose(self, mode: str) -> None:
        highlighted = self.query_one(OptionList).highlighted
        if highlighted is not None and 0 <= highlighted < len(self.points):
            self.dismiss((self.points[highlighted].number, mode))

    def action_close(self) -> None:
        self.dismiss(None)


def open_rewind(app: LjtuiApp) -> None:
    """Ask the engine for the points; the screen opens when they arrive (``/rewind``)."""
    if app.bridge.busy:
        app.main_screen.conversation.add_notice("Still working on the previous request; rewind when it ends.",
                                                "warning")
        return
    app.bridge.run(app.engine.rewinds.show(), "rewind")


def second_escape(app: LjtuiApp) -> bool:
    """Whether this Escape is the second of two within :data:`DOUBLE_ESCAPE_SECONDS`, while nothing runs, the
    input box is empty and no dialog is open; the rewind screen is then opened."""
    now = time.monotonic()
    previous = _last_escape.get(app)
    idle = not app.bridge.busy and app.screen is app.main_screen and not app.main_screen.prompt.value.strip()
    if not idle:
        _last_escape.pop(app, None)
        return False
    if previous is not None and now - previous <= DOUBLE_ESCAPE_SECONDS:
        _last_escape.pop(app, None)
        open_rewind(app)
        return True
    _last_escape[app] = now
    return False


def show_rewind_event(screen: MainScreen, event: Event) -> None:
    """Open the screen on the listed points, or say what a rewind did (the message back in the input box)."""
    conv = screen.conversation
    if isinstance(event, RewindListed):
        if not event.points:
            conv.add_notice(NOTHING_TO_REWIND)
            return
        app = screen.app

        def chosen(choice: Choice | None) -> None:
            if choice is not None:
                app.bridge.run(app.engine.rewinds.rewind(*choice), "rewind")  # type: ignore[attr-defined]

        app.push_screen(RewindScreen(event.points), chosen)
    elif isinstance(event, RewindFinished):
        for message, level in event.lines():
            conv.add_notice(message, level)
        if event.remaining is not None:
            from ljtui.core.review.events import remaining_line

            conv.add_notice(f"/undo: {remaining_line(event.remaining)}.")
        if event.prompt:
            screen.prompt.value = event.prompt
            screen.prompt.focus()
