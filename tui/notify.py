"""Telling the user that ljtui waits for them: "waiting for you" in the status bar while a plan or a dialog
waits, and, while the terminal is not focused, a notification when a turn ends or a question waits.

The notification is the terminal bell, or the terminal's desktop notification sequence (``ui.notify``):
OSC 9 (iTerm2, WezTerm, ghostty, Windows Terminal) or OSC 777 (kitty, foot, rxvt-unicode). Its text may
hold the model's words, so it is made plain (no control, format or escape character) and bounded before it
goes to the terminal. Whether the terminal is focused is Textual's ``App.app_focus``, from the terminal's
focus reports (``AppBlur``, ``AppFocus``); a terminal that sends none counts as focused and is never
notified.
"""

from __future__ import annotations

import unicodedata
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Iterator, Mapping

from ljtui.core.events import Event

if TYPE_CHECKING:
    from textual.app import App

BELL, OSC9, OSC777, OFF, AUTO = "bell", "osc9", "osc777", "off", "auto"
OSC9_TERMINALS = frozenset({"iTerm.app", "WezTerm", "ghostty"})
"""``TERM_PROGRAM`` values of terminals that show OSC 9 as a desktop notification (``auto``)."""
WINDOWS_TERMINAL_ENV = "WT_SESSION"
"""Set in every Windows Terminal session (which shows OSC 9 too)."""
MAX_TEXT_CHARS = 120
"""Longest notification text; longer text is cut with an ellipsis."""
TITLE = "ljtui"


def notify_mode(setting: str, env: Mapping[str, str]) -> str:
    """What ``ui.notify`` means in this terminal: ``auto`` is ``osc9`` in a terminal known to show it, else the
    bell."""
    if setting != AUTO:
        return setting
    if env.get("TERM_PROGRAM") in OSC9_TERMINALS or env.get(WINDOWS_TERMINAL_ENV):
        return OSC9
    return BELL


def plain_text(text: str) -> str:
    """``text`` on one line without control, format, surrogate or private characters (``;`` too: it ends a
    field of OSC 777), spaces squeezed, cut to :data:`MAX_TEXT_CHARS`."""
    kept = "".join(" " if unicodedata.category(ch).startswith("C") or ch == ";" else ch for ch in text)
    line = " ".join(kept.split())
    return line if len(line) <= MAX_TEXT_CHARS else line[:MAX_TEXT_CHARS - 1] + "…"


def sequence(mode: str, text: str) -> str:
    """What is written to the terminal for ``text`` in ``mode`` (``""`` when ``off``). OSC 9 has no title: its
    body starts with ``ljtui:``, so a terminal never reads it as one of OSC 9's numbered sub-commands."""
    if mode == OSC9:
        return f"\x1b]9;{plain_text(f'{TITLE}: {text}')}\x07"
    if mode == OSC777:
        return f"\x1b]777;notify;{TITLE};{plain_text(text)}\x07"
    return "\x07" if mode == BELL else ""


class Attention:
    """Shows and tells that ljtui waits for the user.

    Given the app (its ``app_focus``, its driver and the main screen's status bar), the ``ui.notify`` setting
    and the environment it runs in.
    """

    def __init__(self, app: App, setting: str, env: Mapping[str, str]) -> None:
        self._app = app
        self.mode = notify_mode(setting, env)
        self._waiting = 0
        self.write: Callable[[str], None] = self._to_terminal
        """Where sequences go: the app's driver (the terminal)."""

    @property
    def waiting(self) -> bool:
        """Whether a plan or a dialog waits for the user now."""
        return self._waiting > 0

    @contextmanager
    def waits(self, question: str) -> Iterator[None]:
        """While the body runs, a question waits for the user: shown, and notified when unfocused."""
        self._waiting += 1
        self._show_waiting()
        self.notify(f"waiting for you: {question}")
        try:
            yield
        finally:
            self._waiting -= 1
            self._show_waiting()

    def _show_waiting(self) -> None:
        """The main screen's status bar says "waiting for you" while a question waits (none: the app closes)."""
        from ljtui.tui.widgets.status_bar import StatusBar

        stack = self._app.screen_stack
        for bar in stack[0].query(StatusBar) if stack else ():
            bar.waiting = self.waiting

    def observe(self, event: Event) -> None:
        """A turn that ended (or failed) is notified when the terminal is not focused."""
        kind = event.kind  # by name: the event classes are imported once the first event comes
        if kind == "turn_finished":
            text: str = event.text  # type: ignore[attr-defined]
            first = next((line for line in text.splitlines() if line.strip()), "")
            self.notify(f"done: {first}" if first else "done")
        elif kind == "turn_failed":
            self.notify(f"failed: {event.message}")  # type: ignore[attr-defined]

    def notify(self, text: str) -> None:
        """Send ``text`` to the terminal as ``ui.notify`` says, only when the terminal is not focused."""
        if self._app.app_focus or self.mode == OFF:
            return
        self.write(sequence(self.mode, text))

    def _to_terminal(self, data: str) -> None:
        driver = self._app._driver
        if driver is not None and data:
            driver.write(data)
